"""The long-lived services of one host (the embedded host's, and those the wire host's service
side brings a runtime): the file watcher, the language server and worktree pollers,
reference-counted per user.

Each service is an async context manager. Its context is entered and left in one task of its own,
whichever task first asked for it, because a service's own task group must not straddle tasks.
These tasks are not background work: ``settle()`` does not wait for a service that never ends by
itself.

A shared service (one per host: the file watcher, the language server) is held by its users. A
user holds it once per thing it opened there (one watch) or once in all (the language server it
queried); the service stops when its last hold is given back. What a user opened (a watch, a
poller, a shell-environment contributor) is recorded under its name, so that ``release(service,
user)`` closes all of it at once, whatever the user forgot to close. The host stops whatever is
left when it closes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from types import MappingProxyType
from typing import Any

import anyio
from anyio.abc import TaskGroup

from compat_adapter.host.protocol import Worktree

__all__ = ("HOST_USER", "Services")

Closer = Callable[[], Awaitable[None]]

#: The user of a service asked for without a name: the host itself, released when it closes.
HOST_USER = ""


class Services:
    """The running services of one host, shared by key or held one per caller."""

    def __init__(self, grace_s: float) -> None:
        self._grace_s = grace_s
        self._shared: dict[str, Any] = {}
        self._stops: dict[str, tuple[anyio.Event, anyio.Event]] = {}
        self._lock: anyio.Lock | None = None
        #: Shared service → user → holds.
        self._holds: dict[str, dict[str, int]] = {}
        #: (service, user) → closers of what the user opened there, by id.
        self._opened: dict[tuple[str, str], dict[int, Closer]] = {}

    # ── shared services ──
    async def shared(self, tg: TaskGroup, key: str, factory: Callable[[], Any], user: str = HOST_USER,
                     *, once: bool = False) -> Any:
        """The service under ``key``, started in ``tg`` the first time it is asked for, with one
        more hold by ``user`` (``once``: only when the user holds none yet)."""
        if self._lock is None:
            self._lock = anyio.Lock()
        async with self._lock:
            service = self._shared.get(key)
            if service is None:
                service = await tg.start(self._hold_shared, key, factory)
            users = self._holds.setdefault(key, {})
            if not (once and users.get(user)):
                users[user] = users.get(user, 0) + 1
            return service

    async def drop(self, key: str, user: str = HOST_USER) -> None:
        """Give back one hold of ``user`` on ``key``; the service stops with the last one."""
        users = self._holds.get(key, {})
        if users.get(user, 0) > 1:
            users[user] -= 1
            return
        users.pop(user, None)
        await self._stop_unheld(key)

    async def _stop_unheld(self, key: str) -> None:
        if self._holds.get(key):
            return
        self._holds.pop(key, None)
        stops = self._stops.get(key)
        if stops is not None and key in self._shared:
            await self._stop(*stops)

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
            # A service that stopped (or failed) is forgotten at once: the next use starts a new one.
            if self._stops.get(key) == (stop, closed):
                self._shared.pop(key, None)
                self._stops.pop(key, None)
            closed.set()

    # ── what users open ──
    def opened(self, key: str, user: str, close: Closer) -> Closer:
        """Record ``close`` as something ``user`` opened on ``key``; returns the close to hand out
        (idempotent; it also forgets the record)."""
        held = self._opened.setdefault((key, user), {})
        token = id(close)
        done = False

        async def once() -> None:
            nonlocal done
            if done:
                return
            done = True
            held.pop(token, None)
            if not held:
                self._opened.pop((key, user), None)
            await close()

        held[token] = once
        return once

    async def hold(self, tg: TaskGroup, manager: AbstractAsyncContextManager[Any]) -> Closer:
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
            await self._stop(stop, closed)
            self._stops.pop(key, None)

        return close

    # ── the file watch and the worktree poller, opened for a user ──
    async def watch(self, tg: TaskGroup, path: Path, changed: Callable[[tuple[str, ...]], Awaitable[None]],
                    *, debounce_ms: int, user: str) -> Closer:
        """Watch ``path`` for ``user`` on the shared file watcher (started on first use); returns
        the close, which also gives back the hold (the last one stops the watcher)."""
        # Imported on first use: watchfiles, pygls and GitPython are slow to import and most hosts
        # never start them.
        from compat_adapter.runtime.fswatch import FsWatchService

        service = await self.shared(tg, "fs.watch", FsWatchService, user)
        try:
            unwatch = await service.watch(Path(path), changed, debounce_ms=debounce_ms)
        except BaseException:
            await self.drop("fs.watch", user)
            raise

        async def close() -> None:
            await unwatch()
            await self.drop("fs.watch", user)
        return self.opened("fs.watch", user, close)

    async def poll_worktrees(self, tg: TaskGroup, cwd: Path,
                             changed: Callable[[tuple[Worktree, ...], tuple[Worktree, ...]], Awaitable[None]],
                             *, interval_s: float, user: str) -> Closer:
        """Poll the git worktrees at ``cwd`` for ``user``; returns the close."""
        from compat_adapter.runtime.worktrees import WorktreePoller

        close = await self.hold(tg, WorktreePoller(Path(cwd), changed, interval_s=interval_s))
        return self.opened("worktrees", user, close)

    async def release(self, key: str, user: str) -> None:
        """``user`` is done with ``key``: close what it opened there, give back its holds, and
        stop the shared service if nobody else holds it."""
        for close in list(self._opened.get((key, user), {}).values()):
            await close()
        users = self._holds.get(key)
        if users is not None and user in users:
            users.pop(user)
            await self._stop_unheld(key)

    def in_use(self) -> Mapping[str, tuple[str, ...]]:
        """Service → its users now: the shared services running, and every service with
        something open by a named user."""
        found: dict[str, set[str]] = {key: set(self._holds.get(key, {})) for key in self._shared}
        for key, user in self._opened:
            found.setdefault(key, set()).add(user)
        return MappingProxyType({k: tuple(sorted(v)) for k, v in found.items()})

    async def _stop(self, stop: anyio.Event, closed: anyio.Event) -> None:
        stop.set()
        with anyio.move_on_after(self._grace_s):
            await closed.wait()

    async def close(self) -> None:
        """Stop every service, waiting for each at most the grace period."""
        self._opened.clear()
        self._holds.clear()
        for stop, closed in list(self._stops.values()):
            await self._stop(stop, closed)
