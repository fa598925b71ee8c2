"""Continue's table, derived from Claude Code's: cn's events are Claude's rows of the same name,
without Claude's official-bridge alternative and marked documented (cn 1.5.47 fires none, so none
was measured); Continue's own facts (:mod:`vendors.cn.table`) replace Claude's."""

from __future__ import annotations

from compat_adapter.vendor import VendorSpec
from vendors.claude.table import CLAUDE
from vendors.cn.table import CN_EVENTS, NOT_CN, OWN, OWN_LOSSES

__all__ = ("CONTINUE",)

CONTINUE = VendorSpec.model_validate({
    **CLAUDE.model_dump(),
    **OWN,
    "losses": (*CLAUDE.losses[:1], *OWN_LOSSES),
    "events": tuple(row.model_copy(update={"official": None, "confidence": "documented"})
                    for row in CLAUDE.events if row.event in CN_EVENTS),
    "unserved": tuple((row.event, NOT_CN) for row in CLAUDE.events if row.event not in CN_EVENTS),
})
