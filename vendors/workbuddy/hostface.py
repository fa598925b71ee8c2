"""CodeBuddy (WorkBuddy) as a host of other vendors' hooks: Claude's shape, in ``.codebuddy/settings.json``."""

from __future__ import annotations

from vendors.claude.hostface import claude_face

__all__ = ("FACE",)

FACE = claude_face(
    "workbuddy", ".codebuddy/settings.json",
    trust="CodeBuddy loads project hooks from .codebuddy/settings.json without a prompt of its own; "
          "review the written entries as you would any hook",
)
