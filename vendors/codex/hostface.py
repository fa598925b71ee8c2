"""Codex as a host of other vendors' hooks: Claude's stdin and answer shape, in ``.codex/hooks.json``."""

from __future__ import annotations

from compat_adapter.hostface import TableFace, claude_reply
from vendors.claude.hostface import CLAUDE_EVENTS

__all__ = ("FACE",)

FACE = TableFace(
    vendor="codex", file=".codex/hooks.json",
    events=CLAUDE_EVENTS,
    answer=lambda event, point, answer: claude_reply(event, point, answer),
    trust="Codex runs a project hook only when its trusted_hash is recorded in the user's config.toml and "
          "the project is trusted (trust_level = \"trusted\"): open `codex` in the project and approve the "
          "new hooks; port never writes either record",
)
