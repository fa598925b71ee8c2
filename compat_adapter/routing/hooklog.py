"""The session-log records of a hook run: ``hook/invoked`` before, ``hook/result`` after.

They are what the host shows of a run (and what the lane and ``explain`` read back), so they are
written where the run happens, once per hook.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from compat_adapter.host.protocol import SessionHandle
    from compat_adapter.routing.dispatch import GroupResult, HookEntry

__all__ = ("log_invoked", "log_results")


def log_invoked(session: SessionHandle, turn: int, chosen: Sequence[HookEntry]) -> None:
    """One ``hook/invoked`` record per chosen hook."""
    for entry in chosen:
        session.append("hook/invoked", {"turn": turn, "point": entry.row.event, "dialect": entry.spec.id,
                                        "matcher": entry.matcher, "handlerId": entry.id})


def log_results(session: SessionHandle, turn: int, group: GroupResult) -> None:
    """One ``hook/result`` record per hook that ran: its decision, time, exit code, stderr summary."""
    for entry, answer, outcome in zip(group.ran, group.answers, group.outcomes, strict=True):
        record: dict[str, Any] = {"turn": turn, "point": entry.row.event, "handlerId": entry.id,
                                  "decision": answer.decision, "durationMs": round(outcome.duration_ms, 3)}
        if outcome.exit_code is not None:
            record["exitCode"] = outcome.exit_code
        if outcome.stderr.strip():
            record["stderrSummary"] = outcome.stderr.strip()[:500]
        session.append("hook/result", record)
