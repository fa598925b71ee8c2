"""The environment a hook gets: which of the host's variables pass, and which never do.

Two policies, chosen by the host's operator with ``COMPAT_ADAPTER_HOOK_ENV``:

``inherit`` (the default)
    The host's environment minus everything secret-shaped: names (`SECRET_NAME`), values
    (`SECRET_VALUE`: credentials inside URLs, known token formats, private keys, connection
    strings) and the host's own settings (``DSH_*``, ``COMPAT_ADAPTER_*``). This is what the vendors
    do (Claude Code, Codex, Copilot … hand hooks their whole environment, minus nothing), so hooks
    that need ``JAVA_HOME``, ``NVM_DIR``, ``VIRTUAL_ENV``, ``GOPATH`` or a team's own variables keep
    working. The trade-off: a secret under a name and value that look harmless still passes.
``allowlist``
    Only `BASELINE` (PATH, HOME, locale, terminal, temp dirs …) plus the names the operator lists
    in ``COMPAT_ADAPTER_HOOK_ENV_ALLOW``, and still minus secret-shaped values. Nothing unknown
    passes; the trade-off is that hooks relying on toolchain variables break until those are
    listed. An unknown ``COMPAT_ADAPTER_HOOK_ENV`` value means ``allowlist``: a typo must not
    loosen the policy.

``COMPAT_ADAPTER_HOOK_ENV_ALLOW`` is a comma-separated list of names, or prefixes ending in ``*``
(``JAVA_HOME,NODE_*``). A name listed exactly passes under both policies even if it looks like
a secret: the operator chose it. The caller's ``add`` variables (the documented vendor variables such
as ``CLAUDE_PROJECT_DIR``) are layered last and never filtered, for the same reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

__all__ = ("BASELINE", "SECRET_NAME", "SECRET_VALUE", "EnvPolicy", "hook_environment", "is_secret")

#: Names that look like they hold a credential (searched anywhere in the name, any case).
SECRET_NAME: re.Pattern[str] = re.compile(
    r"KEY|PASSW(OR)?D|PASSPHRASE|SECRET|TOKEN|CREDENTIAL|JWT|COOKIE|PRIVATE|WEBHOOK"
    r"|_PWD$"  # MYSQL_PWD (not PWD, OLDPWD)
    r"|(^|_)AUTH(_|$)"  # NPM_CONFIG__AUTH, SSH_AUTH_SOCK, DOCKER_AUTH_CONFIG (not GIT_AUTHOR_*)
    r"|(^|_)AGENT_(SOCK|INFO)$"  # GPG_AGENT_INFO: an agent socket signs for whoever can reach it
    r"|(^|_)DSN$|CONN(ECTION)?_?STR(ING)?"  # SENTRY_DSN, AZURE_STORAGE_CONNECTION_STRING
    r"|(^|_)(DATABASE|DB|REDIS|MONGO(DB)?|POSTGRES(QL)?|PG|MYSQL|MARIADB|AMQP|RABBITMQ|BROKER"
    r"|ELASTIC(SEARCH)?|KAFKA|NATS|MEMCACHED?|CACHE)_UR[LI]$",  # DATABASE_URL, REDIS_URL …
    re.IGNORECASE,
)

#: Values that are credentials whatever their name.
SECRET_VALUE: re.Pattern[str] = re.compile(
    r"[a-z][a-z0-9+.-]*://[^/?#\s@:]*:[^/?#\s@]+@"  # scheme://user:password@host
    r"|[a-z][a-z0-9+.-]*://[^/?#\s@:]{20,}@"  # scheme://<token>@host (Sentry DSN, token URLs)
    r"|-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----"
    r"|\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+"  # a JWT
    r"|\b(gh[opusr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|glpat-[A-Za-z0-9_-]{20,}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9_-]{20,}|(AKIA|ASIA)[0-9A-Z]{16}"
    r"|AIza[0-9A-Za-z_-]{35}|npm_[A-Za-z0-9]{36}|pypi-AgE[A-Za-z0-9_-]{20,})"
    r"|hooks\.slack\.com/services/"
    r"|(AccountKey|SharedAccessKey|SharedAccessSignature|Password|Pwd)=[^;]+",
    re.IGNORECASE,
)

#: What the ``allowlist`` policy passes without being told.
BASELINE: frozenset[str] = frozenset({
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "COLORTERM",
    "NO_COLOR", "TMPDIR", "TMP", "TEMP", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
    "XDG_STATE_HOME",
})
_BASELINE_PREFIXES = ("LC_",)
#: The host's own settings never reach a hook.
_HOST_PREFIXES = ("DSH_", "COMPAT_ADAPTER_")
_NO_VARS: Mapping[str, str] = MappingProxyType({})


def is_secret(name: str, value: str) -> bool:
    """True when the name or the value has the shape of a credential."""
    return bool(SECRET_NAME.search(name) or SECRET_VALUE.search(value))


@dataclass(frozen=True, slots=True)
class EnvPolicy:
    """Which parent variables a hook sees; see the module docstring."""

    mode: str = "inherit"  # "inherit" | "allowlist"
    names: frozenset[str] = frozenset()  # exact names the operator allowed
    prefixes: tuple[str, ...] = ()  # prefixes the operator allowed (allowlist only)

    @classmethod
    def from_settings(cls, base: Mapping[str, str]) -> EnvPolicy:
        mode = base.get("COMPAT_ADAPTER_HOOK_ENV", "inherit").strip().lower() or "inherit"
        if mode not in ("inherit", "allowlist"):
            mode = "allowlist"
        names: set[str] = set()
        prefixes: list[str] = []
        for item in base.get("COMPAT_ADAPTER_HOOK_ENV_ALLOW", "").split(","):
            item = item.strip()
            if item.endswith("*"):
                if item[:-1]:
                    prefixes.append(item[:-1])
            elif item:
                names.add(item)
        return cls(mode=mode, names=frozenset(names), prefixes=tuple(prefixes))

    def passes(self, name: str, value: str) -> bool:
        if name in self.names:
            return True
        if name.upper().startswith(_HOST_PREFIXES) or is_secret(name, value):
            return False
        if self.mode == "inherit":
            return True
        return (name in BASELINE or name.startswith(_BASELINE_PREFIXES)
                or name.startswith(self.prefixes))


def hook_environment(base: Mapping[str, str], *, add: Mapping[str, str] = _NO_VARS,
                     policy: EnvPolicy | None = None) -> dict[str, str]:
    """The environment a hook gets: what `policy` (by default the one `base` configures) lets
    through from `base`, then `add` on top, unfiltered."""
    rule = policy if policy is not None else EnvPolicy.from_settings(base)
    env = {name: value for name, value in base.items() if rule.passes(name, value)}
    env.update(add)
    return env
