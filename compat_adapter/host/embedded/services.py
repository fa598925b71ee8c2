"""The long-lived services of one embedded host: the file watcher, the language server and
worktree pollers.

Each service is an async context manager. Its context is entered and left in one task of its own,
whichever task first asked for it, because a service's own task group must not straddle tasks.
These tasks are not background work: ``settle()`` does not wait for a service that never ends by
itself; the host stops them when it closes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import anyio
from anyio.abc import TaskGroup

__all__ = ("Services",)


class Services:
    """The running services of one host, shared by key or held one per caller."""

    def __init__(self, grace_s: float) -> None:
        self._grace_s = grace_s
        self._shared: dict[str, Any] = {}
        self._stops: dict[str, tuple[anyio.Event, anyio.Event]] = {}
        self._lock: anyio.Lock | None = None

    async def shared(self, tg: TaskGroup, key: str, factory: Callable[[], Any]) -> Any:
        """The service under ``key``, started in ``tg`` the first time it is asked for."""
        if self._lock is None:
            self._lock = anyio.Lock()
        async with self._lock:
            service = self._shared.get(key)
            if service is None:
                service = await tg.start(self._hold_shared, key, factory)
            return service

    async def _hold_shared(
            self, key: str, factory: Callable[[], Any], *,
            task_status: anyio.abc.TaskStatus[Any] = anyio.TASK_STATUS_IGNORED) -> None:
        stop, closed = anyio.Event(), anyio.Event()
        manager = factory()
        try:
            async with manager as entered:
                service = manager if entered is None else entered
                self._shared[key] = service
                self._stops[key] = (stop, closed)
                task_status.started(service)
                await stop.wait()
        finally:
            self._shared.pop(key, None)
            self._stops.pop(key, None)
            closed.set()

    async def hold(self, tg: TaskGroup, manager: AbstractAsyncContextManager[Any]
                   ) -> Callable[[], Awaitable[None]]:
        """Enter ``manager`` in a task of its own in ``tg``; returns the async close that leaves it
        (waiting at most the grace period)."""
        stop, closed = anyio.Event(), anyio.Event()
        key = f"held:{id(stop)}"

        async def run(*, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
            try:
                async with manager:
                    task_status.started()
                    await stop.wait()
            finally:
                closed.set()

        await tg.start(run)
        self._stops[key] = (stop, closed)

        async def close() -> None:
            stop.set()
            with anyio.move_on_after(self._grace_s):
                await closed.wait()
            self._stops.pop(key, None)

        return close

    async def close(self) -> None:
        """Stop every service, waiting for each at most the grace period."""
        for stop, closed in list(self._stops.values()):
            stop.set()
            with anyio.move_on_after(self._grace_s):
                await closed.wait()
