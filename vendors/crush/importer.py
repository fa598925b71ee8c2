"""Crush (vendor ``crush``): the ``hooks`` of ``crush.json`` / ``.crush.json``, and its context files.

Crush's ``hooks`` map an event to a list of flat entries, ``{name, matcher, command, timeout}``
(``HookConfig`` of internal/config/config.go); an event key is matched regardless of case and
underscores (``pre_tool_use`` is PreToolUse), and any other key loads and never runs. Crush reads the
project's files from its folder up to the git root and the user's ``~/.config/crush/crush.json``;
here the project's root files are found, and any such file is imported when named.

What Crush refuses to load (``ValidateHooks`` and the JSON decoder: an entry that is not an object,
a field of the wrong type, a missing command, a matcher that does not compile) stops Crush from
starting at all; here such an entry is refused with that reason and the rest of the file imports.
The shell-script configs (``crushrc``) are not read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from compat_adapter.errors import ConfigParseError
from compat_adapter.importers import rules as project_rules
from compat_adapter.importers.common import FileImport, Slot, accept, entry_refusal, judged, no_row, rules_file
from compat_adapter.importers.loaders import load_json
from compat_adapter.model import HookPlace, VendorSpec

__all__ = ("RUNS_HOOKS_OF", "canonical_event", "extra_files", "hook_place", "import_file", "project_files",
           "rules_files")

#: Crush's JSON config names in a project folder, lowest precedence first (.crush.json beats crush.json).
FILES = ("crush.json", ".crush.json")
#: The context files of Crush's own name it reads at the root (defaultContextPaths), and AGENTS.md.
RULES = ("CRUSH.md", "CRUSH.local.md", "crush.md", "AGENTS.md")
_REFUSED = "Crush refuses to load a config with this entry ({}), so it does not start at all"


def project_files(root: Path) -> list[Path]:
    return [root / name for name in FILES if (root / name).is_file()] + rules_files(root)


def import_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    suffix = path.suffix.lower()
    if suffix == ".md":
        return rules_file(spec, path, shown)
    if suffix == ".json":
        return config_file(spec, path, shown)
    raise ConfigParseError(f"{shown}: not a {spec.id} file this importer reads (a crush.json or a rules .md)",
                           path=shown)


def canonical_event(name: str) -> str:
    """normalizeHookEvent: PreToolUse in any case, with or without underscores; other names as written."""
    return "PreToolUse" if name.replace("_", "").lower() == "pretooluse" else name


def config_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    data = load_json(path, shown)
    out = FileImport()
    table = data.get("hooks")
    if table is None:
        return out
    if not isinstance(table, Mapping):
        out.refused.append(entry_refusal(spec, "hooks", shown, "hooks", _REFUSED.format("hooks is not an object")))
        return out
    for key, entries in table.items():
        event, place = canonical_event(key), f"hooks.{key}"
        if not isinstance(entries, list):
            out.refused.append(entry_refusal(spec, f"{key} hooks", shown, place,
                                             _REFUSED.format("not a list of hooks"), event=event))
            continue
        row = spec.row(event)
        for i, entry in enumerate(entries):
            here = f"{place}[{i}]"
            if row is None:
                code, why = no_row(spec, event)
                out.refused.append(entry_refusal(spec, f"{key} hook", shown, here, why, code, event))
                continue
            problem = _problem(entry)
            if problem is not None:
                out.refused.append(entry_refusal(spec, f"{event} hook", shown, here, _REFUSED.format(problem),
                                                 "INVALID_HANDLER", event))
                continue
            handler: dict[str, object] = {"type": "command", "command": entry["command"]}
            if isinstance(entry.get("timeout"), int) and entry["timeout"] > 0:
                handler["timeout"] = float(entry["timeout"])
            matcher = entry.get("matcher") or None
            out.add(judged(accept, spec, Slot(event, row, matcher, handler, here, here), shown))
    return out


def _problem(entry: Any) -> str | None:
    """Why Go's decoder or ValidateHooks refuses one entry; None when Crush loads it."""
    if not isinstance(entry, Mapping):
        return "a hook that is not an object"
    for key in ("name", "matcher", "command"):
        if entry.get(key) is not None and not isinstance(entry[key], str):
            return f"{key} is not a string"
    timeout = entry.get("timeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int)):
        return "timeout is not a whole number of seconds"
    if not entry.get("command"):
        return "command is required"
    return None


#: Crush runs no other vendor's hook files.
RUNS_HOOKS_OF: Mapping[str, tuple[tuple[str, ...], str]] = MappingProxyType({})


def rules_files(root: Path) -> list[Path]:
    return project_rules.existing(root, *RULES)


def extra_files(root: Path) -> list[Path]:
    return []


def hook_place(path: Path) -> HookPlace:
    """A project's crush.json runs its hooks in that project (Crush's cwd); the user's file
    (``~/.config/crush/``), in the session's."""
    full = Path(os.path.abspath(path))
    return HookPlace(root=None if full.parent.name == "crush" else str(full.parent))
