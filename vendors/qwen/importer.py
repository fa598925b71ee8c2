"""Qwen Code (vendor ``qwen``): ``.qwen/settings.json`` hook tables in Claude's shape, and ``QWEN.md``
(or ``AGENTS.md``) rules files.

A settings file is read for its ``hooks`` and ``disableAllHooks`` keys (every other key is ignored).
Qwen 0.24.4 drops a bad entry and keeps the rest, and so does this importer: an unknown event or
handler type, a ``function`` handler (only registered in process) and a command handler without a
command are each one refused row. A ``timeout`` is in seconds, but 1000 or more is read as
milliseconds (Qwen's legacy form), and a timeout that is not a positive number is ignored (the 60 s
default applies), as Qwen reads them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from compat_adapter.importers import places
from compat_adapter.importers import solo
from compat_adapter.importers import rules as project_rules
from compat_adapter.importers.common import (
    FileImport,
    ImportedHook,
    Refused,
    Slot,
    accept,
    in_sequence,
    refuse,
)
from compat_adapter.model import HookPlace, VendorSpec
from vendors.claude.importer import settings_file, settings_or_rules

__all__ = ("RUNS_HOOKS_OF", "classify", "context_names", "extra_files", "hook_place", "import_file", "project_files",
           "rules_files",
           "seconds")

#: Project settings files (Qwen reads the workspace `.qwen/settings.json` in a trusted folder).
SETTINGS = (".qwen/settings.json",)
#: The handler types Qwen's registry accepts (a settings `function` hook has no callback: dropped).
_TYPES = frozenset({"command", "http", "prompt"})
#: A command timeout this large or larger is milliseconds (Qwen's legacy form).
LEGACY_MS = 1000
_LOCAL = ("Qwen Code reads no settings.local.json (its scopes are the user's ~/.qwen/settings.json, the "
          "project's .qwen/settings.json and the system file)")


def project_files(root: Path) -> list[Path]:
    return project_rules.existing(root, *SETTINGS) + rules_files(root)


def import_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    if path.suffix.lower() == ".json" and path.name == "settings.local.json":
        # Claude's local scope: Qwen Code reads no such file (measured, lane case qwen:perm_deny_local:
        # a deny rule there lets the call run), so nothing in it runs here either.
        read = settings_file(spec, path, shown, classify)
        skipped = [Refused(vendor=spec.id, what=f"{h.event} hook", reason=_LOCAL, origin=h.origin,
                           code="SKIPPED_BY_VENDOR", event=h.event, matcher=h.matcher) for h in read.hooks]
        skipped += [Refused(vendor=spec.id, what=f"permission rule {r.text}", reason=_LOCAL, origin=r.origin,
                            code="SKIPPED_BY_VENDOR") for r in read.permissions]
        return FileImport(refused=[*read.refused, *skipped])
    return settings_or_rules(spec, path, shown, classify)


def seconds(timeout: Any) -> float | None:
    """A command hook's timeout in seconds as Qwen reads it; None when Qwen would use its default."""
    value = timeout
    if isinstance(value, str) and value.strip():
        try:
            value = float(value)
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
        return None
    return value / 1000 if value >= LEGACY_MS else float(value)


def classify(spec: VendorSpec, slot: Slot, shown: str) -> ImportedHook | Refused:
    h = slot.handler
    kind = h.get("type") if isinstance(h, Mapping) else None
    if kind not in _TYPES:
        return refuse(spec, slot, shown, "INVALID_HANDLER",
                      f"Qwen Code drops a handler of type {kind!r} from a settings file (it runs command, "
                      "http and prompt hooks; function hooks are registered in process only)")
    if kind == "command" and not h.get("command"):
        return refuse(spec, slot, shown, "INVALID_HANDLER", "Qwen Code drops a command hook with no command")
    if "timeout" in h:
        fixed = {k: v for k, v in h.items() if k != "timeout"}
        if kind == "command" and (value := seconds(h["timeout"])) is not None:
            fixed["timeout"] = value
        elif kind != "command" and seconds(h["timeout"]) is not None:
            fixed["timeout"] = float(h["timeout"])
        slot = replace(slot, handler=MappingProxyType(fixed))
    return in_sequence(slot, accept(spec, slot, shown))


#: Qwen Code runs no other vendor's hook files.
RUNS_HOOKS_OF = solo.NO_OTHER_VENDOR


def rules_files(root: Path) -> list[Path]:
    """Qwen's context files at the root: QWEN.md and AGENTS.md (its defaults), or the names the
    project's ``context.fileName`` sets instead, then QWEN.local.md; and .qwen/QWEN.md."""
    names = context_names(root / SETTINGS[0]) or ("QWEN.md", "AGENTS.md")
    return project_rules.existing(root, *names, "QWEN.local.md", ".qwen/QWEN.md")


def context_names(settings: Path) -> tuple[str, ...]:
    """The file names a settings file's ``context.fileName`` gives (a name or a list), if any. An
    unreadable settings file names none here: its import reports it."""
    try:
        data = json.loads(settings.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ()
    given = (data.get("context") or {}).get("fileName") if isinstance(data, dict) and isinstance(
        data.get("context"), dict) else None
    names = [given] if isinstance(given, str) else given if isinstance(given, list) else []
    return tuple(n.strip() for n in names if isinstance(n, str) and n.strip() and "/" not in n and ".." not in n)


#: Qwen keeps no other project hook file.
extra_files = solo.no_extra_files


def hook_place(path: Path) -> HookPlace:
    """A settings file's hooks run in the project above its ``.qwen`` folder (Qwen runs them in the
    session's folder, ``input.cwd``)."""
    return places.hook_place(path, folders=(".qwen",))
