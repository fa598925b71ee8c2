"""Continue (vendor ``continue``): the ``hooks`` of ``.continue/settings.json`` and
``.continue/settings.local.json``, in Claude Code's shape; ``AGENTS.md`` rules.

Each file is read as Claude's settings file is (:func:`vendors.claude.importer.settings_file`): its
``hooks`` and ``disableAllHooks`` keys. cn's loader (src/hooks/hookConfig.ts) also merges the hooks
of ``.claude/settings.json`` and ``.claude/settings.local.json`` (Claude's files, imported as
Claude's: :data:`RUNS_HOOKS_OF` names them). A ``prompt`` or ``agent`` handler is refused: cn skips
it ("not yet implemented"); a handler with Claude's ``if`` is read as Claude reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from compat_adapter.importers import places
from compat_adapter.importers import solo
from compat_adapter.importers import rules as project_rules
from compat_adapter.importers.common import FileImport, ImportedHook, Refused, Slot, refuse
from compat_adapter.model import HookPlace, VendorSpec
from vendors.claude.importer import classify as claude_classify
from vendors.claude.importer import settings_or_rules

__all__ = ("RUNS_HOOKS_OF", "classify", "extra_files", "hook_place", "import_file", "project_files", "rules_files")

#: cn's project settings files, lowest precedence first (its hooks of every file all run).
SETTINGS = (".continue/settings.json", ".continue/settings.local.json")


def project_files(root: Path) -> list[Path]:
    return project_rules.existing(root, *SETTINGS) + rules_files(root)


def import_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    return settings_or_rules(spec, path, shown, classify)


def classify(spec: VendorSpec, slot: Slot, shown: str) -> ImportedHook | Refused:
    kind = slot.handler.get("type") if isinstance(slot.handler, Mapping) else None
    if kind in ("prompt", "agent"):
        return refuse(spec, slot, shown, "SKIPPED_BY_VENDOR",
                      f"cn 1.5.47 skips a {kind} hook (its hook runner: not yet implemented), so it never runs")
    return claude_classify(spec, slot, shown)


#: cn also loads the hooks of Claude's project settings files (src/hooks/hookConfig.ts).
RUNS_HOOKS_OF: Mapping[str, tuple[tuple[str, ...], str]] = MappingProxyType({
    "claude": ((".claude/settings.json", ".claude/settings.local.json"),
               "Continue's cn also loads the hooks of this Claude file; with the Continue import registered too, "
               "a host that stands in for both would run it twice")})


#: The agent file at the root: AGENTS.md.
rules_files = project_rules.agents_md


#: cn keeps no other project hook file.
extra_files = solo.no_extra_files


def hook_place(path: Path) -> HookPlace:
    """A settings file's hooks run in the project above its ``.continue`` folder (cn runs them in its cwd)."""
    return places.hook_place(path, folders=(".continue",))
