"""The seam routes: native-translate, and what the observe-only and Copilot routes build on.

One :class:`Listening` per adapter subscribes to each host seam once, on first use, arms the host
service a point needs once, and keeps one :class:`~compat_adapter.routing.dispatch.Runner`. The
three seam routes mount into it, each with its own verdict rule per vendor event, so that the hooks
of one seam run in registration order through one listener whichever route brought them:

* :class:`NativeRouter` (native-translate) applies the point's rule from the points table; a row
  whose answer can only be watched (``blocking="observe"``) is observed;
* ``observe.ObserveRouter`` (native-seam) observes every answer: the hook runs, a blocking answer is
  audited and ignored;
* ``copilot.CopilotRouter`` (builtin-bridge) is the native rule plus Copilot's own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableSequence
from functools import partial

from compat_adapter.host.protocol import Host
from compat_adapter.model import EventRow
from compat_adapter.routing.base import HookState
from compat_adapter.routing.dispatch import AuditRecord, HookEntry, Runner
from compat_adapter.routing.points import (
    AGENT_CREATED,
    APPROVAL,
    DISPOSED,
    POST_EXECUTE,
    PERMISSION,
    PRE_EXECUTE,
    PRE_STEP,
    TURN_STOPPING,
    Point,
    point_named,
)
from compat_adapter.routing.rewrite import can_rewrite
from compat_adapter.routing.seams import LISTENERS
from compat_adapter.routing.seams.services import arm
from compat_adapter.routing.seams.tools import EXECUTE_SEAM
from compat_adapter.routing.verdicts import Rule, observe

__all__ = ("Listening", "NativeRouter", "PointRouter")

#: Points where a vendor's continue:false stops the agent, so a halt must be enforced at the next step.
_HALTING = frozenset(p.name for p in (PRE_EXECUTE, PERMISSION, POST_EXECUTE, AGENT_CREATED, TURN_STOPPING))


class Listening:
    """One adapter's listeners on one host: subscriptions, armed services and the runner."""

    def __init__(self, host: Host, adapter_id: str, audit: MutableSequence[AuditRecord]) -> None:
        self._host = host
        self._adapter_id = adapter_id
        self.runner = Runner(host, audit, adapter_id)
        self._unsubscribe: dict[str, Callable[[], None]] = {}
        self._closers: list[Callable[[], Awaitable[None]]] = []
        self._armed: set[str] = set()

    @property
    def closed(self) -> bool:
        return self.runner.closed

    def kept(self) -> dict[str, int]:
        """How many entries each per-session, per-agent or per-call structure of these routes holds."""
        runner = self.runner
        return {**runner.state.sizes(), "verbatim": len(runner.verbatim), "rewrites": len(runner.rewrites),
                "reasked": len(runner.reasked)}

    async def mount(self, entry: HookEntry, rule: Rule) -> None:
        point = point_named(entry.row.point)
        self.runner.add(entry, rule)
        try:
            for seam in entry.row.seams:
                self._subscribe(seam)
            if point.name in _HALTING and PRE_STEP.seam in self._host.surface.seams:
                # continue:false ends the turn at its next step: the pre-step seam refuses it.
                self._subscribe(PRE_STEP.seam)
            if point in (PRE_EXECUTE, PERMISSION) and POST_EXECUTE.seam in self._host.surface.seams:
                # A deny is put in the vendor's words on post-execute (``verbatim``).
                self._subscribe(POST_EXECUTE.seam)
            if point is PRE_EXECUTE and APPROVAL.seam in self._host.surface.seams:
                # An ask nobody answers is settled as the vendor settles it (``unattended``); an
                # allowed one's hooks run again for the vendors that do so (``reasked``).
                self._subscribe(APPROVAL.seam)
            if point is PRE_EXECUTE and can_rewrite(self._host):
                # An input rewrite runs as a nested call on tools/execute (``rewrite``).
                self._subscribe(EXECUTE_SEAM)
            if DISPOSED.seam in self._host.surface.seams:
                # What the runner keeps for an agent and its session goes when the agent does.
                self._subscribe(DISPOSED.seam)
            await self._arm(point)
        except BaseException:
            self.runner.remove(entry)
            raise

    def unmount(self, entry: HookEntry) -> None:
        self.runner.remove(entry)

    def _subscribe(self, seam: str) -> None:
        if seam in self._unsubscribe:
            return
        self._unsubscribe[seam] = self._host.on(seam, partial(LISTENERS[seam], self.runner))

    async def _arm(self, point: Point) -> None:
        if point.service is None or point.service in self._armed:
            return
        close = await arm(self.runner, point, self._adapter_id)
        if close is not None:
            self._closers.append(close)
        self._armed.add(point.service)

    async def close(self) -> None:
        """Unsubscribe, end the runs under way (a queued one never starts a hook), then close
        the services this adapter's points armed."""
        if self.runner.closed:
            return
        for unsubscribe in self._unsubscribe.values():
            unsubscribe()
        self._unsubscribe.clear()
        await self.runner.close()
        for close in reversed(self._closers):
            await close()
        self._closers.clear()


class PointRouter:
    """A seam route: mounts into the adapter's :class:`Listening` with its own rules."""

    def __init__(self, listening: Listening) -> None:
        self._listening = listening

    def rule_for(self, point: Point, row: EventRow) -> Rule:
        raise NotImplementedError

    async def mount(self, entry: HookEntry) -> None:
        await self._listening.mount(entry, self.rule_for(point_named(entry.row.point), entry.row))

    def unmount(self, entry: HookEntry) -> None:
        self._listening.unmount(entry)

    async def flush(self) -> None:
        """Nothing to flush: a listener mounts at once."""

    def state(self, entry: HookEntry) -> HookState:
        held = self._listening.runner.holds(entry)
        return HookState(held=held, running=held and not self._listening.closed)

    async def close(self) -> None:
        await self._listening.close()


class NativeRouter(PointRouter):
    """native-translate: the point's own rule; a row that can only watch is observed."""

    def rule_for(self, point: Point, row: EventRow) -> Rule:
        return observe if row.blocking == "observe" else point.rule
