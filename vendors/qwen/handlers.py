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

from compat_adapter.handlers.parse import CommandOptions, HandlerShape

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


QWEN_SHAPE = QwenShape(keys=_FIELDS, other=None)
