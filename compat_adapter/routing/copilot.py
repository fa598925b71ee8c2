"""The built-in Copilot bridge (builtin-bridge): Copilot's hooks end to end on the host's seams.

What is Copilot's own, and where it lives:

* the dialect (``vendors/copilot/dialect.py``): camelCase payloads with ``toolArgs`` as an object (as
  Copilot CLI 1.0.102 sends it), a top-level ``permissionDecision``, matchers anchored as
  ``^(?:P)$`` (an invalid pattern skips the hook, never matches all), and ``allow`` that does not
  pre-approve;
* the points table's rules, shared with every vendor that answers the same way: a
  ``userPromptTransformed`` replacement becomes the prompt the model reads, and ``subagentStart``
  context reaches the in-process child before it starts;
* here: the runaway guard. An ``agentStop`` block continues the turn with a sourced message, but
  after :data:`STOP_BLOCK_LIMIT` consecutive blocks in one turn the turn ends and the audit says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from compat_adapter.model import EventRow
from compat_adapter.routing.native import NativeRouter
from compat_adapter.routing.points import TURN_STOPPING, Point
from compat_adapter.routing.verdicts import END_TURN, Applied, Rule, Steer, stop_rule

if TYPE_CHECKING:
    from compat_adapter.routing.dispatch import GroupResult

__all__ = ("STOP_BLOCK_LIMIT", "CopilotRouter", "guarded_stop")

#: Copilot's runaway guard: at most this many consecutive agentStop blocks in one turn.
STOP_BLOCK_LIMIT = 8


def guarded_stop(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    """A stop block steers another step, until the guard's limit of consecutive blocks."""
    applied = stop_rule(group, row, scene)
    if isinstance(applied.verdict, Steer) and int(scene.get("forced", 0)) >= STOP_BLOCK_LIMIT:
        return Applied(False, f"runaway guard: {STOP_BLOCK_LIMIT} consecutive blocks, the turn ends",
                       verdict=END_TURN)
    return applied


class CopilotRouter(NativeRouter):
    """The native rules, with Copilot's guard on turn-stopping."""

    def rule_for(self, point: Point, row: EventRow) -> Rule:
        if point is TURN_STOPPING and row.blocking != "observe":
            return guarded_stop
        return super().rule_for(point, row)
