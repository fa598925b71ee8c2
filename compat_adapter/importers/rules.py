"""Rules-file discovery: each vendor's project rules files under a root, in the vendor's order.

Only files that exist are listed. Where a vendor reads one file *instead of* another (Codex
``AGENTS.override.md`` over ``AGENTS.md``; OpenCode ``CLAUDE.md`` only without ``AGENTS.md``;
CodeBuddy ``AGENTS.md`` only without ``CODEBUDDY.md``) the same choice is made here. Files above
the root (ancestor folders) and user-level files are never searched.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ("project_rules",)


def _existing(root: Path, *names: str) -> list[Path]:
    return [root / n for n in names if (root / n).is_file()]


def _first(root: Path, *names: str, nonempty: bool = False) -> list[Path]:
    for name in names:
        path = root / name
        if path.is_file() and (not nonempty or path.stat().st_size > 0):
            return [path]
    return []


def _tree(root: Path, folder: str, *patterns: str) -> list[Path]:
    base = root / folder
    if not base.is_dir():
        return []
    found = {p for pattern in patterns for p in base.glob(pattern) if p.is_file()}
    return sorted(found, key=lambda p: p.relative_to(base).as_posix())


def _claude(root: Path) -> list[Path]:
    # §1.7: CLAUDE.md (root or .claude/), then CLAUDE.local.md, then .claude/rules recursively.
    return (_existing(root, "CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")
            + _tree(root, ".claude/rules", "**/*.md"))


def _codex(root: Path) -> list[Path]:
    # §2.7: at most one instructions file per folder, the override first; empty files are skipped.
    return (_first(root, "AGENTS.override.md", "AGENTS.md", nonempty=True)
            + _tree(root, ".codex/rules", "*.rules"))


def _workbuddy(root: Path) -> list[Path]:
    # §3.7: CODEBUDDY.md (root or .codebuddy/), CODEBUDDY.local.md; AGENTS.md only without a
    # CODEBUDDY.md; rules recursively, .mdc included.
    memory = _existing(root, "CODEBUDDY.md", ".codebuddy/CODEBUDDY.md")
    files = memory + _existing(root, "CODEBUDDY.local.md")
    if not memory:
        files += _existing(root, "AGENTS.md")
    return files + _tree(root, ".codebuddy/rules", "**/*.md", "**/*.mdc")


def _opencode(root: Path) -> list[Path]:
    # §4.5: AGENTS.md, else CLAUDE.md. `instructions` entries come from opencode.json itself.
    return _first(root, "AGENTS.md", "CLAUDE.md")


def _copilot(root: Path) -> list[Path]:
    # §5.7: repository-wide, then path-specific, then the agent file (AGENTS.md, else a root
    # CLAUDE.md or GEMINI.md).
    return (_existing(root, ".github/copilot-instructions.md")
            + _tree(root, ".github/instructions", "**/*.instructions.md")
            + _first(root, "AGENTS.md", "CLAUDE.md", "GEMINI.md"))


_BY_VENDOR = {"claude": _claude, "codex": _codex, "workbuddy": _workbuddy, "opencode": _opencode,
              "copilot": _copilot}


def project_rules(vendor_id: str, root: Path) -> list[Path]:
    """The vendor's project rules files under ``root`` (a resolved vendor id)."""
    return _BY_VENDOR[vendor_id](root)
