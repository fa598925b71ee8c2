"""The agent loop of the embedded host: one turn, in the exact order of DSH (dsh-seams.md §3).

A turn (live events in brackets)::

    [agent/inbox/inserted] → [agent/status running] → turn/start → claim the inbox →
    agent/pre-step waterfall ── reject → turn/end {blocked}, no step
      → step/start → user/message per entered message
      → (directives: SwitchModel, Compact, RunCommand) → request/header (first / resume / change)
      → assistant/message  (or the scripted Error: step/end, [agent/error], turn/end {error})
      → per tool call: tool/call → tools/pre-execute waterfall
            → [ask: approval/asked → approval/request waterfall → approval/decided]
            → the real tool (or, denied, the error `Error: <reason>`) → tools/post-execute
            waterfall → tool/result → [tools/result]
      → post-tool additional_contexts enter the next-step inbox → step/end
      → tool calls made: next step (pre-step again, same turn)
      → model stopped and next-step inbox empty: agent/turn-stopping serial
      → next-step inbox not empty: next step; else turn/end {completed}
    → workspace/changes (only when the turn's tools changed files) → [agent/status idle]

There is no consecutive-block cap (DSH has none): only the host's own ``max_steps_per_turn`` guard
ends a turn that keeps being steered, with reason ``max-steps``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

import anyio

from compat_adapter.host.embedded.tools import TOOLS, ChangeTracker, execute_tool
from compat_adapter.host.offer import OFFER_SEAM, ToolOffer, unoffered_text
from compat_adapter.host.protocol import (
    AgentError,
    ApprovalOutcome,
    ApprovalRequest,
    PostToolDecision,
    PreStepDecision,
    PreStepEvent,
    PreToolDecision,
    ToolExecution,
    ToolPostEvent,
    ToolResult,
    TurnStopping,
    UserMessage,
    new_message,
)
from compat_adapter.host.script import (
    EXHAUSTED_TEXT,
    Compact,
    Error,
    Reply,
    RunCommand,
    Subagent,
    SwitchModel,
    ToolCall,
)

if TYPE_CHECKING:
    # The loop drives an agent through its public inbox API; the agent imports the loop, so
    # these names are for the type checker only.
    from compat_adapter.host.embedded.agent import MemoryAgent
    from compat_adapter.host.embedded.memory import MemoryHost

_T = TypeVar("_T")

#: The running call's change tracker, for a nested call made from inside it.
_TRACKER: ContextVar[ChangeTracker | None] = ContextVar("embedded_call_tracker", default=None)

__all__ = (
    "TurnResult",
    "compact",
    "denial_text",
    "message_record",
    "model_config",
    "run_command",
    "run_nested",
    "run_turn",
)


@dataclass(frozen=True, slots=True)
class TurnResult:
    """How one turn ended."""

    turn: int
    #: ``completed`` | ``blocked`` (pre-step reject) | ``error`` (model failure) |
    #: ``max-steps`` (the host's runaway guard) | ``aborted`` (cancelled).
    reason: str
    #: Steps started (0 when the first pre-step rejected).
    steps: int
    last_assistant_message: str | None = None
    error: str | None = None


def model_config(model: str) -> Mapping[str, str]:
    """``provider/model`` → ``{provider, model}`` (a bare name is a ``scripted`` model)."""
    provider, _, name = model.partition("/")
    if not name:
        return {"provider": "scripted", "model": provider}
    return {"provider": provider, "model": name}


def message_type(message: UserMessage) -> str:
    """The record a message is logged as: ``user/message``, or for context the vendor puts in a
    system or developer message, a v4 ``developer/message`` (as DSH 0.2.1 logs such context; its
    ``role`` says whom the model reads it from)."""
    return "user/message" if message.role == "user" else "developer/message"


def message_record(message: UserMessage, turn: int | None, step: int | None) -> dict[str, Any]:
    """The data of a ``user/message`` (or ``developer/message``) record."""
    return {
        "id": message.id,
        "role": message.role,
        "text": message.text,
        "source": {"kind": message.source.kind, "name": message.source.name},
        "turn": turn,
        "step": step,
    }


def denial_text(tool: str, outcome: ApprovalOutcome) -> str:
    """The deny reason DSH gives when an ``ask`` is not approved (``serviceAsk``, word for word)."""
    if outcome is ApprovalOutcome.REJECTED:
        return f'the user rejected tool "{tool}"'
    if outcome is ApprovalOutcome.CANCELLED:
        return f'approval for tool "{tool}" was cancelled'
    return f'tool "{tool}" requires approval, but no approval channel is available'


async def run_turn(agent: MemoryAgent) -> TurnResult:
    """Run one turn of ``agent``; the caller holds the agent's turn lock."""
    host = agent.host
    session = agent.session
    session.turns += 1
    turn = session.turns
    tracker = ChangeTracker(session.cwd)
    state = _TurnState()
    agent.set_status("running")
    try:
        session.append("turn/start", {"turn": turn})
        claimed = agent.claim(turn_start=True)
        await _steps(agent, host, turn, claimed, tracker, state)
    except BaseException as exc:
        # Cancellation (or a host bug) still closes the turn in the log before propagating.
        state.reason = "aborted" if isinstance(exc, anyio.get_cancelled_exc_class()) else "error"
        state.error = None if state.reason == "aborted" else repr(exc)
        with anyio.CancelScope(shield=True):
            _close_turn(agent, turn, tracker, state)
        raise
    _close_turn(agent, turn, tracker, state)
    result = TurnResult(turn, state.reason, state.steps, state.last_text, state.error)
    agent.last_turn = result
    return result


class _TurnState:
    __slots__ = ("reason", "error", "steps", "last_text")

    def __init__(self) -> None:
        self.reason = "completed"
        self.error: str | None = None
        self.steps = 0
        self.last_text: str | None = None


def _close_turn(agent: MemoryAgent, turn: int, tracker: ChangeTracker, state: _TurnState) -> None:
    session = agent.session
    reason: dict[str, Any] = {"kind": state.reason}
    if state.error is not None:
        reason["error"] = state.error
    session.append("turn/end", {"turn": turn, "reason": reason})
    files = tracker.summary()
    if files:
        session.append("workspace/changes", {"turn": turn, "files": files})
    agent.set_status("idle")


async def _steps(agent: MemoryAgent, host: MemoryHost, turn: int, claimed: tuple[UserMessage, ...],
                 tracker: ChangeTracker, state: _TurnState) -> None:
    session = agent.session
    step = 0
    while True:
        if step >= host.max_steps_per_turn:
            state.reason = "max-steps"
            host.log("warning", "turn stopped by the host's step cap", agent=agent.id, turn=turn,
                     steps=step)
            return
        step += 1
        batch = claimed
        decision = await host.waterfall("agent/pre-step", PreStepEvent(agent, batch, turn, step),
                                        partial(PreStepDecision, "enter", batch))
        if not isinstance(decision, PreStepDecision):
            host.log("error", "agent/pre-step returned a non-decision; entering the claimed batch",
                     verdict=repr(decision))
            decision = PreStepDecision("enter", batch)
        if decision.kind == "reject":
            state.reason = "blocked"
            return
        state.steps = step
        session.append("step/start", {"turn": turn, "step": step})
        for message in decision.messages:
            session.append(message_type(message), message_record(message, turn, step))

        agent.offered = await _offer(agent, host)
        answer = await _request(agent, turn, step)
        if isinstance(answer, Error):
            session.append("step/end", {"turn": turn, "step": step})
            host.emit("agent/error", AgentError(agent, turn, step, answer.message))
            state.reason, state.error = "error", answer.message
            return

        calls = tuple((c.call_id or host.next_id("call"), c) for c in answer.calls)
        session.append("assistant/message", {
            "turn": turn,
            "step": step,
            "text": answer.text,
            "toolCalls": [{"callId": cid, "name": c.name, "arguments": c.plain_arguments()}
                          for cid, c in calls],
            "model": dict(model_config(agent.model)),
        })
        if answer.text is not None:
            state.last_text = answer.text

        if calls:
            contexts: list[UserMessage] = []
            for call_id, tool_call in calls:
                contexts.extend(
                    await _run_call(agent, host, turn, step, call_id, tool_call, tracker))
            # DSH queues post-tool context after the whole batch's results.
            for message in contexts:
                agent.insert("next-step", message)
            session.append("step/end", {"turn": turn, "step": step})
            claimed = agent.claim(turn_start=False)
            continue

        session.append("step/end", {"turn": turn, "step": step})
        if not agent.has_next_step():
            await host.serial("agent/turn-stopping", TurnStopping(agent, turn, state.last_text))
        if agent.has_next_step():
            claimed = agent.claim(turn_start=False)
            continue
        return


async def _request(agent: MemoryAgent, turn: int, step: int) -> Reply | Error:
    """Take script items up to the next answer, performing directives on the way."""
    answer: Reply | Error | None = None
    while agent.script and answer is None:
        item = agent.script.popleft()
        if isinstance(item, SwitchModel):
            agent.model = item.model
        elif isinstance(item, Compact):
            await compact(agent, item.summary, turn=turn)
        elif isinstance(item, RunCommand):
            await run_command(agent, item.name, item.args, turn=turn)
        elif isinstance(item, Subagent):
            answer = Reply(item.text, (item.as_call(),))
        else:
            answer = item
    _request_header(agent, turn, step)
    agent.requests += 1
    return answer if answer is not None else Reply(EXHAUSTED_TEXT)


def _request_header(agent: MemoryAgent, turn: int, step: int) -> None:
    session = agent.session
    config = dict(model_config(agent.model))
    previous = session.header_config
    if agent.requests == 0 and agent.source == "resume":
        reason = "resume"
    elif previous is None:
        reason = "initial"
    elif dict(previous) != config:
        reason = "change"
    else:
        return
    session.header_config = config
    session.append("request/header", {
        "turn": turn,
        "step": step,
        "reason": reason,
        "header": {"config": config},
        "previous": None if previous is None else dict(previous),
        "current": config,
    })


async def _run_call(agent: MemoryAgent, host: MemoryHost, turn: int, step: int, call_id: str,
                    tool_call: ToolCall, tracker: ChangeTracker) -> tuple[UserMessage, ...]:
    session = agent.session
    name = tool_call.name
    session.append("tool/call", {"turn": turn, "step": step, "callId": call_id, "name": name,
                                 "arguments": json.dumps(tool_call.plain_arguments())})
    # Listeners get their own copy; the tool body gets another, so nothing a listener does to
    # the arguments changes what runs (DSH has no input-rewrite arm).
    execution = ToolExecution(call_id, name, tool_call.plain_arguments(), agent)
    token = _TRACKER.set(tracker)
    try:
        result, contexts = await _pipeline(agent, host, execution, tool_call.plain_arguments(), tracker)
    finally:
        _TRACKER.reset(token)
    session.append("tool/result", {"turn": turn, "step": step, "callId": call_id, "name": name,
                                   "isError": result.is_error, "text": result.text})
    host.emit("tools/result", ToolPostEvent(execution, result))
    return contexts


async def _pipeline(agent: MemoryAgent, host: MemoryHost, execution: ToolExecution,
                    arguments: Mapping[str, Any], tracker: ChangeTracker
                    ) -> tuple[ToolResult, tuple[UserMessage, ...]]:
    """One call through the registry's stages, as DSH's ``ToolRuntime.execute``: pre-execute
    (and approval), around-dispatch ``tools/execute`` with the body inside, post-execute."""
    name = execution.name
    decision = await _answer(host, "tools/pre-execute", execution, lambda: PreToolDecision("allow"),
                             PreToolDecision("allow"), "allowing")
    if decision.kind == "ask":
        decision = await _approve(agent, host, execution, decision.reason)

    if decision.kind == "deny":
        result = ToolResult(True, f"Error: {decision.reason or f'tool {name} was denied'}")
    elif agent.offered is not None and name in TOOLS and name not in agent.offered:
        result = ToolResult(True, unoffered_text(name))  # the model was never offered it
    else:
        result = await _answer(host, "tools/execute", execution,
                               lambda: execute_tool(agent, execution, dict(arguments), tracker),
                               ToolResult(True, f"Error: tools/execute returned no result for tool {name}"),
                               "failing the call")
    # DSH runs post-execute on a denied call too (a denial is a "post-result"): a listener may
    # reword or enrich the error result, never turn it into a success.
    post = await _answer(host, "tools/post-execute", ToolPostEvent(execution, result),
                         lambda: PostToolDecision("accept"), PostToolDecision("accept"), "accepting")
    if post.kind == "block":
        result = ToolResult(True, post.feedback if post.feedback is not None else
                            f"the result of tool {name} was blocked", result.value)
    elif post.appended:
        result = ToolResult(result.is_error, result.text + post.appended, result.value)
    return result, tuple(post.additional_contexts)


async def _offer(agent: MemoryAgent, host: MemoryHost) -> tuple[str, ...]:
    """The tools this request offers: the ``tools/offer`` waterfall over the whole catalogue."""
    catalogue = tuple(TOOLS)
    offered = await _answer(host, OFFER_SEAM, ToolOffer(agent, catalogue), lambda: catalogue, catalogue,
                            "offering the whole catalogue")
    if all(isinstance(t, str) for t in offered):
        return offered
    host.log("error", f"{OFFER_SEAM} returned a tuple that is not all tool names; offering the whole catalogue",
             verdict=repr(offered))
    return catalogue


async def _answer(host: MemoryHost, seam: str, event: Any, default: Callable[[], Any], fallback: _T,
                  instead: str) -> _T:
    """A waterfall's answer, or ``fallback`` (logged) when a listener answered something else."""
    answer = await host.waterfall(seam, event, default)
    if isinstance(answer, type(fallback)):
        return answer
    host.log("error", f"{seam} returned a non-{type(fallback).__name__}; {instead}", verdict=repr(answer))
    return fallback


async def run_nested(host: MemoryHost, parent: ToolExecution, call_id: str,
                     arguments: Mapping[str, Any]) -> ToolResult:
    """A nested call of ``parent``'s tool (``Host.execute_nested``): the whole pipeline, no log
    records of its own (DSH's registry writes none; the loop logs the outer call), and its final
    outcome announced on ``tools/result``. Its post-execute context is not carried over."""
    tracker = _TRACKER.get()
    agent = parent.agent
    if tracker is None or agent is None:
        raise RuntimeError("a nested tool call needs a running call of an agent")
    execution = ToolExecution(call_id, parent.name, dict(arguments), agent)
    result, _ = await _pipeline(agent, host, execution, arguments, tracker)  # type: ignore[arg-type]  # a MemoryAgent
    host.emit("tools/result", ToolPostEvent(execution, result))
    return result


async def _approve(agent: MemoryAgent, host: MemoryHost, execution: ToolExecution,
                   reason: str | None) -> PreToolDecision:
    session = agent.session
    approval_id = host.next_id("approval")
    session.append("approval/asked", {"id": approval_id, "toolName": execution.name,
                                      "callId": execution.call_id, "reason": reason})
    request = ApprovalRequest(agent, execution.name, execution.call_id, reason)
    raw = await host.waterfall("approval/request", request, lambda: host.default_approval(request))
    try:
        outcome = ApprovalOutcome(raw)
    except ValueError:
        # DSH normalises a rogue answer to "unavailable": fail closed.
        host.log("error", "approval/request returned a non-outcome; unavailable", verdict=repr(raw))
        outcome = ApprovalOutcome.UNAVAILABLE
    session.append("approval/decided", {"id": approval_id, "outcome": outcome.value})
    if outcome is ApprovalOutcome.ALLOWED_ONCE:
        return PreToolDecision("allow")
    return PreToolDecision("deny", denial_text(execution.name, outcome))


# ── compaction and commands ─────────────────────────────────────────────────────────────────────

async def compact(agent: MemoryAgent, summary: str, *, turn: int | None,
                  command_id: str | None = None) -> None:
    """``compaction/start`` → ``compaction/summary`` → the summary as a replacing ``user/message``
    → ``compaction/end``, then ``agent/created`` with source ``compact`` for this agent."""
    host = agent.host
    session = agent.session
    compaction_id = host.next_id("compaction")
    source = {"sourceCommandId": command_id} if command_id is not None else {}
    session.append("compaction/start", {"compactionId": compaction_id, "turn": turn, **source})
    shadowed_end = len(session.events)
    config = model_config(agent.model)
    session.append("compaction/summary", {
        "compactionId": compaction_id,
        **source,
        "summary": summary,
        "shadowedRange": {"start": 1, "end": shadowed_end},
        "provider": config["provider"],
        "model": config["model"],
    })
    record = message_record(new_message(summary, "compaction", compaction_id), turn, None)
    record["surfaceOp"] = {"op": "replace", "start": 1, "end": shadowed_end}
    session.append("user/message", record)
    session.append("compaction/end", {"compactionId": compaction_id, "turn": turn, **source})
    await agent.restart("compact")


async def run_command(agent: MemoryAgent, name: str, args: str | None, *, turn: int | None) -> None:
    """``command/run`` … ``command/done``; ``compact`` compacts, ``clear`` restarts as ``clear``."""
    host = agent.host
    session = agent.session
    command_id = host.next_id("command")
    session.append("command/run", {"commandId": command_id, "name": name, "args": args,
                                   "source": "user", "turn": turn})
    run_seq = session.events[-1].seq
    if name == "compact":
        await compact(agent, args or "Summary of the conversation so far.", turn=turn,
                      command_id=command_id)
        text = "compacted"
    elif name == "clear":
        await agent.restart("clear")
        text = "cleared"
    else:
        text = f"ran /{name}"
    session.append("command/done", {"commandId": command_id, "kind": "success", "text": text,
                                    "sourceEventSeq": run_seq})
