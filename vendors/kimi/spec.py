"""Kimi Code's table, derived from Claude Code's: Kimi's events are Claude's rows of the same name,
without Claude's official-bridge alternative; Kimi's own facts (:mod:`vendors.kimi.table`) replace
Claude's, and its two events Claude has no row for are unserved."""

from __future__ import annotations

from compat_adapter.model import VendorSpec
from vendors.claude.table import CLAUDE
from vendors.kimi.table import KIMI_EVENTS, NOT_KIMI, OWN, OWN_LOSSES, OWN_ROW_LOSSES, OWN_UNSERVED

__all__ = ("KIMI",)

KIMI = VendorSpec.model_validate({
    **CLAUDE.model_dump(),
    **OWN,
    "losses": (*CLAUDE.losses[:1], *OWN_LOSSES),
    "events": tuple(row.model_copy(update={"official": None,
                                           "degradations": (*row.degradations, *OWN_ROW_LOSSES.get(row.event, ()))})
                    for row in CLAUDE.events if row.event in KIMI_EVENTS),
    "unserved": (*OWN_UNSERVED, *((row.event, NOT_KIMI) for row in CLAUDE.events if row.event not in KIMI_EVENTS)),
})
