"""The Qwen Code dialect (vendor id ``qwen``): Claude's protocol as Qwen Code 0.24.4's hook runner reads
it (``packages/core/src/hooks/`` of the release's bundle), checked against the real CLI in the vendor lane.

What differs from :mod:`vendors.claude.dialect`:

- Payload: Claude's envelope plus ``timestamp`` (ISO-8601, milliseconds) and ``permission_mode`` on
  every event, no ``effort``; tool names are Qwen's ids (Gemini CLI's: ``run_shell_command``,
  ``write_file`` …). Tool events carry ``tool_use_id`` in Qwen's ``toolu_<ms>_<random>`` shape (not the
  model's call id, which is ``tool_call_id``); PostToolUse's ``tool_response`` is
  ``{llmContent, returnDisplay}``, a shell call's llmContent in Qwen's words. Stop carries ``crons``
  (not ``session_crons``); UserPromptSubmit adds ``submitted_prompt``; the Todo, MessageDisplay and
  InstructionsLoaded events carry Qwen's own fields.
- Output: on exit 2 stdout is ignored and stderr is read, first as a JSON object (an answer like any
  other), else as the deny/block reason; an empty stderr decides nothing. On any other exit, stdout
  (or stderr when stdout is empty) is read: a JSON object decides whatever the exit code; text that
  starts with ``{`` and does not parse is a failed run; other text is context on SessionStart,
  UserPromptSubmit and UserPromptExpansion (stdout only, exit 0), else a system message. A JSON
  string holding JSON is read once more. ``hookSpecificOutput`` needs no ``hookEventName``.
- PreToolUse: ``hookSpecificOutput.permissionDecision`` (allow/deny/ask), else the top-level
  ``decision`` (approve/allow, block/deny, ask); the reason is ``permissionDecisionReason`` or
  ``reason``. ``continue: false`` blocks the call with its ``stopReason``. ``updatedInput`` and
  ``additionalContext`` are ignored (measured: the original command ran, the context reached no one).
- PostToolUse: ``decision`` is ignored; ``continue: false`` replaces the result with its
  ``stopReason`` (the tool already ran); ``additionalContext`` is appended to the result.
- UserPromptSubmit, Stop, SubagentStop: a ``block``/``deny`` decision, exit 2 or ``continue: false``
  blocks; a Stop block continues with the bare reason (``stopReason``, else ``reason``).
- Every additionalContext has ``<`` and ``>`` escaped, as Qwen escapes it.
- Matchers: trimmed; ``""``, ``"*"`` and ``".*"`` match all; an exact match of the value or of one of
  its aliases (tools: display names and Claude's names) matches; a ``|`` list not starting with ``^``
  or ``(`` matches when an entry is exact (or ``*``), else its trimmed entries form the expression; the
  rest is an unanchored JavaScript regular expression tested on the value alone. A matcher that does
  not compile matches nothing (that hook is skipped, the others run).
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

from compat_adapter.vendor import (
    AnswerDraft, HookAnswer, JsonTextError, Moment, cause_text, chain_input, flatten, js_read, js_trim, merge_answers,
    plain,
)
from vendors.claude.dialect import ClaudeDialect
from vendors.qwen.matchers import TOOL_ALIASES, matches_pattern, pattern_problem

if TYPE_CHECKING:
    from compat_adapter.vendor import ProcessOutcome

__all__ = ("DIALECT", "QwenDialect", "escape_context")

#: Events whose plain stdout (exit 0) is context.
PLAIN_CONTEXT = frozenset({"SessionStart", "UserPromptSubmit", "UserPromptExpansion"})
#: Events where a block decision (or exit 2) blocks.
_BLOCKING = frozenset({"UserPromptSubmit", "Stop", "SubagentStop"})
#: Events whose additionalContext reaches the model.
_CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure",
                             "SubagentStart", "UserPromptExpansion", "PostToolBatch"})
_TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionDenied"})
_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"
#: Qwen's idle_prompt notification (startInteractiveUI of the release).
IDLE_MESSAGE = "Qwen Code is waiting for your input"
IDLE_TITLE = "Waiting for input"


def escape_context(text: str) -> str:
    """Qwen's ``getAdditionalContext``: ``<`` and ``>`` become entities."""
    return text.replace("<", "&lt;").replace(">", "&gt;")


#: UserPromptExpansion's getAdditionalContext: at most this many characters once escaped.
_EXPANSION_CONTEXT_MAX = 10_000


def expansion_context(text: str) -> str:
    """Qwen's ``sanitizeUserPromptExpansionAdditionalContext``: ``&``, ``<`` and ``>`` become entities,
    the text is cut at 10,000 characters and an entity the cut split is dropped."""
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")[:_EXPANSION_CONTEXT_MAX]
    return re.sub(r"&(?:a(?:mp?)?|lt?|gt?)?$", "", escaped)


def _prompt_context(text: str) -> str | None:
    return text or None  # `typeof context === "string" && context`: an empty one adds nothing


#: What a sequential run adds to the next hook's prompt, by event (applyHookOutputToInput).
_PROMPT_CONTEXT: Mapping[str, Callable[[str], str | None]] = MappingProxyType({
    "UserPromptSubmit": _prompt_context, "UserPromptExpansion": expansion_context})


def tool_use_id(session_id: str, call_id: str) -> str:
    """Qwen's ``toolu_<ms>_<9 base-36 characters>`` shape, derived from the call (stable for it)."""
    digest = int.from_bytes(hashlib.sha256(f"{session_id}\n{call_id}".encode()).digest()[:16], "big")
    ms, rest = 1_700_000_000_000 + digest % 100_000_000_000, digest // 100_000_000_000
    tail = ""
    for _ in range(9):
        rest, digit = divmod(rest, 36)
        tail += _B36[digit]
    return f"toolu_{ms}_{tail}"


def _iso(facts: Mapping[str, Any]) -> str:
    value = facts.get("timestamp")
    stamp = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else time.time()
    return datetime.fromtimestamp(stamp, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _shell_content(facts: Mapping[str, Any], text: str) -> str:
    """A shell result as Qwen's run_shell_command words it for the model (and for PostToolUse)."""
    command = str((facts.get("tool_input") or {}).get("command", ""))
    out = facts.get("stdout")
    output = str(out).rstrip("\n") if isinstance(out, str) else text.rstrip("\n")
    err = str(facts.get("stderr") or "").rstrip("\n")
    code = facts.get("exit_code")
    code = code if isinstance(code, int) and not isinstance(code, bool) else (1 if facts.get("is_error") else 0)
    return (f"Command: {command}\nDirectory: (root)\nOutput: {output or '(empty)'}\nError: {err or '(none)'}\n"
            f"Exit Code: {code}\nSignal: (none)\nProcess Group PGID: (none)")


class QwenDialect(ClaudeDialect):
    """Qwen Code's hook protocol. Stateless; one shared instance serves every hook."""

    vendor: str = "qwen"
    # Qwen writes JSON.stringify(input) with no newline.
    trailing_newline: bool = False
    output_cap: int = 1024 * 1024
    no_permission_mode: ClassVar[frozenset[str]] = frozenset()
    effort_events: ClassVar[frozenset[str]] = frozenset()
    subject_keys: ClassVar[Mapping[str, str]] = {
        **{event: "tool_name" for event in ("PreToolUse", "PostToolUse", "PostToolUseFailure",
                                            "PermissionRequest", "PermissionDenied")},
        "SubagentStart": "agent_type", "SubagentStop": "agent_type", "PreCompact": "trigger",
        "PostCompact": "trigger", "SessionStart": "source", "SessionEnd": "reason", "StopFailure": "error",
        "Notification": "notification_type", "InstructionsLoaded": "file_path",
        "UserPromptExpansion": "command_name"}

    # ── payload ─────────────────────────────────────────────────────────────────────────────

    def payload(self, moment: Moment) -> dict[str, Any]:
        out = super().payload(moment)
        event = moment.event
        facts = flatten({**moment.logged, **moment.fields})
        out["timestamp"] = _iso(facts)
        if event in _TOOL_EVENTS:
            call = str(facts.get("tool_use_id") or "")
            out["tool_use_id"] = tool_use_id(moment.session_id, call)
            if call:
                out["tool_call_id"] = call
        if event == "PostToolUse":
            out["tool_response"] = self._qwen_response(out.get("tool_name"), facts)
        elif event in ("Stop", "SubagentStop"):
            out.pop("session_crons", None)
            out["crons"] = []
        elif event == "UserPromptSubmit" and str(out.get("prompt") or "").strip():
            out["submitted_prompt"] = out["prompt"]
        elif event == "SessionStart":
            out["model"] = str(facts.get("model") or "")
            out.pop("session_title", None)
        elif event == "MessageDisplay":
            out = {k: v for k, v in out.items() if k not in ("turn_id", "index", "final", "delta")}
            out.update(message_id=str(facts.get("message_id") or ""), displayed_text=str(facts.get("text") or ""),
                       is_final=True)
        elif event in ("TodoCreated", "TodoCompleted"):
            out["todo_content"] = str(facts.get("task_subject") or "")
            if event == "TodoCreated":
                out["todo_status"] = str(facts.get("status") or "pending")
        elif event == "InstructionsLoaded":
            out = {k: v for k, v in out.items() if k != "globs"}
        elif event == "Notification":
            # Qwen's idle notification in its own words (its interactive UI; the host reports idle only).
            out.pop("prompt_id", None)
            if out.get("notification_type") == "idle_prompt" or facts.get("status") == "idle":
                out.update(message=IDLE_MESSAGE, notification_type="idle_prompt", title=IDLE_TITLE)
        return out

    def _qwen_response(self, name: Any, facts: Mapping[str, Any]) -> dict[str, Any]:
        raw = facts.get("tool_response")
        if isinstance(raw, Mapping):
            return plain(raw)
        text = "" if raw is None else str(raw)
        if name == "run_shell_command":
            display = facts.get("stdout")
            return {"llmContent": _shell_content(facts, text),
                    "returnDisplay": str(display).rstrip("\n") if isinstance(display, str) else text}
        return {"llmContent": text, "returnDisplay": text}

    # ── matchers ────────────────────────────────────────────────────────────────────────────

    def validate_matcher(self, event: str, matcher: str | None) -> str | None:
        if event not in self.subject_keys or matcher is None:
            return None
        return pattern_problem(matcher)

    def matches(self, event: str, matcher: str | None, subject: str | None) -> bool:
        if event not in self.subject_keys or not matcher or not subject:
            # Qwen: no matcher, or no value to test, runs the hook.
            return True
        aliases = TOOL_ALIASES.get(subject, ()) if self.subject_keys[event] == "tool_name" else ()
        return matches_pattern(matcher, subject, aliases)

    # ── decoding ────────────────────────────────────────────────────────────────────────────

    def decode(self, event: str, outcome: ProcessOutcome) -> HookAnswer:
        if outcome.exit_code is None:
            return HookAnswer(failed=cause_text(outcome))
        code = outcome.exit_code
        blocking = code == 2
        stdout = js_trim(outcome.stdout)
        text = js_trim(outcome.stderr) if blocking else (stdout or js_trim(outcome.stderr))
        if not text:
            return HookAnswer(ignored=("exit code 2 with an empty stderr",)) if blocking else (
                HookAnswer() if code == 0 else HookAnswer(failed=f"non-blocking error (exit code {code})"))
        obj, parsed = _parse(text)
        if obj is not None:
            answer = self.read_qwen(event, obj)
            if code not in (0, 2):
                return _failed(answer, f"non-blocking error (exit code {code}); its JSON answer was read")
            return answer
        if not parsed and not blocking and text.startswith("{"):
            return HookAnswer(failed="Hook output is not valid JSON")
        if blocking:
            return self.read_qwen(event, {"decision": "deny", "reason": text})
        if code == 0:
            if stdout and event in PLAIN_CONTEXT:
                return HookAnswer(additional_context=(text,))
            return HookAnswer(system_message=text)
        return HookAnswer(system_message=f"Warning: {text}", failed=f"non-blocking error (exit code {code})")

    def read_qwen(self, event: str, obj: Mapping[str, Any]) -> HookAnswer:
        """What one output object does on ``event``, read as Qwen 0.24.4's hook runner reads it."""
        d = AnswerDraft()
        hso = obj.get("hookSpecificOutput")
        hso = hso if isinstance(hso, Mapping) else {}
        decision, reason = obj.get("decision"), obj.get("reason")
        reason = reason if isinstance(reason, str) and reason else None
        stop_reason = obj.get("stopReason") if isinstance(obj.get("stopReason"), str) else None
        effective = stop_reason or reason or "No reason provided"
        halted = obj.get("continue") is False
        if isinstance(obj.get("systemMessage"), str):
            d.system_message = obj["systemMessage"]
        context = hso.get("additionalContext")
        if isinstance(context, str) and context.strip():
            if event in _CONTEXT_EVENTS:
                d.additional_context.append(expansion_context(context) if event == "UserPromptExpansion" else
                                            escape_context(context.strip() if event == "SessionStart" else context))
            else:
                d.ignored.append("hookSpecificOutput.additionalContext")
        if event == "PreToolUse":
            self._qwen_pre_tool(obj, hso, d, effective, halted)
        elif event == "PostToolUse":
            if decision is not None:
                d.ignored.append("decision (Qwen ignores it on PostToolUse)")
            if halted:
                # The tool already ran: its result is replaced by the reason, and the run goes on.
                d.decision, d.reason = "block", stop_reason or reason or "Execution stopped by hook"
        elif event in _BLOCKING:
            if decision in ("block", "deny") or halted:
                d.decision, d.reason = "block", effective
        elif event == "PermissionRequest":
            self._permission(hso.get("decision"), d)
        elif decision is not None or halted:
            d.ignored.append("decision" if decision is not None else "continue")
        if "updatedInput" in hso:
            d.ignored.append("hookSpecificOutput.updatedInput (not applied by Qwen Code 0.24.4)")
        if d.problems:
            return HookAnswer(failed=f"invalid hook output: {'; '.join(d.problems)}")
        return d.freeze()

    def _qwen_pre_tool(self, obj: Mapping[str, Any], hso: Mapping[str, Any], d: AnswerDraft, effective: str,
                       halted: bool) -> None:
        choice = hso.get("permissionDecision")
        if choice not in ("allow", "deny", "ask"):
            choice = {"allow": "allow", "approve": "allow", "deny": "deny", "block": "deny",
                      "ask": "ask"}.get(str(obj.get("decision")))
        given = hso.get("permissionDecisionReason")
        reason = given if isinstance(given, str) else obj.get("reason") if isinstance(obj.get("reason"), str) else None
        if choice == "deny":
            d.decision, d.reason = "deny", reason or effective
        elif choice == "ask":
            d.decision, d.reason = "ask", reason or "User confirmation required"
        elif halted:
            # continue:false blocks the call like a deny; the model reads the reason and goes on.
            d.decision, d.reason = "deny", effective
        elif choice == "allow":
            d.decision, d.reason = "allow", reason
        if "additionalContext" in hso:
            d.ignored.append("hookSpecificOutput.additionalContext (dropped by Qwen on PreToolUse)")

    def chained(self, event: str, payload: Mapping[str, Any], outcome: ProcessOutcome) -> dict[str, Any]:
        """executeHooksSequential (0.24.4): after a hook that exited 0 with a JSON object, the next hook's
        UserPromptSubmit ``prompt`` gains its non-empty additionalContext after a blank line (as written),
        UserPromptExpansion's the sanitized text, and PreToolUse's ``tool_input`` its ``tool_input`` keys."""
        if outcome.exit_code != 0:
            return dict(payload)
        obj, _ = _parse(js_trim(outcome.stdout) or js_trim(outcome.stderr))
        specific = obj.get("hookSpecificOutput") if obj is not None else None
        return chain_input(payload, specific, prompt_context=_PROMPT_CONTEXT.get(event),
                           tool_input=event == "PreToolUse")

    # ── merging ─────────────────────────────────────────────────────────────────────────────

    def merge(self, event: str, answers: Sequence[HookAnswer]) -> HookAnswer:
        # Qwen joins the contexts of several hooks with one newline.
        merged = merge_answers(answers)
        if len(merged.additional_context) > 1:
            return _with_context(merged, ("\n".join(merged.additional_context),))
        return merged


def _parse(text: str) -> tuple[dict[str, Any] | None, bool]:
    """The object Qwen reads from a hook's text (JSON.parse, and once more for a JSON string), and
    whether the text parsed at all."""
    try:
        value = js_read(text)
        if isinstance(value, str):
            value = js_read(value)
    except JsonTextError:
        return None, False
    return (value if isinstance(value, dict) else None), True


def _failed(answer: HookAnswer, why: str) -> HookAnswer:
    return replace(answer, failed=why)


def _with_context(answer: HookAnswer, context: tuple[str, ...]) -> HookAnswer:
    return replace(answer, additional_context=context)


#: The one stateless instance its unit names.
DIALECT = QwenDialect()
