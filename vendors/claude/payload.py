"""What Claude Code sends a hook on stdin (2.1.328 as recorded by the vendor lane, `vendor-protocols.md` §1.3).

Snake_case: ``session_id``, ``transcript_path``, ``cwd``, ``prompt_id`` (every event after the
first prompt), ``permission_mode`` (not on SessionStart / SessionEnd), ``effort`` on tool and stop
events, ``hook_event_name`` and the event's own fields, read from the host facts by
:data:`EVENT_FIELDS`. Host tools become Claude tools (``write`` {path} → ``Write`` {file_path}); a
Bash result is Claude's structured object; a PostToolBatch call carries the serialized result the
model saw. ``agent_id`` / ``agent_type`` appear only inside a subagent, as in Claude. CodeBuddy
shares this payload (it inherits :class:`ClaudePayload` through the Claude dialect).

What the host cannot know is sent in Claude's own shape and listed as a loss of the row:
``prompt_id`` is a UUID derived from the session and the id of the message the user typed (the same
for every event of one prompt, not Claude's random one); ``effort.level`` is Claude's default
``"medium"`` (the host has no effort setting); ``noOutputExpected`` is always false (Claude guesses
it from the command).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any, ClassVar

from compat_adapter.vendor import OMIT, Moment, encode_json, flatten, plain, take, vendor_call

__all__ = ("DEFAULT_EFFORT", "EVENT_FIELDS", "TOOL_EVENTS", "ClaudePayload", "prompt_uuid")

#: Claude's effort level when none is configured (vendor lane, Claude Code 2.1.332).
DEFAULT_EFFORT = "medium"
#: Namespace of the prompt ids derived here (a fixed, project-own UUID).
_PROMPT_NS = uuid.UUID("5f0c2b1e-3d4a-4e7b-9c61-0a8d7e2f4b93")


def prompt_uuid(session_id: str, message_id: str) -> str:
    """A stable UUID for one prompt: the same session and message always give the same id."""
    return str(uuid.uuid5(_PROMPT_NS, f"{session_id}\n{message_id}"))

TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest",
                         "PermissionDenied"})

#: Per event: (payload key, host keys to try, default). OMIT leaves the key out when unknown.
_STOP = (("stop_hook_active", ("stop_hook_active",), False),
         ("last_assistant_message", ("last_assistant_message",), None),
         ("background_tasks", ("background_tasks",), ()),
         ("session_crons", ("session_crons",), ()))
_TASK = (("task_id", ("task_id",), ""), ("task_subject", ("task_subject",), ""),
         ("task_description", ("task_description",), ""), ("teammate_name", ("teammate_name",), OMIT),
         ("team_name", ("team_name",), OMIT))
EVENT_FIELDS: Mapping[str, tuple[tuple[str, tuple[str, ...], Any], ...]] = {
    "UserPromptSubmit": (("prompt", ("prompt",), ""),),
    "UserPromptExpansion": (("expansion_type", ("expansion_type",), "slash_command"),
                            ("command_name", ("command_name",), ""),
                            ("command_args", ("command_args",), ""),
                            ("command_source", ("command_source",), ""),
                            ("prompt", ("prompt",), "")),
    "Stop": _STOP,
    "SubagentStop": (*_STOP, ("agent_id", ("agent_id",), ""), ("agent_type", ("agent_type",), ""),
                     ("agent_transcript_path", ("agent_transcript_path",), OMIT)),
    "SubagentStart": (("agent_id", ("agent_id",), ""), ("agent_type", ("agent_type",), "")),
    "SessionStart": (("source", ("source",), "startup"), ("model", ("model",), OMIT),
                     ("agent_type", ("agent_type",), OMIT), ("session_title", ("session_title",), OMIT)),
    "SessionEnd": (("reason", ("reason", "stop_reason"), "other"),),
    "Setup": (("trigger", ("trigger",), "init"),),
    "Notification": (("message", ("message",), ""), ("title", ("title",), OMIT),
                     ("notification_type", ("notification_type",), "")),
    "PreCompact": (("trigger", ("trigger",), "auto"),
                   ("custom_instructions", ("custom_instructions",), "")),
    "PostCompact": (("trigger", ("trigger",), "auto"), ("compact_summary", ("compact_summary",), "")),
    "ConfigChange": (("source", ("source",), ""), ("file_path", ("file_path",), OMIT)),
    "CwdChanged": (("old_cwd", ("old_cwd",), ""), ("new_cwd", ("new_cwd",), "")),
    "DirectoryAdded": (("source", ("source",), ""), ("path", ("path",), OMIT)),
    "FileChanged": (("file_path", ("file_path",), ""), ("event", ("event", "change_type"), "change")),
    "WorktreeCreate": (("name", ("name",), ""),),
    "WorktreeRemove": (("worktree_path", ("worktree_path",), ""),),
    "InstructionsLoaded": (("file_path", ("file_path",), ""), ("memory_type", ("memory_type",), ""),
                           ("load_reason", ("load_reason",), "session_start"),
                           ("globs", ("globs",), OMIT),
                           ("trigger_file_path", ("trigger_file_path",), OMIT),
                           ("parent_file_path", ("parent_file_path",), OMIT)),
    "TaskCreated": _TASK,
    "TaskCompleted": _TASK,
    "TeammateIdle": (("teammate_name", ("teammate_name",), ""), ("team_name", ("team_name",), "")),
    "StopFailure": (("error", ("error_type", "error_message"), ""),
                    ("error_details", ("error_details",), OMIT),
                    ("last_assistant_message", ("last_assistant_message",), None)),
    "Elicitation": (("mcp_server_name", ("mcp_server_name",), ""), ("message", ("message",), ""),
                    ("mode", ("mode",), "form"), ("url", ("url",), OMIT),
                    ("elicitation_id", ("elicitation_id",), ""),
                    ("requested_schema", ("requested_schema",), OMIT)),
    "ElicitationResult": (("mcp_server_name", ("mcp_server_name",), ""),
                          ("elicitation_id", ("elicitation_id",), ""),
                          ("mode", ("mode",), "form"), ("action", ("action",), OMIT),
                          ("content", ("content",), OMIT)),
    # Not in the reference's event list; our reading of the model-switch events the table carries.
    "PreModelSwitch": (("previous_model", ("previous_model",), ""), ("model", ("model",), "")),
    "PostModelSwitch": (("previous_model", ("previous_model",), ""), ("model", ("model",), "")),
    "MessageDisplay": (("turn_id", ("turn_id",), OMIT), ("message_id", ("message_id",), ""),
                       ("index", ("index",), 0), ("final", ("final",), True),
                       ("delta", ("delta",), "")),
}


class ClaudePayload:
    """The stdin half of the Claude dialect."""

    vendor: str = "claude"
    trailing_newline: bool = True
    #: Whether PreToolUse/PostToolUse payloads carry ``tool_use_id``.
    sends_tool_use_id: ClassVar[bool] = True
    #: Whether payloads carry ``prompt_id`` (once a prompt was typed).
    sends_prompt_id: ClassVar[bool] = True
    #: Events whose payload has no ``permission_mode`` (vendor lane: Claude's SessionStart, SessionEnd).
    no_permission_mode: ClassVar[frozenset[str]] = frozenset({"SessionStart", "SessionEnd"})
    #: Events whose payload carries ``effort: {level}``.
    effort_events: ClassVar[frozenset[str]] = TOOL_EVENTS | {"Stop", "SubagentStop"}

    def _tool(self, facts: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        host_name = str(facts.get("tool_name") or "")
        args = facts.get("tool_input")
        return vendor_call(self.vendor, host_name, args if isinstance(args, Mapping) else {})

    def _tool_response(self, name: str, facts: Mapping[str, Any]) -> Any:
        raw = facts.get("tool_response")
        if isinstance(raw, Mapping):
            return plain(raw)
        text = "" if raw is None else str(raw)
        if name == "Bash":
            # Claude's Bash result is structured; hooks commonly read .tool_response.stdout. The
            # streams come apart when the host's result states them, else the text goes to one.
            if isinstance(facts.get("stdout"), str):
                streams = {"stdout": facts["stdout"].rstrip("\n"),
                           "stderr": str(facts.get("stderr") or "").rstrip("\n")}
            else:
                stream = "stderr" if facts.get("is_error") else "stdout"
                streams = {"stdout": "", "stderr": "", stream: text}
            return {**streams, "interrupted": False, "isImage": False, "noOutputExpected": False}
        return text

    def _tool_fields(self, event: str, facts: Mapping[str, Any]) -> dict[str, Any]:
        name, args = self._tool(facts)
        out: dict[str, Any] = {"tool_name": name, "tool_input": args}
        tool_use_id = facts.get("tool_use_id")
        if event == "PermissionRequest":
            out["permission_suggestions"] = plain(facts.get("permission_suggestions") or [])
            return out
        if self.sends_tool_use_id:
            out["tool_use_id"] = tool_use_id or ""
        if event == "PostToolUse":
            out["tool_response"] = self._tool_response(name, facts)
        elif event == "PostToolUseFailure":
            out["error"] = str(take(facts, "error_message", "", "tool_response"))
            out["is_interrupt"] = bool(facts.get("is_interrupt", False))
        elif event == "PermissionDenied":
            out["reason"] = str(facts.get("reason") or "")
        if event in ("PostToolUse", "PostToolUseFailure") and facts.get("duration_ms") is not None:
            out["duration_ms"] = facts["duration_ms"]
        return out

    def _batch(self, facts: Mapping[str, Any]) -> list[dict[str, Any]]:
        calls: list[dict[str, Any]] = []
        batch = facts.get("tool_calls")
        # Host facts are JSON-ish: a batch that is not a list is no calls, not a crash.
        for call in batch if isinstance(batch, list | tuple) else ():
            if not isinstance(call, Mapping):
                continue
            name, args = self._tool(call)
            raw = call.get("tool_response")
            calls.append({"tool_name": name, "tool_input": args,
                          "tool_use_id": call.get("tool_use_id") or "",
                          # In a batch, Claude sends the serialized result the model saw.
                          "tool_response": raw if isinstance(raw, str) else plain(raw)})
        return calls

    def _common(self, moment: Moment, facts: Mapping[str, Any]) -> dict[str, Any]:
        event = moment.event
        out: dict[str, Any] = {
            "session_id": moment.session_id,
            "transcript_path": moment.transcript_path or "",
            "cwd": moment.cwd,
        }
        if self.sends_prompt_id and event != "SessionStart" and facts.get("prompt_id"):
            out["prompt_id"] = prompt_uuid(moment.session_id, str(facts["prompt_id"]))
        if event not in self.no_permission_mode:
            out["permission_mode"] = str(facts.get("permission_mode") or "default")
        if event in self.effort_events:
            out["effort"] = {"level": str(facts.get("effort") or DEFAULT_EFFORT)}
        out["hook_event_name"] = event
        return out

    def payload(self, moment: Moment) -> dict[str, Any]:
        event = moment.event
        facts = flatten({**moment.logged, **moment.fields})
        out = self._common(moment, facts)
        if event in TOOL_EVENTS:
            out.update(self._tool_fields(event, facts))
        elif event == "PostToolBatch":
            out["tool_calls"] = self._batch(facts)
        for key, sources, default in EVENT_FIELDS.get(event, ()):
            value = take(facts, *sources[:1], default, *sources[1:])
            if value is not OMIT:
                out[key] = plain(value)
        # Inside a subagent every event names the agent; the main agent's events name none.
        if facts.get("parent_id"):
            for key in ("agent_id", "agent_type"):
                if key not in out and facts.get(key):
                    out[key] = facts[key]
        return out

    def encode(self, payload: Mapping[str, Any]) -> bytes:
        return encode_json(payload, newline=self.trailing_newline)
