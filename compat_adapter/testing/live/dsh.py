"""The live checks on the real DeepSeek Harness lane: the same drivers, a real rc.8 composition.

:class:`LaneHost` gives the drivers the handful of calls they make on the embedded host
(``create_agent``, ``on``, ``settle``, ``sessions``) over a :class:`~compat_adapter.host.dsh.lane.Runner`;
the adapter itself gets the real :class:`~compat_adapter.host.dsh.host.DshHost`. Records are read
back from the host's mirror of the real log, which :mod:`compat_adapter.host.dsh.records` reads
in the contract's vocabulary, so a check reads ``user/message {text, turn, step, source}`` and
``tool/result {text, isError}`` on either host and asserts the same thing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compat_adapter.host.dsh.host import DshAgent, DshHost
from compat_adapter.host.dsh.lane import Runner
from compat_adapter.host.protocol import LogEvent
from compat_adapter.routing import points

__all__ = ("LaneAgent", "LaneHost", "LaneSession", "TurnResult")


class LaneSession:
    """One real session log (the host's mirror, fed by DSH's own ``session/event`` feed)."""

    def __init__(self, agent: DshAgent) -> None:
        self._agent = agent

    @property
    def events(self) -> Sequence[LogEvent]:
        return self._agent.session.events


@dataclass(frozen=True, slots=True)
class TurnResult:
    reason: str | None
    steps: int
    turn: int | None


class LaneAgent:
    """What the drivers call on an agent, on a real DSH agent."""

    def __init__(self, runner: Runner, agent: DshAgent) -> None:
        self._runner = runner
        self.dsh = agent
        self.session = LaneSession(agent)
        self.disposed = False

    @property
    def id(self) -> str:
        return self.dsh.id

    async def run_turn(self, prompt: str) -> TurnResult:
        outcome = await self._runner.run_turn(self.dsh, prompt)
        return TurnResult(outcome.reason, outcome.steps, outcome.turn)

    async def dispose(self) -> None:
        await self._runner.dispose_agent(self.dsh)
        self.disposed = True


class LaneHost:
    """The embedded host's driver-facing calls over the real lane."""

    def __init__(self, runner: Runner, approver: Callable[[Any], Any] | None = None) -> None:
        self.runner = runner
        self.dsh: DshHost = runner.host
        self._agents: list[LaneAgent] = []
        if approver is not None:
            # The user answering approvals: a plain listener on the real approval/request chain.
            async def answer(request: Any, next_: Callable[[], Awaitable[Any]]) -> Any:
                return approver(request)

            self.dsh.on(points.APPROVAL.seam, answer)

    @property
    def cwd(self) -> Path:
        return self.dsh.cwd

    @property
    def todo_tool(self) -> str:
        """The composition's todo tool (rc.8: ``todo_write`` from ``dsh-tool-todo``)."""
        tools = self.dsh.composition.get("tools") or {}
        return "todo_write" if "todo_write" in tools else "todo"

    @property
    def sessions(self) -> list[LaneSession]:
        return [a.session for a in self._agents]

    def on(self, seam: str, listener: Any, *, prepend: bool = False) -> Any:
        return self.dsh.on(seam, listener, prepend=prepend)

    async def settle(self) -> None:
        await self.dsh.settle()

    async def create_agent(self, script: Sequence[Any] = ()) -> LaneAgent:
        agent = LaneAgent(self.runner, await self.runner.create_agent(script))
        self._agents.append(agent)
        return agent
