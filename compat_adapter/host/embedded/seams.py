"""Seam listeners and the three dispatch modes of the embedded host (waterfall, serial, emit).

The rules follow Cordis as DSH uses it (``reference/dsh-seams.md`` §1):

* waterfall — listeners run outermost-first in registration order (``prepend`` puts one first);
  each gets ``(event, next)``; ``await next()`` runs the rest and finally the seam's default;
  returning without calling ``next`` vetoes everything after, the default included.
* serial — listeners are awaited one after the other; a listener that returns something other
  than ``None`` is a Cordis "bail" value and stops the loop.
* emit — listeners are called in order and never awaited by the caller; an awaitable result runs
  in the background (the host's task group) and :meth:`~MemoryHost.settle` waits for it.

Fault containment (our choice; DSH leaves most of it to each seam): a listener that raises is
logged and then treated as if it had called ``next()`` (waterfall) or returned nothing (serial,
emit), so one broken listener never takes a turn down. A waterfall listener that returns ``None``
is a listener that forgot its verdict: it is logged and treated the same way.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio

from compat_adapter.errors import HostSurfaceMismatch
from compat_adapter.host.protocol import SeamMode

__all__ = ("Seams",)

Listener = Callable[..., Any]
Default = Callable[[], Any]


@dataclass(eq=False, slots=True)
class _Entry:
    """One registration; identity (not the function) is what unsubscribes, so double
    registrations of one function stay independent."""

    listener: Listener
    active: bool = True


@dataclass(eq=False, slots=True)
class Seams:
    """Listener lists per seam plus the dispatch modes.

    :param modes: the seams this composition offers and their modes (the surface's ``seams``).
    :param log: operator log, ``log(level, message, **fields)``.
    :param spawn: runs a coroutine function in the background (the host's task group) and
        returns an event set when it has finished.
    """

    modes: Mapping[str, SeamMode]
    log: Callable[..., None]
    spawn: Callable[[Callable[[], Awaitable[Any]]], anyio.Event]
    _lists: dict[str, list[_Entry]] = field(default_factory=dict)

    def on(self, seam: str, listener: Listener, prepend: bool = False) -> Callable[[], None]:
        if seam not in self.modes:
            raise HostSurfaceMismatch(f"seam {seam!r} is not offered by this host", seam=seam)
        if not callable(listener):
            raise TypeError(f"listener for {seam!r} is not callable: {listener!r}")
        entry = _Entry(listener)
        entries = self._lists.setdefault(seam, [])
        if prepend:
            entries.insert(0, entry)
        else:
            entries.append(entry)

        def unsubscribe() -> None:
            entry.active = False
            # Dispatches already under way hold their own snapshot; removing from the live list
            # only affects later ones.
            if entry in entries:
                entries.remove(entry)

        return unsubscribe

    def count(self, seam: str) -> int:
        return len(self._lists.get(seam, ()))

    def _snapshot(self, seam: str, mode: SeamMode) -> tuple[_Entry, ...]:
        offered = self.modes.get(seam)
        if offered is None:
            raise HostSurfaceMismatch(f"seam {seam!r} is not offered by this host", seam=seam)
        if offered != mode:
            raise HostSurfaceMismatch(f"seam {seam!r} dispatches as {offered}, not {mode}",
                                      seam=seam)
        return tuple(self._lists.get(seam, ()))

    async def waterfall(self, seam: str, event: Any, default: Default) -> Any:
        entries = self._snapshot(seam, SeamMode.WATERFALL)

        async def run(index: int) -> Any:
            if index == len(entries):
                return await _resolve(default())
            entry = entries[index]
            if not entry.active:
                return await run(index + 1)
            # (value, error) of the rest of the chain once next() has run it.
            downstream: tuple[Any, BaseException | None] | None = None

            async def next_() -> Any:
                # Idempotent: a listener calling next() twice must not run the rest twice.
                nonlocal downstream
                if downstream is None:
                    try:
                        downstream = (await run(index + 1), None)
                    except Exception as exc:
                        downstream = (None, exc)
                if downstream[1] is not None:
                    raise downstream[1]
                return downstream[0]

            try:
                verdict = await _resolve(entry.listener(event, next_))
            except Exception as exc:  # noqa: BLE001 - contained by design, see module docstring
                if downstream is not None and downstream[1] is not None:
                    # The failure came from further down the chain (a default that raises on
                    # purpose, such as "no provider"): it is not this listener's fault.
                    raise downstream[1] from None
                self.log("error", f"{seam} listener raised; treated as next()",
                         seam=seam, listener=_name(entry.listener), error=repr(exc))
                return await next_()
            if verdict is None:
                self.log("warning", f"{seam} listener returned no verdict; treated as next()",
                         seam=seam, listener=_name(entry.listener))
                return await next_()
            return verdict

        return await run(0)

    async def serial(self, seam: str, event: Any) -> Any:
        for entry in self._snapshot(seam, SeamMode.SERIAL):
            if not entry.active:
                continue
            try:
                bail = await _resolve(entry.listener(event))
            except Exception as exc:  # noqa: BLE001
                self.log("error", f"{seam} listener raised; later listeners still run",
                         seam=seam, listener=_name(entry.listener), error=repr(exc))
                continue
            if bail is not None:
                return bail
        return None

    def emit(self, seam: str, event: Any) -> list[anyio.Event]:
        """Call every listener; return one "finished" event per awaitable sent to the background
        (for the rare caller that waits on one notification, such as the subagent tool)."""
        started: list[anyio.Event] = []
        for entry in self._snapshot(seam, SeamMode.EMIT):
            if not entry.active:
                continue
            try:
                result = entry.listener(event)
            except Exception as exc:  # noqa: BLE001
                self.log("error", f"{seam} listener raised", seam=seam,
                         listener=_name(entry.listener), error=repr(exc))
                continue
            if inspect.isawaitable(result):
                try:
                    started.append(self.spawn(_contained(result, self.log, seam,
                                                         _name(entry.listener))))
                except RuntimeError as exc:
                    # The host is shutting down: the listener's work is dropped, closed so it
                    # does not linger as a never-awaited coroutine.
                    if inspect.iscoroutine(result):
                        result.close()
                    self.log("warning", f"{seam} listener dropped: {exc}", seam=seam,
                             listener=_name(entry.listener))
        return started


async def _resolve(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _contained(awaitable: Awaitable[Any], log: Callable[..., None], seam: str,
               name: str) -> Callable[[], Awaitable[None]]:
    async def run() -> None:
        try:
            await awaitable
        except Exception as exc:  # noqa: BLE001
            log("error", f"{seam} listener failed in the background", seam=seam, listener=name,
                error=repr(exc))

    return run


def _name(listener: Listener) -> str:
    return getattr(listener, "__qualname__", None) or repr(listener)
