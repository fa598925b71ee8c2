"""Our payloads against the field sets the real vendors sent in the vendor lane.

The field sets below are what Claude Code 2.1.328, Codex 0.169.0, CodeBuddy Code 2.163.0,
Copilot CLI 1.0.102 and Gemini CLI 0.61.0 put on a hook's stdin (the lane's recorded payloads; ``key.sub``
one level into objects, as the lane's payload check reads them); Claude Code 2.1.332 and Codex 0.171.0
send the same fields (the lane's payload check on the new pins). Each dialect is fed the host facts the embedded
host gives for the same moment (no transcript file, a logged prompt and model request). A field we
cannot send is a listed loss: it is in :data:`LOSSES` here AND named by a degradation of its row, so
a change on either side fails this test. Fields we send with a value the host cannot know exactly
(:data:`APPROXIMATED`) must be named by a degradation too.
"""

from __future__ import annotations

from typing import Any

import pytest

from compat_adapter.catalog import resolve_event, resolve_vendor
from compat_adapter.dialects import dialect_for
from compat_adapter.dialects.base import Moment
from compat_adapter.testing.lane.compare import payload_fields

COMMAND = "echo ran > tool-ran.txt; echo hello-from-tool"

#: What the real vendors sent (vendor lane samples), per vendor and event.
VENDOR_FIELDS: dict[str, dict[str, str]] = {
    "claude": {
        "SessionStart": "cwd hook_event_name session_id source transcript_path",
        "UserPromptSubmit": "cwd hook_event_name permission_mode prompt prompt_id session_id transcript_path",
        "PreToolUse": "cwd effort effort.level hook_event_name permission_mode prompt_id session_id tool_input "
                      "tool_input.command tool_input.description tool_name tool_use_id transcript_path",
        "PostToolUse": "cwd duration_ms effort effort.level hook_event_name permission_mode prompt_id session_id "
                       "tool_input tool_input.command tool_input.description tool_name tool_response "
                       "tool_response.interrupted tool_response.isImage tool_response.noOutputExpected "
                       "tool_response.stderr tool_response.stdout tool_use_id transcript_path",
        "Stop": "background_tasks cwd effort effort.level hook_event_name last_assistant_message permission_mode "
                "prompt_id session_crons session_id stop_hook_active transcript_path",
        "SessionEnd": "cwd hook_event_name prompt_id reason session_id transcript_path",
        "PermissionRequest": "cwd effort effort.level hook_event_name permission_mode permission_suggestions "
                             "prompt_id session_id tool_input tool_input.command tool_input.description tool_name "
                             "transcript_path",
    },
    "codex": {
        "SessionStart": "cwd hook_event_name model permission_mode session_id source transcript_path",
        "UserPromptSubmit": "cwd hook_event_name model permission_mode prompt session_id transcript_path turn_id",
        "PreToolUse": "cwd hook_event_name model permission_mode session_id tool_input tool_input.command tool_name "
                      "tool_use_id transcript_path turn_id",
        "PostToolUse": "cwd hook_event_name model permission_mode session_id tool_input tool_input.command tool_name "
                       "tool_response tool_use_id transcript_path turn_id",
        "Stop": "cwd hook_event_name last_assistant_message model permission_mode session_id stop_hook_active "
                "transcript_path turn_id",
        "SessionEnd": "cwd hook_event_name reason session_id transcript_path",
    },
    "workbuddy": {
        "SessionStart": "client generation_id hook_event_name model permission_mode session_id source "
                        "transcript_path version",
        "UserPromptSubmit": "client cwd generation_id hook_event_name is_internal_continuation model "
                            "permission_mode prompt session_id transcript_path version",
        "PreToolUse": "agent_type call_id client cwd generation_id hook_event_name model permission_mode session_id "
                      "tool_input tool_input.command tool_input.description tool_name tool_use_id transcript_path "
                      "version",
        "PostToolUse": "agent_type call_id client cwd generation_id hook_event_name model permission_mode "
                       "session_id tool_input tool_input.command tool_input.description tool_name tool_response "
                       "tool_response.exitCode tool_response.interrupted tool_response.sandboxDenied "
                       "tool_response.signal tool_response.stderrBytesTruncated tool_response.stdoutBytesTruncated "
                       "tool_response.tool_error_code tool_use_id transcript_path version",
        "Stop": "agent_type background_tasks client cwd generation_id hook_event_name is_truncation_recovery "
                "last_assistant_message model permission_mode session_crons session_id stop_hook_active "
                "transcript_path version",
        "Notification": "client cwd hook_event_name message model notification_type permission_mode title "
                        "transcript_path version",
    },
    "copilot": {
        "sessionStart": "cwd initialPrompt sessionId source timestamp",
        "userPromptSubmitted": "cwd prompt sessionId timestamp",
        "preToolUse": "cwd sessionId timestamp toolArgs toolArgs.command toolArgs.description toolName",
        "postToolUse": "cwd sessionId timestamp toolArgs toolArgs.command toolArgs.description toolName toolResult "
                       "toolResult.resultType toolResult.textResultForLlm",
        "agentStop": "cwd sessionId stopReason stop_hook_active timestamp transcriptPath",
        "sessionEnd": "cwd reason sessionId timestamp",
        "permissionRequest": "cwd hookName permissionSuggestions sessionId timestamp toolInput toolInput.command "
                             "toolName",
        "SessionStart": "cwd hook_event_name initial_prompt session_id source timestamp",
        "UserPromptSubmit": "cwd hook_event_name prompt session_id timestamp",
        "PreToolUse": "cwd hook_event_name session_id timestamp tool_input tool_input.command tool_input.description "
                      "tool_name",
        "PostToolUse": "cwd hook_event_name session_id timestamp tool_input tool_input.command tool_input.description "
                       "tool_name tool_result tool_result.result_type tool_result.text_result_for_llm",
        "Stop": "cwd hook_event_name session_id stop_hook_active stop_reason timestamp transcript_path",
        "SessionEnd": "cwd hook_event_name reason session_id timestamp",
    },
    "gemini": {
        "SessionStart": "cwd hook_event_name session_id source timestamp transcript_path",
        "BeforeAgent": "cwd hook_event_name prompt session_id timestamp transcript_path",
        "BeforeTool": "cwd hook_event_name session_id timestamp tool_input tool_input.command tool_input.description "
                      "tool_name transcript_path",
        "AfterTool": "cwd hook_event_name session_id timestamp tool_input tool_input.command tool_input.description "
                     "tool_name tool_response tool_response.llmContent tool_response.returnDisplay transcript_path",
        "AfterAgent": "cwd hook_event_name prompt prompt_response session_id stop_hook_active timestamp "
                      "transcript_path",
        "PreCompress": "cwd hook_event_name session_id timestamp transcript_path trigger",
        "SessionEnd": "cwd hook_event_name reason session_id timestamp transcript_path",
    },
    # Qwen Code 0.24.4 (vendor lane, -p --yolo).
    "qwen": {
        "SessionStart": "cwd hook_event_name model permission_mode session_id source timestamp transcript_path",
        "UserPromptSubmit": "cwd hook_event_name permission_mode prompt prompt_id session_id submitted_prompt "
                            "timestamp transcript_path",
        "PreToolUse": "cwd hook_event_name permission_mode prompt_id session_id timestamp tool_call_id tool_input "
                      "tool_input.command tool_input.description tool_name tool_use_id transcript_path",
        "PostToolUse": "cwd duration_ms hook_event_name permission_mode prompt_id session_id timestamp tool_call_id "
                       "tool_input tool_input.command tool_input.description tool_name tool_response "
                       "tool_response.llmContent tool_response.returnDisplay tool_use_id transcript_path",
        "Stop": "background_tasks context_limit context_usage crons cwd hook_event_name input_tokens "
                "last_assistant_message permission_mode prompt_id session_id stop_hook_active timestamp "
                "transcript_path",
        "Notification": "cwd hook_event_name message notification_type permission_mode session_id timestamp title "
                        "transcript_path",
    },
}

#: Fields the vendor sends that we cannot (on the embedded host): each one listed by its row.
LOSSES: dict[tuple[str, str], set[str]] = {
    # The agent exists before any prompt does.
    ("copilot", "sessionStart"): {"initialPrompt"},
    ("copilot", "SessionStart"): {"initial_prompt"},
    # The embedded host keeps no transcript file (with one, the path is sent: see below).
    ("copilot", "agentStop"): {"transcriptPath"},
    ("copilot", "Stop"): {"transcript_path"},
    # The host has no context-window figures at the end of a turn.
    ("qwen", "Stop"): {"context_limit", "context_usage", "input_tokens"},
}

#: Optional fields a release sends only in a situation the host never has (read from the release,
#: not drivable in the lane): never sent here, each named by its row.
NEVER_OCCUR: dict[tuple[str, str], set[str]] = {
    # Claude Code 2.1.332: only for the ask before an MCP server's skill loads (MCP protocol 2026-07-28
    # or later with the io.modelcontextprotocol/skills extension); the lane has no such server.
    ("claude", "PermissionRequest"): {"tool_kind", "mcp_server", "mcp_skill"},
}

#: Fields sent in the vendor's shape with a value the host cannot know exactly: each one listed.
APPROXIMATED: dict[str, dict[str, set[str]]] = {
    "claude": {"PostToolUse": {"noOutputExpected", "duration_ms", "prompt_id", "effort"},
               "UserPromptSubmit": {"prompt_id"}, "Stop": {"prompt_id", "effort"}, "PermissionRequest": {"prompt_id"},
               "PreToolUse": {"prompt_id", "effort"}, "SessionEnd": {"prompt_id"}},
    "codex": {"SessionStart": {"model"}},
    "workbuddy": {"PostToolUse": {"sandboxDenied", "stdoutBytesTruncated", "version", "generation_id", "model"}},
    # The host's own result text; no cause of a dispose; no prompt at turn-stopping.
    "gemini": {"AfterTool": {"llmContent", "returnDisplay"}, "SessionEnd": {"reason"}, "AfterAgent": {"prompt"}},
    "qwen": {"PreToolUse": {"prompt_id", "tool_use_id"}, "UserPromptSubmit": {"prompt_id"}, "Stop": {"prompt_id"},
             "PostToolUse": {"prompt_id", "tool_use_id", "duration_ms", "llmContent"}, "SessionStart": {"model"}},
}

_TOOL = {"tool_name": "bash", "tool_input": {"command": COMMAND, "description": "lane step"},
         "tool_use_id": "call-1"}
_RESULT = {**_TOOL, "tool_response": "hello-from-tool", "is_error": False, "error": None, "exit_code": 0,
           "stdout": "hello-from-tool\n", "stderr": "", "duration_ms": 12}
_LOGGED = {"prompt_id": "m1", "model": "model-a"}


#: Gemini's events are the same host moments under other names.
_GEMINI_KINDS = {"beforeTool": "preToolUse", "afterTool": "postToolUse", "beforeAgent": "userPromptSubmit",
                 "afterAgent": "stop"}


def _facts(event: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(fields, logged) as the routes give them for the moment behind `event`."""
    kind = event[:1].lower() + event[1:]
    kind = _GEMINI_KINDS.get(kind, kind)
    if kind in ("preToolUse",):
        return dict(_TOOL), _LOGGED
    if kind in ("postToolUse",):
        return dict(_RESULT), _LOGGED
    if kind == "preCompress":
        return {"trigger": "auto", "custom_instructions": "", "compaction_id": "c1"}, _LOGGED
    if kind == "permissionRequest":
        return {**_TOOL, "reason": "needs approval"}, _LOGGED
    if kind in ("userPromptSubmit", "userPromptSubmitted"):
        return {"prompt": "run the lane step", "agent_id": "agent-1", "prompt_id": "m1"}, {}
    if kind in ("stop", "agentStop"):
        return {"stop_hook_active": False, "last_assistant_message": "done"}, _LOGGED
    if kind == "sessionStart":
        return {"source": "startup", "agent_id": "agent-1"}, {}
    if kind == "sessionEnd":
        return {"agent_id": "agent-1"}, _LOGGED
    if kind == "notification":
        return {"status": "idle", "agent_id": "agent-1", "notification": "agent idle"}, _LOGGED
    raise AssertionError(event)


def _moment(event: str, transcript: str | None = None) -> Moment:
    fields, logged = _facts(event)
    return Moment(event=event, session_id="session-1", cwd="/w/proj", transcript_path=transcript, turn=1,
                  fields={"timestamp": 1_755_700_000.0, **fields}, logged=logged)


def _listed(vendor: str, event: str) -> str:
    spec = resolve_vendor(vendor)
    row = resolve_event(spec, event)
    texts = [d.text for d in (*row.degradations, *spec.losses) if str(d.code) == "payload-field-missing"]
    return " ".join(texts).lower().replace("_", "")


CASES = [(v, e) for v, events in VENDOR_FIELDS.items() for e in events]


@pytest.mark.parametrize(("vendor", "event"), CASES, ids=[f"{v}:{e}" for v, e in CASES])
def test_payload_carries_the_fields_the_vendor_sends(vendor: str, event: str) -> None:
    sent = set(VENDOR_FIELDS[vendor][event].split())
    ours = payload_fields(dialect_for(vendor).payload(_moment(event)))
    loss = LOSSES.get((vendor, event), set())
    assert sent - ours == loss, f"missing beyond the listed losses: {sorted(sent - ours - loss)}"
    assert ours - sent == set(), f"fields the vendor does not send: {sorted(ours - sent)}"
    listed = _listed(vendor, event)
    for name in loss | APPROXIMATED.get(vendor, {}).get(event, set()):
        leaf = name.rsplit(".", 1)[-1]
        assert leaf.lower().replace("_", "") in listed, f"{vendor} {event}: {name} is not a listed loss"


@pytest.mark.parametrize(("vendor", "event"), sorted(NEVER_OCCUR))
def test_optional_fields_of_situations_the_host_never_has_are_listed(vendor: str, event: str) -> None:
    ours = payload_fields(dialect_for(vendor).payload(_moment(event)))
    listed = _listed(vendor, event)
    for name in NEVER_OCCUR[(vendor, event)]:
        assert name not in ours
        assert name.lower().replace("_", "") in listed, f"{vendor} {event}: {name} is not a listed loss"


def test_transcript_and_prompt_ids_when_the_host_has_them() -> None:
    copilot = dialect_for("copilot")
    assert copilot.payload(_moment("agentStop", "/t/s.jsonl"))["transcriptPath"] == "/t/s.jsonl"
    assert copilot.payload(_moment("Stop", "/t/s.jsonl"))["transcript_path"] == "/t/s.jsonl"
    # Only Stop carries the path in the Claude format (measured on 1.0.102).
    assert "transcript_path" not in copilot.payload(_moment("PreToolUse", "/t/s.jsonl"))
    claude = dialect_for("claude")
    ids = {claude.payload(_moment(e))["prompt_id"] for e in ("UserPromptSubmit", "PreToolUse", "Stop", "SessionEnd")}
    assert len(ids) == 1, "one prompt, one prompt_id on every event of it"
    other = Moment(event="PreToolUse", session_id="session-2", cwd="/w", fields=_TOOL, logged=_LOGGED)
    assert claude.payload(other)["prompt_id"] not in ids, "the same message id in another session is another prompt"


def test_values_the_host_knows_are_the_hosts() -> None:
    post = dialect_for("claude").payload(_moment("PostToolUse"))
    assert post["tool_response"]["stdout"] == "hello-from-tool" and post["duration_ms"] == 12
    assert post["tool_use_id"] == "call-1" and "agent_id" not in post
    assert dialect_for("codex").payload(_moment("PostToolUse"))["tool_response"] == "hello-from-tool\n"
    assert dialect_for("codex").payload(_moment("PreToolUse"))["model"] == "model-a"
    wb = dialect_for("workbuddy").payload(_moment("PostToolUse"))
    assert wb["tool_response"]["exitCode"] == 0 and wb["call_id"] == wb["tool_use_id"] == "call-1"
    assert wb["model"] == "model-a" and "stdout" not in wb["tool_response"]
    failed = dialect_for("workbuddy").payload(Moment(event="PostToolUse", session_id="s", cwd="/w",
                                                  fields={**_RESULT, "exit_code": 3, "is_error": True}))
    # CodeBuddy 2.163.0 (lane workbuddy:post_exit_nonzero): error code 8002 and is_error for exit 3.
    assert (failed["tool_response"]["exitCode"], failed["tool_response"]["tool_error_code"]) == (3, "8002")
    assert failed["tool_response"]["is_error"] is True and "Exit Code: 3" in failed["tool_response"]["error"]
    pre = dialect_for("copilot").payload(_moment("preToolUse"))
    assert pre["toolArgs"] == {"command": COMMAND, "description": "lane step"}
    assert dialect_for("copilot").payload(_moment("permissionRequest"))["toolInput"] == {"command": COMMAND}
    # Inside a subagent Claude names the agent; the main agent's events name none.
    sub = dialect_for("claude").payload(Moment(event="PreToolUse", session_id="s", cwd="/w",
                                            fields={**_TOOL, "agent_id": "a2", "agent_type": "general-purpose",
                                                    "parent_id": "a1"}))
    assert (sub["agent_id"], sub["agent_type"]) == ("a2", "general-purpose")
