"""Continue's dialect (vendor id ``continue``), read from cn 1.5.47's own source (``src/hooks/``,
shipped in its npm package): Claude Code's protocol, read more loosely.

What differs from :mod:`vendors.claude.dialect`:

- Matchers: absent, ``""`` or ``"*"`` match everything; anything else is ``new RegExp(matcher).test``
  (no list of exact names: ``Bash|Write`` is the same alternation, ``Write`` also matches
  ``NotebookWrite``), and a pattern that does not compile skips its group. The events of
  ``NO_MATCHER_EVENTS`` and those without a matcher field ignore the matcher.
- Output: stdout is ``trim``-med and read as JSON when it starts with ``{`` whatever the exit code.
  Exit 2 blocks on every event with stderr (``Blocked by hook`` when empty); ``decision: "block"``
  blocks on every event with its ``reason`` (else stderr, else ``Blocked by hook``). No schema is
  checked: a value of the wrong kind is ignored, never a hook error.
- ``hookSpecificOutput.additionalContext`` is context whatever event it names; ``permissionDecision``
  and ``updatedInput`` are read only when it names PreToolUse, ``decision`` only when it names
  PermissionRequest. ``continue``, ``stopReason``, ``systemMessage`` and ``suppressOutput`` are never read.
- On UserPromptSubmit and SessionStart, the stdout of a run that exits 0 without a
  ``hookSpecificOutput`` is context as printed (JSON or not).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from compat_adapter.dialects.base import HookAnswer
from compat_adapter.dialects.common import AnswerDraft, cause_text, plain
from compat_adapter.dialects.patterns import compile_js
from compat_adapter.jsontext import js_trim
from vendors.claude.dialect import ClaudeDialect

if TYPE_CHECKING:
    from compat_adapter.runtime.process import ProcessOutcome

__all__ = ("DIALECT", "ContinueDialect")

#: MATCHER_FIELD_MAP of src/hooks/types.ts: the events a matcher narrows, and the field it tests.
SUBJECT_KEY: Mapping[str, str] = {
    "PreToolUse": "tool_name", "PostToolUse": "tool_name", "PostToolUseFailure": "tool_name",
    "PermissionRequest": "tool_name", "SessionStart": "source", "SessionEnd": "reason",
    "Notification": "notification_type", "SubagentStart": "agent_type", "SubagentStop": "agent_type",
    "PreCompact": "trigger", "ConfigChange": "source",
}
#: Where plain stdout on exit 0 is context (aggregateResults).
_PLAIN_CONTEXT = frozenset({"UserPromptSubmit", "SessionStart"})
_BLOCKED = "Blocked by hook"


class ContinueDialect(ClaudeDialect):
    """Continue's hook runner: Claude's payloads and names, its own looser reading."""

    vendor: str = "continue"
    subject_keys: ClassVar[Mapping[str, str]] = SUBJECT_KEY

    # validate_matcher is Claude's: a literal name list is a regular expression that always compiles,
    # so reading every matcher as one finds the same problems.

    def matches(self, event: str, matcher: str | None, subject: str | None) -> bool:
        if event not in self.subject_keys or matcher in (None, "", "*") or subject is None:
            return True
        assert matcher is not None
        compiled = compile_js(matcher)
        return not isinstance(compiled, str) and bool(compiled.search(subject))

    def _blocks(self, event: str) -> str:
        return "deny" if event in ("PreToolUse", "PermissionRequest") else "block"

    def read_json(self, event: str, obj: Mapping[str, Any]) -> AnswerDraft:
        d = AnswerDraft()
        d.ignored.extend(k for k in ("continue", "stopReason", "systemMessage", "suppressOutput") if k in obj)
        if obj.get("decision") == "block":
            reason = obj.get("reason")
            d.decision = self._blocks(event)  # type: ignore[assignment]
            d.reason = reason if isinstance(reason, str) and reason else None
        specific = obj.get("hookSpecificOutput")
        if isinstance(specific, Mapping):
            context = specific.get("additionalContext")
            if isinstance(context, str) and context:
                d.context(context, "additionalContext")
            named = specific.get("hookEventName")
            if named == "PreToolUse" and event == "PreToolUse":
                choice = specific.get("permissionDecision")
                if choice in ("allow", "deny", "ask"):
                    d.decision = choice
                    reason = specific.get("permissionDecisionReason") or obj.get("reason")
                    d.reason = reason if isinstance(reason, str) and reason else (
                        _BLOCKED if choice == "deny" else None)
                if isinstance(specific.get("updatedInput"), Mapping):
                    d.updated_input = plain(specific["updatedInput"])
            elif named == "PermissionRequest" and event == "PermissionRequest":
                self._permission(specific.get("decision"), d)
        return d

    def decode(self, event: str, outcome: ProcessOutcome) -> HookAnswer:
        if outcome.exit_code is None:
            return HookAnswer(failed=cause_text(outcome))
        obj = self.parse_stdout(outcome.stdout)
        d = self.read_json(event, obj) if obj is not None else AnswerDraft()
        stderr = js_trim(outcome.stderr)
        if outcome.exit_code == 2:
            d.decision = self._blocks(event)  # type: ignore[assignment]
            d.reason = stderr or _BLOCKED
        elif d.decision in ("deny", "block") and not d.reason:
            d.reason = stderr or _BLOCKED
        stdout = js_trim(outcome.stdout)
        hso = obj.get("hookSpecificOutput") if obj is not None else None
        if outcome.exit_code == 0 and stdout and not hso and event in _PLAIN_CONTEXT:
            d.additional_context.append(stdout)
            return replace(d.freeze(), printed=(stdout,))
        return d.freeze()


#: The one stateless instance its unit names.
DIALECT = ContinueDialect()
