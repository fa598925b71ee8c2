"""The observe-only route (native-seam): the hook runs; a blocking answer is audited and ignored.

A row takes this route where the host seam cannot carry the vendor's decision back (an emitted
seam, a session record after the fact). The hook still runs with the vendor's payload, so its side
effects happen; the audit says when its answer would have blocked and was not honoured.
"""

from __future__ import annotations

from compat_adapter.model import EventRow
from compat_adapter.routing.native import PointRouter
from compat_adapter.routing.points import Point
from compat_adapter.routing.verdicts import Rule, observe

__all__ = ("ObserveRouter",)


class ObserveRouter(PointRouter):
    """Every point observes, whatever the point could decide on another route."""

    def rule_for(self, point: Point, row: EventRow) -> Rule:
        return observe
