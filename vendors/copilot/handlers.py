"""Copilot CLI's handler shape: ``{bash, powershell, command, exec, args, cwd, env, timeoutSec}``
entries, and ``http`` entries with ``url, headers, allowedEnvVars, timeoutSec`` (hooks reference)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from compat_adapter.vendor import HandlerShape, InvalidHandler, strings_field

__all__ = ("COPILOT_SHAPE", "CopilotShape")

_COMMAND = frozenset({"type", "bash", "powershell", "command", "cwd", "env", "timeoutSec", "timeout",
                      "comment", "exec", "args", "matcher"})
_HTTP = frozenset({"type", "url", "headers", "allowedEnvVars", "timeoutSec", "timeout", "comment", "matcher"})


@dataclass(frozen=True, slots=True)
class CopilotShape(HandlerShape):
    """Copilot's own keys, and its command form: ``bash`` (else ``command``), or ``exec`` with ``args``."""

    def command(self, vendor: str, h: Mapping[str, Any]) -> tuple[object, tuple[str, ...] | None]:
        """On a POSIX host Copilot runs ``bash`` and falls back to ``command``; this host runs POSIX sh.
        ``exec`` with ``args`` starts the program directly, no shell. An empty ``bash`` is a hook that
        does nothing: Copilot CLI 1.0.102 still runs it (measured: with a missing ``cwd`` it fails and
        denies the call, so it is started, not skipped), and ``:`` is the shell's own empty command.
        """
        bash, command = h.get("bash"), h.get("command")
        chosen = bash or command
        if isinstance(chosen, str) and chosen.strip():
            return chosen, None
        if "exec" in h:
            program = h.get("exec")
            if not isinstance(program, str) or not program.strip():
                raise InvalidHandler("`exec` must name a program", vendor=vendor)
            return program, strings_field(vendor, h.get("args", []), "args")
        if "" in (bash, command) and all(isinstance(v, str) for v in (bash, command) if v is not None):
            return ":", None
        if chosen is None and h.get("powershell") is not None:
            raise InvalidHandler("this host runs POSIX shell commands; the handler has only a "
                                 "powershell command", vendor=vendor)
        return chosen, None


#: Where Copilot CLI 1.0.102 never sends an http hook, each range measured by a URL into it (its log:
#: "resolves to blocked address …. URLs must not target loopback, private, or link-local
#: addresses"): this network, RFC 1918, shared (CGNAT), loopback, link-local, benchmarking, IPv6
#: loopback, unique-local and link-local, and IPv4 ones written as IPv6. Measured as reached:
#: 192.0.2.1 (documentation) and 224.0.0.1 (multicast). COPILOT_HOOK_ALLOW_LOCALHOST=1 in
#: Copilot's environment lifts the loopback refusal; compat-adapter follows Copilot's default.
_REFUSED_NETWORKS = ("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
                     "172.16.0.0/12", "192.168.0.0/16", "198.18.0.0/15", "::1/128", "fc00::/7", "fe80::/10")

COPILOT_SHAPE = CopilotShape(keys=MappingProxyType({"http": _HTTP}), other=_COMMAND,
                             refused_networks=_REFUSED_NETWORKS)
