"""Windsurf's table, derived from Cursor's: each served event is Cursor's row of the same host point
(route, seam, blocking, the tools it fires for), renamed, without a matcher, with Windsurf's own
losses in place of Cursor's; Windsurf's own facts (:mod:`vendors.windsurf.table`) are the rest."""

from __future__ import annotations

from compat_adapter.model import VendorSpec
from vendors.cursor.table import CURSOR
from vendors.windsurf.table import OWN, ROW_LOSSES, SERVED

__all__ = ("WINDSURF",)

WINDSURF = VendorSpec.model_validate({
    **OWN,
    "events": tuple(CURSOR.row(cursor).model_copy(update={  # type: ignore[union-attr]
        "event": event, "matcher_subject": None, "tools": tools or CURSOR.row(cursor).tools,  # type: ignore[union-attr]
        "degradations": ROW_LOSSES[event], "confidence": "documented"}) for event, (cursor, tools) in SERVED.items()),
})
