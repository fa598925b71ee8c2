"""One small hook for the bundled example preset: reads the vendor payload, prints a vendor answer.

    demo_hook.py MODE [ARG]

Every run appends one JSON line (mode, event, payload) to $COMPAT_DEMO_TRACE when it is set, so the
demo can show that the hook really ran and what it was given.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def trace(mode: str, payload: dict) -> None:
    target = os.environ.get("COMPAT_DEMO_TRACE")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(json.dumps({"mode": mode, "payload": payload}) + "\n")


def tool_text(payload: dict) -> str:
    """The tool input as text, whatever the dialect calls it (tool_input, toolArgs, args)."""
    for key in ("tool_input", "toolArgs", "args"):
        value = payload.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, dict):
            return json.dumps(value)
    return ""


def main() -> int:
    mode = sys.argv[1]
    arg = sys.argv[2] if len(sys.argv) > 2 else ""
    raw = sys.stdin.read()
    payload = json.loads(raw) if raw.strip() else {}
    trace(mode, payload)
    event = payload.get("hook_event_name", "")
    if mode == "deny-path":  # Claude-dialect PreToolUse: refuse writes under a folder
        if arg in tool_text(payload):
            print(json.dumps({"hookSpecificOutput": {
                "hookEventName": event, "permissionDecision": "deny",
                "permissionDecisionReason": f"writes under {arg} are blocked by the team preset"}}))
        return 0
    if mode == "copilot-deny":  # Copilot preToolUse: top-level permissionDecision
        if arg in tool_text(payload):
            print(json.dumps({"permissionDecision": "deny",
                              "permissionDecisionReason": f"'{arg}' is not allowed here"}))
        elif "git" in tool_text(payload):
            print(json.dumps({"permissionDecision": "ask",
                              "permissionDecisionReason": "git commands need a human"}))
        return 0
    if mode == "approve":  # Claude-dialect PermissionRequest: allow the tool named ARG
        if payload.get("tool_name") == arg:
            print(json.dumps({"hookSpecificOutput": {"hookEventName": event,
                                                     "decision": {"behavior": "allow"}}}))
        return 0
    if mode == "context":  # Claude-dialect PostToolUse: add context for the model
        print(json.dumps({"hookSpecificOutput": {"hookEventName": event,
                                                 "additionalContext": arg or "checked by the preset"}}))
        return 0
    if mode == "block-once":  # Stop: block the first time, then let the turn end
        marker = Path(arg)
        if marker.exists():
            return 0
        marker.write_text("blocked once\n")
        print(json.dumps({"decision": "block", "reason": "run the tests once more before stopping"}))
        return 0
    return 0  # "observe": the trace line is the whole point


if __name__ == "__main__":
    raise SystemExit(main())
