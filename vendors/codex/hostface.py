"""Codex as a host of other vendors' hooks: Claude's stdin and answer shape, in ``.codex/hooks.json``."""

from __future__ import annotations

from vendors.claude.hostface import claude_face

__all__ = ("FACE",)

FACE = claude_face(
    "codex", ".codex/hooks.json",
    trust="Codex runs a project hook only when its trusted_hash is recorded in the user's config.toml and "
          "the project is trusted (trust_level = \"trusted\"): open `codex` in the project and approve the "
          "new hooks; port never writes either record",
)
