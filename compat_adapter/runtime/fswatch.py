"""File watching as a host service, on watchfiles (Rust ``notify``: inotify on Linux).

``async with FsWatchService() as fs:`` owns a task group; ``await fs.watch(dir, changed)`` arms
one watcher and returns once the OS watch exists, so a write made right after it returns is seen.

What a watcher reports:

* It watches the directory **recursively**. Watch directories, not files: editors save by
  replacing the file, which silently ends a watch on the file's own inode.
* It ignores what watchfiles' ``DefaultFilter`` ignores: ``.git``, ``__pycache__``,
  ``node_modules``, ``.venv`` …, ``*.py[cod]``, editor swap and backup files.
* ``changed(paths)`` receives the **absolute** paths (as strings, sorted, no duplicates) of the
  files added, modified or deleted. A burst is coalesced: the callback runs once no new change has
  arrived for ``debounce_ms`` (but at least every ``8 × debounce_ms`` under a constant stream of
  changes, and at most one callback at a time per watcher).
* A failing callback is logged; the watcher keeps going.

Closing a watcher (its returned close, or leaving the service) stops callbacks at once: pending
changes are dropped and a running callback is cancelled.

watchfiles is imported inside the watcher task: ``import compat_adapter`` must stay cheap.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream

if TYPE_CHECKING:
    from anyio.abc import TaskGroup, TaskStatus

__all__ = ("FsWatchService",)

_log = logging.getLogger(__name__)

_Changed = Callable[[tuple[str, ...]], Awaitable[None]]

#: How often (ms) the Rust side checks the stop event; it bounds how long closing takes.
_STEP_MS = 50
#: The Rust side hands over a batch after one quiet step or this long (ms); it only needs to be
#: short, since the debounce that callers see is ours (see `_deliver`).
_RUST_BATCH_MS = 200
#: With no change, the Rust side returns empty-handed after this long (ms). That is our readiness
#: handshake: watchfiles gives no "armed" signal, but its first yield (empty or not) proves the OS
#: watch exists, so `watch` returns after about this long. The price is an idle watcher waking
#: its worker thread this often.
_RUST_TIMEOUT_MS = 100
#: A constant stream of changes still gets delivered at least every this many debounce windows.
_MAX_WINDOWS = 8
#: How long closing waits for a watcher thread to notice its stop event before giving up on it.
_CLOSE_GRACE_S = 5.0


@dataclass(eq=False, slots=True)
class _Watch:
    path: Path
    stop: anyio.Event = field(default_factory=anyio.Event)
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    done: anyio.Event = field(default_factory=anyio.Event)


class FsWatchService:
    """Directory watchers owned by one task group; see the module docstring for semantics."""

    def __init__(self) -> None:
        self._task_group: TaskGroup | None = None
        self._watches: set[_Watch] = set()

    async def __aenter__(self) -> FsWatchService:
        task_group = anyio.create_task_group()
        await task_group.__aenter__()
        self._task_group = task_group
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> bool | None:
        task_group, self._task_group = self._task_group, None
        assert task_group is not None
        try:
            # Shielded: even when we leave because of a cancellation, every watcher thread must
            # be told to stop, or the task group would wait out the Rust timeout for each.
            with anyio.CancelScope(shield=True):
                watches = list(self._watches)
                for watch in watches:
                    self._signal_stop(watch)  # all at once: their threads wind down together
                for watch in watches:
                    await self._close(watch)
        finally:
            # Our own tasks are done or expendable by now. The body's exception is not handed to
            # the task group, so it propagates as itself instead of inside an ExceptionGroup.
            task_group.cancel_scope.cancel()
            await task_group.__aexit__(None, None, None)
        return None

    async def watch(self, path: Path, changed: _Changed, *,
                    debounce_ms: int = 250) -> Callable[[], Awaitable[None]]:
        """Arm a recursive watcher on the directory ``path``.

        Returns once the OS watch is in place. ``changed`` is awaited with the absolute paths that
        changed, coalesced over ``debounce_ms``.

        :returns: an async ``close()``; after it returns no further callback starts. Calling it
            again is harmless.
        :raises FileNotFoundError: ``path`` does not exist.
        :raises NotADirectoryError: ``path`` is not a directory.
        :raises anyio.ClosedResourceError: the service is not entered (or already left).
        """
        if self._task_group is None:
            raise anyio.ClosedResourceError
        root = Path(path).absolute()
        if not root.exists():
            raise FileNotFoundError(f"cannot watch {root}: no such directory")
        if not root.is_dir():
            raise NotADirectoryError(f"cannot watch {root}: watch its directory instead")
        watch = _Watch(root)
        await self._task_group.start(self._run, watch, changed, max(debounce_ms, 0) / 1000)

        async def close() -> None:
            await self._close(watch)

        return close

    @staticmethod
    def _signal_stop(watch: _Watch) -> None:
        # The stop event ends the Rust wait within one step; cancelling the scope stops the
        # callback side at once. Without the event, cancellation would wait for the worker thread.
        watch.stop.set()
        watch.scope.cancel()

    async def _close(self, watch: _Watch) -> None:
        self._signal_stop(watch)
        with anyio.move_on_after(_CLOSE_GRACE_S):
            await watch.done.wait()

    async def _run(self, watch: _Watch, changed: _Changed, debounce_s: float, *,
                   task_status: TaskStatus[None]) -> None:
        from watchfiles import DefaultFilter, awatch

        self._watches.add(watch)
        changes = awatch(watch.path, watch_filter=DefaultFilter(), step=_STEP_MS,
                         debounce=_RUST_BATCH_MS, stop_event=watch.stop,
                         rust_timeout=_RUST_TIMEOUT_MS, yield_on_timeout=True)
        ready = False
        try:
            with watch.scope:
                # Not started yet: a failure here (inotify limit, directory just deleted) goes to
                # the caller of `watch`, not into the service's task group.
                first = await changes.__anext__()
                send, receive = anyio.create_memory_object_stream[frozenset[str]](math.inf)
                with send, receive:
                    ready = True
                    task_status.started()
                    async with anyio.create_task_group() as inner:
                        inner.start_soon(self._deliver, receive, changed, debounce_s)
                        if first:
                            send.send_nowait(frozenset(p for _, p in first))
                        async for batch in changes:
                            if batch:
                                send.send_nowait(frozenset(p for _, p in batch))
                        # The generator ends only once stop is set: drop what is pending.
                        inner.cancel_scope.cancel()
        except StopAsyncIteration:
            pass  # stopped while arming
        except Exception:
            if not ready:
                raise
            _log.exception("watcher on %s failed; it is closed", watch.path)
        finally:
            watch.stop.set()
            with anyio.CancelScope(shield=True):
                await changes.aclose()
            self._watches.discard(watch)
            watch.done.set()
        if not ready:
            task_status.started()  # closed while arming: `watch` still returns a (no-op) close

    @staticmethod
    async def _deliver(receive: MemoryObjectReceiveStream[frozenset[str]], changed: _Changed,
                       debounce_s: float) -> None:
        async for first in receive:
            pending = set(first)
            deadline = anyio.current_time() + debounce_s * _MAX_WINDOWS
            while (wait := min(debounce_s, deadline - anyio.current_time())) > 0:
                with anyio.move_on_after(wait) as quiet:
                    try:
                        pending |= await receive.receive()
                    except anyio.EndOfStream:
                        return  # closing: pending changes are dropped
                if quiet.cancelled_caught:
                    break
            try:
                await changed(tuple(sorted(pending)))
            except Exception:
                _log.exception("fs.watch callback on %s failed", sorted(pending)[:3])
