"""Cursor's test support: its live speaker, and no vendor-lane driver.

Loaded only by the test machinery (the unit names it as ``lane``), never by the product. Cursor's
CLI is not on the registries and its models are Cursor-hosted, so nothing of Cursor runs offline
here: :data:`CLI` says so and the vendor lane has no case of it. :data:`LIVE` speaks the protocol as
cursor.com/docs/hooks documents it and :mod:`vendors.cursor.dialect` reads it: Cursor's own fields
(``permission``, ``agent_message``, ``additional_context``, ``continue``, ``followup_message``) on its
camelCase events, and on the Claude-named rows (hooks from a Claude settings file) Claude's shapes
that Cursor maps, beside Cursor's own fields where Cursor maps no Claude one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from compat_adapter.testing.lane.vendors import NoCli
from compat_adapter.testing.live.harness import CONTEXT, REASON
from compat_adapter.testing.live.speakers import Speaker, specific
from vendors.cursor.payload import cursor_event

if TYPE_CHECKING:
    from compat_adapter.testing.live.harness import Session

__all__ = ("CLI", "LIVE", "CursorSpeaker")

CLI = NoCli("cursor", "Cursor's CLI is not on the registries and its models are Cursor-hosted: nothing of "
                      "Cursor runs offline here, so its rows are graded from its docs (confidence documented)")

#: Cursor's common input fields, on every event (cursor.com/docs/hooks, "Common schema").
COMMON = ("conversation_id", "generation_id", "model", "hook_event_name", "cursor_version",
          "workspace_roots", "user_email", "transcript_path")
#: The host's tools by the names Cursor's payloads give them (the vendor table's).
TOOL_NAMES: Mapping[str, str] = MappingProxyType({"bash": "Shell", "read": "Read", "write": "Write",
                                                  "edit": "Write", "grep": "Grep", "subagent": "Task"})
_TOOL_EVENTS = frozenset({"preToolUse", "postToolUse", "postToolUseFailure"})


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _claude(event: str) -> bool:
    """Whether ``event`` is a Claude-named row (a hook read from a Claude settings file)."""
    return cursor_event(event) != event


@dataclass(frozen=True, slots=True)
class CursorSpeaker(Speaker):
    """The live checks in Cursor's words; ask goes to the host's approval on beforeShellExecution only
    (on preToolUse Cursor accepts it but does not enforce it)."""

    def honours_ask(self, event: str) -> bool:
        return cursor_event(event) == "beforeShellExecution"

    def deny(self, event: str) -> dict[str, Any]:
        out: dict[str, Any] = {"permission": "deny", "user_message": REASON}
        if cursor_event(event) != "beforeReadFile":
            out["agent_message"] = REASON  # beforeReadFile reads no agent_message
        if _claude(event):
            # Cursor maps permissionDecision; its reason is read as user_message, so the model's
            # text comes from Cursor's own agent_message beside it.
            out.pop("permission")
            out.update(specific(event, permissionDecision="deny", permissionDecisionReason=REASON))
        return out

    def ask(self, event: str) -> dict[str, Any]:
        return {"permission": "ask", "user_message": REASON, "agent_message": REASON}

    def context(self, event: str) -> dict[str, Any]:
        # Cursor maps no Claude context field (PostToolUse, SessionStart): Cursor's own is read.
        return {"additional_context": CONTEXT}

    def block(self, event: str, reason: str = REASON) -> dict[str, Any]:
        name = cursor_event(event)
        if name == "beforeSubmitPrompt":
            return {"continue": False, "user_message": reason}
        if name in ("stop", "subagentStop"):
            # A Claude Stop hook's decision "block" is read as followup_message (third-party-hooks).
            return {"decision": "block", "reason": reason} if _claude(event) else {"followup_message": reason}
        raise NotImplementedError(f"cursor has no block answer on {event}")

    def observe(self, event: str) -> dict[str, Any]:
        out: dict[str, Any] = {"permission": "deny", "continue": False, "agent_message": REASON,
                               "user_message": REASON, "followup_message": REASON, "additional_context": CONTEXT}
        if _claude(event):
            out.update(decision="block", reason=REASON,
                       **specific(event, permissionDecision="deny", additionalContext=CONTEXT))
        return out

    def tool_name(self, s: Session, tool: str) -> str:
        return TOOL_NAMES.get(tool, tool)

    def check_payload(self, s: Session, payload: Mapping[str, Any], tool: str | None) -> None:
        name = cursor_event(s.event)
        missing = [k for k in COMMON if k not in payload]
        roots = payload.get("workspace_roots")
        s.expect(not missing and payload.get("hook_event_name") == name
                 and isinstance(payload.get("conversation_id"), str) and payload["conversation_id"]
                 and isinstance(payload.get("generation_id"), str) and roots == [str(s.root)],
                 f"payload lacks Cursor's common fields {missing} or hook_event_name={name!r}/"
                 f"conversation_id/workspace_roots: {payload}", f"payload hook_event_name={name}")
        s.expect("session_id" not in payload or name in ("sessionStart", "sessionEnd"),
                 f"a Claude field session_id on {name}: {sorted(payload)}")
        if name in _TOOL_EVENTS and tool is not None:
            want = self.tool_name(s, tool)
            given = payload.get("tool_input")
            s.expect(payload.get("tool_name") == want and isinstance(given, dict)
                     and (want != "Shell" or given.get("working_directory") == str(s.root)),
                     f"tool_name {payload.get('tool_name')!r}, expected {want!r} and an input object "
                     f"(Shell's with working_directory): {given!r}", f"tool_name={want}")
        elif name in ("beforeShellExecution", "afterShellExecution"):
            s.expect(isinstance(payload.get("command"), str) and payload["command"]
                     and payload.get("sandbox") is False,
                     f"no command/sandbox in a shell payload: {payload}", "command in payload")
        elif name == "beforeReadFile":
            path = payload.get("file_path")
            s.expect(isinstance(path, str) and path.startswith("/") and payload.get("attachments") == [],
                     f"file_path is not absolute or attachments missing: {payload}", "absolute file_path")
        elif name == "afterFileEdit":
            edits = payload.get("edits")
            s.expect(isinstance(edits, list) and edits and all(isinstance(e, dict) and "new_string" in e
                                                                for e in edits),
                     f"edits is not a list of {{old_string, new_string}}: {payload}", "edits in payload")

    def check_post_tool(self, s: Session, payload: Mapping[str, Any]) -> None:
        name = cursor_event(s.event)
        if name == "postToolUse":
            text = payload.get("tool_output")
            s.expect(isinstance(text, str) and isinstance(_loads(text), dict),
                     f"tool_output is not a JSON-stringified result: {text!r}", "tool_output a JSON string")
        elif name == "postToolUseFailure":
            s.expect(isinstance(payload.get("error_message"), str)
                     and payload.get("failure_type") in ("error", "timeout", "permission_denied"),
                     f"error_message/failure_type wrong: {payload}", "error_message, failure_type")
        elif name == "afterShellExecution":
            s.expect(isinstance(payload.get("output"), str), f"output missing: {payload}", "output in payload")

    def check_prompt(self, s: Session, payload: Mapping[str, Any], prompt: str) -> None:
        s.expect(payload.get("prompt") == prompt and payload.get("attachments") == [],
                 f"prompt/attachments not in payload: {payload}")

    def check_compaction(self, s: Session, payload: Mapping[str, Any]) -> None:
        s.expect(payload.get("trigger") in ("auto", "manual"), f"trigger is not auto or manual: {payload}",
                 "trigger in payload")

    def check_stop_rerun(self, s: Session, first: Mapping[str, Any], second: Mapping[str, Any]) -> None:
        # Cursor counts the follow-ups in loop_count; it has no stop_hook_active.
        s.expect(first.get("loop_count") == 0 and second.get("loop_count") == 1 and "stop_hook_active" not in second,
                 f"loop_count is not 0 then 1: {[first, second]}", "loop_count 0 then 1")

    def check_display(self, s: Session, payload: Mapping[str, Any], text: str) -> None:
        s.expect(payload.get("text") == text, f"the displayed text is not the message: {payload}",
                 "message text as text")

    def approval_tool(self) -> str | None:
        return "Shell"


LIVE = CursorSpeaker("cursor", ask_honoured=True)
