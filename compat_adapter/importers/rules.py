"""Rules-file discovery helpers: each vendor's importer lists its project rules files with these,
in the vendor's order (``rules_files`` in ``vendors/<id>/importer.py``).

Only files that exist are listed. Where a vendor reads one file *instead of* another (Codex
``AGENTS.override.md`` over ``AGENTS.md``; OpenCode ``CLAUDE.md`` only without ``AGENTS.md``;
CodeBuddy ``AGENTS.md`` only without ``CODEBUDDY.md``) the same choice is made here. Files above
the root (ancestor folders) and user-level files are never searched.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ("agents_md", "existing", "first", "tree")


def existing(root: Path, *names: str) -> list[Path]:
    """Those of ``names`` that are files under ``root``, in the order given."""
    return [root / n for n in names if (root / n).is_file()]


def first(root: Path, *names: str, nonempty: bool = False) -> list[Path]:
    """The first of ``names`` that is a file (a non-empty one, with ``nonempty``), alone; or none."""
    for name in names:
        path = root / name
        if path.is_file() and (not nonempty or path.stat().st_size > 0):
            return [path]
    return []


def tree(root: Path, folder: str, *patterns: str) -> list[Path]:
    """Files under ``root/folder`` matching any of ``patterns``, sorted by their path there."""
    base = root / folder
    if not base.is_dir():
        return []
    found = {p for pattern in patterns for p in base.glob(pattern) if p.is_file()}
    return sorted(found, key=lambda p: p.relative_to(base).as_posix())


def agents_md(root: Path) -> list[Path]:
    """The one rules file of the agents that read only ``AGENTS.md`` at the project's root."""
    return existing(root, "AGENTS.md")
