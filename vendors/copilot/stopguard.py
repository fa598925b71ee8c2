"""Copilot's runaway guard, its ``verdict_rules`` capability: Copilot's own rule on turn-stopping.

An ``agentStop`` block continues the turn with a sourced message, but after :data:`STOP_BLOCK_LIMIT`
consecutive blocks in one turn the turn ends and the audit says so. :data:`RULES` (a
:class:`compat_adapter.capability.VerdictRules`) is given in Copilot's unit; the built-in bridge
route mounts the rule it names for each Copilot hook. Moved here from ``compat_adapter/routing/
copilot.py`` (``CopilotRouter``) when the core stopped naming Copilot. The rest of what is Copilot's
own lives in its dialect (camelCase payloads, ``toolArgs`` as an object, top-level
``permissionDecision``, matchers anchored as ``^(?:P)$``, ``allow`` that does not pre-approve); the
points table's rules it shares with every vendor that answers the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from compat_adapter.vendor import Applied, EventRow, GroupResult, Point, Rule

__all__ = ("RULES", "STOP_BLOCK_LIMIT", "StopGuard", "guarded_stop")

#: Copilot's runaway guard: at most this many consecutive agentStop blocks in one turn.
STOP_BLOCK_LIMIT = 8

#: The point whose rule the guard replaces (the host's turn-stopping seam).
_TURN_STOPPING = "agent/turn-stopping"


def guarded_stop(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    """A stop block steers another step, until the guard's limit of consecutive blocks."""
    # Imported here: the unit loads with the matrix, which needs no verdict rule.
    from compat_adapter.vendor import END_TURN, Applied, Steer, stop_rule

    applied = stop_rule(group, row, scene)
    if isinstance(applied.verdict, Steer) and int(scene.get("forced", 0)) >= STOP_BLOCK_LIMIT:
        return Applied(False, f"runaway guard: {STOP_BLOCK_LIMIT} consecutive blocks, the turn ends",
                       verdict=END_TURN)
    return applied


class StopGuard:
    """The native rules, with Copilot's guard on turn-stopping (a row that only watches is observed)."""

    vendor = "copilot"

    def verdict_rule(self, point: Point, row: EventRow, rule: Rule) -> Rule:
        if point.name == _TURN_STOPPING and row.blocking != "observe":
            return guarded_stop
        return rule


RULES = StopGuard()
