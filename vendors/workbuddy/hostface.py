"""CodeBuddy (WorkBuddy) as a host of other vendors' hooks: Claude's shape, in ``.codebuddy/settings.json``."""

from __future__ import annotations

from compat_adapter.hostface import TableFace, claude_reply

__all__ = ("FACE",)

FACE = TableFace(
    vendor="workbuddy", file=".codebuddy/settings.json",
    events={"tools/pre-execute": "PreToolUse", "tools/post-execute": "PostToolUse",
            "agent/pre-step": "UserPromptSubmit", "agent/created": "SessionStart",
            "agent/turn-stopping": "Stop", "agent/disposed": "SessionEnd",
            # Copilot's prompt event (a transform point) is hosted by the prompt event too.
            "agent/pre-step/transform": "UserPromptSubmit", "approval/request": "PermissionRequest",
            "subagent/start": "SubagentStart", "subagent/end": "SubagentStop"},
    answer=lambda event, point, answer: claude_reply(event, point, answer),
    trust="CodeBuddy loads project hooks from .codebuddy/settings.json without a prompt of its own; "
          "review the written entries as you would any hook",
)
