"""A readable timeline of a session: seam → hook → vendor answer → host verdict.

Built from what really happened: the session log (tool calls and results, hook/invoked and
hook/result pairs written by bridges and by our routes, approvals, injected messages) and the
adapter's audit of the runs that happen outside a turn (watchers, pollers, observe-only points).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from compat_adapter.host.protocol import LogEvent
from compat_adapter.model import Frozen
from compat_adapter.routing.dispatch import AuditRecord

__all__ = ("TimelineRow", "build_timeline")

_VERDICT = {"deny": "tool denied", "ask": "approval asked", "block": "blocked / continued",
            "allow": "no change (allow does not pre-approve)", "pass": "no change",
            "none": "no change", "stop": "recorded, not enforced"}


class TimelineRow(Frozen):
    seam: str
    hook: str
    answer: str
    verdict: str


def _short(text: Any, limit: int | None = None) -> str:
    value = " ".join(str(text).split())
    return value if limit is None or len(value) <= limit else value[: limit - 1] + "…"


def _from_log(events: Sequence[LogEvent]) -> Iterable[TimelineRow]:
    pending_tool: dict[str, str] = {}
    for e in events:
        d = e.data
        if e.type == "tool/call":
            pending_tool[str(d.get("callId"))] = f"{d.get('name')} {_short(d.get('arguments'))}"
        elif e.type == "hook/result":
            decision = str(d.get("decision", "pass"))
            point = str(d.get("point"))
            verdict = _VERDICT.get(decision, decision)
            if point.lower().startswith("permission") and decision in ("allow", "deny"):
                verdict = "approval allowed-once" if decision == "allow" else "approval rejected"
            yield TimelineRow(seam=point, hook=str(d.get("handlerId")), answer=decision, verdict=verdict)
        elif e.type == "tool/result":
            call = pending_tool.pop(str(d.get("callId")), str(d.get("name")))
            outcome = "error" if d.get("isError") else "ran"
            yield TimelineRow(seam="tool", hook=call, answer=outcome, verdict=_short(d.get("text")))
        elif e.type == "approval/decided":
            yield TimelineRow(seam="approval/request", hook="host approval", answer=str(d.get("outcome")),
                              verdict="tool runs" if d.get("outcome") == "allowed-once" else "tool denied")
        elif e.type == "user/message":
            source = d.get("source") or {}
            kind = source.get("kind") if isinstance(source, Mapping) else getattr(source, "kind", None)
            if kind and kind != "user":
                yield TimelineRow(seam="user/message", hook=str(kind), answer="message entered",
                                  verdict=_short(d.get("text")))
        elif e.type == "notice":  # what a hook told the person (the vendor shows it to its user)
            yield TimelineRow(seam="notice", hook=str(d.get("origin") or "-"), answer=str(d.get("kind")),
                              verdict=_short(d.get("text")))
        elif e.type == "turn/end":
            reason = d.get("reason")
            kind = reason.get("kind") if isinstance(reason, Mapping) else reason
            yield TimelineRow(seam="turn/end", hook="-", answer=str(kind), verdict=f"turn {d.get('turn')} ended")


def _from_audit(audit: Sequence[AuditRecord], points: set[str]) -> Iterable[TimelineRow]:
    for record in audit:
        if record.point not in points:
            continue
        yield TimelineRow(seam=record.point, hook=record.hook_id, answer=record.decision,
                          verdict=record.note or ("honoured" if record.honoured else "ignored"))


#: Points whose runs happen outside a turn, so only the audit knows them.
OUTSIDE_TURN = {"fs/watch", "git/worktrees", "agent/disposed", "agent/status", "session/created",
                "agent/instructions-loaded", "subagent/start", "subagent/end", "agent/created",
                "compaction/start", "compaction/end", "settings/document-updated", "workspace/changes",
                "lsp/query", "agent/inbox/inserted", "session/event", "step/end", "todo/write",
                "request/header", "command/run", "approval/decided", "message/display", "agent/error",
                "shell/env"}


def build_timeline(events: Sequence[LogEvent], audit: Sequence[AuditRecord] = ()) -> tuple[TimelineRow, ...]:
    """Rows in order: the session's own record first, then runs outside any turn."""
    return (*_from_log(events), *_from_audit(audit, OUTSIDE_TURN))
