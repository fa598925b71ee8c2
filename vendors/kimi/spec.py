"""Kimi Code's table, derived from Claude Code's: Kimi's events are Claude's rows of the same name,
without Claude's official-bridge alternative; Kimi's own facts (:mod:`vendors.kimi.table`) replace
Claude's, and its two events Claude has no row for are unserved."""

from __future__ import annotations

from compat_adapter.vendor import EventRow, VendorSpec
from vendors.claude.table import CLAUDE
from vendors.kimi.table import (
    ANSWER_LOSSES,
    DECISION_LOSSES,
    KIMI_EVENTS,
    NOT_KIMI,
    OWN,
    OWN_BLOCKING,
    OWN_LOSSES,
    OWN_ROW_LOSSES,
    OWN_SUBJECTS,
    OWN_UNSERVED,
)

__all__ = ("KIMI",)


def _kimi_row(row: EventRow) -> EventRow:
    """Claude's row with Kimi's own reading of its answer and Kimi's own losses."""
    blocking = OWN_BLOCKING.get(row.event, row.blocking)
    mute = blocking == "observe" != row.blocking
    moot = ANSWER_LOSSES if mute else DECISION_LOSSES if blocking != row.blocking else frozenset()
    kept = tuple(d for d in row.degradations if d.code.value not in moot)
    return row.model_copy(update={"official": None, "blocking": blocking,
                                  "matcher_subject": OWN_SUBJECTS.get(row.event, row.matcher_subject),
                                  "role_losses": () if mute else row.role_losses,
                                  "degradations": (*kept, *OWN_ROW_LOSSES.get(row.event, ()))})

KIMI = VendorSpec.model_validate({
    **CLAUDE.model_dump(),
    **OWN,
    "losses": (*CLAUDE.losses[:1], *OWN_LOSSES),
    "events": tuple(_kimi_row(row) for row in CLAUDE.events if row.event in KIMI_EVENTS),
    "unserved": (*OWN_UNSERVED, *((row.event, NOT_KIMI) for row in CLAUDE.events if row.event not in KIMI_EVENTS)),
})
