"""Crush's table, derived from Claude Code's: its one event is Claude's PreToolUse row, without
Claude's official-bridge alternative, with Crush's own losses in place of Claude's and marked
documented (no Crush ran here); Crush's own facts (:mod:`vendors.crush.table`) replace Claude's."""

from __future__ import annotations

from compat_adapter.model import VendorSpec
from vendors.claude.table import CLAUDE
from vendors.crush.table import CRUSH_EVENTS, NOT_CRUSH, OWN, OWN_LOSSES, ROW_LOSSES, TOOL_NAMES

__all__ = ("CRUSH",)

CRUSH = VendorSpec.model_validate({
    **CLAUDE.model_dump(),
    **OWN,
    "losses": OWN_LOSSES,
    # Claude's entry of each host tool Crush has, under Crush's name (the first entry of a host tool only).
    "tools": tuple({t.host: t.model_copy(update={"vendor": TOOL_NAMES[t.host]})
                    for t in reversed(CLAUDE.tools) if t.host in TOOL_NAMES}.values())[::-1],
    # Crush appends a hook's context to the tool's result (hooked_tool.go), never a message of a role.
    "events": tuple(row.model_copy(update={"official": None, "confidence": "documented", "role_losses": (),
                                           "degradations": ROW_LOSSES})
                    for row in CLAUDE.events if row.event in CRUSH_EVENTS),
    "unserved": tuple((row.event, NOT_CRUSH) for row in CLAUDE.events if row.event not in CRUSH_EVENTS),
})
