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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import anyio

from compat_adapter.host.embedded import loop
from compat_adapter.host.embedded.loop import TurnResult
from compat_adapter.host.embedded.session import MemorySession
from compat_adapter.host.protocol import (
    AgentCreated,
    AgentStatus,
    InboxInserted,
    UserMessage,
    new_message,
)
from compat_adapter.host.script import Script, ScriptItem, normalize_script

if TYPE_CHECKING:
    from compat_adapter.host.embedded.memory import MemoryHost

__all__ = ("AgentDisposed", "InboxPart", "MemoryAgent", "StartSource", "TurnResult")

InboxPart = Literal["next-turn", "next-step", "inject"]
StartSource = Literal["startup", "resume", "clear", "compact"]


@dataclass(frozen=True, slots=True)
class AgentDisposed:
    """Payload of the ``agent/disposed`` emit seam (DSH: ``{agent}``)."""

    agent: MemoryAgent


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
        #: The tools its last model request offered (``tools/offer``); None before its first.
        self.offered: tuple[str, ...] | None = None
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
        self.insert("inject", message)

    def steer(self, message: UserMessage) -> None:
        self.insert("next-step", message)
        self._wake()

    def followup(self, message: UserMessage) -> None:
        self.insert("next-turn", message)
        self._wake()

    @property
    def inbox(self) -> tuple[tuple[InboxPart, UserMessage], ...]:
        """Pending messages with their part, oldest first."""
        return tuple(self._inbox)

    # ── turns ──
    async def run_turn(self, prompt: str | UserMessage | None = None) -> TurnResult:
        """Run one turn now (waiting for a turn already running); ``prompt`` enters the
        ``next-turn`` part first, as a ``user`` message when given as text."""
        if prompt is not None:
            message = prompt if isinstance(prompt, UserMessage) else new_message(prompt, "user")
            self.insert("next-turn", message)
        async with self._turn_lock:
            result = await loop.run_turn(self)
        self._wake()
        return result

    async def compact(self, summary: str = "Summary of the conversation so far.") -> None:
        """A manual compaction between turns (``compaction/*`` with ``turn: null``), then a
        ``compact`` start."""
        async with self._turn_lock:
            await loop.compact(self, summary, turn=None)

    async def run_command(self, name: str, args: str | None = None) -> None:
        """The user runs a slash command between turns (``command/run`` … ``command/done``)."""
        async with self._turn_lock:
            await loop.run_command(self, name, args, turn=None)

    async def restart(self, source: StartSource) -> None:
        """Fire ``agent/created`` again for this agent (a ``compact`` or ``clear`` start)."""
        self.source = source
        await self._host.serial("agent/created", AgentCreated(self, source))

    async def dispose(self) -> None:
        """Wait for a running turn, drop the inbox, forget the agent, emit ``agent/disposed``."""
        if self.disposed:
            return
        async with self._turn_lock:
            self.dispose_nowait()

    def dispose_nowait(self) -> None:
        """Dispose now, without waiting for a running turn (the host does this when its close
        grace period is over; the turn is then cancelled with the host's task group)."""
        if self.disposed:
            return
        self.disposed = True
        self._inbox.clear()
        self._host.forget_agent(self)
        self._host.emit("agent/disposed", AgentDisposed(self))

    # ── the inbox, as the loop drives it ──
    def insert(self, part: InboxPart, message: UserMessage) -> None:
        """Put ``message`` in one part of the inbox (``agent/inbox/inserted``); does not wake the
        driver (:meth:`steer` and :meth:`followup` do)."""
        if self.disposed:
            self._host.log("warning", "message for a disposed agent dropped", agent=self._id,
                           message_id=message.id)
            return
        self._inbox.append((part, message))
        self._host.emit("agent/inbox/inserted", InboxInserted(self, message))

    def claim(self, *, turn_start: bool) -> tuple[UserMessage, ...]:
        """Take the messages a step enters: every part at a turn's start, else all but
        ``next-turn``; in insertion order."""
        take = [(p, m) for p, m in self._inbox if turn_start or p != "next-turn"]
        self._inbox = [(p, m) for p, m in self._inbox if not (turn_start or p != "next-turn")]
        return tuple(m for _, m in take)

    def has_next_step(self) -> bool:
        """Whether a ``next-step`` message is pending (the turn takes another step)."""
        return any(p == "next-step" for p, _ in self._inbox)

    def set_status(self, status: Literal["idle", "running"]) -> None:
        """Record the driver's status and publish it on ``agent/status``."""
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
        try:
            while not self.disposed and any(p != "inject" for p, _ in self._inbox):
                async with self._turn_lock:
                    if self.disposed:
                        return
                    await loop.run_turn(self)
        finally:
            self._driver_scheduled = False

    def __repr__(self) -> str:
        return f"<MemoryAgent {self._id} session={self._session.id} {self.status}>"
