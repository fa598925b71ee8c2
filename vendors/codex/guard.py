"""Codex ``.rules`` enforced on the host's pre-execute seam, as Codex enforces them on its shell.

Codex evaluates its execution policy before it runs a shell command: ``forbidden`` refuses it (the
model reads ``\\`<command>\\` rejected: blocked by policy``), ``prompt`` asks the user first and
``allow`` lets it run. Here every shell call (the host's ``bash`` tool) is judged the same way:
``forbidden`` denies with Codex's text, ``prompt`` goes to the host's approval (denied with the same
text where the host has none), ``allow`` and no match leave the call to the host.

Moved here from ``compat_adapter/routing/policy.py`` when the table's ``rules_policy`` switch gave
way to the unit's ``policy`` capability (``vendors/codex/policy.py``), which mounts this guard.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from compat_adapter.vendor import Host, PreToolDecision, ToolExecution
from vendors.codex.execpolicy import PrefixRule, evaluate

__all__ = ("PRE_EXECUTE", "PolicyGuard", "rejection")

Next = Callable[[], Awaitable[Any]]

#: The host tool Codex's shell commands become.
SHELL_TOOL = "bash"
#: The host seam the policy listens on (before the shell runs).
PRE_EXECUTE = "tools/pre-execute"


def rejection(command: str) -> str:
    """What Codex's model reads for a command its policy refuses."""
    return f"`{command}` rejected: blocked by policy"


class PolicyGuard:
    """One adapter's Codex policies, listening on tools/pre-execute once the first one is added."""

    def __init__(self, host: Host) -> None:
        self._host = host
        self._rules: dict[str, tuple[PrefixRule, ...]] = {}
        self._unsubscribe: Callable[[], None] | None = None

    def add(self, rid: str, rules: Sequence[Any]) -> None:
        self._rules[rid] = tuple(r for r in rules if isinstance(r, PrefixRule))
        if self._unsubscribe is None:
            self._unsubscribe = self._host.on(PRE_EXECUTE, self._on_pre_execute)

    @property
    def rules(self) -> tuple[PrefixRule, ...]:
        return tuple(r for rules in self._rules.values() for r in rules)

    async def _on_pre_execute(self, execution: ToolExecution, next: Next) -> Any:
        command = execution.arguments.get("command")
        if execution.name != SHELL_TOOL or not isinstance(command, str):
            return await next()
        ruling = evaluate(self.rules, command)
        if ruling is None or ruling.decision == "allow":
            return await next()
        text = rejection(command)
        self._host.log("info", "compat-adapter codex policy", decision=ruling.decision,
                       rule=ruling.rule.source, command=command)
        if ruling.decision == "prompt" and "approval" in self._host.surface.services:
            return PreToolDecision("ask", ruling.rule.justification or text)
        return PreToolDecision("deny", text)

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._rules.clear()

