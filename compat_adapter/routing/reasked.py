"""The pre-tool hooks a vendor runs a second time, when a call they answered ``ask`` executes.

CodeBuddy Code keeps no ``ask`` in its hook cache: once the ask is settled (a person allowed the
call, or ``-p`` ran it without asking), it runs the PreToolUse hooks again as the call executes,
and a deny then blocks it (read in 2.163.0; measured, lane case ``workbuddy:ask``: PreToolUse fires
twice). A route hands such an ask to the host's approval and names it with :meth:`Reasked.want`;
its ``approval/request`` listener takes it with :meth:`Reasked.take` and, when the call is allowed,
runs that vendor's pre-tool hooks once more: their deny turns the approval into a refusal. (Not on
``tools/execute``: a listener there cannot answer with a result of its own on DSH.) An ask whose
approval never comes is dropped when the store is full.
"""

from __future__ import annotations

from compat_adapter.host.protocol import ApprovalRequest, ToolExecution

__all__ = ("Reasked",)

#: Asks kept at most: more calls than this between an ask and its execution do not happen.
_KEPT = 4096

Key = tuple[str | None, str | None]


class Reasked:
    """The asked calls whose vendor runs its pre-tool hooks again when the call executes."""

    def __init__(self) -> None:
        self._wanted: dict[Key, tuple[ToolExecution, str]] = {}

    def __len__(self) -> int:
        return len(self._wanted)

    def want(self, execution: ToolExecution, vendor: str) -> None:
        """``vendor``'s hooks answered ``ask`` for ``execution``: they run again as it executes."""
        if len(self._wanted) >= _KEPT:
            del self._wanted[next(iter(self._wanted))]  # an ask whose call never ran
        agent = execution.agent
        self._wanted[(agent.session.id if agent is not None else None, execution.call_id)] = (execution, vendor)

    def take(self, request: ApprovalRequest) -> tuple[ToolExecution, str] | None:
        """The call ``request`` asks about and the vendor whose pre-tool hooks run again for it, if
        any (once)."""
        return self._wanted.pop((request.agent.session.id, request.call_id), None)
