"""What the live checks assert: answers in each vendor's dialect, the payload a hook received,
and what an observe-only run must (not) do."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from compat_adapter.runtime.process import ProcessOutcome
from compat_adapter.testing.live.harness import (
    CONTEXT,
    REASON,
    Session,
    user_messages,
)

_BLOCKING = frozenset({"deny", "block", "ask"})
#: Payload framing per vendor: whether stdin ends with a newline.
_NEWLINE = {"claude": True, "workbuddy": True, "opencode": True, "codex": False, "copilot": False}
_BRIDGE_NEWLINE = {"claude-code": True, "codex": False}

def specific(event: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, **fields}}


def deny_answer(vendor: str, event: str) -> dict[str, Any]:
    """A pre-tool deny with :data:`REASON`."""
    if vendor == "copilot":
        return {"permissionDecision": "deny", "permissionDecisionReason": REASON}
    if vendor == "opencode":
        return {"decision": "deny", "reason": REASON}
    return specific(event, permissionDecision="deny", permissionDecisionReason=REASON)


def ask_answer(vendor: str, event: str) -> dict[str, Any]:
    if vendor == "copilot":
        return {"permissionDecision": "ask", "permissionDecisionReason": REASON}
    if vendor == "opencode":
        return {"decision": "ask", "reason": REASON}
    return specific(event, permissionDecision="ask", permissionDecisionReason=REASON)


def context_answer(vendor: str, event: str) -> dict[str, Any]:
    if vendor in ("copilot", "opencode"):
        return {"additionalContext": CONTEXT}
    return specific(event, additionalContext=CONTEXT)


def block_answer(vendor: str, event: str, reason: str = REASON) -> dict[str, Any]:
    """A top-level block (UserPromptSubmit, PostToolUse, Stop, agentStop …)."""
    return {"decision": "block", "reason": reason}


def allow_permission_answer(vendor: str, event: str) -> dict[str, Any]:
    if vendor == "copilot":
        return {"behavior": "allow"}
    if vendor == "opencode":
        return {"status": "allow"}
    return specific(event, decision={"behavior": "allow"})


def observe_answer(vendor: str, event: str) -> dict[str, Any]:
    """The most blocking answer the vendor can give on an event, with context: an observe-only
    row must neither block on it nor put the context in front of the model."""
    if vendor == "opencode":
        return {"decision": "deny", "reason": REASON, "additionalContext": CONTEXT}
    if vendor == "copilot":
        return {"decision": "block", "reason": REASON, "permissionDecision": "deny",
                "additionalContext": CONTEXT}
    return {"decision": "block", "reason": REASON, "continue": False, "stopReason": REASON,
            **specific(event, additionalContext=CONTEXT)}


def decodes_blocking(s: Session, out: Mapping[str, Any], code: int = 0, err: str = "") -> bool:
    """Whether the vendor's own reading of this answer would block something."""
    from compat_adapter.dialects import dialect_for

    outcome = ProcessOutcome(exit_code=code, stdout=json.dumps(out), stderr=err, timed_out=False,
                             truncated=False, cause=None, duration_ms=0.0)
    answer = dialect_for(s.vendor).decode(s.event, outcome)
    return answer.decision in _BLOCKING or answer.stop


# ── payload checks ──────────────────────────────────────────────────────────────────────────────

_TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest",
                          "PermissionDenied", "preToolUse", "postToolUse", "postToolUseFailure",
                          "permissionRequest"})


def check_payload(s: Session, *, tool: str | None = "bash", at_least: int = 1) -> Any:
    """Check that the hook ran and that its stdin is in the vendor's dialect; returns the first."""
    raw = s.probe.raw()
    if not s.expect(len(raw) >= at_least, f"the hook ran {len(raw)} time(s), expected ≥{at_least}"):
        return None
    data = raw[0]
    payloads = s.probe.payloads()
    payload = payloads[0]
    if not s.expect(isinstance(payload, dict), f"the payload is not a JSON object: {data[:200]!r}"):
        return None
    if s.official:
        newline = _BRIDGE_NEWLINE[s.spec.bridge_dialect or "claude-code"]
    else:
        newline = _NEWLINE[s.vendor]
    ends = data.endswith(b"\n")
    s.expect(ends == newline, f"stdin framing: trailing newline {ends}, expected {newline}")
    v, e = s.vendor, s.event
    if v in ("claude", "workbuddy", "codex"):
        # CodeBuddy 2.163.0 (vendor lane) sends no cwd on SessionStart and no session_id on Notification.
        native_wb = v == "workbuddy" and not s.official
        s.expect(payload.get("hook_event_name") == e
                 and ("session_id" in payload) != (native_wb and e == "Notification")
                 and ("cwd" in payload) != (native_wb and e == "SessionStart"),
                 f"payload lacks hook_event_name={e!r}/session_id/cwd: {sorted(payload)}",
                 f"payload hook_event_name={e}")
        if v == "codex" and e not in ("SessionStart", "SessionEnd"):
            s.expect(isinstance(payload.get("turn_id"), str), f"codex payload lacks turn_id: {payload}")
        if v == "codex" and e in ("SubagentStart", "SubagentStop"):
            # The child runs inside the parent's first turn.
            s.expect(payload.get("turn_id") == "1", f"turn_id is not the parent's turn: {payload}",
                     "turn_id of the parent's turn")
        if native_wb and e in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
            # CodeBuddy 2.163.0 sends the call's id twice (vendor lane).
            s.expect(payload.get("tool_use_id") and payload.get("call_id") == payload.get("tool_use_id"),
                     f"a CodeBuddy payload lacks tool_use_id = call_id: {sorted(payload)}")
        if e in _TOOL_EVENTS and tool is not None:
            want = tool if s.official else {"bash": "Bash"}.get(tool, tool)
            s.expect(payload.get("tool_name") == want and isinstance(payload.get("tool_input"), dict),
                     f"tool_name {payload.get('tool_name')!r}, expected {want!r} and an input object",
                     f"tool_name={want}")
    elif v == "copilot" and e[:1].isupper():
        # The Claude-compatible format: snake_case, an ISO timestamp, Claude tool names.
        from vendors.copilot.dialect import CLAUDE_NAMES

        stamp = payload.get("timestamp")
        s.expect(payload.get("hook_event_name") == e and isinstance(payload.get("session_id"), str)
                 and isinstance(stamp, str) and stamp.endswith("Z") and "cwd" in payload
                 and "sessionId" not in payload,
                 f"payload is not snake_case (hook_event_name, session_id, ISO timestamp): {sorted(payload)}",
                 "snake_case payload")
        if e in _TOOL_EVENTS and tool is not None:
            want = CLAUDE_NAMES.get(tool, tool)
            s.expect(payload.get("tool_name") == want and isinstance(payload.get("tool_input"), dict),
                     f"tool_name {payload.get('tool_name')!r}, expected {want!r} and an input object",
                     f"tool_name={want}")
    elif v == "copilot":
        s.expect(isinstance(payload.get("sessionId"), str) and isinstance(payload.get("timestamp"), int)
                 and "cwd" in payload and "session_id" not in payload,
                 f"payload is not camelCase (sessionId, timestamp ms, cwd): {sorted(payload)}",
                 "camelCase payload")
        if e in _TOOL_EVENTS and tool is not None:
            s.expect(payload.get("toolName") == tool,
                     f"toolName {payload.get('toolName')!r}, expected {tool!r}")
            if e == "permissionRequest":
                s.expect(isinstance(payload.get("toolInput"), dict),
                         f"toolInput is not an object: {payload.get('toolInput')!r}")
            else:
                # An object, as Copilot CLI 1.0.102 sends it (vendor lane), not a JSON string.
                args = payload.get("toolArgs")
                ok = isinstance(args, dict) and (tool != "bash" or "command" in args)
                s.expect(ok, f"toolArgs is not an object: {args!r}", "toolArgs as an object")
    elif v == "opencode":
        from vendors.opencode.dialect import INTERCEPTORS

        if e in INTERCEPTORS:
            s.expect(payload.get("hook") == e and isinstance(payload.get("input"), dict)
                     and "output" in payload,
                     f"payload is not {{hook: {e!r}, input, output}}: {sorted(payload)}",
                     f"payload hook={e}")
            if e in ("tool.execute.before", "tool.execute.after") and tool is not None:
                s.expect(payload["input"].get("tool") == tool,
                         f"input.tool {payload['input'].get('tool')!r}, expected {tool!r}")
        else:
            kind = (payload.get("input") or {}).get("event", {}).get("type") \
                if isinstance(payload.get("input"), dict) else None
            # The generic `event` hook sees every session record under the record's own type.
            want_ok = kind == e if e != "event" else isinstance(kind, str)
            s.expect(payload.get("hook") == "event" and want_ok,
                     f"bus payload is not {{hook: 'event', input.event.type: {e!r}}}: {payload}",
                     f"bus event type={kind}")
    return payload


def loads_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def check_observed(s: Session, answer: Mapping[str, Any], code: int = 0, err: str = "") -> None:
    """An observe-only run: audited, a blocking answer marked as not honoured, no context shown."""
    shown = [m for session in s.host.sessions for m in user_messages(session) if CONTEXT in m["text"]]
    s.expect(not shown, f"an observe-only hook put its context in front of the model: {shown[:1]}",
             "context not injected")
    if s.official:
        # The host's bridge owns these runs; the adapter's audit never sees them.
        s.proved.append("run owned by the host's bridge (not in the adapter audit)")
        return
    records = s.audit()
    if not s.expect(records, "no audit record for the hook"):
        return
    blocking = decodes_blocking(s, answer, code, err)
    wrong = [r for r in records if r.honoured == blocking]
    first = wrong[0] if wrong else None
    if blocking:
        s.expect(not wrong, f"a blocking answer was audited as honoured: {first}",
                 "blocking answer audited honoured=False")
    else:
        s.expect(not wrong, f"a non-blocking answer was audited as not honoured: {first}",
                 "answer audited (the vendor cannot block here)")


# ── drivers ─────────────────────────────────────────────────────────────────────────────────────
