"""The stdin half of the Cursor dialect, as cursor.com/docs/hooks documents each event's input.

Every payload carries Cursor's common fields (``conversation_id``, ``generation_id``, ``model``,
``hook_event_name``, ``cursor_version``, ``workspace_roots``, ``user_email``, ``transcript_path``)
and the event's own. Cursor's tool names (``Shell``, ``Read``, ``Write`` …) come from the vendor
table; Cursor documents ``tool_input`` only for Shell (``{command, working_directory}``), so other
tools carry the host's arguments renamed by the table, with file paths made absolute as Cursor's
other events send them. What the host cannot give is left out rather than invented, and each row of
the table lists it (``payload-field-missing``).

A hook read from a Claude settings file (the PascalCase rows) is a Cursor hook under Cursor's
compatibility mode: it is sent the payload of the Cursor event its name maps onto, whose name is the
``hook_event_name`` (the docs describe only the name mapping, so nothing Claude-shaped is added).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from compat_adapter.vendor import Moment, encode_json, flatten, plain, vendor_call

__all__ = ("CLAUDE_EVENTS", "FIXED_SUBJECTS", "CursorPayload", "cursor_event")

#: Claude Code event → the Cursor event Cursor maps it onto (third-party-hooks, "Hook Step Mapping").
CLAUDE_EVENTS: Mapping[str, str] = MappingProxyType({
    "PreToolUse": "preToolUse", "PostToolUse": "postToolUse", "UserPromptSubmit": "beforeSubmitPrompt",
    "Stop": "stop", "SubagentStop": "subagentStop", "SessionStart": "sessionStart",
    "SessionEnd": "sessionEnd", "PreCompact": "preCompact",
})

#: The fixed value a matcher is tested against on events that have no subject of their own.
EVENT_VALUES: Mapping[str, str] = MappingProxyType({
    "beforeSubmitPrompt": "UserPromptSubmit", "stop": "Stop", "afterAgentResponse": "AgentResponse",
})
_TOOL_TYPES: Mapping[str, str] = MappingProxyType({"beforeReadFile": "Read", "afterFileEdit": "Write"})
_TOOL_EVENTS = frozenset({"preToolUse", "postToolUse", "postToolUseFailure"})
_STOPPED = {"completed": "completed", "aborted": "aborted", "cancelled": "aborted", "error": "error",
            "failed": "error"}


#: Row event → the fixed value its matcher is tested against (no payload key holds it: Cursor's docs
#: name the value), for the events with no subject of their own and the tool-type ones.
FIXED_SUBJECTS: Mapping[str, str] = MappingProxyType({
    **EVENT_VALUES, **_TOOL_TYPES,
    **{claude: EVENT_VALUES[cursor] for claude, cursor in CLAUDE_EVENTS.items() if cursor in EVENT_VALUES},
})


def cursor_event(event: str) -> str:
    """The Cursor event a row stands for: its own name, or the one Cursor maps a Claude name onto."""
    return CLAUDE_EVENTS.get(event, event)


def _absolute(cwd: str, path: object) -> object:
    return os.path.normpath(os.path.join(cwd, path)) if isinstance(path, str) and path else path


class CursorPayload:
    """What Cursor writes to a hook's stdin. Pure: the moment in, a JSON object out."""

    vendor: str = "cursor"
    #: Row event → the fixed value its matcher is tested against (see :data:`FIXED_SUBJECTS`).
    fixed_subjects: Mapping[str, str] = FIXED_SUBJECTS
    #: Cursor's docs describe the input as one JSON object; no framing newline is documented.
    trailing_newline: bool = False

    def _tool(self, moment: Moment, facts: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        raw = facts.get("tool_input")
        name, args = vendor_call(self.vendor, str(facts.get("tool_name") or ""),
                                 raw if isinstance(raw, Mapping) else {})
        if "file_path" in args:
            args["file_path"] = _absolute(moment.cwd, args["file_path"])
        if name == "Shell":
            args.setdefault("working_directory", moment.cwd)
        return name, args

    def _output(self, facts: Mapping[str, Any]) -> str:
        """``tool_output``: the result as a JSON string (Cursor: "JSON-stringified result payload")."""
        if facts.get("exit_code") is not None or isinstance(facts.get("stdout"), str):
            value: Any = {"exitCode": facts.get("exit_code"), "stdout": facts.get("stdout") or "",
                          "stderr": facts.get("stderr") or ""}
        else:
            raw = facts.get("tool_response")
            value = plain(raw) if isinstance(raw, Mapping) else {"output": "" if raw is None else str(raw)}
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    def _common(self, moment: Moment, facts: Mapping[str, Any]) -> dict[str, Any]:
        turn = moment.turn if moment.turn is not None else 0
        return {
            "conversation_id": moment.session_id,
            "generation_id": f"{moment.session_id}:{turn}",
            "model": str(facts.get("model") or ""),
            "hook_event_name": cursor_event(moment.event),
            "cursor_version": "",
            "workspace_roots": [moment.cwd],
            "user_email": None,
            "transcript_path": moment.transcript_path,
        }

    def payload(self, moment: Moment) -> dict[str, Any]:
        facts = flatten({**moment.logged, **moment.fields})
        event = cursor_event(moment.event)
        out = self._common(moment, facts)
        if event in _TOOL_EVENTS:
            name, args = self._tool(moment, facts)
            out.update(tool_name=name, tool_input=args, tool_use_id=str(facts.get("tool_use_id") or ""),
                       cwd=moment.cwd)
            if event == "postToolUse":
                out["tool_output"] = self._output(facts)
            elif event == "postToolUseFailure":
                out["error_message"] = str(facts.get("error_message") or facts.get("tool_response") or "")
                out["failure_type"] = "timeout" if facts.get("timed_out") else "error"
                out["is_interrupt"] = False
            if event != "preToolUse" and facts.get("duration_ms") is not None:
                out["duration"] = facts["duration_ms"]
        elif event in ("beforeShellExecution", "afterShellExecution"):
            given = facts.get("tool_input")
            command = given.get("command") if isinstance(given, Mapping) else None
            out["command"] = str(command or "")
            if event == "beforeShellExecution":
                out["cwd"] = moment.cwd
            else:
                out["output"] = str(facts.get("tool_response") or "")
                if facts.get("duration_ms") is not None:
                    out["duration"] = facts["duration_ms"]
            out["sandbox"] = False
        elif event in ("beforeReadFile", "afterFileEdit"):
            name, args = self._tool(moment, facts)
            out["file_path"] = args.get("file_path", "")
            if event == "beforeReadFile":
                out["attachments"] = []
            else:
                old = args.get("old_string", "") if "old_string" in args else ""
                new = args.get("new_string", args.get("content", ""))
                out["edits"] = [{"old_string": str(old or ""), "new_string": str(new or "")}]
        elif event == "beforeSubmitPrompt":
            out.update(prompt=str(facts.get("prompt") or ""), attachments=[])
        elif event == "stop":
            out["status"] = "completed"
            out["loop_count"] = int(facts.get("stop_blocks") or 0)
        elif event in ("subagentStart", "subagentStop"):
            out["subagent_type"] = str(facts.get("agent_type") or "default")
            if event == "subagentStart":
                out.update(subagent_id=str(facts.get("agent_id") or ""),
                           parent_conversation_id=moment.session_id, is_parallel_worker=False)
            else:
                out["status"] = _STOPPED.get(str(facts.get("stop_reason") or "completed"), "completed")
                out["summary"] = str(facts.get("last_assistant_message") or "")
                out["loop_count"] = 0
        elif event == "sessionStart":
            out.update(session_id=moment.session_id, is_background_agent=False, composer_mode="agent")
        elif event == "sessionEnd":
            out.update(session_id=moment.session_id, reason="completed", is_background_agent=False)
        elif event == "preCompact":
            out["trigger"] = str(facts.get("trigger") or "auto")
        elif event == "afterAgentResponse":
            out["text"] = str(facts.get("text") or "")
        return out

    def subject(self, moment: Moment) -> str | None:
        """What a matcher is tested against: the tool name, the command, the subagent type, the
        tool type, or a fixed value the docs name (``Stop`` on stop …)."""
        if moment.event in FIXED_SUBJECTS:
            return FIXED_SUBJECTS[moment.event]
        event = cursor_event(moment.event)
        key = {"beforeShellExecution": "command", "afterShellExecution": "command",
               "subagentStart": "subagent_type", "subagentStop": "subagent_type"}.get(event, "tool_name")
        if key == "tool_name" and event not in _TOOL_EVENTS:
            return None
        value = self.payload(moment).get(key)
        return value if isinstance(value, str) else None

    def encode(self, payload: Mapping[str, Any]) -> bytes:
        return encode_json(payload, newline=self.trailing_newline)
