"""Codex as a host of other vendors' hooks: Claude's stdin and answer shape, in ``.codex/hooks.json``."""

from __future__ import annotations

from compat_adapter.hostface import TableFace, claude_reply

__all__ = ("FACE",)

FACE = TableFace(
    vendor="codex", file=".codex/hooks.json",
    events={"tools/pre-execute": "PreToolUse", "tools/post-execute": "PostToolUse",
            "agent/pre-step": "UserPromptSubmit", "agent/created": "SessionStart",
            "agent/turn-stopping": "Stop", "agent/disposed": "SessionEnd",
            # Copilot's prompt event (a transform point) is hosted by the prompt event too.
            "agent/pre-step/transform": "UserPromptSubmit", "approval/request": "PermissionRequest",
            "subagent/start": "SubagentStart", "subagent/end": "SubagentStop"},
    answer=lambda event, point, answer: claude_reply(event, point, answer),
    trust="Codex runs a project hook only when its trusted_hash is recorded in the user's config.toml and "
          "the project is trusted (trust_level = \"trusted\"): open `codex` in the project and approve the "
          "new hooks; port never writes either record",
)
