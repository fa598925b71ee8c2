"""Listeners on the prompt seams: the user's prompt before a step (waterfall), and questions."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from compat_adapter.host.protocol import (
    AskUserQuestionAnswer,
    PreStepDecision,
    PreStepEvent,
    SessionHandle,
    UserMessage,
    UserQuestionsRequest,
)
from compat_adapter.routing import points
from compat_adapter.routing.dispatch import HookEntry, Runner, context_messages, message, turn_of
from compat_adapter.routing.verdicts import Applied

__all__ = ("PROMPT_PARTS", "halted", "on_pre_step", "on_questions", "prompt_parts")

#: Memo key: agent id → context parts (before, after) waiting for the agent's next prompt, from hooks
#: that ran before there was one (CodeBuddy puts session-start context in the first user message).
PROMPT_PARTS = "prompt-parts"

Next = Callable[[], Awaitable[Any]]


def prompt_parts(applied: Applied) -> tuple[str, str]:
    """The context a rule decided that rides in the user's prompt message: (before, after) it."""
    if applied.context and applied.place == "before-prompt":
        return applied.context, ""
    if applied.context and applied.place == "after-prompt":
        return "", applied.context
    return "", ""


def halted(runner: Runner, session: SessionHandle, turn: int) -> bool:
    """Whether a hook answered continue:false in this turn (or before it began): the step is refused.

    A halt recorded outside a turn (a session start) stops the next turn's first step; one
    recorded in an earlier turn that has ended is stale and dropped.
    """
    halts = runner.memo.get("halt")
    if not halts or session.id not in halts:
        return False
    at = halts.pop(session.id)
    return at is None or at == turn


async def on_pre_step(runner: Runner, event: PreStepEvent, next: Next) -> PreStepDecision:
    if halted(runner, event.agent.session, event.turn):
        # A hook answered continue:false: the vendor stops the agent, so no further step runs.
        return PreStepDecision("reject")
    # Only what the user typed is a prompt: steering, injected context (rules, hook context)
    # and tool continuations ride in the same batch but are not the vendor's prompt.
    prompts = tuple(m for m in event.messages if m.source.kind == "user")
    waiting = runner.memo.get(PROMPT_PARTS, {})
    hooked = runner.has(points.PRE_STEP) or runner.has(points.PRE_STEP_TRANSFORM)
    if not prompts and runner.has(points.PRE_STEP):
        return await _continuation(runner, event, next)
    if not prompts or not (hooked or event.agent.id in waiting):
        return await next()
    prompt = "\n".join(m.text for m in prompts)
    contexts: list[UserMessage] = []
    parts: list[tuple[str, str]] = list(waiting.get(event.agent.id, ()))
    replacement: str | None = None
    for point in (points.PRE_STEP, points.PRE_STEP_TRANSFORM):
        if not runner.has(point):
            continue
        done = await runner.run(point, point.fields(prompt, event.agent.id, prompts[0].id),
                                session=event.agent.session,
                                turn=event.turn)
        for group, applied in done:
            if applied.verdict is not None:
                return applied.verdict
            if applied.replacement is not None:
                replacement = applied.replacement
            contexts.extend(context_messages(group, applied))
            parts.append(prompt_parts(applied))
    downstream: PreStepDecision = await next()
    if downstream.kind != "enter":
        return downstream
    # The prompt is entered: context that waited for it rides in it now, and only now.
    waiting.pop(event.agent.id, None)
    messages = downstream.messages
    first, rest = prompts[0].id, {m.id for m in prompts[1:]}
    if replacement is not None:
        # The batch's prompts become one replaced prompt; everything else stays as it was.
        messages = tuple(UserMessage(id=m.id, text=replacement, source=m.source) if m.id == first else m
                         for m in messages if m.id not in rest)
    before = [b for b, _ in parts if b]
    after = [a for _, a in parts if a]
    if before or after:
        # The vendor adds the context to the user's own message (CodeBuddy a part before the
        # query, Copilot a reminder after it); this host's message is text, so parts are paragraphs.
        messages = tuple(UserMessage(id=m.id, text="\n\n".join([*before, m.text, *after]), source=m.source)
                         if m.id == first else m for m in messages)
    return PreStepDecision("enter", tuple(messages) + tuple(contexts))


def _every_step(entry: HookEntry) -> bool:
    return entry.row.fires_on == "every-step"


async def _continuation(runner: Runner, event: PreStepEvent, next: Next) -> PreStepDecision:
    """A step with no typed prompt (a tool continuation): only the rows that fire on every step run,
    with an empty prompt (Qwen Code's UserPromptSubmit), and their context rides in the step."""
    done = await runner.run(points.PRE_STEP, points.PRE_STEP.fields("", event.agent.id),
                            session=event.agent.session, turn=event.turn, keep=_every_step)
    contexts: list[UserMessage] = []
    for group, applied in done:
        if applied.verdict is not None:
            return applied.verdict
        if applied.context:
            contexts.append(message(group, applied.context))
    downstream: PreStepDecision = await next()
    if downstream.kind != "enter" or not contexts:
        return downstream
    return PreStepDecision("enter", tuple(downstream.messages) + tuple(contexts))


def _asks(entry: HookEntry) -> bool:
    return entry.row.event == "Elicitation"


def _hears(entry: HookEntry) -> bool:
    return entry.row.event == "ElicitationResult"


async def on_questions(runner: Runner, request: UserQuestionsRequest, next: Next) -> AskUserQuestionAnswer:
    point = points.QUESTIONS
    if not runner.has(point):
        return await next()
    session = request.agent.session if request.agent is not None else None
    turn = turn_of(session) if session is not None else None
    fields = point.fields(request)
    scene = {"asked": frozenset(q.id for q in request.questions)}
    done = await runner.run(point, fields, session=session, turn=turn, scene=scene, keep=_asks)
    answer = done[-1][1].verdict if done and done[-1][1].verdict is not None else None
    if answer is None:
        answer = await next()
    await runner.run(point, points.question_result(fields, answer), session=session, turn=turn, keep=_hears)
    return answer
