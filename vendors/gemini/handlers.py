"""Gemini CLI's handler shape: ``{type, command, name, timeout, description, env}`` (hooks reference;
``env`` is spread into the hook's environment by 0.61.0's hook runner). ``timeout`` is in
milliseconds there; the importer turns it into seconds before the handler is read."""

from __future__ import annotations

from types import MappingProxyType

from compat_adapter.vendor import HandlerShape

__all__ = ("GEMINI_SHAPE",)

#: The keys Gemini reads of a command handler; any other key is listed as ignored.
_COMMAND = frozenset({"type", "command", "name", "timeout", "description", "env"})

GEMINI_SHAPE = HandlerShape(keys=MappingProxyType({"command": _COMMAND}), other=_COMMAND)
