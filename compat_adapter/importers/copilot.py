"""GitHub Copilot: ``.github/hooks/*.json`` hook files, inline ``hooks`` in
``.github/copilot/settings.json`` / ``settings.local.json``, and instruction files.

A hook file is ``{"version": 1, "disableAllHooks"?: bool, "hooks": {"<event>": [entry, ...]}}``
where each entry is a handler carrying its own ``matcher`` (§5.1). Newer CLIs also accept Claude's
nested ``{"matcher", "hooks": [...]}`` groups, so both are read. Event names are Copilot's own
camelCase ones: the PascalCase ("VS Code compatible") names switch Copilot to a different payload
format and to Claude's matcher rules, which this project does not adapt, so they are unknown
events here — and a Claude ``settings.json`` imported as ``copilot`` fails on its first event.

Stricter than Copilot on one point, on purpose: Copilot silently drops a malformed item of a
directory-loaded file; here the whole file is refused with the item's place, so the mistake is seen.
The repository's ``.claude/settings.json``, which Copilot also reads, is imported as ``claude``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from compat_adapter.declare import REFUSED_HANDLER_TYPES
from compat_adapter.errors import ConfigParseError
from compat_adapter.importers import rules as project_rules
from compat_adapter.importers.common import (
    FileImport,
    ImportedHook,
    Refused,
    Slot,
    accept,
    event_row,
    grouped_slots,
    handler_type,
    hook_table,
    load_json,
    matcher_of,
    refuse,
    rules_file,
    shape_error,
)
from compat_adapter.model import VendorSpec

__all__ = ("classify", "import_file", "project_files")

#: Inline hooks in settings files, after the hooks folder (§5.1 load order).
SETTINGS = (".github/copilot/settings.json", ".github/copilot/settings.local.json")
_SETTINGS_NAMES = frozenset({"settings.json", "settings.local.json"})
_HANDLER_KEYS = frozenset({"type", "command", "bash", "powershell", "exec"})


def project_files(root: Path) -> list[Path]:
    folder = root / ".github" / "hooks"
    files = sorted(p for p in folder.glob("*.json") if p.is_file()) if folder.is_dir() else []
    files += [root / name for name in SETTINGS if (root / name).is_file()]
    return files + project_rules.project_rules("copilot", root)


def import_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    suffix = path.suffix.lower()
    if suffix == ".md":
        return rules_file(spec, path, shown)
    if suffix == ".json":
        return _hooks_file(spec, path, shown)
    raise ConfigParseError(f"{shown}: not a {spec.id} file this importer reads (a hooks .json or "
                           "an instructions .md)", path=shown)


def _pascal_hint(event: str) -> str:
    if event[:1].isupper():
        return (" (PascalCase names select Copilot's Claude-compatible format, which is not "
                "adapted; use the camelCase event, or import a Claude settings file as claude)")
    return ""


def _hooks_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    data = load_json(path, shown)
    out = FileImport()
    if "version" in data and (isinstance(data["version"], bool) or data["version"] != 1):
        raise ConfigParseError(f"{shown}:version: Copilot reads only version 1 hook files, not "
                               f"{data['version']!r}", path=shown, place="version")
    switch = data.get("disableAllHooks")
    if switch is not None:
        if not isinstance(switch, bool):
            raise shape_error(shown, "disableAllHooks", "true or false", switch)
        out.hooks_switch = (switch, f"{shown}:disableAllHooks")
    if "hooks" not in data:
        if path.name in _SETTINGS_NAMES:
            return out  # a settings file without inline hooks
        raise ConfigParseError(f"{shown}: a Copilot hooks file needs a `hooks` object",
                               path=shown, place="hooks")
    for event, items, place in hook_table(data["hooks"], shown, "hooks"):
        row = event_row(spec, event, shown, place, _pascal_hint(event))
        for i, item in enumerate(items):
            iplace = f"{place}[{i}]"
            if not isinstance(item, Mapping):
                raise shape_error(shown, iplace, "a hook entry object", item)
            if "hooks" in item and not (_HANDLER_KEYS & set(item)):
                slots = list(grouped_slots(spec, event, row, [item], shown, place))
                slots = [_reindex(s, i) for s in slots]
            else:
                slots = [Slot(event, row, matcher_of(item, shown, iplace), item, iplace, iplace)]
            for slot in slots:
                found = classify(spec, slot, shown)
                (out.hooks if isinstance(found, ImportedHook) else out.refused).append(found)
    return out


def _reindex(slot: Slot, index: int) -> Slot:
    # grouped_slots numbered the single group 0; put its real index back into the places.
    head = slot.group_place.rsplit("[", 1)[0]
    group_place = f"{head}[{index}]"
    return Slot(slot.event, slot.row, slot.matcher, slot.handler,
                group_place + slot.place[len(slot.group_place):], group_place)


def _posix_command(h: Mapping[str, Any]) -> bool:
    return any(isinstance(h.get(k), str) and h[k].strip() for k in ("bash", "command"))


def classify(spec: VendorSpec, slot: Slot, shown: str) -> ImportedHook | Refused:
    kind = handler_type(slot, shown)
    if kind in REFUSED_HANDLER_TYPES:
        return refuse(spec, slot, shown, "INVALID_HANDLER",
                      f"{kind!r} entries are not run here: only command hooks are adapted")
    h = slot.handler
    if not _posix_command(h):
        if isinstance(h.get("powershell"), str):
            return refuse(spec, slot, shown, "INVALID_HANDLER",
                          "the entry has only a powershell command; this host runs POSIX shell "
                          "commands (as Copilot's cloud agent does)")
        if "exec" in h:
            return refuse(spec, slot, shown, "INVALID_HANDLER",
                          "exec form runs without a shell and only in the Copilot CLI; give the "
                          "entry a bash command to adapt it")
    return accept(spec, slot, shown)
