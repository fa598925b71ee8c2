"""Factory Droid (vendor ``factory``): ``.factory/hooks.json`` and the ``hooks`` of
``.factory/settings.json`` / ``settings.local.json``, in Claude Code's shape; ``AGENTS.md`` rules.

Each file is read as Claude's settings file is (:func:`vendors.claude.importer.settings_file`): its
``hooks`` and ``disableAllHooks`` keys; Droid's other settings (``customModels``, its command allow
and deny lists …) are not read here. Droid has no ``if`` on a handler, so a handler with one is
read as Claude reads it: refused where Claude never runs it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from compat_adapter.errors import ConfigParseError
from compat_adapter.importers import places
from compat_adapter.importers import rules as project_rules
from compat_adapter.importers.common import FileImport, rules_file
from compat_adapter.model import HookPlace, VendorSpec
from vendors.claude.importer import classify, settings_file

__all__ = ("RUNS_HOOKS_OF", "extra_files", "hook_place", "import_file", "project_files", "rules_files")

#: Droid's project hook files, in the order it merges them (its hooks docs: hooks.json, then the
#: ``hooks`` key of the settings files).
FILES = (".factory/hooks.json", ".factory/settings.json", ".factory/settings.local.json")


def project_files(root: Path) -> list[Path]:
    return [root / name for name in FILES if (root / name).is_file()] + rules_files(root)


def import_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    suffix = path.suffix.lower()
    if suffix == ".md":
        return rules_file(spec, path, shown)
    if suffix == ".json":
        return settings_file(spec, path, shown, classify)
    raise ConfigParseError(f"{shown}: not a {spec.id} file this importer reads (a hooks or settings "
                           ".json, or a rules .md)", path=shown)


#: Droid runs no other vendor's hook files.
RUNS_HOOKS_OF: Mapping[str, tuple[tuple[str, ...], str]] = MappingProxyType({})


def rules_files(root: Path) -> list[Path]:
    """Droid's context file at the root: AGENTS.md."""
    return project_rules.existing(root, "AGENTS.md")


def extra_files(root: Path) -> list[Path]:
    """Droid keeps no other project hook file."""
    return []


def hook_place(path: Path) -> HookPlace:
    """A project file's hooks run in the project above its ``.factory`` folder."""
    return places.hook_place(path, folders=(".factory",))
