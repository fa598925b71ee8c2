"""The Cursor dialect, as cursor.com/docs/hooks and /docs/reference/third-party-hooks document it.

Nothing here could be measured (Cursor has no CLI that runs offline); where the docs leave a
question open the stricter reading is taken and the vendor table lists the loss.

Payload: :mod:`vendors.cursor.payload`. Output is read the JavaScript way (Cursor is an Electron
app; its CLI is Node): stdout ``trim``-med, then one ``JSON.parse``.

- Exit 0: empty output is no answer. Output that does not parse, or is not a JSON object, is a
  failed run ("invalid JSON" in the docs), which lets the action through unless the hook is
  ``failClosed`` (the dispatch loop applies that, hook by hook).
- Exit 2 blocks the action ("equivalent to returning permission: deny") on the events that guard
  one (preToolUse, beforeShellExecution, beforeReadFile, subagentStart, beforeSubmitPrompt); a
  message the output gives is kept. Elsewhere it blocks nothing.
- Any other exit, a crash, a timeout or a hook that cannot start is a failed run: fail-open, the
  output unread, unless ``failClosed``.

Fields by event: ``permission`` (allow / deny; ask on beforeShellExecution, where it reaches the
host's approval; on preToolUse ask is "accepted but not enforced", so it decides nothing; on
subagentStart it is a deny), ``agent_message`` (what the model reads of a deny), ``user_message``
(for the user: logged), ``updated_input`` on preToolUse, ``continue: false`` on beforeSubmitPrompt,
``additional_context`` on postToolUse and sessionStart, ``env`` on sessionStart (recorded),
``updated_mcp_tool_output`` on postToolUse (recorded), ``followup_message`` on stop and
subagentStop (a non-empty string continues, as the next message). Every other field is ignored.

A hook from a Claude settings file (the PascalCase rows) is read the same way, and also in Claude's
shapes, which Cursor accepts: ``hookSpecificOutput.permissionDecision`` as ``permission``,
``permissionDecisionReason`` as ``user_message``, ``updatedInput`` as ``updated_input``, and on
Stop / SubagentStop ``decision: "block"`` with a ``reason`` (nested or top-level) as
``followup_message``.

Matchers: a JavaScript regular expression tested unanchored (``RegExp.test``, linear time by
`patterns.compile_js`); none or ``""`` match everything; a pattern that does not compile is
refused when the hook is declared. On the Claude rows a Claude tool name in the matcher also
matches the Cursor tool Cursor maps it onto (Bash → Shell, Edit → Write).

Merge: deny beats ask beats allow; reasons, contexts and follow-ups in file order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from compat_adapter.dialects.base import HookAnswer
from compat_adapter.dialects.common import OUTPUT_CAP, AnswerDraft, cause_text, merge_answers, plain
from compat_adapter.dialects.patterns import compile_js, js_problem
from compat_adapter.jsontext import JsonTextError, js_read, js_trim
from vendors.cursor.payload import CursorPayload, cursor_event

if TYPE_CHECKING:
    from compat_adapter.runtime.outcome import ProcessOutcome

__all__ = ("CLAUDE_TOOLS", "CursorDialect", "DIALECT", "GUARDS")

#: Events whose answer guards an action: a deny (or exit 2) blocks it.
GUARDS = frozenset({"preToolUse", "beforeShellExecution", "beforeReadFile", "subagentStart",
                    "beforeSubmitPrompt"})
#: Cursor tool → the Claude names Cursor reads as it, in a Claude file's matcher (third-party-hooks).
CLAUDE_TOOLS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "Shell": ("Bash",), "Write": ("Write", "Edit"), "Read": ("Read",), "Grep": ("Grep",), "Task": ("Task",),
})
#: Output fields each event reads (by its Cursor name).
_FIELDS: Mapping[str, frozenset[str]] = MappingProxyType({
    "preToolUse": frozenset({"permission", "user_message", "agent_message", "updated_input"}),
    "beforeShellExecution": frozenset({"permission", "user_message", "agent_message"}),
    "beforeReadFile": frozenset({"permission", "user_message"}),
    "subagentStart": frozenset({"permission", "user_message"}),
    "beforeSubmitPrompt": frozenset({"continue", "user_message"}),
    "postToolUse": frozenset({"updated_mcp_tool_output", "additional_context"}),
    "sessionStart": frozenset({"env", "additional_context", "continue", "user_message"}),
    "stop": frozenset({"followup_message"}),
    "subagentStop": frozenset({"followup_message"}),
    "preCompact": frozenset({"user_message"}),
})
#: Events Cursor documents no matcher for.
_NO_MATCHER = frozenset({"sessionStart", "sessionEnd", "preCompact"})
_PERMISSIONS = {"preToolUse": ("allow", "deny"), "beforeShellExecution": ("allow", "deny", "ask"),
                "beforeReadFile": ("allow", "deny"), "subagentStart": ("allow", "deny")}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


class CursorDialect(CursorPayload):
    """Cursor's hook protocol. Stateless; one shared instance serves every hook."""

    vendor: str = "cursor"
    #: Cursor documents no cap on what it reads of a hook's output; 10 MiB is where we stop keeping it.
    output_cap: int = OUTPUT_CAP

    # ── matchers ────────────────────────────────────────────────────────────────────────────

    def validate_matcher(self, event: str, matcher: str | None) -> str | None:
        if not matcher or cursor_event(event) in _NO_MATCHER:
            return None
        return js_problem(matcher)

    def matches(self, event: str, matcher: str | None, subject: str | None) -> bool:
        if not matcher or cursor_event(event) in _NO_MATCHER:
            return True  # sessionStart, sessionEnd and preCompact take no matcher: it is ignored
        compiled = compile_js(matcher)
        if isinstance(compiled, str):
            return False
        value = subject or ""
        names = (value, *CLAUDE_TOOLS.get(value, ())) if event != cursor_event(event) else (value,)
        return any(compiled.search(name) for name in names)

    # ── decoding ────────────────────────────────────────────────────────────────────────────

    def read_output(self, text: str) -> tuple[dict[str, Any] | None, bool]:
        """(the answer object, whether the output was unreadable): empty output is (None, False)."""
        body = js_trim(text)
        if not body:
            return None, False
        try:
            value = js_read(body)
        except JsonTextError:
            return None, True
        return (value, False) if isinstance(value, dict) else (None, True)

    def decode(self, event: str, outcome: ProcessOutcome) -> HookAnswer:
        code = outcome.exit_code
        name = cursor_event(event)
        if code is None:
            # A timeout, a signal, a spawn failure: the run failed; the action proceeds (fail-open).
            return HookAnswer(failed=cause_text(outcome))
        if code not in (0, 2):
            return HookAnswer(failed=f"{name} hook exited with code {code}; the action proceeds")
        if code == 2 and name not in GUARDS:
            # Exit 2 blocks an action; this event guards none, and its output is read on exit 0 only.
            return HookAnswer(ignored=(f"exit 2 (nothing to block on {name})",))
        obj, unreadable = self.read_output(outcome.stdout)
        if code == 2:
            d = self._draft(event, obj or {})
            d.decision = "deny"  # whatever the output says: exit 2 is a deny
            return d.freeze()
        if unreadable:
            return HookAnswer(failed=f"{name} hook output is not a JSON object; the action proceeds")
        return self._draft(event, obj).freeze() if obj is not None else HookAnswer()

    def _lift(self, event: str, obj: Mapping[str, Any]) -> dict[str, Any]:
        """A Claude file's answer in Cursor's own fields (Claude's shapes, as Cursor reads them);
        a field also given in Cursor's spelling keeps that value."""
        out = {k: v for k, v in obj.items() if k != "hookSpecificOutput"}
        nested = obj.get("hookSpecificOutput")
        inner = nested if isinstance(nested, Mapping) else {}
        for claude, cursor in (("permissionDecision", "permission"), ("permissionDecisionReason", "user_message"),
                               ("updatedInput", "updated_input")):
            if claude in inner:
                out.setdefault(cursor, inner[claude])
        if event in ("Stop", "SubagentStop"):
            for source in (inner, obj):
                if source.get("decision") == "block" and _text(source.get("reason")):
                    out.setdefault("followup_message", source["reason"])
            out.pop("decision", None)
            out.pop("reason", None)
        return out

    def _draft(self, event: str, obj: Mapping[str, Any]) -> AnswerDraft:
        name = cursor_event(event)
        if name != event:
            obj = self._lift(event, obj)
        d = AnswerDraft()
        read = _FIELDS.get(name, frozenset())
        allowed = _PERMISSIONS.get(name)
        choice = obj.get("permission") if "permission" in read else None
        if allowed is not None and choice is not None:
            if choice in allowed:
                d.decision = choice
            elif choice == "ask" and name == "subagentStart":
                d.decision = "deny"  # "ask is not supported for subagentStart and is treated as deny"
            else:
                d.ignored.append(f"permission:{choice}" + (" (accepted but not enforced on preToolUse)"
                                                           if choice == "ask" else ""))
        d.reason = _text(obj.get("agent_message")) if "agent_message" in read else None
        if "user_message" in read:
            d.system_message = _text(obj.get("user_message"))
        if name == "beforeSubmitPrompt" and obj.get("continue") is False:
            d.decision = "deny"
        if "updated_input" in read and isinstance(obj.get("updated_input"), Mapping):
            d.updated_input = plain(obj["updated_input"])
        if name == "postToolUse" and isinstance(obj.get("updated_mcp_tool_output"), Mapping):
            d.updated_output = plain(obj["updated_mcp_tool_output"])
        if "additional_context" in read:
            d.context(obj.get("additional_context"), "additional_context")
        if name == "sessionStart" and isinstance(obj.get("env"), Mapping):
            d.env = {str(k): str(v) for k, v in obj["env"].items() if isinstance(v, str)}
            d.ignored.append("env (not passed to later hooks)")
        if "followup_message" in read:
            followup = _text(obj.get("followup_message"))
            if followup is not None:
                d.decision, d.reason = "block", followup
        d.ignored.extend(k for k in obj if k not in read)
        if d.problems:
            d.ignored.extend(d.problems)
        return d

    # ── merging ─────────────────────────────────────────────────────────────────────────────

    def merge(self, event: str, answers: Sequence[HookAnswer]) -> HookAnswer:
        return merge_answers(answers, reason_sep="\n\n")


#: The one stateless instance its unit names.
DIALECT = CursorDialect()
