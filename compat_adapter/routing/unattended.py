"""An ``ask`` nobody can answer, settled as the vendor settles it when it cannot ask anyone.

An ask goes to the host's approval (``approval/request``). When the host has no one to put it to
(its answer is ``unavailable``: no approval channel, as in a vendor's non-interactive run), what
happens next is the vendor's: most refuse the call (Claude Code ``-p``; the refusal's words are put
right by :mod:`compat_adapter.routing.verbatim`), CodeBuddy Code ``-p`` runs it (measured, lane
cases ``workbuddy:ask`` and ``workbuddy:perm_ask``). A route that hands an ask to the host's approval
for a vendor of the second kind says so with :meth:`Unattended.want`; its ``approval/request``
listener passes the host's answer through :meth:`Unattended.settle`. A person's answer (allowed,
rejected, cancelled) is never changed: only the absence of anyone to answer is.
"""

from __future__ import annotations

from compat_adapter.host.protocol import ApprovalOutcome, ApprovalRequest, Host, ToolExecution

__all__ = ("Unattended",)

#: Asks kept at most: more calls than this between an ask and its approval do not happen.
_KEPT = 4096

Key = tuple[str | None, str | None]


class Unattended:
    """The asks one route handed to the host's approval whose vendor runs the call when nobody answers."""

    def __init__(self, host: Host) -> None:
        self._host = host
        self._wanted: dict[Key, str] = {}

    def __len__(self) -> int:
        return len(self._wanted)

    def want(self, execution: ToolExecution, vendor: str) -> None:
        """``execution``'s ask is ``vendor``'s, which runs the call when no one can be asked."""
        agent = execution.agent
        if len(self._wanted) >= _KEPT:
            del self._wanted[next(iter(self._wanted))]  # an ask whose approval never came
        self._wanted[(agent.session.id if agent is not None else None, execution.call_id)] = vendor

    def settle(self, request: ApprovalRequest, outcome: ApprovalOutcome) -> ApprovalOutcome:
        """The host's answer to ``request``, or ``allowed-once`` where the host had no one to ask
        and the ask is one :meth:`want` named."""
        vendor = self._wanted.pop((request.agent.session.id, request.call_id), None)
        if vendor is None or outcome is not ApprovalOutcome.UNAVAILABLE:
            return outcome
        self._host.log("info", f"compat-adapter: no one can answer the ask on {request.tool_name}; it runs, as "
                               f"{vendor} runs it in a non-interactive run", vendor=vendor, call=request.call_id)
        return ApprovalOutcome.ALLOWED_ONCE
