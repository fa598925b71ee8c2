"""What one adapter's seam listeners remember between dispatches, and when they forget it.

Every entry is kept for one session, one agent or one call, and is dropped with it: a session's and
an agent's when the host disposes the agent (``agent/disposed``), a call's when its result comes
back, everything when the adapter is disposed. What cannot be tied to a moment the host announces
(a call whose result never comes back) is bounded instead. A host that lives through many sessions
and adapters keeps no more of them than the ones alive now (``tests/test_growth.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ("CALLS_KEPT", "RunnerState")

#: Start times kept for calls whose result has not come back (a denied call never comes back).
CALLS_KEPT = 1024

Parts = tuple[str, str]


@dataclass(slots=True, eq=False)
class RunnerState:
    """The typed memory of one :class:`~compat_adapter.routing.dispatch.Runner`."""

    halts: dict[str, int | None] = field(default_factory=dict)
    """Session → the turn a hook answered ``continue: false`` in (None: outside a turn)."""
    prompt_parts: dict[str, list[Parts]] = field(default_factory=dict)
    """Agent → context parts (before, after) waiting for the agent's next prompt."""
    stop_blocks: dict[tuple[str, int], int] = field(default_factory=dict)
    """(agent, turn) → how many stops a hook has blocked in a row."""
    todos: dict[str, dict[str, str]] = field(default_factory=dict)
    """Session → its last todo list (content → status), to tell what changed."""
    models: dict[str, str] = field(default_factory=dict)
    """Session → the provider/model of its last request header."""
    spent: dict[str, set[str]] = field(default_factory=dict)
    """Session → the ``once`` hooks (entry ids) that have already run in it."""
    started: dict[str, float] = field(default_factory=dict)
    """Call id → when it started running (after its pre-tool hooks), until its result."""
    idle_waits: dict[tuple[str, float], Callable[[], None]] = field(default_factory=dict)
    """(agent, delay) → the cancel of a timer that fires the agent's idle rows once it has stayed
    idle that long; dropped when it fires, when the agent turns again, and with the agent."""

    def halt(self, session_id: str, turn: int | None) -> None:
        self.halts[session_id] = turn

    def spend(self, session_id: str, entry_id: str) -> bool:
        """Mark a ``once`` hook as run in a session; False when it already had."""
        spent = self.spent.setdefault(session_id, set())
        if entry_id in spent:
            return False
        spent.add(entry_id)
        return True

    def start(self, call_id: str, at: float) -> None:
        if len(self.started) >= CALLS_KEPT:
            del self.started[next(iter(self.started))]  # a call whose result never came
        self.started[call_id] = at

    def wait_idle(self, agent_id: str, delay_s: float, cancel: Callable[[], None]) -> None:
        self.idle_waits[(agent_id, delay_s)] = cancel

    def stop_waiting(self, agent_id: str) -> None:
        """The agent turned again, idled anew or is gone: its idle timers will not fire."""
        for key in [k for k in self.idle_waits if k[0] == agent_id]:
            self.idle_waits.pop(key)()

    def forget_agent(self, agent_id: str, session_id: str) -> None:
        """An agent is gone (disposed): what was kept for it and for its session goes with it."""
        self.stop_waiting(agent_id)
        self.prompt_parts.pop(agent_id, None)
        for key in [k for k in self.stop_blocks if k[0] == agent_id]:
            del self.stop_blocks[key]
        for kept in (self.halts, self.todos, self.models, self.spent):
            kept.pop(session_id, None)

    def clear(self) -> None:
        for cancel in self.idle_waits.values():
            cancel()
        self.idle_waits.clear()
        for kept in (self.halts, self.prompt_parts, self.stop_blocks, self.todos, self.models,
                     self.spent, self.started):
            kept.clear()

    def sizes(self) -> dict[str, int]:
        """How many entries each part holds (what the growth test compares)."""
        return {"halts": len(self.halts), "prompt_parts": len(self.prompt_parts),
                "stop_blocks": len(self.stop_blocks), "todos": len(self.todos),
                "models": len(self.models), "spent": len(self.spent), "started": len(self.started),
                "idle_waits": len(self.idle_waits)}
