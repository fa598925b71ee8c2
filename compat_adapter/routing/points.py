"""The translation points: for each one, its seam and mode, its payload fields and its verdict rule.

A *point* is where this project's own routes (native-translate, observe-only, the built-in Copilot
bridge) meet the host. Every vendor row that is not bridged names one point (``EventRow.point``),
and the points' facts (``pointfacts.py``: seam, mode, what an answer becomes) are the only place a
point name is spelled in the code. One dispatch loop (``dispatch.Runner.run``) runs every point:
select the hooks whose matcher picks the moment, run them, merge their answers by the vendor's
rules, apply the point's *rule* and audit the result.

A rule (``verdicts.py``) reads a merged answer and says what it does at this point
(:class:`~compat_adapter.routing.verdicts.Applied`): a host verdict that ends the dispatch, context
to hand on, a prompt replacement, variables, or nothing; and whether the answer was honoured. Rules
are pure; the seam listeners (``routing/seams/``) only carry out what a rule decided (inject,
steer, call ``next``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Self

from compat_adapter.host.answers import (
    AskUserQuestionAnswer,
    QuestionAnswer,
)
from compat_adapter.jsondata import jsonable
from compat_adapter.routing import pointfacts as facts
from compat_adapter.routing.pointfacts import Mode, PointFacts
from compat_adapter.routing.verdicts import (
    Rule,
    approval,
    child_context,
    inject,
    observe,
    permission,
    post_tool,
    pre_step,
    pre_tool,
    questions,
    shell_env,
    stop_rule,
    transform,
)

__all__ = ("BRIDGE_AGENT_TYPE", "HOST_AGENT_TYPE", "POINTS", "Point", "RecordPoint", "SeamPoint", "point_named", "question_result", "shell_ended")


@dataclass(frozen=True, slots=True)
class Point:
    """A point's facts (:class:`~compat_adapter.routing.pointfacts.PointFacts`, restated here so that
    dispatch reads them off the point) with what it does: its rule and its payload fields."""

    name: str
    seam: str | None
    mode: Mode
    produces: str
    rule: Rule
    """Reads a merged answer and says what it does here (``verdicts.py``)."""
    fields: Callable[..., Mapping[str, Any]]
    """Builds the host facts the vendor payloads are made from."""
    service: str | None = None
    log_pair: bool = False
    record: str | None = None

    @classmethod
    def of(cls, known: PointFacts, rule: Rule, fields: Callable[..., Mapping[str, Any]]) -> Self:
        """The point these facts describe, with its rule and payload fields."""
        return cls(known.name, known.seam, known.mode, known.produces, rule, fields, service=known.service,
                   log_pair=known.log_pair, record=known.record)


@dataclass(frozen=True, slots=True)
class SeamPoint(Point):
    """A point a host seam drives: every point but the host services' (their callers need a seam name)."""

    seam: str


@dataclass(frozen=True, slots=True)
class RecordPoint(SeamPoint):
    """A point derived from one kind of durable ``session/event`` record."""

    record: str = field(kw_only=True)


# ── payload fields ──────────────────────────────────────────────────────────────────────────────

def _tool_call(execution: Any) -> dict[str, Any]:
    return {"tool_name": execution.name, "tool_input": dict(execution.arguments),
            "tool_use_id": execution.call_id}


def _tool_result(event: Any) -> dict[str, Any]:
    result = event.result
    return {**_tool_call(event.execution), "tool_response": result.text, "is_error": result.is_error,
            "error": result.text if result.is_error else None, **_shell_outcome(result.value)}


def _shell_outcome(value: Any) -> dict[str, Any]:
    """A shell result's exit code and streams, when the host's result value states them (the
    embedded host: ``{exitCode, stdout, stderr, timedOut}``; DSH: streams as ``{text}``)."""
    if not isinstance(value, Mapping) or "exitCode" not in value:
        return {}
    out: dict[str, Any] = {"exit_code": value.get("exitCode")}
    for key in ("stdout", "stderr"):
        stream = value.get(key)
        text = stream.get("text") if isinstance(stream, Mapping) else stream
        if isinstance(text, str):
            out[key] = text
    if value.get("signal") is not None:
        out["signal"] = value["signal"]
    return out


def shell_ended(value: Any) -> bool:
    """Whether a host result is a shell command that ran and ended by itself, by its own exit
    code or a signal, rather than a timeout, an abort or a spawn failure. Read from the result
    value (embedded host: ``exitCode`` and ``cause``; DSH: ``exitCode`` null on a signal death,
    ``signal``, ``timedOut``, ``aborted``), never from its text."""
    if not isinstance(value, Mapping) or "exitCode" not in value:
        return False
    if value.get("timedOut") or value.get("aborted") or value.get("cause") not in (None, "signal"):
        return False
    code = value["exitCode"]
    exited = isinstance(code, int) and not isinstance(code, bool)
    return exited or value.get("cause") == "signal" or value.get("signal") is not None


def _prompt(prompt: str, agent_id: str, prompt_id: str | None = None) -> dict[str, Any]:
    # The message is logged after the pre-step waterfall: its id is given here, not read back.
    return {"prompt": prompt, "agent_id": agent_id, "prompt_id": prompt_id}


def _approval_request(request: Any) -> dict[str, Any]:
    # The request names the call, not its arguments; the listener adds the ones the host logged.
    return {"tool_name": request.tool_name, "tool_input": {"reason": request.reason},
            "tool_use_id": request.call_id, "reason": request.reason}


def _question_request(request: Any) -> dict[str, Any]:
    questions = [{"id": q.id, "question": q.question, "options": list(q.options)}
                 for q in request.questions]
    return {"questions": questions, "message": "\n".join(q.question for q in request.questions)}


def question_result(fields: Mapping[str, Any], answer: AskUserQuestionAnswer) -> dict[str, Any]:
    """The fields of an ElicitationResult-style run, after the questions were answered."""
    return {**fields,
            "answers": {a.id: {"selected": list(a.selected), "custom": a.custom} for a in answer.answers},
            # Claude's ElicitationResult reads an MCP-style action and content.
            "action": "accept",
            "content": {a.id: _content_value(a) for a in answer.answers}}


def _content_value(answer: QuestionAnswer) -> Any:
    if answer.custom is not None:
        return answer.custom
    return answer.selected[0] if len(answer.selected) == 1 else list(answer.selected)


def _agent_created(event: Any) -> dict[str, Any]:
    return {"source": event.source, "agent_id": event.agent.id}


def _turn_stopping(event: Any, forced: int) -> dict[str, Any]:
    # How many blocks already forced this turn on (Cursor's loop_count); stop_hook_active says whether any did.
    return {"stop_hook_active": forced > 0, "stop_blocks": forced,
            "last_assistant_message": event.last_assistant_message}


def _disposed(event: Any) -> dict[str, Any]:
    # The host's notice has no cause: no reason is invented, each dialect sends its default.
    return {"agent_id": event.agent.id}


def _error(event: Any) -> dict[str, Any]:
    return {"error": event.error, "agent_id": event.agent.id}


def _status(event: Any) -> dict[str, Any]:
    # An agent turning idle waits for the user: the one notification kind the host can report.
    kind = "idle_prompt" if event.status == "idle" else ""
    return {"status": event.status, "agent_id": event.agent.id, "notification": f"agent {event.status}",
            "notification_type": kind}


def _inbox(event: Any) -> dict[str, Any]:
    m = event.message
    return {"message_id": m.id, "text": m.text, "source": m.source.kind, "prompt": m.text}


#: The agent type a subagent event carries here: the hosts report none, so every subagent is this
#: one (a matcher naming another type never fires; grading says so).
HOST_AGENT_TYPE = "default"
#: What the official Claude bridge reports instead (its ``SUBAGENT_TYPE``).
BRIDGE_AGENT_TYPE = "general-purpose"


def _subagent_start(event: Any) -> dict[str, Any]:
    return {"agent_id": event.child_id, "agent_type": HOST_AGENT_TYPE, "run_id": event.run_id,
            "parent_id": event.parent.id}


def _subagent_end(event: Any) -> dict[str, Any]:
    return {"agent_id": event.child_id, "agent_type": HOST_AGENT_TYPE, "stop_reason": event.stop_reason,
            "last_assistant_message": event.last_assistant_message}


def _settings(event: Any) -> dict[str, Any]:
    return {"namespace": event.namespace, "revision": event.revision, "file_path": None,
            "source": "settings"}


def _session_created(cwd: str) -> dict[str, Any]:
    # The session's one directory is both the "new" cwd and the "added" directory.
    return {"cwd": cwd, "source": "startup", "trigger": "init", "new_cwd": cwd, "path": cwd}


def _instructions(cwd: str, files: list[str], name: str) -> dict[str, Any]:
    return {"cwd": cwd, "files": files, "file_path": str(Path(cwd) / name),
            "load_reason": "session_start", "memory_type": "Project"}


def _record(record: Any) -> dict[str, Any]:
    return {"type": record.type, "seq": record.seq, "data": jsonable(record.data)}


def _compaction_start(data: Mapping[str, Any]) -> dict[str, Any]:
    return {"trigger": "auto", "custom_instructions": "", "compaction_id": data.get("compactionId")}


def _compaction_end(data: Mapping[str, Any], summary: str | None) -> dict[str, Any]:
    return {"trigger": "auto", "summary": summary, "error": data.get("error")}


def _todo(subject: str, status: str) -> dict[str, Any]:
    return {"task_subject": subject, "status": status}


def _step_end(data: Mapping[str, Any], calls: list[dict[str, Any]]) -> dict[str, Any]:
    return {"turn": data.get("turn"), "step": data.get("step"),
            "tool_names": [c["tool_name"] for c in calls], "tool_calls": calls}


def _model_switch(previous: str, current: str, phase: str) -> dict[str, Any]:
    return {"previous_model": previous, "model": current, "phase": phase}


def _command(data: Mapping[str, Any]) -> dict[str, Any]:
    return {"command": data.get("name"), "args": data.get("args"), "name": data.get("name")}


def _workspace(data: Mapping[str, Any], files: tuple[Any, ...]) -> dict[str, Any]:
    return {"turn": data.get("turn"), "files": jsonable(files)}


#: What a refused approval means, as the reason PermissionDenied hooks read.
DENIALS = MappingProxyType({
    "rejected": "the user rejected the tool call",
    "cancelled": "the approval request was cancelled",
    "unavailable": "no approval channel was available",
})


def _approval_decided(data: Mapping[str, Any], tool: str | None) -> dict[str, Any]:
    outcome = data.get("outcome")
    return {"outcome": outcome, "id": data.get("id"), "tool_name": tool,
            "reason": DENIALS.get(str(outcome), f"approval {outcome}")}


def _display(text: str, message_id: str, turn: Any) -> dict[str, Any]:
    # What a front end would display: each committed assistant text, whole (no deltas).
    return {"role": "assistant", "text": text, "delta": text, "final": True, "index": 0,
            "message_id": message_id, "turn_id": str(turn) if turn is not None else None}


def _lsp(path: str, diagnostics: Any, hover: Any) -> dict[str, Any]:
    return {"path": path, "diagnostics": jsonable(diagnostics), "hover": jsonable(hover)}


def _file_changed(path: str, paths: tuple[str, ...], directory: str) -> dict[str, Any]:
    return {"file_path": path, "files": list(paths), "event": "change", "directory": directory}


def _worktree(tree: Any) -> dict[str, Any]:
    return {"worktree": {"path": tree.path, "head": tree.head, "branch": tree.branch},
            "worktree_path": tree.path, "name": Path(tree.path).name}


def _shell_call(execution: Any) -> dict[str, Any]:
    return {"tool_name": execution.name, "tool_input": dict(execution.arguments),
            "command": execution.arguments.get("command")}


# ── the table ───────────────────────────────────────────────────────────────────────────────────
# Each point's facts (seam, mode, what an answer becomes …) are in ``pointfacts``; here each gets
# the rule that reads its answers and the fields its payloads are made from.

# waterfalls: the answer can be the host's verdict
PRE_EXECUTE = SeamPoint.of(facts.PRE_EXECUTE, pre_tool, _tool_call)
POST_EXECUTE = SeamPoint.of(facts.POST_EXECUTE, post_tool, _tool_result)
PRE_STEP = SeamPoint.of(facts.PRE_STEP, pre_step, _prompt)
PRE_STEP_TRANSFORM = SeamPoint.of(facts.PRE_STEP_TRANSFORM, transform, _prompt)
APPROVAL = SeamPoint.of(facts.APPROVAL, approval, _approval_request)
PERMISSION = SeamPoint.of(facts.PERMISSION, permission, _tool_call)
QUESTIONS = SeamPoint.of(facts.QUESTIONS, questions, _question_request)

# serial: the host waits, so context or another step can land
AGENT_CREATED = SeamPoint.of(facts.AGENT_CREATED, inject, _agent_created)
TURN_STOPPING = SeamPoint.of(facts.TURN_STOPPING, stop_rule, _turn_stopping)

# emit: observed (a child's context still reaches the child, which has not started yet)
SUBAGENT_START = SeamPoint.of(facts.SUBAGENT_START, child_context, _subagent_start)
SUBAGENT_END = SeamPoint.of(facts.SUBAGENT_END, observe, _subagent_end)
DISPOSED = SeamPoint.of(facts.DISPOSED, observe, _disposed)
AGENT_ERROR = SeamPoint.of(facts.AGENT_ERROR, observe, _error)
AGENT_STATUS = SeamPoint.of(facts.AGENT_STATUS, observe, _status)
INBOX = SeamPoint.of(facts.INBOX, observe, _inbox)
SETTINGS = SeamPoint.of(facts.SETTINGS, observe, _settings)
SESSION_CREATED = SeamPoint.of(facts.SESSION_CREATED, observe, _session_created)
INSTRUCTIONS_LOADED = SeamPoint.of(facts.INSTRUCTIONS_LOADED, observe, _instructions)

# emit, derived from the durable records of session/event
SESSION_EVENT = SeamPoint.of(facts.SESSION_EVENT, observe, _record)
COMPACTION_START = RecordPoint.of(facts.COMPACTION_START, observe, _compaction_start)
COMPACTION_END = RecordPoint.of(facts.COMPACTION_END, observe, _compaction_end)
TODO = RecordPoint.of(facts.TODO, observe, _todo)
STEP_END = RecordPoint.of(facts.STEP_END, observe, _step_end)
MODEL_SWITCH = RecordPoint.of(facts.MODEL_SWITCH, observe, _model_switch)
COMMAND = RecordPoint.of(facts.COMMAND, observe, _command)
WORKSPACE = RecordPoint.of(facts.WORKSPACE, observe, _workspace)
APPROVAL_DECIDED = RecordPoint.of(facts.APPROVAL_DECIDED, observe, _approval_decided)
DISPLAY = RecordPoint.of(facts.DISPLAY, observe, _display)
LSP = RecordPoint.of(facts.LSP, observe, _lsp)

# host services call back
FS_WATCH = Point.of(facts.FS_WATCH, observe, _file_changed)
WORKTREES = Point.of(facts.WORKTREES, observe, _worktree)
SHELL_ENV = Point.of(facts.SHELL_ENV, shell_env, _shell_call)

#: Every point by name.
POINTS: Mapping[str, Point] = MappingProxyType({p.name: p for p in (
    PRE_EXECUTE, POST_EXECUTE, PRE_STEP, PRE_STEP_TRANSFORM, APPROVAL, PERMISSION, QUESTIONS,
    AGENT_CREATED, TURN_STOPPING, SUBAGENT_START, SUBAGENT_END, DISPOSED, AGENT_ERROR,
    AGENT_STATUS, INBOX, SETTINGS, SESSION_CREATED, INSTRUCTIONS_LOADED, SESSION_EVENT,
    COMPACTION_START, COMPACTION_END, TODO, STEP_END, MODEL_SWITCH, COMMAND,
    WORKSPACE, APPROVAL_DECIDED, DISPLAY, LSP, FS_WATCH, WORKTREES,
    SHELL_ENV,
)})


def point_named(name: str) -> Point:
    """The point a row names; a row naming no point is a table error, raised here."""
    point = POINTS.get(name)
    if point is None:
        raise LookupError(f"no translation point {name!r}")
    return point
