"""Permission rules enforced at the host's tool pre-execute seam, with the vendor's own semantics.

One guard per adapter. It listens first on ``tools/pre-execute`` (``prepend``), so that it wraps
every hook listener whichever adapter or route mounted it: for a vendor whose hooks run before its
rules (Claude Code: a rule-denied call still fires its PreToolUse hooks, measured) it lets the rest
of the waterfall answer first, then weighs that answer against the deciding rule
(:func:`~compat_adapter.permissions.engine.winner`). A refusal is the host's own deny, so every
other guard and the session log see a real deny; the words the model reads are the vendor's, put
right on ``tools/post-execute`` (:mod:`compat_adapter.routing.verbatim`), where the guard also keeps
post-tool hooks from running for the call, as the vendor runs none for a call its rules refused.
An ask goes to the host's approval service; where nobody can answer it (no service, or its answer
is ``unavailable``), it does what the vendor does in its non-interactive run: refused in the
vendor's words (``claude -p``) or run (``codebuddy -p``, :mod:`compat_adapter.routing.unattended`).
A hook's allow is weighed where this adapter's own route ran the hook (``routing.allowed``).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

from compat_adapter.host.protocol import (
    ApprovalOutcome,
    ApprovalRequest,
    Host,
    PostToolDecision,
    PreStepDecision,
    PreStepEvent,
    PreToolDecision,
    ToolExecution,
    ToolPostEvent,
)
from compat_adapter.host.offer import OFFER_SEAM, ToolOffer
from compat_adapter.permissions.engine import ruling, strictest, winner
from compat_adapter.permissions.grade import POST_SEAM, PRE_SEAM
from compat_adapter.permissions.language import HidesTools, RuleLanguage
from compat_adapter.permissions.model import PermissionRule, RuleCall, Ruling
from compat_adapter.routing.allowed import Allowed
from compat_adapter.routing.unattended import Unattended
from compat_adapter.routing.verbatim import Verbatim, reworded

__all__ = ("PermissionGuard", "rule_call")

APPROVAL_SEAM = "approval/request"
STEP_SEAM = "agent/pre-step"
DISPOSED_SEAM = "agent/disposed"

Next = Callable[[], Awaitable[Any]]


def rule_call(vendor: str, execution: ToolExecution, cwd: Path,
              offered: tuple[str, ...] | None = None) -> RuleCall:
    """The host call in the vendor's tool name and argument names."""
    from compat_adapter.dialects.common import vendor_call

    name, args = vendor_call(vendor, execution.name, execution.arguments)
    return RuleCall(tool=name, input=args, host_tool=execution.name, cwd=str(cwd),
                    home=os.environ.get("HOME") or str(Path.home()), offered=offered)


class PermissionGuard:
    """One adapter's permission rules, listening on the tool seams once the first one is added."""

    def __init__(self, host: Host, allowed: Allowed | None = None) -> None:
        self._host = host
        #: Result id → (its language, the rule).
        self._rules: dict[str, tuple[RuleLanguage, PermissionRule]] = {}
        self._verbatim = Verbatim()
        self._unattended = Unattended(host)
        #: The calls the adapter's own pre-tool hooks allowed (a hook's allow is otherwise the
        #: waterfall's default, and some vendors let it lift a rule).
        self._allowed = allowed
        #: Asks whose refusal ends the turn (call → agent), and the agents whose next step is refused.
        self._ending: dict[tuple[str | None, str | None], str] = {}
        self._halting: set[str] = set()
        #: Refusals of a tool the vendor never offered: its post-tool hooks still run (OpenCode's
        #: ``invalid`` tool takes the call).
        self._unoffered: set[tuple[str | None, str]] = set()
        #: Agent id → the tools its last request offered, once this guard has filtered them.
        self._offered: dict[str, tuple[str, ...]] = {}
        self._unsubscribe: list[Callable[[], None]] = []

    def add(self, rid: str, language: RuleLanguage, rule: PermissionRule) -> None:
        self._rules[rid] = (language, rule)
        if not self._unsubscribe:
            self._unsubscribe.append(self._host.on(PRE_SEAM, self._on_pre_execute, prepend=True))
            if POST_SEAM in self._host.surface.seams:
                self._unsubscribe.append(self._host.on(POST_SEAM, self._on_post_execute, prepend=True))
            if APPROVAL_SEAM in self._host.surface.seams:
                self._unsubscribe.append(self._host.on(APPROVAL_SEAM, self._on_approval))
            if STEP_SEAM in self._host.surface.seams:
                self._unsubscribe.append(self._host.on(STEP_SEAM, self._on_pre_step, prepend=True))
            if OFFER_SEAM in self._host.surface.seams:
                self._unsubscribe.append(self._host.on(OFFER_SEAM, self._on_offer, prepend=True))
            if DISPOSED_SEAM in self._host.surface.seams:
                self._unsubscribe.append(self._host.on(DISPOSED_SEAM, self._on_disposed))

    @property
    def rules(self) -> tuple[PermissionRule, ...]:
        return tuple(rule for _, rule in self._rules.values())

    def __len__(self) -> int:
        """Refusals whose post-execute has not come yet (what a long-lived host watches)."""
        return len(self._verbatim)

    def judge(self, execution: ToolExecution) -> tuple[RuleLanguage, Ruling] | None:
        """The deciding rule for a call over every vendor's rules (the strictest), with its language."""
        agent = execution.agent
        cwd = agent.session.cwd if agent is not None else self._host.cwd
        offered = self._offered.get(agent.id) if agent is not None else None
        found: list[tuple[RuleLanguage, Ruling]] = []
        for language, rules in self._by_language():
            decided = ruling(rules, rule_call(language.vendor, execution, cwd, offered), language)
            if decided is not None:
                found.append((language, decided))
        best = strictest(r for _, r in found)
        return next(((lang, r) for lang, r in found if r is best), None)

    def _by_language(self) -> list[tuple[RuleLanguage, list[PermissionRule]]]:
        by_language: dict[int, tuple[RuleLanguage, list[PermissionRule]]] = {}
        for language, rule in self._rules.values():
            by_language.setdefault(id(language), (language, []))[1].append(rule)
        return list(by_language.values())

    async def _on_offer(self, offer: ToolOffer, next: Next) -> Any:
        """Keeps out of the request the tools a vendor does not offer its model under its rules."""
        offered = await next()
        if not isinstance(offered, tuple):
            return offered
        hidden: set[str] = set()
        for language, rules in self._by_language():
            if isinstance(language, HidesTools):
                hidden |= language.hidden(rules, offered)
        kept = tuple(t for t in offered if t not in hidden)
        if hidden and self._offered.get(offer.agent.id) != kept:
            self._host.log("info", "compat-adapter permission rule: tools not offered to the model, as their "
                                   "vendor offers none its rules deny outright", tools=sorted(hidden),
                           agent=offer.agent.id)
        self._offered[offer.agent.id] = kept
        return kept

    def _on_disposed(self, event: Any) -> None:
        agent = getattr(event, "agent", None)
        if agent is not None:
            self._offered.pop(agent.id, None)

    async def _on_pre_execute(self, execution: ToolExecution, next: Next) -> Any:
        judged = self.judge(execution) if self._rules else None
        if judged is None or judged[1].behavior == "allow":
            return await next()
        language, found = judged
        unattended = found.behavior == "ask" and "approval" not in self._host.surface.services
        if unattended and language.combination.unattended_ask == "run":
            return await next()  # the vendor runs it when nobody can be asked: the hooks still decide
        if not language.combination.hooks_first:
            return self._enforce(execution, found, language)
        verdict = await next()
        # An allow here is the seam's default as much as a hook's (a hook's allow calls next too):
        # it counts as the hooks' answer only where this adapter's route marked the call as one its
        # hook allowed (a hook on the official bridge answers out of sight: a listed loss of the rule).
        hook_allowed = self._allowed is not None and self._allowed.take(execution)
        said: Literal["allow", "deny", "ask"] | None = None
        if isinstance(verdict, PreToolDecision) and (verdict.kind != "allow" or hook_allowed):
            said = verdict.kind
        if winner(said, found, language.combination) == "hook":
            return verdict
        return self._enforce(execution, found, language)

    def _enforce(self, execution: ToolExecution, found: Ruling, language: RuleLanguage) -> PreToolDecision:
        self._host.log("info", "compat-adapter permission rule", vendor=found.rule.vendor,
                       decision=found.behavior, rule=found.rule.text, origin=found.rule.origin,
                       tool=execution.name)
        agent = execution.agent
        ends = found.behavior == "ask" and language.combination.rejected_ask_ends_turn and agent is not None
        if found.behavior == "ask" and "approval" in self._host.surface.services:
            if language.combination.unattended_ask == "run":
                # Should nobody be there to answer, the vendor runs the call (CodeBuddy -p).
                self._unattended.want(execution, found.rule.vendor)
            else:
                self._verbatim.ask(execution, found.text)
            if ends and agent is not None:
                self._ending[(agent.session.id, execution.call_id)] = agent.id
            return PreToolDecision("ask", found.text)
        if ends and agent is not None:
            self._halting.add(agent.id)  # nobody to ask: refused, and the vendor's run ends here
        if found.unoffered:
            self._unoffered.add((agent.session.id if agent is not None else None, execution.call_id))
        return self._verbatim.deny(execution, found.text)

    async def _on_approval(self, request: ApprovalRequest, next: Next) -> Any:
        outcome = self._unattended.settle(request, await next())
        agent = self._ending.pop((request.agent.session.id, request.call_id), None)
        if agent is not None and outcome is not ApprovalOutcome.ALLOWED_ONCE:
            self._halting.add(agent)  # a refused ask ends the vendor's run (OpenCode)
        return outcome

    async def _on_pre_step(self, event: PreStepEvent, next: Next) -> Any:
        if event.agent.id not in self._halting:
            return await next()
        self._halting.discard(event.agent.id)
        self._host.log("info", "compat-adapter permission rule: the refused ask ends the turn, as its vendor's "
                               "run ends", agent=event.agent.id)
        return PreStepDecision("reject")

    async def _on_post_execute(self, event: ToolPostEvent, next: Next) -> Any:
        said = self._verbatim.take(event)
        if said is None:
            return await next()
        agent = event.execution.agent
        key = (agent.session.id if agent is not None else None, event.execution.call_id)
        if key in self._unoffered:
            # The vendor hands a call to a tool it never offered to its own error tool, whose
            # post-tool hooks run (OpenCode's `invalid`, measured): the rest of the waterfall runs.
            self._unoffered.discard(key)
            return await reworded(said, next)
        # The vendor runs no post-tool hook for a call its rules refused (measured: neither
        # PostToolUse nor PostToolUseFailure fires under Claude Code), so the waterfall stops here.
        return PostToolDecision("block", said)

    def close(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        self._rules.clear()
        self._offered.clear()
