"""Claude Code as a host of other vendors' hooks: its stdin in, its answer shape out.

Port writes a group per entry into ``.claude/settings.json`` (the team's own groups and keys kept).
"""

from __future__ import annotations

from compat_adapter.hostface import TableFace, claude_reply

__all__ = ("FACE", "CLAUDE_EVENTS", "claude_face")

#: Host point → the Claude Code event that hosts it.
CLAUDE_EVENTS = {"tools/pre-execute": "PreToolUse", "tools/post-execute": "PostToolUse",
                 "agent/pre-step": "UserPromptSubmit", "agent/created": "SessionStart",
                 "agent/turn-stopping": "Stop", "agent/disposed": "SessionEnd",
                 # Copilot's prompt event (a transform point) is hosted by the prompt event too.
                 "agent/pre-step/transform": "UserPromptSubmit", "approval/request": "PermissionRequest",
                 "subagent/start": "SubagentStart", "subagent/end": "SubagentStop"}



def claude_face(vendor: str, file: str, trust: str) -> TableFace:
    """The face of a host that reads Claude's stdin and answer shape under Claude's event names, from
    the hooks of ``file``: Claude Code's own, and that of the agents that copy its protocol."""
    return TableFace(vendor=vendor, file=file, events=CLAUDE_EVENTS, answer=claude_reply, trust=trust)


FACE = claude_face(
    "claude", ".claude/settings.json",
    trust="Claude Code loads a project's .claude/settings.json hooks once the folder is trusted (the "
          "workspace trust dialog on the first interactive start); port approves nothing",
)
