"""Kimi Code (vendor ``kimi``): the ``[[hooks]]`` tables of its ``config.toml`` (``event``,
``matcher``, ``command``, ``timeout`` in seconds) and ``AGENTS.md`` rules.

Kimi reads hooks only from ``$KIMI_CODE_HOME/config.toml`` (``~/.kimi-code``), a user file, so a
project has no Kimi hook file to discover: the file is imported when it is named. An entry with an
unknown event or no command is refused, one row each; the rest of the file still imports.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path

from compat_adapter.errors import ConfigParseError
from compat_adapter.importers import places
from compat_adapter.importers import solo
from compat_adapter.importers import rules as project_rules
from compat_adapter.importers.common import FileImport, Slot, entry_refusal, judged, no_row, accept, rules_file
from compat_adapter.model import HookPlace, VendorSpec

__all__ = ("RUNS_HOOKS_OF", "extra_files", "hook_place", "import_file", "project_files", "rules_files")


def project_files(root: Path) -> list[Path]:
    """Only the rules file: Kimi's hooks live in the user's config.toml, never in a project."""
    return rules_files(root)


def import_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    suffix = path.suffix.lower()
    if suffix == ".md":
        return rules_file(spec, path, shown)
    if suffix == ".toml":
        return config_file(spec, path, shown)
    raise ConfigParseError(f"{shown}: not a {spec.id} file this importer reads (a config.toml or a rules .md)",
                           path=shown)


def config_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigParseError(f"{shown}: not a TOML file Kimi Code reads: {exc}", path=shown) from exc
    out = FileImport()
    entries = data.get("hooks", [])
    if not isinstance(entries, list):
        out.refused.append(entry_refusal(spec, "hooks", shown, "hooks", "expected an array of [[hooks]] tables"))
        return out
    for i, entry in enumerate(entries):
        place = f"hooks[{i}]"
        if not isinstance(entry, Mapping) or not isinstance(entry.get("event"), str):
            out.refused.append(entry_refusal(spec, "hook entry", shown, place, "a [[hooks]] entry needs an event"))
            continue
        event = entry["event"]
        row = spec.row(event)
        if row is None:
            code, why = no_row(spec, event)
            out.refused.append(entry_refusal(spec, f"{event} hook", shown, place, why, code, event))
            continue
        command = entry.get("command")
        if not isinstance(command, str) or not command.strip():
            out.refused.append(entry_refusal(spec, f"{event} hook", shown, place, "a Kimi hook needs a command",
                                             "INVALID_HANDLER", event))
            continue
        handler: dict[str, object] = {"type": "command", "command": command}
        timeout = entry.get("timeout")
        if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0:
            handler["timeout"] = float(timeout)
        matcher = entry.get("matcher")
        slot = Slot(event, row, matcher if isinstance(matcher, str) and matcher else None, handler, place, place)
        out.add(judged(accept, spec, slot, shown))
    return out


#: Kimi Code runs no other vendor's hook files.
RUNS_HOOKS_OF = solo.NO_OTHER_VENDOR


rules_files = project_rules.agents_md


extra_files = solo.no_extra_files


def hook_place(path: Path) -> HookPlace:
    """A config.toml's hooks run in the session's folder (Kimi's cwd)."""
    return places.hook_place(path, folders=(".kimi-code",))
