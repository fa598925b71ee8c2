"""The live checks on the real DeepSeek Harness lane: the same drivers, a real 0.2.1 ``sdk`` profile.

:class:`LaneHost` gives the drivers the handful of calls they make on the embedded host
(``create_agent``, ``on``, ``settle``, ``sessions``) over a :class:`~compat_adapter.host.dsh.lane.Runner`
(SDK sessions on the scripted model);
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

from compat_adapter.errors import HostSurfaceMismatch
from compat_adapter.host.dsh.host import DshAgent, DshHost
from compat_adapter.host.dsh.lane import LaneSession as SdkSession
from compat_adapter.host.dsh.lane import Runner
from compat_adapter.host.protocol import LogEvent
from compat_adapter.routing import points

__all__ = ("LaneAgent", "LaneHost", "LaneSession", "TurnResult")


class LaneSession:
    """One real session log (the host's mirror, fed by DSH's own ``session/event`` feed)."""

    def __init__(self, host: DshHost, sdk: SdkSession) -> None:
        self._host = host
        self._sdk = sdk

    @property
    def id(self) -> str:
        return self._sdk.id

    @property
    def events(self) -> Sequence[LogEvent]:
        return self._host.session_from({"id": self._sdk.id}).events


@dataclass(frozen=True, slots=True)
class TurnResult:
    reason: str | None
    steps: int
    turn: int | None


class LaneAgent:
    """What the drivers call on an agent, on a real DSH agent."""

    def __init__(self, runner: Runner, sdk: SdkSession) -> None:
        self._runner = runner
        self._sdk = sdk
        self.session = LaneSession(runner.host, sdk)
        self.disposed = False

    @property
    def id(self) -> str:
        return self._sdk.id

    @property
    def dsh(self) -> DshAgent | None:
        """The host's handle on the agent (DSH creates it on the session's first prompt)."""
        return self._runner.agent(self._sdk)

    async def run_turn(self, prompt: str) -> TurnResult:
        outcome = await self._runner.run_turn(self._sdk, prompt)
        return TurnResult(outcome.reason, outcome.steps, outcome.turn)

    async def compact(self, summary: str) -> bool:
        raise HostSurfaceMismatch("the SDK drives no compaction on demand; the DSH lane cannot compact")

    async def run_command(self, name: str, args: str | None = None) -> Any:
        raise HostSurfaceMismatch("the SDK runs no slash command; the DSH lane cannot run one")

    async def dispose(self) -> None:
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
        """The composition's todo tool (``todo_write`` or ``todo``)."""
        tools = self.dsh.composition.get("tools") or {}
        return "todo_write" if "todo_write" in tools else "todo"

    @property
    def sessions(self) -> list[LaneSession]:
        return [a.session for a in self._agents]

    def on(self, seam: str, listener: Any, *, prepend: bool = False) -> Any:
        return self.dsh.on(seam, listener, prepend=prepend)

    async def update_settings(self, namespace: str, patch: dict[str, Any]) -> int:
        raise HostSurfaceMismatch("the sdk profile's settings are read-only; the DSH lane cannot update them")

    async def settings_document(self, namespace: str) -> tuple[int, Any]:
        raise HostSurfaceMismatch("the sdk profile's settings are read-only; the DSH lane cannot read them back")

    async def settle(self) -> None:
        await self.dsh.settle()

    async def create_agent(self, script: Sequence[Any] = ()) -> LaneAgent:
        agent = LaneAgent(self.runner, await self.runner.create_agent(script))
        self._agents.append(agent)
        return agent
