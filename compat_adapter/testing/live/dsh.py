"""The live checks on the real DeepSeek Harness lane: the same drivers, a real 0.2.1 ``sdk`` profile.

:class:`LaneHost` gives the drivers the handful of calls they make on the embedded host
(``create_agent``, ``on``, ``settle``, ``sessions``) over a :class:`~compat_adapter.host.dsh.lane.Runner`
(SDK sessions on the scripted model);
the adapter itself gets the real :class:`~compat_adapter.host.dsh.host.DshHost`. Records are read
back from the host's mirror of the real log, which :mod:`compat_adapter.host.dsh.records` reads
in the contract's vocabulary, so a check reads ``user/message {text, turn, step, source}`` and
``tool/result {text, isError}`` on either host and asserts the same thing.

What a person does in DSH's UI (a compaction, a command, an interrupt) the lane's control plugin
does on request (:mod:`compat_adapter.testing.dsh_controls`); an agent's end is the SDK's own
shutdown, which disposes every agent it owns (the runtime is spent then: :mod:`.pool` boots another).
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
    """One real session log as this check saw it: DSH's own ``session/event`` feed, read in the
    contract's vocabulary (kept here, since the host releases a session's mirror with its agent,
    and a subagent's ends before the check reads it)."""

    def __init__(self, records: dict[str, list[LogEvent]], sdk: SdkSession) -> None:
        self._records = records
        self._sdk = sdk

    @property
    def id(self) -> str:
        return self._sdk.id

    @property
    def events(self) -> Sequence[LogEvent]:
        return tuple(self._records.get(self._sdk.id, ()))


@dataclass(frozen=True, slots=True)
class TurnResult:
    reason: str | None
    steps: int
    turn: int | None


class LaneAgent:
    """What the drivers call on an agent, on a real DSH agent."""

    def __init__(self, runner: Runner, sdk: SdkSession, records: dict[str, list[LogEvent]]) -> None:
        self._runner = runner
        self._sdk = sdk
        self.session = LaneSession(records, sdk)
        self.disposed = False

    @property
    def id(self) -> str:
        return self._sdk.id

    @property
    def children(self) -> tuple[str, ...]:
        """The sessions DSH ran for this agent's subagents, in the order they appeared."""
        return tuple(self._sdk.children)

    @property
    def dsh(self) -> DshAgent | None:
        """The host's handle on the agent (DSH creates it on the session's first prompt)."""
        return self._runner.agent(self._sdk)

    async def run_turn(self, prompt: str) -> TurnResult:
        outcome = await self._runner.run_turn(self._sdk, prompt)
        return TurnResult(outcome.reason, outcome.steps, outcome.turn)

    async def compact(self, summary: str) -> bool:
        """DSH's own manual compaction (what ``/compact`` runs); the model writes ``summary``."""
        from compat_adapter.testing.models.base import ModelTurn

        self._runner.model.load([ModelTurn(summary)])
        reply = await self._runner.runtime.control("compact", {"agent": self.id})
        await self._runner.runtime.settle()
        return bool(reply.get("compacted"))

    async def run_command(self, name: str, args: str | None = None) -> Any:
        """A slash command line through DSH's command registry, as its UI submits one."""
        line = f"/{name}" + (f" {args}" if args else "")
        reply = await self._runner.runtime.control("command", {"agent": self.id, "line": line})
        await self._runner.runtime.settle()
        if not reply.get("ran"):
            raise HostSurfaceMismatch(f"DSH has no command /{name} in this composition", command=name)
        return reply

    async def dispose(self) -> None:
        """End the agent the way an SDK user does: the runtime shuts down and disposes it."""
        await self._runner.runtime.close()
        await self._runner.host.settle()
        self.disposed = True


class LaneHost:
    """The embedded host's driver-facing calls over the real lane."""

    def __init__(self, runner: Runner, approver: Callable[[Any], Any] | None = None) -> None:
        self.runner = runner
        self.dsh: DshHost = runner.host
        self._agents: list[LaneAgent] = []
        self._listeners: list[Callable[[], None]] = []
        self._records: dict[str, list[LogEvent]] = {}
        self.on(points.SESSION_EVENT.seam, self._keep)
        if approver is not None:
            # The user answering approvals: a plain listener on the real approval/request chain.
            async def answer(request: Any, next_: Callable[[], Awaitable[Any]]) -> Any:
                return approver(request)

            self.on(points.APPROVAL.seam, answer)

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
        """The sessions of this check: its agents', then the children DSH ran for them."""
        out = [a.session for a in self._agents]
        for agent in self._agents:
            out.extend(LaneSession(self._records, SdkSession(child, None)) for child in agent.children)
        return out

    def on(self, seam: str, listener: Any, *, prepend: bool = False) -> Any:
        off = self.dsh.on(seam, listener, prepend=prepend)
        self._listeners.append(off)
        return off

    def _keep(self, notice: Any) -> None:
        self._records.setdefault(notice.session.id, []).append(notice.event)

    #: DSH 0.2.1 runs a subagent beside its parent: its tool returns at once, and the child's
    #: answer reaches the parent as a message that wakes it for another turn.
    subagents_beside_parent = True

    def close(self) -> None:
        """Drop the listeners this check added (the runtime serves the next check)."""
        for off in self._listeners:
            off()
        self._listeners.clear()

    async def update_settings(self, namespace: str, patch: dict[str, Any]) -> int:
        raise HostSurfaceMismatch("DSH 0.2.1's settings are its plugins' configuration (a profile entry each); "
                                  "the lane writes none of them")

    async def settings_document(self, namespace: str) -> tuple[int, Any]:
        raise HostSurfaceMismatch("DSH 0.2.1's settings are its plugins' configuration; the lane reads none back")

    async def settle(self) -> None:
        await self.runner.runtime.settle()

    async def create_agent(self, script: Sequence[Any] = ()) -> LaneAgent:
        agent = LaneAgent(self.runner, await self.runner.create_agent(script), self._records)
        self._agents.append(agent)
        return agent
