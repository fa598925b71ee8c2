"""The hook runs of one adapter that are under way, so that disposing the adapter ends them.

A seam listener, an emit listener the host runs in the background, an ``async`` hook and a
service callback each run their hooks inside :meth:`InFlight.track`. :meth:`InFlight.close` marks
the set closed, so a run the host had queued but not started yet returns at once, cancels the runs
under way (the process runner then kills each hook's whole process group) and waits until every
one has left. When ``close`` returns no hook of this set is running and none can start.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

import anyio

__all__ = ("InFlight", "tracked")

P = ParamSpec("P")
T = TypeVar("T")


@dataclass(eq=False, slots=True)
class _Run:
    scope: anyio.CancelScope
    task: int
    #: Made by :meth:`InFlight.close` when it waits for the run (every dispatch that runs a hook
    #: is tracked, and only a closing set ever waits).
    done: anyio.Event | None = None


class InFlight:
    """Runs under way for one owner; see the module docstring."""

    __slots__ = ("_runs", "closed")

    def __init__(self) -> None:
        self._runs: set[_Run] = set()
        self.closed = False

    @property
    def active(self) -> int:
        """How many runs are under way now."""
        return len(self._runs)

    @contextmanager
    def track(self) -> Iterator[anyio.CancelScope]:
        """Run the body as one tracked run; :meth:`close` cancels it. The body checks
        :attr:`closed` itself before starting anything (a closed set still enters the body, so
        that callers keep one code path)."""
        run = _Run(anyio.CancelScope(), anyio.get_current_task().id)
        self._runs.add(run)
        try:
            with run.scope:
                yield run.scope
        finally:
            self._runs.discard(run)
            if run.done is not None:
                run.done.set()

    async def close(self) -> None:
        """Close the set, cancel every run under way and wait until each has ended.

        A run in the calling task itself (a hook run that disposes its own adapter) is neither
        cancelled nor waited for: it would wait for itself.
        """
        self.closed = True
        me = anyio.get_current_task().id
        pending = [run for run in self._runs if run.task != me]
        for run in pending:
            run.scope.cancel()
            run.done = run.done or anyio.Event()  # before any await: each is still under way
        # Each run kills its hook's process group while leaving (shielded in the process runner).
        with anyio.CancelScope(shield=True):
            for run in pending:
                assert run.done is not None
                await run.done.wait()


class _Owner(Protocol):
    @property
    def inflight(self) -> InFlight: ...


S = TypeVar("S", bound=_Owner)


def tracked(empty: Callable[[], Any]) -> Callable[[Callable[Concatenate[S, P], Awaitable[T]]],
                                                  Callable[Concatenate[S, P], Awaitable[T]]]:
    """Make an async method of an object with an ``inflight`` set one tracked run: once the set
    is closed the method returns ``empty()`` without running, and a call that closing cut short
    returns ``empty()`` too (what it had done before is kept: its audit, its finished hooks)."""
    def wrap(method: Callable[Concatenate[S, P], Awaitable[T]]) -> Callable[Concatenate[S, P], Awaitable[T]]:
        @functools.wraps(method)
        async def run(self: S, *args: P.args, **kwargs: P.kwargs) -> T:
            inflight = self.inflight
            with inflight.track():
                if not inflight.closed:
                    return await method(self, *args, **kwargs)
            return empty()
        return run
    return wrap
