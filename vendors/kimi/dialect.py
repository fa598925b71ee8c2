"""Kimi Code's dialect (vendor id ``kimi``), read from its release (2.1.0's bundle: runHook.ts and
matchHooks.ts of agent-core-v2) and measured with the vendor lane.

- Payload: ``hook_event_name``, ``session_id``, ``cwd``, ``client_type: "kimi_code_cli"`` and the
  event's fields in snake case: tool events ``tool_name``, ``tool_input``, ``tool_call_id`` (and
  ``tool_output`` after the call); UserPromptSubmit ``prompt`` as content parts and ``is_steer``;
  Stop ``stop_hook_active``; SessionStart ``source``; StopFailure ``error_type`` and ``error_message``.
- Matchers: ``""`` matches everything, anything else is ``new RegExp(matcher).test(value)``; a
  pattern that does not compile matches nothing.
- Output: exit 2 blocks with the trimmed stderr (``Blocked by <event> hook`` when empty). On exit
  0, stdout is read as JSON and ``hookSpecificOutput.permissionDecision: "deny"`` blocks with its
  ``permissionDecisionReason``. Nothing else is read: no context, no rewrite, no ``continue``; any
  other exit, a timeout or an error lets the call go on. The one exception: the stdout of a
  UserPromptSubmit hook that exits 0, JSON or not, reaches the model as a hook result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from compat_adapter.vendor import HookAnswer, Moment, Searched, compile_js, js_trim
from vendors.claude.dialect import ClaudeDialect

if TYPE_CHECKING:
    from compat_adapter.vendor import ProcessOutcome

__all__ = ("DIALECT", "KimiDialect")

#: Where Kimi reads a block at all (triggerBlock in the release): elsewhere it is ignored.
BLOCKS = frozenset({"PreToolUse", "Stop"})
_TOOL = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"})


class KimiDialect(Searched, ClaudeDialect):
    """Kimi's hook runner: Claude's names, a narrow reading of answers."""

    vendor: str = "kimi"
    search_with = compile_js  # new RegExp(matcher).test(matcherValue): searched anywhere
    # matchHooks.ts tests a matcher against each trigger's matcherValue: the prompt's text on
    # UserPromptSubmit (its text parts joined by a space), the tool name, the session source, the
    # agent's name, the end reason, the compaction trigger, the notification type, the error's name.
    subject_keys: ClassVar[Mapping[str, str]] = ({e: "tool_name" for e in _TOOL}
                                                 | {"SessionStart": "source", "UserPromptSubmit": "prompt",
                                                    "SubagentStart": "agent_name", "SubagentStop": "agent_name",
                                                    "SessionEnd": "reason", "PreCompact": "trigger",
                                                    "PostCompact": "trigger", "Notification": "notification_type",
                                                    "StopFailure": "error_type"})

    def subject(self, moment: Moment) -> str | None:
        if moment.event == "UserPromptSubmit":
            parts = self.payload(moment).get("prompt") or []
            # A prompt part's text is a string in Kimi's schema; anything else is read as its text form,
            # so a malformed payload still yields a subject rather than an error.
            return " ".join(str(p.get("text") or "") for p in parts
                            if isinstance(p, dict) and p.get("type") == "text")
        return super().subject(moment)


    def payload(self, moment: Moment) -> dict[str, Any]:
        claude = ClaudeDialect.payload(self, moment)
        event = moment.event
        out: dict[str, Any] = {"hook_event_name": event, "session_id": claude.get("session_id", ""),
                               "cwd": claude.get("cwd", ""), "client_type": "kimi_code_cli"}
        if event in _TOOL:
            out.update(tool_name=claude.get("tool_name"), tool_input=claude.get("tool_input"),
                       tool_call_id=claude.get("tool_use_id") or moment.fields.get("tool_use_id") or "")
            if event == "PostToolUse":
                out["tool_output"] = claude.get("tool_response")
        elif event == "UserPromptSubmit":
            out.update(prompt=[{"type": "text", "text": claude.get("prompt", "")}], is_steer=False)
        elif event == "Stop":
            out["stop_hook_active"] = bool(claude.get("stop_hook_active", False))
        elif event == "SessionStart":
            out["source"] = claude.get("source", "startup")
        elif event in ("SubagentStart", "SubagentStop"):
            # runSubagentStart / notifySubagentStop: the agent's name (also the matcherValue), its prompt or answer.
            out["agent_name"] = claude.get("agent_type", "")
            if event == "SubagentStart":
                out["prompt"] = moment.fields.get("prompt") or ""
            else:
                out["response"] = claude.get("last_assistant_message") or ""
        elif event == "SessionEnd":
            out["reason"] = claude.get("reason", "other")
        elif event in ("PreCompact", "PostCompact"):
            out["trigger"] = claude.get("trigger", "auto")
        elif event == "Notification":
            out["notification_type"] = claude.get("notification_type", "")
        elif event == "StopFailure":
            # notifyStopFailure sends the error's name and message (toKimiErrorPayload in the release).
            out.update(error_type=claude.get("error", ""),
                       error_message=moment.fields.get("error") or claude.get("error_details") or "")
        return out

    def decode(self, event: str, outcome: ProcessOutcome) -> HookAnswer:
        if outcome.exit_code is None:
            return HookAnswer(ignored=("timed out or failed: Kimi lets the call go on",))
        deny = "deny" if event == "PreToolUse" else "block"
        if outcome.exit_code == 2:
            if event not in BLOCKS:
                return HookAnswer(ignored=("exit code 2",))
            reason = js_trim(outcome.stderr) or f"Blocked by {event} hook"
            return HookAnswer(decision=deny, reason=reason)  # type: ignore[arg-type]
        if outcome.exit_code != 0:
            return HookAnswer()
        if event == "UserPromptSubmit" and js_trim(outcome.stdout):
            # Kimi hands the model a prompt hook's stdout, whatever it is, as a hook result
            # (measured, 2.1.0: lane cases kimi:prompt_context and kimi:prompt_block).
            text = js_trim(outcome.stdout)
            return HookAnswer(additional_context=(text,), printed=(text,))
        obj = self.parse_stdout(outcome.stdout)
        specific = obj.get("hookSpecificOutput") if obj is not None else None
        if isinstance(specific, Mapping) and specific.get("permissionDecision") == "deny" and event in BLOCKS:
            given = specific.get("permissionDecisionReason")
            why = given.strip() if isinstance(given, str) and given.strip() else f"Blocked by {event} hook"
            return HookAnswer(decision=deny, reason=why)  # type: ignore[arg-type]
        return HookAnswer(ignored=("stdout",)) if obj is not None else HookAnswer()


#: The one stateless instance its unit names.
DIALECT = KimiDialect()
