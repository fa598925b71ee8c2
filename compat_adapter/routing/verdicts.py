"""Verdict rules: what a merged hook answer does at a point, and how the audit records it.

Each rule is a pure function ``(group, row, scene) -> Applied``: the group's merged answer (merged
by the vendor's own rules), the vendor row it came by, and what the seam listener knows about this
dispatch (the questions asked, whether a child agent is reachable, how many stop blocks came
before). The points table (``points.py``) names one rule per point; a route may put another in its
place (observe-only observes everything, the Copilot bridge guards turn-stopping).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from compat_adapter.host.protocol import (
    ApprovalOutcome,
    AskUserQuestionAnswer,
    PostToolDecision,
    PreStepDecision,
    PreToolDecision,
    QuestionAnswer,
)

if TYPE_CHECKING:
    from compat_adapter.model import EventRow
    from compat_adapter.routing.dispatch import GroupResult

__all__ = ("END_TURN", "Applied", "Rule", "Steer", "approval", "child_context", "inject", "observe",
           "post_tool", "pre_step", "pre_tool", "question_answers", "questions", "shell_env",
           "stop_rule", "transform")


@dataclass(frozen=True, slots=True)
class Steer:
    """Turn-stopping verdict: the turn goes on with one more step, steered by ``text``."""

    text: str


#: Turn-stopping verdict: the turn ends although a hook asked to go on (a runaway guard).
END_TURN = object()


@dataclass(frozen=True, slots=True)
class Applied:
    """What one merged answer does at one point, and how the audit records it."""

    honoured: bool
    note: str
    verdict: Any = None
    """A host verdict: the seam answers with it and no later group runs."""
    context: str | None = None
    """Context text for the model (a sourced user message, or the child agent's inbox)."""
    replacement: str | None = None
    """A replacement for the user's prompt."""
    env: Mapping[str, str] | None = None
    """Variables for the host shell."""


#: A verdict rule: (merged group, the group's row, what the listener knows) → what it does.
Rule = Callable[["GroupResult", "EventRow", Mapping[str, Any]], Applied]


# ── rules ───────────────────────────────────────────────────────────────────────────────────────

_BLOCKS = frozenset({"deny", "block"})


def _context(group: GroupResult) -> str | None:
    texts = group.merged.additional_context
    return "\n\n".join(texts) if texts else None


def _label(group: GroupResult) -> str:
    first = group.ran[0]
    return f"{first.spec.id} {first.row.event}"


def observe(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    """Observe only: the hook ran; a blocking answer is written down and ignored."""
    merged = group.merged
    if merged.decision in ("deny", "block", "ask") or merged.stop:
        return Applied(False, "observe-only: the blocking answer was ignored")
    return Applied(True, "observed")


def pre_tool(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    answer = group.merged
    if answer.decision in _BLOCKS:
        reason = answer.reason or f"blocked by {_label(group)} hook"
        return Applied(True, "deny", verdict=PreToolDecision("deny", reason))
    if answer.decision == "ask":
        return Applied(True, "ask → host approval", verdict=PreToolDecision("ask", answer.reason))
    note = "allow does not pre-approve" if answer.decision == "allow" else "no decision"
    if answer.updated_input is not None:
        note += "; input rewrite ignored"
    return Applied(True, note)


def post_tool(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    answer = group.merged
    if answer.decision in _BLOCKS and row.blocking == "verdict":
        reason = answer.reason or f"blocked by {_label(group)} hook"
        return Applied(True, "block", verdict=PostToolDecision("block", reason), context=_context(group))
    note = "context" if answer.additional_context else "no decision"
    if answer.updated_output is not None:
        note += "; output rewrite ignored"
    return Applied(True, note, context=_context(group))


def pre_step(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    answer = group.merged
    if row.blocking == "verdict" and answer.decision in _BLOCKS:
        return Applied(True, "reject", verdict=PreStepDecision("reject"))
    if row.blocking == "context":
        return Applied(True, "context", context=_context(group))
    return observe(group, row, scene)


def transform(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    answer = group.merged
    if answer.replacement_prompt is not None and not (row.blocking == "verdict" and answer.decision in _BLOCKS):
        return Applied(True, "prompt replaced for the model", replacement=answer.replacement_prompt)
    return pre_step(group, row, scene)


def approval(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    decision = group.merged.decision
    if decision in _BLOCKS:
        return Applied(True, "rejected", verdict=ApprovalOutcome.REJECTED)
    if decision == "allow":
        return Applied(True, "allowed-once", verdict=ApprovalOutcome.ALLOWED_ONCE)
    return Applied(True, "no decision")


def questions(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    given = question_answers(group.merged.answers)
    asked = scene.get("asked", ())
    items = tuple(QuestionAnswer(id=qid, selected=_selected(value), custom=_custom(value))
                  for qid, value in given.items() if qid in asked)
    if items:
        return Applied(True, "answered", verdict=AskUserQuestionAnswer(items))
    return Applied(True, "no answer")


def inject(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    context = _context(group)
    return Applied(True, "context" if context else "no context", context=context)


def child_context(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    context = _context(group)
    reachable = bool(scene.get("child"))
    if context and reachable:
        return Applied(True, "context injected into the child", context=context)
    return Applied(reachable or not context,
                   "no context" if not context else "child not reachable: context dropped")


def stop_rule(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    """A block keeps the turn going with one more step; no cap (the vendor's own has none)."""
    answer = group.merged
    if answer.decision not in _BLOCKS:
        return Applied(True, "stop allowed")
    forced = int(scene.get("forced", 0))
    return Applied(True, f"block {forced + 1}: another step",
                   verdict=Steer(answer.reason or "continue: blocked by the stop hook"))


#: The only variable names a host shell-env contributor may set.
_DSH_KEY = re.compile(r"DSH_[A-Z][A-Z0-9_]*")


def shell_env(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    given = dict(group.merged.env)
    kept = {k: v for k, v in given.items() if _DSH_KEY.fullmatch(k)}
    dropped = sorted(set(given) - set(kept))
    return Applied(True, "variables" + (f"; dropped non-DSH_* names {dropped}" if dropped else ""),
                   env=kept)


# ── answer readers ──────────────────────────────────────────────────────────────────────────────

def question_answers(answers: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """Question id → answer from a merged hook answer.

    Claude's Elicitation answers in the MCP shape ``{action, content}``: only ``accept`` answers,
    with ``content`` mapping question ids to values; decline and cancel answer nothing (the host
    has no counterpart, so the question goes on to the next answerer).
    """
    if not answers:
        return {}
    if "action" in answers:
        content = answers.get("content")
        if answers.get("action") == "accept" and isinstance(content, Mapping):
            return content
        return {}
    return answers


def _selected(value: Any) -> tuple[str, ...]:
    if isinstance(value, Mapping):
        value = value.get("selected", ())
    if isinstance(value, str):
        return (value,)
    return tuple(str(v) for v in value or ())


def _custom(value: Any) -> str | None:
    return str(value["custom"]) if isinstance(value, Mapping) and value.get("custom") else None
