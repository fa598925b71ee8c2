"""Factory Droid (vendor ``factory``): ``.factory/hooks.json`` and the ``hooks`` of
``.factory/settings.json`` / ``settings.local.json``, in Claude Code's shape; ``AGENTS.md`` rules.

A settings file is read as Claude's is (:func:`vendors.claude.importer.settings_file`): its ``hooks``
and ``disableAllHooks`` keys; Droid's other settings (``customModels``, its command allow and deny
lists …) are not read here. ``hooks.json`` is different, as measured on droid 0.215.0: it is the
event table itself (``{"PreToolUse": [...]}``). A ``hooks.json`` written in Claude's settings shape,
``{"hooks": {...}}``, is read by Droid as an event named ``hooks`` and none of its hooks ever runs
(the vendor lane: a recording PreToolUse hook in that shape did not fire, the same hook in the flat
shape did; Factory-AI/factory#3 reports such files as "silently never read"), so each of its
handlers is refused with that reason, never imported as if it ran.
"""

from __future__ import annotations

from pathlib import Path

from compat_adapter.importers import places
from compat_adapter.importers import solo
from compat_adapter.importers import rules as project_rules
from compat_adapter.importers.common import (
    FileImport,
    hook_table,
    import_events,
    refuse_slots,
)
from compat_adapter.importers.loaders import load_json
from compat_adapter.model import HookPlace, VendorSpec
from vendors.claude.importer import classify, settings_or_rules

__all__ = ("RUNS_HOOKS_OF", "WRAPPED", "extra_files", "hook_place", "hooks_file", "import_file", "project_files",
           "rules_files")

#: Droid's project hook files, in the order it merges them (its hooks docs: hooks.json, then the
#: ``hooks`` key of the settings files).
FILES = (".factory/hooks.json", ".factory/settings.json", ".factory/settings.local.json")


def project_files(root: Path) -> list[Path]:
    return project_rules.existing(root, *FILES) + rules_files(root)


def import_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    if path.suffix.lower() != ".md" and (path.name == "hooks.json" or path.name.startswith("hooks.")):
        return hooks_file(spec, path, shown)  # hooks.<name>.json: a copy of one
    return settings_or_rules(spec, path, shown, classify, what="a hooks or settings .json, or a rules .md")


#: Why the hooks under a ``hooks`` key of hooks.json never run under Droid (measured, 0.215.0).
WRAPPED = ("droid 0.215.0 reads .factory/hooks.json as the event table itself, so a `hooks` key there is an "
           "event named hooks and this hook never runs (measured: the same hook fires only in the flat shape, "
           "{\"PreToolUse\": [...]})")


def hooks_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    """``.factory/hooks.json``: a flat event table; Claude's ``hooks`` wrapper is refused, handler by handler."""
    data = load_json(path, shown)
    out = FileImport()
    flat = {k: v for k, v in data.items() if k != "hooks"}
    import_events(spec, flat, shown, "", out, classify)
    wrapped = data.get("hooks")
    if wrapped is not None:
        for event, groups, place in hook_table(spec, wrapped, shown, "hooks", out.refused):
            refuse_slots(spec, event, groups, shown, place, out.refused, "SKIPPED_BY_VENDOR", WRAPPED)
    return out


#: Droid runs no other vendor's hook files.
RUNS_HOOKS_OF = solo.NO_OTHER_VENDOR


#: Droid's context file at the root: AGENTS.md.
rules_files = project_rules.agents_md


#: Droid keeps no other project hook file.
extra_files = solo.no_extra_files


def hook_place(path: Path) -> HookPlace:
    """A project file's hooks run in the project above its ``.factory`` folder."""
    return places.hook_place(path, folders=(".factory",))
