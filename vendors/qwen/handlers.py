"""Qwen Code's handler shape: the keys its settings schema gives each handler type (0.24.4's hooks
guide and ``hookRegistry``), and what this project honours of them.

Honoured: ``command``, ``timeout`` (read by the importer), ``async`` and ``shell`` (bash or
powershell); ``name``, ``description`` and ``statusMessage`` are labels. ``env`` (variables Qwen
adds to the hook's environment) is not set here, so it is listed as ignored, as is any key Qwen's
schema does not name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from compat_adapter.vendor import CommandOptions, HandlerShape

__all__ = ("QWEN_SHAPE", "QwenShape")

_COMMON = frozenset({"type", "timeout", "name", "description", "statusMessage"})
#: Keys of each handler type besides the common ones that are honoured here.
_FIELDS: Mapping[str, frozenset[str]] = MappingProxyType({
    "command": _COMMON | {"command", "async", "shell"},
    "http": _COMMON | {"url", "headers", "allowedEnvVars"},
    "prompt": _COMMON | {"prompt", "model"},
})


@dataclass(frozen=True, slots=True)
class QwenShape(HandlerShape):
    """Qwen's keys per handler type, its ``async`` and its ``shell``."""

    def options(self, vendor: str, h: Mapping[str, Any]) -> CommandOptions:
        # Qwen: "powershell" selects PowerShell and any other set value bash; only async true is async.
        given = h.get("shell")
        shell: Literal["bash", "powershell"] | None = "powershell" if given == "powershell" else (
            "bash" if given else None)
        return CommandOptions(shell=shell, run_async=h.get("async") is True)


#: Where Qwen Code 0.24.4 never sends an http hook (its hooks/ssrfGuard.ts, read in the installed
#: package; 10.9.9.9 and 169.254.1.1 measured refused, 127.0.0.1 reached, each with a server on it
#: in the lane's sandbox): the URL's address and every address its name resolves to are checked.
#: Loopback is allowed; a few names are refused whatever they resolve to.
_REFUSED_NETWORKS = ("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "169.254.0.0/16", "172.16.0.0/12",
                     "192.168.0.0/16", "::/128", "fc00::/7", "fe80::/10")
_REFUSED_HOSTS = ("localhost.localdomain", "ip6-localhost", "ip6-loopback", "metadata.google.internal",
                  "metadata.azure.internal")

QWEN_SHAPE = QwenShape(keys=_FIELDS, other=None, refused_networks=_REFUSED_NETWORKS, refused_hosts=_REFUSED_HOSTS)
