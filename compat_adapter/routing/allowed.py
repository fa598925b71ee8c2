"""The calls a pre-tool hook explicitly allowed, for the permission guard to weigh.

On the host's ``tools/pre-execute`` waterfall a hook's allow is a call to ``next()``, the same as
no answer at all, so a listener further out cannot tell the two apart. Some vendors let a hook's
allow lift a permission rule (CodeBuddy Code 2.163.0: a PreToolUse allow lifts a deny or an ask
rule, measured), so the route that ran the hook marks the call here and the adapter's permission
guard (:mod:`compat_adapter.permissions.guard`) takes the mark once the waterfall has answered.
"""

from __future__ import annotations

from compat_adapter.host.protocol import ToolExecution

__all__ = ("Allowed",)

#: Marks kept at most: a mark nobody takes (no rule guards the call) is dropped oldest first.
_KEPT = 4096

Key = tuple[str | None, str]


def _key(execution: ToolExecution) -> Key:
    agent = execution.agent
    return (agent.session.id if agent is not None else None, execution.call_id)


class Allowed:
    """One route's marks: the calls its pre-tool hooks answered ``allow`` for."""

    def __init__(self) -> None:
        self._marked: dict[Key, bool] = {}

    def __len__(self) -> int:
        return len(self._marked)

    def mark(self, execution: ToolExecution) -> None:
        if len(self._marked) >= _KEPT:
            del self._marked[next(iter(self._marked))]
        self._marked[_key(execution)] = True

    def take(self, execution: ToolExecution) -> bool:
        """Whether a hook allowed ``execution`` (the mark is used once)."""
        return self._marked.pop(_key(execution), False)
