"""Claude Code as a host of other vendors' hooks: its stdin in, its answer shape out.

Port writes a group per entry into ``.claude/settings.json`` (the team's own groups and keys kept).
"""

from __future__ import annotations

from compat_adapter.hostface import TableFace, claude_reply

__all__ = ("FACE", "CLAUDE_EVENTS")

#: Host point → the Claude Code event that hosts it.
CLAUDE_EVENTS = {"tools/pre-execute": "PreToolUse", "tools/post-execute": "PostToolUse",
                 "agent/pre-step": "UserPromptSubmit", "agent/created": "SessionStart",
                 "agent/turn-stopping": "Stop", "agent/disposed": "SessionEnd",
                 # Copilot's prompt event (a transform point) is hosted by the prompt event too.
                 "agent/pre-step/transform": "UserPromptSubmit", "approval/request": "PermissionRequest",
                 "subagent/start": "SubagentStart", "subagent/end": "SubagentStop"}

FACE = TableFace(
    vendor="claude", file=".claude/settings.json", events=CLAUDE_EVENTS,
    answer=lambda event, point, answer: claude_reply(event, point, answer),
    trust="Claude Code loads a project's .claude/settings.json hooks once the folder is trusted (the "
          "workspace trust dialog on the first interactive start); port approves nothing",
)
