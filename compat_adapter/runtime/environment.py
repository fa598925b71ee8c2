"""The environment a hook gets: which of the host's variables pass, and which never do.

Two policies, chosen by the host's operator with ``COMPAT_ADAPTER_HOOK_ENV``:

``inherit`` (the default)
    The host's environment minus everything secret-shaped: names (`secret_name`: a rule on the
    name's segments, so ``DB_PASS`` goes and ``COMPASS_HOME`` stays), values
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

import os
import re
from collections.abc import Mapping
from functools import lru_cache
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

__all__ = ("BASELINE", "SECRET_VALUE", "SECRET_WORDS", "EnvPolicy", "hook_environment", "is_secret", "secret_name",
           "segments")

#: Words that name a credential when one is a whole segment of a variable's name (``DB_PASS``,
#: ``GH_ENTERPRISE_PAT``, ``STRIPE_KEY``, ``dbPassword``); a segment is a run of letters and digits
#: between separators or case changes, trailing digits dropped (``TOKEN2``).
SECRET_WORDS: frozenset[str] = frozenset({
    "KEY", "KEYS", "APIKEY", "APIKEYS", "PASS", "PASSWD", "PASSWORD", "PASSWORDS", "PWD", "PASSPHRASE",
    "PAT", "SECRET", "SECRETS", "TOKEN", "TOKENS", "CREDENTIAL", "CREDENTIALS", "CREDS", "JWT",
    "COOKIE", "COOKIES", "PRIVATE", "WEBHOOK", "WEBHOOKS", "AUTH", "DSN", "CONNSTR", "CONNSTRING",
})
#: Endings that name a credential inside one glued segment (``PGPASSWORD``, ``HTPASSWD``,
#: ``GHTOKEN``, ``CLIENTSECRET``, ``ACCESSKEY``). ``PASS`` and ``KEY`` are not among them:
#: ``COMPASS`` and ``HOTKEY`` are words of their own.
_GLUED = ("PASSWORD", "PASSWORDS", "PASSWD", "PASSPHRASE", "SECRET", "SECRETS", "TOKEN", "TOKENS",
          "CREDENTIAL", "CREDENTIALS", "APIKEY", "ACCESSKEY", "SECRETKEY", "PRIVATEKEY", "AUTHKEY")
#: Two segments in a row that name a credential wherever they stand.
_PAIRS = frozenset({("CONNECTION", "STRING"), ("CONN", "STR"), ("CONN", "STRING"), ("CONNECTION", "STR")})
#: Stores whose ``<STORE>_URL`` carries its login (``DATABASE_URL``, ``REDIS_URL``, ``MONGODB_URI``).
_STORES = frozenset({
    "DATABASE", "DB", "REDIS", "MONGO", "MONGODB", "POSTGRES", "POSTGRESQL", "PG", "MYSQL", "MARIADB",
    "AMQP", "RABBITMQ", "BROKER", "ELASTIC", "ELASTICSEARCH", "KAFKA", "NATS", "MEMCACHE", "MEMCACHED",
    "CACHE",
})
#: A name that ends in one of these names a folder, not what is in it (``PASSWORD_STORE_DIR``):
#: the value rule still judges the value.
_PLACES = frozenset({"DIR", "HOME"})
_SEGMENT = re.compile(r"[A-Z]+[0-9]*(?![a-z])|[A-Z]?[a-z]+[0-9]*|[0-9]+")


def segments(name: str) -> tuple[str, ...]:
    """The words of a variable's name, upper case, trailing digits dropped: ``dbPassword2`` →
    ``("DB", "PASSWORD")``, ``NPM_CONFIG__AUTH`` → ``("NPM", "CONFIG", "AUTH")``."""
    words = (w.rstrip("0123456789").upper() for w in _SEGMENT.findall(name))
    return tuple(w for w in words if w)


def secret_name(name: str) -> bool:
    """True when the name says it holds a credential: one of its segments is a secret word (or a
    glued one ends in one), two of them are ``CONNECTION_STRING``, it ends ``<STORE>_URL`` or
    ``AGENT_SOCK``/``AGENT_INFO`` (an agent socket signs for whoever can reach it). ``PWD`` alone
    is the working directory, and a name that ends in ``DIR`` or ``HOME`` names a folder."""
    words = segments(name)
    if not words or words == ("PWD",) or words[-1] in _PLACES:
        return False
    if any(w in SECRET_WORDS or w.endswith(_GLUED) for w in words):
        return True
    if any(pair in _PAIRS for pair in zip(words, words[1:], strict=False)):
        return True
    last = words[-2:]
    return len(last) == 2 and ((last[0] in _STORES and last[1] in ("URL", "URI"))
                               or (last[0] == "AGENT" and last[1] in ("SOCK", "INFO")))


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
    return secret_name(name) or bool(SECRET_VALUE.search(value))


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
    rule = policy if policy is not None else _policy(base.get("COMPAT_ADAPTER_HOOK_ENV", "inherit"),
                                                     base.get("COMPAT_ADAPTER_HOOK_ENV_ALLOW", ""))
    env = _inherited(base, rule)
    env.update(add)
    return env


# Every hook run builds its environment from the same host variables: the verdict on each one is
# kept (the rule reads only the policy, the name and the value), so a run no longer costs a
# regular-expression search per variable, a third of a millisecond of the host's time per hook.
_VERDICTS = 4096


@lru_cache(maxsize=_VERDICTS)
def _passes(rule: EnvPolicy, name: str, value: str) -> bool:
    return rule.passes(name, value)


@lru_cache(maxsize=16)
def _policy(mode: str, allow: str) -> EnvPolicy:
    return EnvPolicy.from_settings({"COMPAT_ADAPTER_HOOK_ENV": mode, "COMPAT_ADAPTER_HOOK_ENV_ALLOW": allow})


#: The host's environment as last filtered, per policy: its raw contents, and what passed.
_LAST: dict[tuple[EnvPolicy, bool], tuple[dict[Any, Any], dict[str, str]]] = {}
_POLICIES = 16


def _inherited(base: Mapping[str, str], rule: EnvPolicy) -> dict[str, str]:
    """What passes of `base`, a new dict. Reading ``os.environ`` decodes every variable (most of
    the cost of a hook's environment), so its filtered form is kept for as long as its raw
    contents (``os.environ``'s own bytes table, compared whole) stay the same; a plain dict (the
    environment a warm shim server's call brings, the same call after call from one target
    session) is kept the same way, compared whole."""
    own = base is os.environ
    raw = getattr(base, "_data", None) if own else base if type(base) is dict else None
    if not isinstance(raw, dict):
        return {name: value for name, value in base.items() if _passes(rule, name, value)}
    last = _LAST.get((rule, own))
    if last is None or last[0] != raw:
        if len(_LAST) >= _POLICIES:
            _LAST.clear()
        last = _LAST[(rule, own)] = (dict(raw), {name: value for name, value in base.items()
                                                 if _passes(rule, name, value)})
    return dict(last[1])
