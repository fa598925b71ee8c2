"""CodeBuddy (WorkBuddy) as a host of other vendors' hooks: Claude's shape, in ``.codebuddy/settings.json``."""

from __future__ import annotations

from compat_adapter.hostface import TableFace, claude_reply
from vendors.claude.hostface import CLAUDE_EVENTS

__all__ = ("FACE",)

FACE = TableFace(
    vendor="workbuddy", file=".codebuddy/settings.json",
    events=CLAUDE_EVENTS,
    answer=lambda event, point, answer: claude_reply(event, point, answer),
    trust="CodeBuddy loads project hooks from .codebuddy/settings.json without a prompt of its own; "
          "review the written entries as you would any hook",
)
