"""Qwen Code as a host of other vendors' hooks: Claude's answer shape with Gemini's tool names,
in ``.qwen/settings.json``."""

from __future__ import annotations

from compat_adapter.hostface import TableFace, claude_reply

__all__ = ("FACE",)

FACE = TableFace(
    vendor="qwen", file=".qwen/settings.json",
    events={"tools/pre-execute": "PreToolUse", "tools/post-execute": "PostToolUse",
            "agent/pre-step": "UserPromptSubmit", "agent/created": "SessionStart",
            "agent/turn-stopping": "Stop", "agent/disposed": "SessionEnd"},
    answer=lambda event, point, answer: claude_reply(event, point, answer),
    trust="Qwen Code loads a project's .qwen/settings.json only in a trusted folder (its folder-trust "
          "setting); port trusts nothing",
)
