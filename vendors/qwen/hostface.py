"""Qwen Code as a host of other vendors' hooks: Claude's answer shape with Gemini's tool names,
in ``.qwen/settings.json``."""

from __future__ import annotations

from dataclasses import replace

from compat_adapter.dialects.base import HookAnswer
from compat_adapter.hostface import Reply, TableFace, claude_reply
from vendors.claude.hostface import CLAUDE_EVENTS

__all__ = ("FACE",)


def _answer(event: str, point: str, answer: HookAnswer) -> Reply:
    if point == "tools/post-execute" and answer.decision in ("deny", "block"):
        # Qwen Code ignores decision on PostToolUse; continue:false puts its stopReason in place of
        # the tool's result (what its own hooks write for a post-tool block).
        answer = replace(answer, decision="none", stop=True, stop_reason=answer.reason or "blocked by a hook")
    return claude_reply(event, point, answer)

FACE = TableFace(
    vendor="qwen", file=".qwen/settings.json",
    events=CLAUDE_EVENTS,  # Qwen Code names its hook events as Claude Code does
    answer=_answer,
    trust="Qwen Code loads a project's .qwen/settings.json only in a trusted folder (its folder-trust "
          "setting); port trusts nothing",
)
