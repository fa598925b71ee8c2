"""What an importer answers for a vendor that keeps to its own files: it runs no other vendor's
hook files, and it has no project hook file beyond those ``project_files`` lists.

Most vendors answer so (only cn and Copilot CLI also run Claude's settings files, and only Claude
Code, CodeBuddy, Gemini CLI and OpenCode find more files in a plugin or config folder); their
importers name these instead of writing the empty answers again.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

__all__ = ("NO_OTHER_VENDOR", "no_extra_files")

#: ``RUNS_HOOKS_OF`` of a vendor that runs no other vendor's hook files.
NO_OTHER_VENDOR: Mapping[str, tuple[tuple[str, ...], str]] = MappingProxyType({})


def no_extra_files(root: Path) -> list[Path]:
    """``extra_files`` of a vendor whose every project hook file is in its documented layout."""
    return []
