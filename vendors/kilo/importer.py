"""Kilo: ``kilo.json``/``kilo.jsonc`` (and the legacy ``opencode.json``/``opencode.jsonc``), plugin
files in ``.kilo/`` and ``.kilocode/``, and ``AGENTS.md``.

Kilo reads OpenCode's config shape (it is an OpenCode fork), so a config and a plugin file are read
by OpenCode's importer as they are (:func:`vendors.opencode.importer.import_file`: instructions,
plugins, experimental hooks; permission rules through this unit's language, which is none yet, so
they are refused by name). What Kilo changes are the places, read off ``kilo`` 7.7.9 (its config
reference and its loader): the project configs ``kilo.json``, ``kilo.jsonc``, ``opencode.json``,
``opencode.jsonc``; the config folders ``.kilo`` and ``.kilocode`` (``.opencode`` is not loaded), each
with the same four configs and ``{plugin,plugins}/*.{ts,js}``; the first of ``AGENTS.md``,
``CLAUDE.md``, ``CONTEXT.md`` found upwards as the project's rules.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from compat_adapter.vendor import FileImport, HookPlace, VendorSpec, places, project_rules, solo
from vendors.opencode import importer as opencode

__all__ = ("CONFIGS", "PLUGIN_DIRS", "PLUGIN_SUFFIXES", "RUNS_HOOKS_OF", "extra_files", "hook_place",
           "import_file", "project_files", "rules_files")

CONFIGS = ("kilo.json", "kilo.jsonc", "opencode.json", "opencode.jsonc")
#: Kilo's config folders, canonical first; OpenCode's `.opencode` is not one of them.
FOLDERS = (".kilo", ".kilocode")
PLUGIN_DIRS = tuple(f"{folder}/{sub}" for folder in FOLDERS for sub in ("plugins", "plugin"))
PLUGIN_SUFFIXES = opencode.PLUGIN_SUFFIXES
#: Kilo runs no other vendor's hook files.
RUNS_HOOKS_OF = solo.NO_OTHER_VENDOR


def project_files(root: Path) -> list[Path]:
    # As OpenCode orders them: the rules, the configs, then the plugin files of every Kilo folder,
    # globbed at once and sorted as strings.
    plugins = [p for folder in PLUGIN_DIRS for p in sorted((root / folder).glob("*"))
               if p.suffix.lower() in PLUGIN_SUFFIXES and p.is_file()]
    return [*rules_files(root), *(root / name for name in CONFIGS if (root / name).is_file()),
            *sorted(plugins, key=str)]


def import_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    out = opencode.import_file(spec, path, shown)
    # OpenCode's importer knows `.opencode` only: a plugin in a Kilo folder belongs to the project
    # above that folder (its `directory` when the plugin host loads it).
    out.plugins = [dataclasses.replace(p, root=str(_plugin_root(Path(p.name)))) if p.kind == "file" else p
                   for p in out.plugins]
    return out


def _plugin_root(path: Path) -> Path:
    if path.parent.name in ("plugin", "plugins") and path.parent.parent.name in FOLDERS:
        return path.parent.parent.parent
    return path.parent


def rules_files(root: Path) -> list[Path]:
    """The first of AGENTS.md, CLAUDE.md, CONTEXT.md (Kilo stops at the first it finds)."""
    return project_rules.first(root, "AGENTS.md", "CLAUDE.md", "CONTEXT.md")


def hook_place(path: Path) -> HookPlace:
    """A config's or plugin's project is the folder above ``.kilo``/``.kilocode`` (or the config's own)."""
    return places.hook_place(path, folders=FOLDERS)


def extra_files(root: Path) -> list[Path]:
    """The configs inside the config folders, which Kilo also reads."""
    return [root / folder / name for folder in FOLDERS for name in CONFIGS if (root / folder / name).is_file()]
