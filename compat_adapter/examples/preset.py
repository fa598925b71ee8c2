"""The bundled example preset: hooks and rules for all five vendors, as a team would declare them.

It is what `compat-adapter demo` runs, and it doubles as an example for preset authors: every
registration names its vendor and event explicitly, every handler is a real command.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

__all__ = ("HOOK_SCRIPT", "PRESET", "PROJECT", "ExamplePreset")

HOOK_SCRIPT = Path(__file__).resolve().parent / "hooks" / "demo_hook.py"
#: Rules files and layout copied into the demo repository.
PROJECT = Path(__file__).resolve().parent / "project"


def hook(mode: str, arg: str = "") -> str:
    """The command line of one example hook (the running interpreter, so no PATH lookups)."""
    parts = [sys.executable, str(HOOK_SCRIPT), mode] + ([arg] if arg else [])
    return shlex.join(parts)


class ExamplePreset:
    """Declares the example hooks and rules; the session cwd must hold the example project files."""

    async def apply(self, adapter: Any) -> None:
        root = adapter.host.cwd
        # Claude Code: a write guard through the official bridge, context after tool calls,
        # an approval hook, and a watcher on outside edits.
        await adapter.register_hook("claude", "PreToolUse", "Write|Edit", hook("deny-path", "prod/"))
        await adapter.register_hook("claude", "PostToolUse", "Bash", hook("context", "the preset checked this output"))
        await adapter.register_hook("claude", "PermissionRequest", "Bash", hook("approve", "Bash"))
        await adapter.register_hook("claude", "FileChanged", None, hook("observe"))
        # Codex: a stop that is blocked once, through the official Codex bridge.
        await adapter.register_hook("codex", "Stop", None, hook("block-once", str(root / ".stop-blocked")))
        # WorkBuddy / CodeBuddy: a new git worktree is noticed.
        await adapter.register_hook("workbuddy", "WorktreeCreate", None, hook("observe"))
        # OpenCode: a re-authored callback watching tool results.
        await adapter.register_hook("opencode", "tool.execute.after", None, hook("observe"))
        # Copilot: the built-in bridge denies a dangerous command and asks about git.
        await adapter.register_hook("copilot", "preToolUse", "bash", hook("copilot-deny", "rm -rf"))
        # Rules for every vendor, carried as context.
        await adapter.register_rules("claude", "CLAUDE.md", base_dir=root)
        await adapter.register_rules("codex", ["AGENTS.md", ".codex/rules/*.rules"], base_dir=root)
        await adapter.register_rules("workbuddy", ".codebuddy/rules/*.md", base_dir=root)
        await adapter.register_rules("opencode", "AGENTS.md", base_dir=root)
        await adapter.register_rules("copilot", ".github/copilot-instructions.md", base_dir=root)


PRESET = ExamplePreset()
