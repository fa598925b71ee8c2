"""Listeners on the tool seams: pre-execute and post-execute (waterfalls), approval requests."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from compat_adapter.host.protocol import (
    ApprovalOutcome,
    ApprovalRequest,
    PostToolDecision,
    PreToolDecision,
    SessionHandle,
    ToolExecution,
    ToolPostEvent,
    ToolResult,
    UserMessage,
)
from compat_adapter.routing import points
from compat_adapter.routing.dispatch import HookEntry, Runner, context_messages, turn_of
from compat_adapter.routing.failclosed import Unanswered
from compat_adapter.routing.hostfacts import call_arguments, call_started
from compat_adapter.routing.verbatim import reworded

__all__ = ("EXECUTE_SEAM", "on_approval", "on_execute", "on_post_execute", "on_pre_execute")

Next = Callable[[], Awaitable[Any]]

#: The around-dispatch seam: no point of its own (no hook runs there); it carries input rewrites.
EXECUTE_SEAM = "tools/execute"


def _duration(runner: Runner, session: SessionHandle | None, call_id: str) -> dict[str, Any]:
    """``duration_ms`` of a finished call: from the end of its pre-tool hooks, else from when the
    host logged the call; absent when neither is known."""
    started = runner.state.started.pop(call_id, None)
    if started is None and session is not None:
        started = call_started(session, call_id)
    if started is None:
        return {}
    return {"duration_ms": max(0, round((time.time() - started) * 1000))}


async def on_pre_execute(runner: Runner, execution: ToolExecution, next: Next) -> PreToolDecision:
    point = points.PRE_EXECUTE
    if not (runner.has(point) or runner.has(points.PERMISSION)) or runner.rewrites.nested(execution):
        # A rewrite's nested call: our hooks answered for the outer call; the host's other
        # policy listeners and guards judge the new input.
        return await next()
    session = execution.agent.session if execution.agent is not None else None
    turn = turn_of(session) if session is not None else None
    # The agent is in the scene so that an asyncRewake hook can wake it later.
    scene = {"approval": "approval" in runner.host.surface.services, "agent": execution.agent}
    done = await runner.run(point, point.fields(execution), session=session, turn=turn, scene=scene)
    if isinstance(done, Unanswered) and done.guarded:
        return PreToolDecision("deny", done.reason)
    if not (done and done[-1][1].verdict is not None):
        # Undecided: the vendors that ask permission for the call itself run their permission
        # hooks now (a vendor whose pre-tool hook allowed it asks nothing more: Copilot, measured).
        allowed = {group.ran[0].spec.id for group, _ in done if group.merged.decision == "allow"}
        asked = await runner.run(points.PERMISSION, points.PERMISSION.fields(execution), session=session, turn=turn,
                                 scene=scene, keep=lambda entry: entry.spec.id not in allowed)
        if isinstance(asked, Unanswered) and asked.guarded:
            return PreToolDecision("deny", asked.reason)
        if asked and asked[-1][1].verdict is not None:
            done = [*done, *asked]
    if not (done and done[-1][1].verdict is not None) and runner.has(points.POST_EXECUTE):
        # The call runs from here: its duration starts after the pre-tool hooks, as the vendors time it.
        runner.state.start(execution.call_id, time.time())
    if execution.agent is not None:
        # Pre-tool context (Claude shows it after the result): queued for the next model call.
        for group, answer in done:
            for context in context_messages(group, answer):
                execution.agent.inject(context)
    if not done:
        return await next()
    applied = done[-1][1]
    verdict = applied.verdict
    if isinstance(verdict, PreToolDecision) and verdict.kind == "deny" and verdict.reason is not None:
        # The host words a deny its own way: the model reads the vendor's text after post-execute.
        return runner.verbatim.deny(execution, verdict.reason)
    if isinstance(verdict, PreToolDecision) and verdict.kind == "ask":
        first = done[-1][0].ran[0]
        if first.unit.landing.ask_runs_hooks_again:
            runner.reasked.want(execution, first.spec.id)
        if first.unit.landing.ask_unattended == "allow":
            runner.unattended.want(execution, first.spec.id)  # nobody to ask: the vendor runs the call
        elif applied.unanswered is not None:
            runner.verbatim.ask(execution, applied.unanswered)
    if verdict is None and applied.rewrite is not None:
        runner.rewrites.want(execution, applied.rewrite)
    if verdict is not None:
        return verdict
    if any(group.merged.decision == "allow" for group, _ in done):
        runner.allowed.mark(execution)  # a rule's guard further out weighs the hook's allow
    return await next()


async def on_execute(runner: Runner, execution: ToolExecution, next: Next) -> ToolResult:
    return await runner.rewrites.on_execute(execution, next)


async def on_post_execute(runner: Runner, event: ToolPostEvent, next: Next) -> PostToolDecision:
    point = points.POST_EXECUTE
    if runner.rewrites.nested(event.execution):
        return await next()  # post-tool hooks run once, on the outer call
    said = runner.verbatim.take(event)
    if said is not None:
        # A call one of our pre-tool hooks denied: no vendor runs post-tool hooks for it; the
        # model reads the deny in the vendor's words.
        return await reworded(said, next)
    if not runner.has(point):
        return await next()
    execution, failed = event.execution, event.result.is_error
    session = execution.agent.session if execution.agent is not None else None
    turn = turn_of(session) if session is not None else None
    # A shell command that ran and ended non-zero (its exit or a signal) is a failure to some
    # vendors (Claude) and a completed call to others (CodeBuddy): each row says which it takes.
    completed = not failed or points.shell_ended(event.result.value)
    part = {"success": not failed, "failure": failed, "completed": completed, "incomplete": not completed}

    def fires(entry: HookEntry) -> bool:
        return part.get(entry.row.fires_on, True)

    fields = {**point.fields(event), **_duration(runner, session, execution.call_id)}
    done = await runner.run(point, fields, session=session, turn=turn, keep=fires,
                            scene={"agent": execution.agent, "failed": failed, "completed": completed})
    contexts: list[UserMessage] = []
    appended = ""
    for group, applied in done:
        contexts.extend(context_messages(group, applied))
        if applied.context and applied.place == "result":
            # The vendor appends this context to the result the model reads (Copilot, CodeBuddy).
            appended += group.ran[0].unit.voice.result_separator + applied.context
    if done and isinstance(done[-1][1].verdict, PostToolDecision):
        verdict = done[-1][1].verdict
        return PostToolDecision(verdict.kind, verdict.feedback, tuple(contexts))
    downstream: PostToolDecision = await next()
    if not contexts and not appended:
        return downstream
    if downstream.kind != "accept":
        # A later listener blocked the result: appended context has no result left to follow.
        return PostToolDecision(downstream.kind, downstream.feedback,
                                tuple(contexts) + downstream.additional_contexts)
    return PostToolDecision("accept", None, tuple(contexts) + downstream.additional_contexts,
                            appended=appended + (downstream.appended or "") or None)


async def on_approval(runner: Runner, request: ApprovalRequest, next: Next) -> ApprovalOutcome:
    # An ask of our pre-tool hooks that nobody answers is settled as its vendor settles it.
    outcome = runner.unattended.settle(request, await _approval(runner, request, next))
    asked = runner.reasked.take(request)
    if asked is None or outcome is not ApprovalOutcome.ALLOWED_ONCE:
        return outcome
    # The call a vendor's pre-tool hooks asked about goes ahead: that vendor runs them once more
    # (CodeBuddy), and a deny of theirs refuses it; another ask or an allow lets it run.
    execution, vendor = asked
    point = points.PRE_EXECUTE
    again = await runner.run(point, point.fields(execution), session=request.agent.session,
                             turn=turn_of(request.agent.session), scene={"approval": False, "agent": request.agent},
                             keep=lambda entry: entry.spec.id == vendor)
    verdict = again[-1][1].verdict if again else None
    if isinstance(again, Unanswered) and again.guarded:
        runner.verbatim.rejected(execution, again.reason)
        return ApprovalOutcome.REJECTED
    if not (isinstance(verdict, PreToolDecision) and verdict.kind == "deny"):
        return outcome
    if verdict.reason is not None:
        runner.verbatim.rejected(execution, verdict.reason)  # the model reads the vendor's words
    return ApprovalOutcome.REJECTED


async def _approval(runner: Runner, request: ApprovalRequest, next: Next) -> ApprovalOutcome:
    point = points.APPROVAL
    if not runner.has(point):
        return await next()
    session = request.agent.session
    fields = dict(point.fields(request))
    arguments = call_arguments(session, request.call_id)
    if arguments is not None:  # the request names the call; the log holds its arguments
        fields["tool_input"] = arguments
    done = await runner.run(point, fields, session=session, turn=turn_of(session))
    if isinstance(done, Unanswered) and done.guarded:
        # The host denies a cancelled approval; its words cannot carry ours, the log does.
        runner.host.log("warning", f"approval for tool {request.tool_name} cancelled: {done.reason}")
        return ApprovalOutcome.CANCELLED
    if done and done[-1][1].verdict is not None:
        return done[-1][1].verdict
    return await next()
