"""Booted DSH runtimes shared by the row checks: one boot serves many rows, one row at a time.

A real 0.2.1 runtime takes seconds to boot and serves any number of SDK sessions, so
:func:`~compat_adapter.testing.live.run.verify_all` boots :data:`~.harness.CONCURRENCY` of them and
hands each row one (:meth:`RuntimePool.lease`). A row gets the runtime alone: its own adapter (its
listeners go with it), fresh sessions, and the runtime's workspace reset to its one commit
(``git reset --hard``, ``git clean -fdx``) before it starts. A runtime a row broke (its channel
closed, its process gone, the row failed with an exception or timed out, or the row ended its
agents by shutting it down) is closed and a fresh one booted for the next row: what one row did
never reaches another.
"""

from __future__ import annotations

import contextvars
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from anyio.abc import TaskGroup

from compat_adapter.host.dsh.lane import DshRuntime, boot
from compat_adapter.testing.live.repo import make_repo, reset_repo

__all__ = ("POOL", "RuntimePool", "runtime_pool")

#: The pool the row checks of this task draw from (None: each check boots its own runtime).
POOL: contextvars.ContextVar[RuntimePool | None] = contextvars.ContextVar("dsh_runtime_pool", default=None)


@dataclass(slots=True)
class _Lease:
    runtime: DshRuntime | None
    error: Exception | None = None
    """Why the slot has no runtime to give (its boot failed): the row fails with it."""
    spent: bool = False
    done: anyio.Event = field(default_factory=anyio.Event)


class RuntimePool:
    """``size`` slots, each one booted runtime at a time (see the module's docstring)."""

    def __init__(self, tg: TaskGroup, base: Path, size: int) -> None:
        self._tg = tg
        self._base = base
        self._size = size
        self._started = 0
        send, receive = anyio.create_memory_object_stream[_Lease](0)
        self._offers = receive
        self._send = send
        #: Runtimes booted so far (a figure for the report: rows per boot).
        self.boots = 0

    async def _slot(self, index: int) -> None:
        generation = 0
        while True:
            generation += 1
            repo = await make_repo(self._base / f"slot-{index}-{generation}")
            try:
                async with boot(repo) as runtime:
                    self.boots += 1
                    while runtime.healthy:
                        await reset_repo(repo)
                        lease = _Lease(runtime)
                        await self._send.send(lease)
                        await lease.done.wait()
                        if lease.spent:
                            break
            except Exception as exc:  # noqa: BLE001 - a boot that fails fails the row it was for
                failed = _Lease(None, error=exc)
                await self._send.send(failed)
                await failed.done.wait()

    @asynccontextmanager
    async def lease(self) -> AsyncIterator[DshRuntime]:
        """A booted runtime, this row's alone until the block ends."""
        if self._started < self._size:
            self._started += 1
            self._tg.start_soon(self._slot, self._started)
        lease = await self._offers.receive()
        try:
            if lease.runtime is None:
                raise RuntimeError(f"the DSH runtime could not boot: {lease.error}") from lease.error
            yield lease.runtime
        except BaseException:
            lease.spent = True
            raise
        finally:
            lease.spent = lease.spent or lease.runtime is None or not lease.runtime.healthy
            lease.done.set()


@asynccontextmanager
async def runtime_pool(size: int) -> AsyncIterator[RuntimePool]:
    """A pool of ``size`` runtimes, booted on first use, set as :data:`POOL` inside the block."""
    with tempfile.TemporaryDirectory(prefix="compat-verify-dsh-") as tmp:
        async with anyio.create_task_group() as tg:
            pool = RuntimePool(tg, Path(tmp).resolve(), size)
            token = POOL.set(pool)
            try:
                yield pool
            finally:
                POOL.reset(token)
                tg.cancel_scope.cancel()
