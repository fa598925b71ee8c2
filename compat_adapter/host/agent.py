"""One agent of the embedded host: its inbox, its driver and the handle listeners get.

The inbox keeps one ordered list of messages, each tagged with the part it was put in:

* ``next-turn`` — :meth:`MemoryAgent.followup` and a turn's prompt; claimed when a turn starts;
* ``next-step`` — :meth:`MemoryAgent.steer` and post-tool ``additional_contexts``; a pending one
  makes a running turn take another step (and wakes an idle agent);
* ``inject`` — :meth:`MemoryAgent.inject`; rides along with whatever pre-step comes next and never
  wakes the driver or forces a step, as in DSH.

A turn claims every part; a later step of the same turn claims ``next-step`` and ``inject``.
Claimed messages keep their insertion order, so context injected at ``agent/created`` comes before
the first prompt.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import anyio

from compat_adapter.host.protocol import (
    AgentCreated,
    AgentStatus,
    InboxInserted,
    UserMessage,
    new_message,
)
from compat_adapter.host.script import Script, ScriptItem, normalize_script
from compat_adapter.host.session import MemorySession

if TYPE_CHECKING:
    from compat_adapter.host.memory import MemoryHost

__all__ = ("AgentDisposed", "MemoryAgent", "TurnResult", "model_config")

InboxPart = Literal["next-turn", "next-step", "inject"]
StartSource = Literal["startup", "resume", "clear", "compact"]


@dataclass(frozen=True, slots=True)
class AgentDisposed:
    """Payload of the ``agent/disposed`` emit seam (DSH: ``{agent}``)."""

    agent: MemoryAgent


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


class MemoryAgent:
    """An :class:`~compat_adapter.host.protocol.AgentHandle` driven by a script."""

    def __init__(self, host: MemoryHost, agent_id: str, session: MemorySession, *,
                 parent_id: str | None, source: StartSource, script: Script | None,
                 model: str) -> None:
        self._host = host
        self._id = agent_id
        self._session = session
        self._parent_id = parent_id
        #: How this agent started (a later compaction or /clear restarts it in place).
        self.source: StartSource = source
        #: ``provider/model`` used for the next request; :class:`SwitchModel` changes it.
        self.model = model
        self.script: deque[ScriptItem] = deque(normalize_script(script))
        self.status: Literal["idle", "running"] = "idle"
        self.disposed = False
        #: Model requests made so far (the first one of a resumed agent says ``resume``).
        self.requests = 0
        self.last_turn: TurnResult | None = None
        self._inbox: list[tuple[InboxPart, UserMessage]] = []
        self._turn_lock = anyio.Lock()
        self._driver_scheduled = False

    # ── handle ──
    @property
    def id(self) -> str:
        return self._id

    @property
    def session(self) -> MemorySession:
        return self._session

    @property
    def parent_id(self) -> str | None:
        return self._parent_id

    @property
    def host(self) -> MemoryHost:
        return self._host

    def inject(self, message: UserMessage) -> None:
        self._insert("inject", message)

    def steer(self, message: UserMessage) -> None:
        self._insert("next-step", message)
        self._wake()

    def followup(self, message: UserMessage) -> None:
        self._insert("next-turn", message)
        self._wake()

    @property
    def inbox(self) -> tuple[tuple[InboxPart, UserMessage], ...]:
        """Pending messages with their part, oldest first."""
        return tuple(self._inbox)

    # ── turns ──
    async def run_turn(self, prompt: str | UserMessage | None = None) -> TurnResult:
        """Run one turn now (waiting for a turn already running); ``prompt`` enters the
        ``next-turn`` part first, as a ``user`` message when given as text."""
        from compat_adapter.host.loop import run_turn

        if prompt is not None:
            message = prompt if isinstance(prompt, UserMessage) else new_message(prompt, "user")
            self._insert("next-turn", message)
        async with self._turn_lock:
            result = await run_turn(self)
        self._wake()
        return result

    async def compact(self, summary: str = "Summary of the conversation so far.") -> None:
        """A manual compaction between turns (``compaction/*`` with ``turn: null``), then a
        ``compact`` start."""
        from compat_adapter.host.loop import compact

        async with self._turn_lock:
            await compact(self, summary, turn=None)

    async def run_command(self, name: str, args: str | None = None) -> None:
        """The user runs a slash command between turns (``command/run`` … ``command/done``)."""
        from compat_adapter.host.loop import run_command

        async with self._turn_lock:
            await run_command(self, name, args, turn=None)

    async def restart(self, source: StartSource) -> None:
        """Fire ``agent/created`` again for this agent (a ``compact`` or ``clear`` start)."""
        self.source = source
        await self._host.serial("agent/created", AgentCreated(self, source))

    async def dispose(self) -> None:
        """Wait for a running turn, drop the inbox, forget the agent, emit ``agent/disposed``."""
        if self.disposed:
            return
        async with self._turn_lock:
            self._finish_dispose()

    def _finish_dispose(self) -> None:
        if self.disposed:
            return
        self.disposed = True
        self._inbox.clear()
        self._host._forget(self)
        self._host.emit("agent/disposed", AgentDisposed(self))

    # ── used by the loop ──
    def _insert(self, part: InboxPart, message: UserMessage) -> None:
        if self.disposed:
            self._host.log("warning", "message for a disposed agent dropped", agent=self._id,
                           message_id=message.id)
            return
        self._inbox.append((part, message))
        self._host.emit("agent/inbox/inserted", InboxInserted(self, message))

    def _claim(self, *, turn_start: bool) -> tuple[UserMessage, ...]:
        take = [(p, m) for p, m in self._inbox if turn_start or p != "next-turn"]
        self._inbox = [(p, m) for p, m in self._inbox if not (turn_start or p != "next-turn")]
        return tuple(m for _, m in take)

    def _has_next_step(self) -> bool:
        return any(p == "next-step" for p, _ in self._inbox)

    def _set_status(self, status: Literal["idle", "running"]) -> None:
        self.status = status
        self._host.emit("agent/status", AgentStatus(self, status))

    def _wake(self) -> None:
        # Only steer/followup wake the driver; injected context waits for the next pre-step.
        if self.disposed or self.status == "running" or self._driver_scheduled:
            return
        if any(p != "inject" for p, _ in self._inbox):
            self._driver_scheduled = True
            self._host.start_soon(self._drive)

    async def _drive(self) -> None:
        from compat_adapter.host.loop import run_turn

        try:
            while not self.disposed and any(p != "inject" for p, _ in self._inbox):
                async with self._turn_lock:
                    if self.disposed:
                        return
                    await run_turn(self)
        finally:
            self._driver_scheduled = False

    def __repr__(self) -> str:
        return f"<MemoryAgent {self._id} session={self._session.id} {self.status}>"
