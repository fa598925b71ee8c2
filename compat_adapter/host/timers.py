"""Timers on a host's own task group: what a vendor does after a wait (Claude's idle notification).

A timer's wait is not background work: ``settle()`` does not wait for a delay that only waits for the
person, only for the work the timer starts once it is due (started through ``start_soon``). The
host's task group ends with the host, and every timer still waiting with it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskGroup

__all__ = ("Timers",)


class Timers:
    """``Host.call_later`` for a host that keeps its task group in ``_tg``."""

    if TYPE_CHECKING:  # the host's own
        def start_soon(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> None: ...

    def call_later(self, delay_s: float, fn: Callable[..., Awaitable[Any]], *args: Any) -> Callable[[], None]:
        """Start ``fn`` as background work once ``delay_s`` has passed; the answer cancels the wait."""
        tg: TaskGroup | None = getattr(self, "_tg", None)  # the host's task group, None once closed
        if tg is None:
            raise RuntimeError("the host is not running: no timer can start")
        scope = anyio.CancelScope()

        async def due() -> None:
            with scope:
                await anyio.sleep(delay_s)
            if not scope.cancel_called:
                self.start_soon(fn, *args)

        tg.start_soon(due)
        return scope.cancel
