"""The hook environment policy: secret-shaped names and values never pass, the allowlist mode passes
only what it lists, and the real hook process sees exactly that."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compat_adapter.runtime.environment import BASELINE, EnvPolicy, hook_environment, is_secret, segments
from compat_adapter.runtime.process import run_command

SECRET_NAMES = [
    "DATABASE_URL", "REDIS_URL", "NPM_CONFIG__AUTH", "MYSQL_PWD", "CI_JOB_JWT", "SENTRY_DSN",
    "SLACK_WEBHOOK_URL", "AZURE_STORAGE_CONNECTION_STRING", "SSH_AUTH_SOCK", "GPG_AGENT_INFO",
    "PGPASSWORD", "HTPASSWD", "AWS_SESSION_TOKEN", "AWS_SECRET_ACCESS_KEY", "ANTHROPIC_API_KEY",
    "GOOGLE_APPLICATION_CREDENTIALS", "DOCKER_AUTH_CONFIG", "MONGODB_URI", "CELERY_BROKER_URL",
    "app_database_url", "SESSION_COOKIE", "GIT_SSH_PRIVATE", "db_connstr",
]

#: The scrub is a rule on the name's segments (``secret_name``): each row is a spelling that names
#: a credential without the words the old substring list knew in that place.
SEGMENT_SECRETS = [
    "DB_PASS", "SMTP_PASS", "GH_ENTERPRISE_PAT", "AZURE_DEVOPS_PAT", "MYSQL_PWD", "LDAP_BIND_PWD",
    "FTP_PASSWD", "GPG_PASSPHRASE", "SSH_KEY_PASSPHRASE", "AWS_SHARED_CREDENTIALS", "GCP_CREDS",
    "APP_SECRET", "CLIENT_SECRETS_JSON", "SECRET_KEY_BASE", "GITHUB_TOKEN", "NPM_TOKENS",
    "HF_TOKEN_2", "STRIPE_KEY", "SIGNING_KEYS", "OPENAI_APIKEY", "MAPS_API_KEY", "dbPassword",
    "ghToken", "clientSecret", "PGPASSWORD", "HTPASSWD", "CLIENTSECRET", "AUTHTOKEN",
    "GITHUB_TOKEN2", "db-pass", "vault.token",
]

#: Ordinary variables the rule must leave alone: a secret word glued inside another word, or a
#: name that ends in a folder (``PASSWORD_STORE_DIR`` is where ``pass`` keeps its encrypted store;
#: a hook running as the user reads that folder by its default path anyway, so scrubbing the name
#: would protect nothing and break hooks that use ``pass``).
SEGMENT_HARMLESS = [
    "PATH", "PATHEXT", "PWD", "OLDPWD", "COMPASS_HOME", "KEYBOARD_LAYOUT", "XKB_DEFAULT_KEYMAP",
    "TOKENIZERS_PARALLELISM", "PASSWORD_STORE_DIR", "XDG_RUNTIME_DIR", "XDG_SESSION_TYPE",
    "XDG_CURRENT_DESKTOP", "XDG_DATA_DIRS", "GIT_AUTHOR_NAME", "BYPASS_CACHE", "PASSENGER_APP_ENV",
    "SECRETARY_EMAIL", "PATIENT_ID", "MONKEYTYPE", "HOTKEY_MODE", "SSH_CONNECTION", "HOMEPAGE_URL",
    "KEYCHAIN_NAME", "HF_HOME", "PATTERN", "AUTHOR",
]

HARMLESS = {
    "PATH": "/usr/bin:/bin", "PWD": "/work", "OLDPWD": "/", "GIT_AUTHOR_NAME": "A. Author",
    "GIT_AUTHOR_EMAIL": "a@example.invalid", "JAVA_HOME": "/opt/jdk", "LANG": "C.UTF-8",
    "HOMEPAGE_URL": "https://example.invalid/", "REPO": "ssh://git@example.invalid/x.git",
    "PROXY": "http://proxy.internal:3128/", "NODE_OPTIONS": "--max-old-space-size=4096",
    "TASK_ID": "task-queue-processing-items-0001",
}

SECRET_VALUES = [
    "postgres://app:hunter2@db.internal:5432/app",
    "https://x-access-token:ghs_abc@github.com/org/repo.git",
    "https://0123456789abcdef0123456789abcdef@o1.ingest.sentry.io/1",
    "https://hooks.slack.com/services/T000/B000/XXXXXXXX",
    "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=c2VjcmV0;EndpointSuffix=core.windows.net",
    "Server=db;Database=x;User Id=u;Password=p4ss;",
    "ghp_" + "a" * 36,
    "github_pat_" + "b" * 40,
    "glpat-" + "c" * 20,
    "xoxb-1234567890-abcdef",
    "sk-ant-api03-" + "d" * 30,
    "AKIAABCDEFGHIJKLMNOP",
    "AIza" + "e" * 35,
    "npm_" + "f" * 36,
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig_nature-x",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----",
]


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_secret_shaped_names_never_pass(name: str) -> None:
    assert is_secret(name, "harmless")
    assert hook_environment({name: "harmless"}) == {}


@pytest.mark.parametrize("name", SEGMENT_SECRETS)
def test_every_common_spelling_of_a_secret_name_is_scrubbed(name: str) -> None:
    assert is_secret(name, "harmless"), segments(name)
    assert hook_environment({name: "harmless", "PATH": "/bin"}) == {"PATH": "/bin"}


@pytest.mark.parametrize("name", SEGMENT_HARMLESS)
def test_ordinary_names_that_merely_contain_a_secret_word_pass(name: str) -> None:
    assert not is_secret(name, "/usr/share/x"), segments(name)
    assert hook_environment({name: "/usr/share/x"}) == {name: "/usr/share/x"}


def test_a_folder_name_still_loses_a_secret_value() -> None:
    # The folder exception is about the name only: a credential in the value is scrubbed anyway.
    assert hook_environment({"PASSWORD_STORE_DIR": "https://u:hunter2@example.invalid/"}) == {}


def test_segments_split_separators_case_changes_and_trailing_digits() -> None:
    assert segments("dbPassword2") == ("DB", "PASSWORD")
    assert segments("NPM_CONFIG__AUTH") == ("NPM", "CONFIG", "AUTH")
    assert segments("GHEnterprisePAT") == ("GH", "ENTERPRISE", "PAT")
    assert segments("vault.token-file") == ("VAULT", "TOKEN", "FILE")


@pytest.mark.parametrize("value", SECRET_VALUES, ids=range(len(SECRET_VALUES)))
def test_secret_shaped_values_never_pass_whatever_the_name(value: str) -> None:
    assert is_secret("SOMETHING", value)
    assert hook_environment({"SOMETHING": value}) == {}
    assert hook_environment({"LANG": value}, policy=EnvPolicy(mode="allowlist")) == {}


def test_harmless_names_and_values_pass_in_inherit_mode() -> None:
    assert hook_environment(HARMLESS) == HARMLESS


def test_allowlist_mode_passes_the_baseline_and_what_the_operator_lists() -> None:
    base = {**HARMLESS, "LC_ALL": "C", "HOME": "/h", "NODE_ENV": "test", "NODE_PATH": "/n",
            "COMPAT_ADAPTER_HOOK_ENV": "allowlist", "COMPAT_ADAPTER_HOOK_ENV_ALLOW": "JAVA_HOME, NODE_*,NPM_TOKEN",
            "NPM_TOKEN": "npm_" + "z" * 36}
    env = hook_environment(base, add={"CLAUDE_PROJECT_DIR": "/p"})
    assert env == {"PATH": HARMLESS["PATH"], "LANG": "C.UTF-8", "LC_ALL": "C", "HOME": "/h",
                   "JAVA_HOME": "/opt/jdk", "NODE_OPTIONS": HARMLESS["NODE_OPTIONS"], "NODE_ENV": "test",
                   "NODE_PATH": "/n",
                   # listed by exact name: the operator chose to hand this secret to hooks
                   "NPM_TOKEN": base["NPM_TOKEN"],
                   "CLAUDE_PROJECT_DIR": "/p"}
    assert {"PATH", "HOME", "LANG", "TMPDIR"} <= BASELINE


def test_a_mistyped_mode_is_the_strict_one() -> None:
    env = hook_environment({"COMPAT_ADAPTER_HOOK_ENV": "alowlist", "JAVA_HOME": "/opt", "PATH": "/bin"})
    assert env == {"PATH": "/bin"}


def test_host_settings_never_pass() -> None:
    base = {"DSH_MODEL": "x", "dsh_lower": "x", "COMPAT_ADAPTER_HOOK_ENV": "inherit", "PATH": "/bin"}
    assert hook_environment(base) == {"PATH": "/bin"}


def test_add_is_layered_unfiltered() -> None:
    assert hook_environment({}, add={"VENDOR_API_KEY": "chosen"}) == {"VENDOR_API_KEY": "chosen"}


async def test_a_real_hook_sees_exactly_the_policy(tmp_path: Path) -> None:
    base = {**HARMLESS, "PATH": os.environ["PATH"], "DATABASE_URL": "postgres://u:p@h/d",
            "SSH_AUTH_SOCK": "/tmp/ssh-x/agent.1", "MISC": "postgres://u:p@h/d",
            "COMPAT_ADAPTER_HOOK_ENV": "allowlist"}
    env = hook_environment(base)
    outcome = await run_command("env", stdin=None, cwd=tmp_path, env=env, timeout_s=60)
    seen = dict(line.split("=", 1) for line in outcome.stdout.splitlines() if "=" in line)
    seen.pop("PWD", None)  # the shell sets it
    seen.pop("SHLVL", None)
    seen.pop("_", None)
    assert seen == {"PATH": os.environ["PATH"], "LANG": "C.UTF-8"}


def test_verdicts_are_kept_per_value_and_policy_so_a_changed_variable_is_judged_again() -> None:
    # Each variable's verdict is remembered between runs: a value that turns secret-shaped, or an
    # operator's policy that changes, must still be judged on what it is now.
    base = {"PATH": "/usr/bin", "SERVICE_URL": "https://example.invalid/api"}
    assert hook_environment(base)["SERVICE_URL"] == base["SERVICE_URL"]
    leaked = {**base, "SERVICE_URL": "https://user:hunter2@example.invalid/api"}
    assert "SERVICE_URL" not in hook_environment(leaked)
    assert hook_environment(base)["SERVICE_URL"] == base["SERVICE_URL"]
    allow = {**base, "COMPAT_ADAPTER_HOOK_ENV": "allowlist"}
    assert hook_environment(allow) == {"PATH": "/usr/bin"}
    allow["COMPAT_ADAPTER_HOOK_ENV_ALLOW"] = "SERVICE_*"
    assert hook_environment(allow) == {"PATH": "/usr/bin", "SERVICE_URL": base["SERVICE_URL"]}


def test_a_change_to_the_hosts_environment_reaches_the_next_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    # The host's environment as filtered is kept between runs while os.environ stays the same.
    first = hook_environment(os.environ)
    assert "LANE_ADDED_LATER" not in first
    monkeypatch.setenv("LANE_ADDED_LATER", "1")
    monkeypatch.setenv("LANE_SERVICE_URL", "https://user:hunter2@example.invalid/")
    second = hook_environment(os.environ)
    assert second["LANE_ADDED_LATER"] == "1" and "LANE_SERVICE_URL" not in second
    second["MUTATED_BY_CALLER"] = "x"  # each call gets its own dict
    assert "MUTATED_BY_CALLER" not in hook_environment(os.environ)
    monkeypatch.delenv("LANE_ADDED_LATER")
    assert "LANE_ADDED_LATER" not in hook_environment(os.environ)
    monkeypatch.setenv("COMPAT_ADAPTER_HOOK_ENV", "allowlist")
    assert "LANE_SERVICE_URL" not in hook_environment(os.environ) and "PATH" in hook_environment(os.environ)
