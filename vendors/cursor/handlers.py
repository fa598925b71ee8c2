"""Cursor's handler shape: flat ``{command, type, timeout, matcher, failClosed, loop_limit}`` entries.

``timeout`` is in seconds; ``failClosed: true`` makes a failed run (crash, timeout, unreadable
answer) deny what the event guards; ``loop_limit`` caps a stop or subagentStop script's follow-ups
(default 5; here the dispatch's guard of 5 stands for every hook of the event, so another value is
listed as not read). Any other key is listed as ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from compat_adapter.vendor import CommandOptions, HandlerShape, flag_field

__all__ = ("CURSOR_SHAPE", "CursorShape", "DEFAULT_LOOP_LIMIT")

#: Cursor's default cap on one script's automatic follow-ups.
DEFAULT_LOOP_LIMIT = 5
_COMMAND = frozenset({"type", "command", "timeout", "matcher", "failClosed", "loop_limit"})


@dataclass(frozen=True, slots=True)
class CursorShape(HandlerShape):
    """Cursor's keys, and ``failClosed``."""

    def ignored(self, vendor: str, kind: str, h: Mapping[str, Any]) -> tuple[str, ...]:
        known = self.keys.get(kind, self.other) or frozenset()
        return tuple(k for k in h if k not in known
                     # The guard here counts 5 follow-ups, Cursor's default: another limit is not read.
                     or (k == "loop_limit" and (h[k] != DEFAULT_LOOP_LIMIT or isinstance(h[k], bool))))

    def options(self, vendor: str, h: Mapping[str, Any]) -> CommandOptions:
        return CommandOptions(fail_closed=flag_field(vendor, h, "failClosed"))


CURSOR_SHAPE = CursorShape(keys=MappingProxyType({"command": _COMMAND}), other=_COMMAND)
