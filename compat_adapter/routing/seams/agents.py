"""Listeners on the agent seams: created and turn-stopping (serial), the rest emitted.

A turn-stopping block steers one more step of the same turn; the route's rule decides whether a
runaway guard ends the turn instead (the built-in Copilot bridge has one).
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from compat_adapter.host.protocol import (
    AgentCreated,
    AgentError,
    AgentStatus,
    InboxInserted,
    SubagentEnd,
    SubagentStart,
    TurnStopping,
)
from compat_adapter.routing import points
from compat_adapter.routing.dispatch import HookEntry, Runner, context_messages, message, turn_of
from compat_adapter.routing.seams.prompts import prompt_parts
from compat_adapter.routing.verdicts import Steer

__all__ = ("on_agent_created", "on_disposed", "on_error", "on_inbox", "on_status", "on_subagent_end",
           "on_subagent_start", "on_turn_stopping")


async def on_agent_created(runner: Runner, event: AgentCreated) -> None:
    point = points.AGENT_CREATED
    if not runner.has(point):
        return
    done = await runner.run(point, point.fields(event), session=event.agent.session)
    for group, applied in done:
        for context in context_messages(group, applied):
            event.agent.inject(context)
        parts = prompt_parts(applied)
        if any(parts):
            # The vendor puts this context in the first prompt (CodeBuddy): it waits for it.
            runner.state.prompt_parts.setdefault(event.agent.id, []).append(parts)


async def on_turn_stopping(runner: Runner, event: TurnStopping) -> None:
    point = points.TURN_STOPPING
    if not runner.has(point):
        return
    blocks = runner.state.stop_blocks
    key = (event.agent.id, event.turn)
    forced = blocks.get(key, 0)
    # After a block, a vendor that runs its Stop hooks once a turn (Kimi) runs none of them again.
    again = None if not forced else (lambda entry: entry.unit.voice.stop_again)
    done = await runner.run(point, point.fields(event, forced), session=event.agent.session,
                            turn=event.turn, scene={"forced": forced, "agent": event.agent}, keep=again)
    if not done:
        blocks.pop(key, None)  # nothing ran: the stop goes through
    for group, applied in done:
        if isinstance(applied.verdict, Steer):
            blocks[key] = forced + 1
            event.agent.steer(message(group, applied.verdict.text))
        else:  # the stop goes through, or a guard ended the turn: the count starts again
            blocks.pop(key, None)


def on_disposed(runner: Runner, event: Any) -> Awaitable[None] | None:
    """Run the hooks of an agent's end, then forget what was kept for the agent and its session
    (a ``once`` hook of the end still sees the session's record while it is admitted)."""
    agent = event.agent
    job = runner.emit(points.DISPOSED, points.DISPOSED.fields(event), agent.session)
    if job is None:
        runner.state.forget_agent(agent.id, agent.session.id)
        return None

    async def then() -> None:
        try:
            await job
        finally:
            runner.state.forget_agent(agent.id, agent.session.id)
    return then()


def on_error(runner: Runner, event: AgentError) -> Awaitable[None] | None:
    return runner.emit(points.AGENT_ERROR, points.AGENT_ERROR.fields(event), event.agent.session,
                       turn=event.turn)


def on_status(runner: Runner, event: AgentStatus) -> Awaitable[None] | None:
    """Run the status rows; an idle row that the vendor fires only after a wait (Claude's idle
    notification) starts a timer instead, which the agent's next status flip or its end cancels."""
    point, agent = points.AGENT_STATUS, event.agent
    runner.state.stop_waiting(agent.id)
    fields = point.fields(event)
    if event.status == "idle":
        delays = {e.row.idle_after_s for g in runner.groups(point) for e in g.entries}
        for delay in sorted(d for d in delays if d is not None):
            cancel = runner.host.call_later(delay, _idle_for, runner, fields, agent, delay)
            runner.state.wait_idle(agent.id, delay, cancel)

    def fires(entry: HookEntry) -> bool:
        return entry.row.idle_after_s is None and (entry.row.fires_on != "idle" or event.status == "idle")

    return runner.emit(point, fields, agent.session, keep=fires)


async def _idle_for(runner: Runner, fields: dict[str, Any], agent: Any, delay: float) -> None:
    """The agent has stayed idle ``delay`` seconds: the rows that wait that long fire now."""
    runner.state.idle_waits.pop((agent.id, delay), None)
    job = runner.emit(points.AGENT_STATUS, fields, agent.session, keep=lambda e: e.row.idle_after_s == delay)
    if job is not None:
        await job


def on_inbox(runner: Runner, event: InboxInserted) -> Awaitable[None] | None:
    return runner.emit(points.INBOX, points.INBOX.fields(event), event.agent.session)


def on_subagent_start(runner: Runner, event: SubagentStart) -> Awaitable[None] | None:
    point = points.SUBAGENT_START
    if not runner.has(point):
        return None
    # Resolve the child now, while the host guarantees it is reachable.
    child = runner.host.get_agent(event.child_id)

    async def run() -> None:
        # The child runs inside the parent's tool call, so inside the parent's turn.
        session = event.parent.session
        done = await runner.run(point, point.fields(event), session=session, turn=turn_of(session),
                                scene={"child": child is not None})
        for group, applied in done:
            if child is not None:
                for context in context_messages(group, applied):
                    child.inject(context)
    return run()


def on_subagent_end(runner: Runner, event: SubagentEnd) -> Awaitable[None] | None:
    return runner.emit(points.SUBAGENT_END, points.SUBAGENT_END.fields(event), event.parent.session,
                       turn=turn_of(event.parent.session))
