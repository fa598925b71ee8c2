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

from compat_adapter.catalog import vendor_tool
from compat_adapter.host.answers import (
    ApprovalOutcome,
    AskUserQuestionAnswer,
    PostToolDecision,
    PreStepDecision,
    PreToolDecision,
    QuestionAnswer,
)
from compat_adapter.routing.voice import Place, Said, call_of

if TYPE_CHECKING:
    from compat_adapter.model import EventRow
    from compat_adapter.routing.dispatch import GroupResult

__all__ = ("END_TURN", "Applied", "Rule", "Steer", "approval", "child_context", "inject", "observe", "permission",
           "post_tool", "pre_step", "pre_tool", "question_answers", "questions", "said", "shell_env",
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
    place: Place = "message"
    """Where ``context`` lands, as the vendor puts it (a message, a part of the prompt, the result)."""
    replacement: str | None = None
    """A replacement for the user's prompt."""
    env: Mapping[str, str] | None = None
    """Variables for the host shell."""
    halt: str | None = None
    """``continue: false``: the vendor stops the agent; the turn ends before its next step."""
    unanswered: str | None = None
    """An ``ask`` the host's approval may leave unanswered: what the vendor, unable to ask, shows
    the model instead of the host's words."""
    rewrite: Mapping[str, Any] | None = None
    """The arguments (host names) the call runs with instead of the model's (an input rewrite)."""


#: A verdict rule: (merged group, the group's row, what the listener knows) → what it does.
Rule = Callable[["GroupResult", "EventRow", Mapping[str, Any]], Applied]


# ── rules ───────────────────────────────────────────────────────────────────────────────────────

_BLOCKS = frozenset({"deny", "block"})


def _label(group: GroupResult) -> str:
    first = group.ran[0]
    return f"{first.spec.id} {first.row.event}"


def _tool(group: GroupResult) -> tuple[str | None, str | None]:
    """The vendor's name of the tool, and the shell command of a Bash call, for this moment."""
    moment = group.moment
    if moment is None or "tool_name" not in moment.fields:
        return None, None
    payload = group.ran[0].dialect.payload(moment)
    name = payload.get("tool_name", payload.get("toolName"))
    args = payload.get("tool_input")
    command = args.get("command") if isinstance(args, Mapping) else None
    return (name if isinstance(name, str) else None), (command if isinstance(command, str) else None)


def _context(group: GroupResult, failed: bool = False) -> str | None:
    """The merged context as the vendor labels it for the model."""
    texts = group.merged.additional_context
    if not texts:
        return None
    first = group.ran[0]
    voice = first.unit.voice
    tool = _tool(group)[0]
    subject = first.dialect.subject(group.moment) if group.moment is not None else None
    call = call_of(group.moment.fields) if group.moment is not None else None
    return "\n\n".join(voice.contexts(first.row.event, tool, subject, texts, group.merged.printed, failed, call))


def _place(group: GroupResult, failed: bool = False) -> Place:
    """Where the vendor puts this event's context."""
    first = group.ran[0]
    return first.unit.voice.place(first.row.event, failed)


def said(group: GroupResult, fallback: str | None = None) -> Said:
    """The first blocking answer (config order) as the vendor words it: command, reason, exit 2."""
    index = next((i for i, a in enumerate(group.answers) if a.decision in _BLOCKS or a.stop), 0)
    entry = group.ran[index] if group.ran else None
    answer = group.answers[index] if group.answers else group.merged
    outcome = group.outcomes[index] if group.outcomes else None
    reason = (answer.reason or answer.stop_reason or group.merged.reason
              or "\n\n".join(group.merged.additional_context) or fallback
              or f"blocked by {_label(group)} hook")
    if entry is not None and group.merged.decision in _BLOCKS and group.merged.reason \
            and entry.unit.voice.merged_reason:
        reason = group.merged.reason  # the vendor words a block with every hook's reason
    tool, tool_command = _tool(group)
    origin = entry.declared.origin if entry is not None else None
    source = origin.rsplit(":", 1)[0] if origin and ":" in origin else origin
    return Said(event=entry.row.event if entry else "", tool=tool,
                command=str(getattr(entry.handler, "command", "") or "") if entry is not None else "",
                reason=reason, exit2=outcome is not None and outcome.exit_code == 2 and not answer.json_reason,
                tool_command=tool_command, source=source or (entry.id if entry else None), index=index,
                cwd=group.moment.cwd if group.moment is not None else None)


def _halt(group: GroupResult) -> str | None:
    merged = group.merged
    if not merged.stop:
        return None
    return merged.stop_reason or f"stopped by {_label(group)} hook (continue: false)"


def observe(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    """Observe only: the hook ran; a blocking answer is written down and ignored."""
    merged = group.merged
    if merged.decision in ("deny", "block", "ask") or merged.stop:
        return Applied(False, "observe-only: the blocking answer was ignored")
    return Applied(True, "observed")


def pre_tool(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    answer = group.merged
    voice = group.ran[0].unit.voice
    context = _context(group) if voice.pre_tool_context else None
    halt = _halt(group)
    if halt is not None and voice.halt_runs_call and answer.decision not in _BLOCKS:
        # Claude Code runs the call and then stops, before the model is called again (measured).
        return Applied(True, "continue:false: the call runs, then the turn ends", context=context, halt=halt)
    if halt is not None:
        # continue:false takes precedence over any decision: the call does not run, the turn ends.
        deny = voice.deny(said(group, halt))
        return Applied(True, "continue:false: call denied, the turn ends", verdict=PreToolDecision("deny", deny),
                       context=context, halt=halt)
    if answer.decision in _BLOCKS:
        return Applied(True, "deny", verdict=PreToolDecision("deny", voice.deny(said(group))), context=context)
    if answer.decision == "ask":
        if not scene.get("approval", True) and group.ran[0].unit.landing.ask_unattended == "allow":
            # No approval channel, and the vendor, unable to ask either, runs the call (CodeBuddy -p).
            return Applied(True, "ask with no approval channel: the call runs, as in the vendor's "
                                 "non-interactive run", context=context)
        if not scene.get("approval", True):
            # No approval channel: the host would deny with its own words; the vendor, unable to
            # ask either, denies with the hook's reason in its own words.
            asked = said(group, answer.reason)
            reason = voice.ask_denied(asked) or voice.deny(asked)
            return Applied(True, "ask with no approval channel: denied with the hook's reason",
                           verdict=PreToolDecision("deny", reason), context=context)
        return Applied(True, "ask → host approval", verdict=PreToolDecision("ask", answer.reason), context=context,
                       unanswered=voice.ask_denied(said(group, answer.reason)))
    note = "allow does not pre-approve" if answer.decision == "allow" else "no decision"
    rewrite = _rewrite(group, answer.updated_input) if answer.updated_input is not None else None
    if answer.updated_input is not None:
        note += "; input rewritten" if rewrite is not None else "; input rewrite ignored (another tool's input)"
    return Applied(True, note, context=context, rewrite=rewrite)


def _rewrite(group: GroupResult, updated: Mapping[str, Any]) -> dict[str, Any] | None:
    """The host arguments a hook's new input stands for, over the call's own (a field the hook
    leaves out keeps its value, so the host's required fields stay); None when the new input
    names fields of another host tool."""
    moment = group.moment
    if moment is None:
        return None
    host_name, host_args = moment.fields.get("tool_name"), moment.fields.get("tool_input")
    if not isinstance(host_name, str) or not isinstance(host_args, Mapping):
        return None
    vendor = group.ran[0].spec.id
    # Deferred: the points table (and with it `compat-adapter matrix`) needs no dialect loaded.
    from compat_adapter.dialects.common import host_call

    name, arguments = host_call(vendor, vendor_tool(vendor, host_name), updated)
    return {**host_args, **arguments} if name == host_name else None


def post_tool(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    answer = group.merged
    voice = group.ran[0].unit.voice
    # A row that splits results as completed/incomplete words a command's own non-zero exit as a
    # completed call (Copilot: "Tool … succeeded", its context appended to the result).
    split = row.fires_on in ("completed", "incomplete")
    failed = not scene.get("completed", True) if split else bool(scene.get("failed"))
    context, place = _context(group, failed), _place(group, failed)
    halt = _halt(group)
    note = "context" if answer.additional_context else "no decision"
    if answer.decision in _BLOCKS:
        if voice.post_block == "context":
            # The result stands; the vendor puts the block's feedback after it.
            feedback = voice.post_feedback(said(group))
            context = f"{feedback}\n\n{context}" if context else feedback
            place = "message"
            note = "block: feedback after the result"
        elif voice.post_block == "ignored":
            note = "block ignored, as the vendor ignores it"
        elif row.blocking == "verdict":
            reason = voice.post_feedback(said(group))
            return Applied(True, "block", verdict=PostToolDecision("block", reason), context=context, halt=halt)
    if answer.updated_output is not None:
        note += "; output rewrite ignored"
    if halt is not None:
        note += "; continue:false: the turn ends"
    return Applied(True, note, context=context, place=place, halt=halt)


def pre_step(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    answer = group.merged
    if row.blocking == "verdict" and (answer.decision in _BLOCKS or answer.stop):
        return Applied(True, "reject", verdict=PreStepDecision("reject"))
    if row.blocking in ("verdict", "context"):
        return Applied(True, "context", context=_context(group), place=_place(group))
    return observe(group, row, scene)


def transform(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    answer = group.merged
    if answer.replacement_prompt is not None and not (row.blocking == "verdict" and answer.decision in _BLOCKS):
        # Context given with the replacement lands too (Copilot's userPromptSubmitted: measured).
        return Applied(True, "prompt replaced for the model", replacement=answer.replacement_prompt,
                       context=_context(group), place=_place(group) if group.ran else "message")
    return pre_step(group, row, scene)


def approval(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    decision = group.merged.decision
    halt = _halt(group)
    if halt is not None:
        # continue:false (or a deny that interrupts) wins over any decision: no call, the turn ends.
        return Applied(True, "continue:false: rejected, the turn ends", verdict=ApprovalOutcome.REJECTED, halt=halt)
    if decision in _BLOCKS:
        return Applied(True, "rejected", verdict=ApprovalOutcome.REJECTED)
    if decision == "allow":
        return Applied(True, "allowed-once", verdict=ApprovalOutcome.ALLOWED_ONCE)
    return Applied(True, "no decision")


def permission(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    """A permission hook asked for a call itself (not for an approval someone else asked): a deny
    refuses the call in the vendor's words, an interrupt also ends the turn, an allow lets it run."""
    halt = _halt(group)
    voice = group.ran[0].unit.voice
    if halt is not None or group.merged.decision in _BLOCKS:
        asked = said(group)
        reason = voice.permission_denied(asked) or voice.deny(asked)
        note = "continue:false: refused, the turn ends" if halt is not None else "refused"
        return Applied(True, note, verdict=PreToolDecision("deny", reason), halt=halt)
    return Applied(True, "allowed: the call runs" if group.merged.decision == "allow" else "no decision")


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
    halt = _halt(group)  # SessionStart continue:false: the agent stops before its first step (Codex)
    note = ("context" if context else "no context") + ("; continue:false: the next turn ends" if halt else "")
    return Applied(True, note, context=context, place=_place(group), halt=halt)


def child_context(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    context = _context(group)
    reachable = bool(scene.get("child"))
    if context and reachable:
        return Applied(True, "context injected into the child", context=context)
    return Applied(reachable or not context,
                   "no context" if not context else "child not reachable: context dropped")


def stop_rule(group: GroupResult, row: EventRow, scene: Mapping[str, Any]) -> Applied:
    """A block keeps the turn going with one more step, in the vendor's own words; a vendor with a
    runaway guard ends the turn after its limit of consecutive blocks; continue:false ends it."""
    answer = group.merged
    halt = _halt(group)
    if halt is not None:
        return Applied(True, "continue:false: the turn ends", halt=halt)
    if answer.decision not in _BLOCKS:
        return Applied(True, "stop allowed")
    voice = group.ran[0].unit.voice
    forced = int(scene.get("forced", 0))
    if voice.stop_guard is not None and forced >= voice.stop_guard:
        return Applied(False, f"runaway guard: {voice.stop_guard} consecutive blocks, the turn ends",
                       verdict=END_TURN)
    return Applied(True, f"block {forced + 1}: another step",
                   verdict=Steer(voice.stop(said(group, "continue: blocked by the stop hook"))))


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
