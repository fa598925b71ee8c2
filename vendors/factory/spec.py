"""Factory Droid's table, derived from Claude Code's: Droid's events are Claude's rows of the same
name, without Claude's official-bridge alternative and without Claude's per-event timeouts, with the
losses the vendor lane measured on Droid added; Droid's own facts (:mod:`vendors.factory.table`)
replace Claude's."""

from __future__ import annotations

from compat_adapter.vendor import VendorSpec
from vendors.claude.table import CLAUDE
from vendors.factory.table import DROID_EVENTS, NOT_DROID, OWN, OWN_LOSSES, OWN_ROW_LOSSES, REWORDED

__all__ = ("FACTORY",)

FACTORY = VendorSpec.model_validate({
    **CLAUDE.model_dump(),
    **OWN,
    "losses": (*CLAUDE.losses[:1], *OWN_LOSSES),
    # Droid has no per-event timeout (table.TIMEOUT_S): Claude's, and Claude's losses about them, go;
    # so do Claude's losses that Droid's table words anew (table.REWORDED).
    "events": tuple(row.model_copy(update={"official": None, "timeout_s": None, "degradations": (
                        *(d for d in row.degradations
                          if (row.timeout_s is None or d.code.value != "timeout-differs")
                          and d.code.value not in REWORDED.get(row.event, ())),
                        *OWN_ROW_LOSSES.get(row.event, ()))})
                    for row in CLAUDE.events if row.event in DROID_EVENTS),
    "unserved": tuple((row.event, NOT_DROID) for row in CLAUDE.events if row.event not in DROID_EVENTS),
})
