"""Cline (vendor ``cline``): one hook file per event in ``.clinerules/hooks`` or ``.cline/hooks``
(and the user's ``~/.cline/hooks``, imported when named), its ``.clinerules/*.md`` and ``AGENTS.md`` rules.

A hook file is named after its event, any case, with no extension or one Cline runs (``.sh``,
``.py``, ``.js`` …). It runs as Cline runs it (``gl`` in the release): by the interpreter of its
shebang line (through ``env``), else by its extension (bash, node, bun, python3, pwsh), else with
bash; so it needs no execute bit. A file named after no event is no hook to Cline; named here, it is
refused with that reason.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from compat_adapter.vendor import (
    ConfigParseError,
    FileImport,
    Slot,
    VendorSpec,
    accept,
    entry_refusal,
    judged,
    no_row,
    places,
    project_rules,
    rules_file,
)
from vendors.cline.table import EXTENSIONS, HOOK_NAMES

__all__ = ("FOLDERS", "RUNS_HOOKS_OF", "command_of", "event_of", "extra_files", "hook_place", "import_file",
           "project_files", "rules_files")

#: The project's hook folders, in the order Cline searches them.
FOLDERS = (".clinerules/hooks", ".cline/hooks")
#: By extension, what runs a hook file that has no shebang line.
_RUNNERS = {".sh": ("bash",), ".bash": ("bash",), ".zsh": ("bash",), ".js": ("node",), ".mjs": ("node",),
            ".cjs": ("node",), ".ts": ("bun", "run"), ".mts": ("bun", "run"), ".cts": ("bun", "run"),
            ".py": ("python3",), ".ps1": ("pwsh", "-File")}
_EVENTS = {name.lower(): name for name in (*HOOK_NAMES, "PreCompact")}


def event_of(path: Path) -> str | None:
    """The event a file in a hooks folder is for, as Cline reads its name; None: no hook file."""
    suffix = path.suffix.lower()
    if suffix not in EXTENSIONS:
        return None
    # basename(name, ext) in the release strips the lower-cased extension only where it is spelled so.
    stem = path.name[: -len(suffix)] if suffix and path.name.endswith(suffix) else path.name
    return _EVENTS.get(stem.strip().lower())


def _interpreter(path: Path) -> list[str] | None:
    try:
        with path.open(encoding="utf-8", errors="replace") as f:
            first = f.readline().strip()
    except OSError:
        return None
    words = first[2:].split() if first.startswith("#!") else []
    while words and words[0].replace("\\", "/").rsplit("/", 1)[-1].lower() == "env":
        words = words[1:]  # `#!/usr/bin/env python3`: what env would start
    if words and words[0].rsplit("/", 1)[-1].lower() in ("bash", "sh", "zsh", "python3", "python"):
        words[0] = words[0].rsplit("/", 1)[-1]
    return words or None


def command_of(path: Path) -> str:
    """The command line Cline runs a hook file with."""
    full = str(path.resolve())
    return shlex.join([*(_interpreter(path) or _RUNNERS.get(path.suffix.lower(), ("bash",))), full])


def project_files(root: Path) -> list[Path]:
    found = [p for folder in FOLDERS if (root / folder).is_dir()
             for p in sorted((root / folder).iterdir()) if p.is_file() and event_of(p) is not None]
    return sorted(found, key=str) + rules_files(root)


def import_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    if path.suffix.lower() == ".md" and path.parent.name != "hooks":
        return rules_file(spec, path, shown)
    if not path.is_file():
        raise ConfigParseError(f"{shown}: not a Cline hook file (a file named after its event)", path=shown)
    out = FileImport()
    event = event_of(path)
    if event is None:
        out.refused.append(entry_refusal(spec, "hook file", shown, "name",
                                         f"Cline runs a hook file only when it is named after its event (one of "
                                         f"{', '.join(sorted(_EVENTS.values()))}) with no extension or one of "
                                         f"{', '.join(e for e in EXTENSIONS if e)}", "UNKNOWN_EVENT"))
        return out
    row = spec.row(event)
    if row is None:
        code, why = no_row(spec, event)
        out.refused.append(entry_refusal(spec, f"{event} hook", shown, "name", why, code, event))
        return out
    handler = {"type": "command", "command": command_of(path)}
    out.add(judged(accept, spec, Slot(event, row, None, handler, "file", "file"), shown))
    return out


#: Cline runs no other vendor's hook files.
RUNS_HOOKS_OF: Mapping[str, tuple[tuple[str, ...], str]] = MappingProxyType({})


def rules_files(root: Path) -> list[Path]:
    rules = root / ".clinerules"
    own = sorted(p for p in rules.glob("*.md") if p.is_file()) if rules.is_dir() else []
    return own + project_rules.existing(root, "AGENTS.md")


def extra_files(root: Path) -> list[Path]:
    return []


#: A hook file runs in the session's folder: the project above its ``.clinerules`` or ``.cline``.
hook_place = places.in_folders(".clinerules", ".cline")
