"""GitHub Copilot: ``.github/hooks/*.json`` hook files, inline ``hooks`` in
``.github/copilot/settings.json`` / ``settings.local.json``, and instruction files.

A hook file is ``{"version": 1, "disableAllHooks"?: bool, "hooks": {"<event>": [entry, ...]}}``
where each entry is a handler carrying its own ``matcher`` (§5.1). Newer CLIs also accept Claude's
nested ``{"matcher", "hooks": [...]}`` groups, so both are read. Event names are Copilot's own
camelCase ones: the PascalCase ("VS Code compatible") names switch Copilot to a different payload
format and to Claude's matcher rules, which this project does not adapt yet, so each such hook is
an UNSERVED_EVENT row saying so, and the rest of the file still imports.

A malformed item is one refused row with its place: Copilot drops that item of a directory-loaded
file and runs the rest.
The repository's ``.claude/settings.json``, which Copilot also reads, is imported as ``claude``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from compat_adapter.declare import REFUSED_HANDLER_TYPES
from compat_adapter.errors import ConfigParseError, InvalidMatcher
from compat_adapter.importers import rules as project_rules
from compat_adapter.importers.common import (
    FileImport,
    ImportedHook,
    Refused,
    Slot,
    accept,
    entry_refusal,
    grouped_slots,
    handler_type,
    hook_table,
    judged,
    load_json,
    load_jsonc,
    matcher_of,
    no_row,
    refuse,
    rules_file,
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


def _hooks_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    try:
        data = load_json(path, shown)
    except ConfigParseError as strict:
        # A file with comments (VS Code reads hook files as JSONC) is still read, so that its
        # hooks show; Copilot CLI rejects a file that is not JSON (§5.1), so none of them run.
        data = load_jsonc(path, shown)  # not JSONC either: unusable, raise as it is
        out = _hooks_data(spec, path, shown, data)
        reason = (f"Copilot CLI rejects a hook file that is not strict JSON ({strict.message.split(': ', 1)[-1]}); "
                  "VS Code, which reads it as JSONC, would run it")
        out.refused += [Refused(vendor=spec.id, what=f"{h.event} hook", reason=reason, origin=h.origin,
                                code="SKIPPED_BY_VENDOR") for h in out.hooks]
        out.hooks = []
        return out
    return _hooks_data(spec, path, shown, data)


def _hooks_data(spec: VendorSpec, path: Path, shown: str, data: Mapping[str, Any]) -> FileImport:
    out = FileImport()
    if "version" in data and (isinstance(data["version"], bool) or data["version"] != 1):
        # Copilot rejects the whole file; it still imports here, as one row saying so.
        out.refused.append(entry_refusal(
            spec, f"hooks file {path.name}", shown, "version",
            f"Copilot reads only version 1 hook files, not {data['version']!r}, so none of this "
            "file's hooks run in Copilot", "SKIPPED_BY_VENDOR"))
        return out
    switch = data.get("disableAllHooks")
    if switch is not None:
        if not isinstance(switch, bool):
            out.refused.append(entry_refusal(spec, "disableAllHooks", shown, "disableAllHooks",
                                             f"expected true or false, found {switch!r}"))
        else:
            out.hooks_switch = (switch, f"{shown}:disableAllHooks")
    if "hooks" not in data:
        if path.name not in _SETTINGS_NAMES:  # a settings file without inline hooks is fine
            out.refused.append(entry_refusal(spec, f"hooks file {path.name}", shown, "hooks",
                                             "a Copilot hooks file needs a `hooks` object"))
        return out
    for event, items, place in hook_table(spec, data["hooks"], shown, "hooks", out.refused):
        row = spec.row(event)
        if row is None:
            code, reason = no_row(spec, event)
            for i, item in enumerate(items):
                if isinstance(item, Mapping) and "hooks" in item and not (_HANDLER_KEYS & set(item)):
                    for slot in grouped_slots(spec, event, None, [item], shown, place, out.refused, first=i):
                        out.refused.append(refuse(spec, slot, shown, code, reason))
                else:
                    out.refused.append(entry_refusal(spec, f"{event} hook entry", shown, f"{place}[{i}]",
                                                     reason, code))
            continue
        for i, item in enumerate(items):
            iplace = f"{place}[{i}]"
            if not isinstance(item, Mapping):
                out.refused.append(entry_refusal(spec, f"{event} hook entry", shown, iplace,
                                                 f"expected a hook entry object, found {item!r}"))
                continue
            if "hooks" in item and not (_HANDLER_KEYS & set(item)):
                slots = list(grouped_slots(spec, event, row, [item], shown, place, out.refused, first=i))
            else:
                try:
                    slots = [Slot(event, row, matcher_of(item, shown, iplace), item, iplace, iplace)]
                except InvalidMatcher as exc:
                    # Copilot skips an entry whose matcher is not a usable pattern.
                    out.refused.append(entry_refusal(spec, f"{event} hook entry", shown,
                                                     f"{iplace}.matcher", exc.message.split(": ", 1)[-1],
                                                     "INVALID_MATCHER"))
                    continue
            for slot in slots:
                found = judged(classify, spec, slot, shown)
                (out.hooks if isinstance(found, ImportedHook) else out.refused).append(found)
    return out


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
