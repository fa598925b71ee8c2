"""Windsurf (vendor ``windsurf``): ``.windsurf/hooks.json`` and its rules files.

``hooks`` maps an event name to a flat list of hook objects: ``command`` (or ``powershell``, on
Windows), ``show_output`` and ``working_directory`` (docs.windsurf.com; no matcher, no timeout).
Windsurf also merges the system file (``/etc/windsurf/hooks.json``) and the user's
(``~/.codeium/windsurf/hooks.json``), run first; they are imported when named. A hook with only a
``powershell`` command, or with a ``working_directory``, is refused with that reason; the rest of the
file still imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from compat_adapter.errors import ConfigParseError
from compat_adapter.importers import places
from compat_adapter.importers import rules as project_rules
from compat_adapter.importers.common import (
    FileImport,
    Slot,
    accept,
    entry_refusal,
    hook_table,
    judged,
    no_row,
    rules_file,
)
from compat_adapter.importers.loaders import load_json
from compat_adapter.model import HookPlace, VendorSpec

__all__ = ("RUNS_HOOKS_OF", "extra_files", "hook_place", "import_file", "project_files", "rules_files")

FILE = ".windsurf/hooks.json"


def project_files(root: Path) -> list[Path]:
    return ([root / FILE] if (root / FILE).is_file() else []) + rules_files(root)


def import_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    if path.suffix.lower() == ".md" or path.name == ".windsurfrules":
        return rules_file(spec, path, shown)
    if path.suffix.lower() == ".json":
        return hooks_file(spec, path, shown)
    raise ConfigParseError(f"{shown}: not a {spec.id} file this importer reads (a hooks.json or a rules file)",
                           path=shown)


def hooks_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    out = FileImport()
    for event, entries, place in hook_table(spec, load_json(path, shown).get("hooks", {}), shown, "hooks",
                                            out.refused):
        row = spec.row(event)
        for i, entry in enumerate(entries):
            here = f"{place}[{i}]"
            if row is None:
                code, why = no_row(spec, event)
                out.refused.append(entry_refusal(spec, f"{event} hook", shown, here, why, code, event))
                continue
            command = entry.get("command") if isinstance(entry, Mapping) else None
            problem = _refusal(entry, command)
            if problem is not None:
                out.refused.append(entry_refusal(spec, f"{event} hook", shown, here, problem, "INVALID_HANDLER",
                                                 event))
                continue
            out.add(judged(accept, spec, Slot(event, row, None, {"type": "command", "command": command}, here, here),
                           shown))
    return out


def _refusal(entry: object, command: object) -> str | None:
    if not isinstance(entry, Mapping):
        return "a Windsurf hook is an object with a command"
    if entry.get("working_directory") is not None:
        return "working_directory is not carried here: the hook would run in another folder than Windsurf's"
    if not isinstance(command, str) or not command.strip():
        return ("a hook with only a powershell command runs on Windows alone" if entry.get("powershell")
                else "a Windsurf hook needs a command")
    return None


#: Windsurf runs no other vendor's hook files.
RUNS_HOOKS_OF: Mapping[str, tuple[tuple[str, ...], str]] = MappingProxyType({})


def rules_files(root: Path) -> list[Path]:
    return project_rules.existing(root, ".windsurfrules", "AGENTS.md") + sorted((root / ".windsurf" / "rules").glob("*.md"))


def extra_files(root: Path) -> list[Path]:
    return []


def hook_place(path: Path) -> HookPlace:
    """A workspace file's hooks run in the workspace above its ``.windsurf`` folder."""
    return places.hook_place(path, folders=(".windsurf",))
