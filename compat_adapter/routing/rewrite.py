"""A hook's input rewrite, run as the vendor runs it, on seams the host really has.

DSH's ``PreToolDecision`` has no rewrite arm (arguments are logged and presented before policy),
and a ``tools/execute`` wrapper may not change the call it wraps. What a wrapper may do is what a
composite tool does: dispatch a *nested* call through the host's whole tool pipeline
(``ctx.tools.execute``) and answer with its result instead of calling ``next()``. So a rewrite is:

1. ``tools/pre-execute`` (the route's own listener): the hooks answered with new arguments; the
   route lets the call through (:meth:`Rewrites.want`) and the host logs the model's original call;
2. ``tools/execute`` (:meth:`Rewrites.on_execute`): the host runs the tool as the nested call
   ``<callId>:rewrite`` with the new arguments (:meth:`~compat_adapter.host.protocol.Host.execute_nested`).
   That call passes the host's pre-execute policy, guards, approval and post-execute again, as any
   call does, so a rewrite cannot slip a command past them; the route's own listeners let it
   through without running the hooks again (:meth:`Rewrites.nested`);
3. the outer call's result is the nested call's result; post-tool hooks run once, on the outer call.

The outer call keeps its identity and its logged arguments: the history the model sees next shows
the call it made, with the rewritten command's output, as Claude Code, Codex and CodeBuddy show it.

Route-neutral: a route calls :meth:`Rewrites.want` from its pre-execute listener, subscribes
:meth:`Rewrites.on_execute` on ``tools/execute``, and starts its pre- and post-execute listeners
with ``if rewrites.nested(execution): return await next()``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from compat_adapter.host.protocol import Host, ToolExecution, ToolResult

__all__ = ("NESTED_SUFFIX", "Rewrites", "can_rewrite")

#: The nested call's id is the outer call's id with this suffix.
NESTED_SUFFIX = ":rewrite"

#: Records kept at most: more calls than this between a pre-execute and its execute do not happen.
_KEPT = 4096

Key = tuple[str | None, str]


def _key(execution: ToolExecution) -> Key:
    agent = execution.agent
    return (agent.session.id if agent is not None else None, execution.call_id)


def can_rewrite(host: Host) -> bool:
    """Whether the host has what a rewrite needs: the around-dispatch seam and nested dispatch."""
    surface = host.surface
    return "tools/execute" in surface.seams and "tools" in surface.services


class Rewrites:
    """The rewrites one route's hooks asked for, until the host runs them."""

    def __init__(self, host: Host) -> None:
        self._host = host
        self._wanted: dict[Key, Mapping[str, Any]] = {}
        self._nested: set[Key] = set()

    def __len__(self) -> int:
        """Rewrites wanted or running now."""
        return len(self._wanted) + len(self._nested)

    def want(self, execution: ToolExecution, arguments: Mapping[str, Any]) -> None:
        """Run this call with ``arguments`` (host names) when the host dispatches it."""
        if len(self._wanted) >= _KEPT:
            del self._wanted[next(iter(self._wanted))]  # a call the host never dispatched
        self._wanted[_key(execution)] = dict(arguments)

    def nested(self, execution: ToolExecution) -> bool:
        """Whether this is a nested call a rewrite of ours dispatched (our hooks already ran)."""
        return _key(execution) in self._nested

    async def on_execute(self, execution: ToolExecution,
                         next: Callable[[], Awaitable[Any]]) -> ToolResult:
        """The ``tools/execute`` listener: a call with a wanted rewrite runs as a nested call."""
        arguments = self._wanted.pop(_key(execution), None)
        if arguments is None:
            return await next()
        call_id = execution.call_id + NESTED_SUFFIX
        key = (_key(execution)[0], call_id)
        self._nested.add(key)
        try:
            return await self._host.execute_nested(execution, call_id, arguments)
        finally:
            self._nested.discard(key)
