"""Cline's table, derived from Claude Code's: each Cline event is the Claude row of the moment it
fires at, renamed, without Claude's official-bridge alternative and without a matcher; Cline's own
facts (:mod:`vendors.cline.table`) replace Claude's, and its events with no such moment are unserved."""

from __future__ import annotations

from compat_adapter.vendor import EventRow, ToolName, VendorSpec
from vendors.claude.table import CLAUDE
from vendors.cline.table import (
    ANSWER_LOSSES,
    CLINE_EVENTS,
    NOT_CLINE,
    OWN,
    OWN_BLOCKING,
    OWN_LOSSES,
    OWN_ROW_LOSSES,
    OWN_UNSERVED,
    TOOL_NAMES,
)

__all__ = ("CLINE",)


def _cline_row(event: str, row: EventRow) -> EventRow:
    """Claude's row of the same moment under Cline's name, read the way Cline reads an answer."""
    blocking = OWN_BLOCKING[event]
    mute = blocking == "observe" != row.blocking
    # Claude's matcher losses are moot (Cline has no matcher), and so are its answer losses where
    # Cline reads nothing of the answer; its own wording of context replaces Claude's (table._CONTEXT_FRAME).
    moot = ANSWER_LOSSES if mute else frozenset({"matcher-narrowed", "message-provenance"})
    kept = tuple(d for d in row.degradations if d.code.value not in moot)
    return row.model_copy(update={"event": event, "official": None, "blocking": blocking, "matcher_subject": None,
                                  "fires_on": "any" if event == "PostToolUse" else row.fires_on,
                                  "role_losses": () if mute else row.role_losses,
                                  "degradations": (*kept, *OWN_ROW_LOSSES.get(event, ()))})


_BY_NAME = {row.event: row for row in CLAUDE.events}

CLINE = VendorSpec.model_validate({
    **CLAUDE.model_dump(),
    **OWN,
    "tools": tuple(ToolName(vendor=v, host=h, arguments=a) for v, h, a in TOOL_NAMES),
    "losses": (*CLAUDE.losses[:1], *OWN_LOSSES),
    "events": tuple(_cline_row(event, _BY_NAME[claude]) for event, claude in CLINE_EVENTS.items()),
    "unserved": (*OWN_UNSERVED, *((row.event, NOT_CLINE) for row in CLAUDE.events
                                  if row.event not in CLINE_EVENTS.values() and row.event not in dict(OWN_UNSERVED))),
})
