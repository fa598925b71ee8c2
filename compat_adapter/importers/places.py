"""Where a hook file sits, as its vendor reads it: the project folder its hooks run in, and the
plugin it belongs to when it is a plugin's hooks file.

The mechanics are shared; the facts are each vendor's (its importer passes its own
:class:`PluginLayout` and project folders). A plugin is found the way the vendors find one: a
manifest folder (``.claude-plugin/plugin.json``) beside ``hooks/hooks.json``, or a manifest whose
``hooks`` names another file, or a marketplace (``<marker>/marketplace.json``) whose plugins live in
sub-folders (``"source": "./plugins/guard"``), with or without a manifest of their own.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compat_adapter.model import HookPlace

__all__ = ("PluginLayout", "hook_place", "in_folders", "plugin_hook_files", "plugin_of")

#: The hooks file a plugin has when its manifest names none.
DEFAULT_HOOKS = "hooks/hooks.json"
#: A manifest or marketplace larger than this is not read (a real one is a few KB).
_MAX_MANIFEST = 1 << 20


@dataclass(frozen=True, slots=True)
class PluginLayout:
    """How one vendor lays a plugin out: the manifest folders it accepts, in its order (``""``: the
    manifest sits in the plugin folder itself, as a Gemini extension's ``gemini-extension.json``),
    and its marketplace file (None: the vendor has no marketplaces)."""

    markers: tuple[str, ...]
    manifest: str = "plugin.json"
    marketplace: str | None = "marketplace.json"


def _json(path: Path) -> Mapping[str, Any] | None:
    try:
        if not path.is_file() or path.stat().st_size > _MAX_MANIFEST:
            return None
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _manifest(folder: Path, layout: PluginLayout) -> Mapping[str, Any] | None:
    for marker in layout.markers:
        data = _json(folder / marker / layout.manifest)
        if data is not None:
            return data
    return None


def _hooks_paths(folder: Path, manifest: Mapping[str, Any] | None) -> list[Path]:
    """The hooks files of a plugin folder: the manifest's ``hooks`` (a path or a list of paths),
    and the default ``hooks/hooks.json``, which the vendors read either way."""
    named = manifest.get("hooks") if manifest else None
    paths = [named] if isinstance(named, str) else [p for p in named if isinstance(p, str)] \
        if isinstance(named, list) else []
    out = [Path(os.path.normpath(folder / p)) for p in paths if not os.path.isabs(p)]
    out.append(folder / DEFAULT_HOOKS)
    return list(dict.fromkeys(out))


def _marketplace_plugins(root: Path, layout: PluginLayout) -> Iterator[tuple[Path, str | None]]:
    """(plugin folder, its name) for each local plugin of the marketplaces in ``root``."""
    if layout.marketplace is None:
        return
    for marker in layout.markers:
        market = _json(root / marker / layout.marketplace)
        if market is None:
            continue
        meta = market.get("metadata")
        base = str(meta["pluginRoot"]) if isinstance(meta, Mapping) and isinstance(meta.get("pluginRoot"), str) else ""
        for entry in market.get("plugins") or ():
            if not isinstance(entry, Mapping):
                continue
            source = entry.get("source")
            if not isinstance(source, str) or "://" in source or os.path.isabs(source):
                continue  # a git or remote source is fetched by the vendor, never here
            folder = Path(os.path.normpath(root / (source if source.startswith(".") else os.path.join(base, source))))
            name = entry.get("name")
            yield folder, name if isinstance(name, str) else None


def plugin_hook_files(root: Path, layout: PluginLayout) -> list[Path]:
    """The plugin hooks files found in ``root``: ``root`` itself as a plugin, and each local
    plugin of a marketplace in ``root``; only those that exist."""
    out: list[Path] = []
    manifest = _manifest(root, layout)
    if manifest is not None:
        out += _hooks_paths(root, manifest)
    for folder, _ in _marketplace_plugins(root, layout):
        out += _hooks_paths(folder, _manifest(folder, layout))
    return [p for p in dict.fromkeys(out) if p.is_file()]


def plugin_of(path: Path, layout: PluginLayout) -> tuple[Path, str] | None:
    """(plugin folder, plugin name) when ``path`` is a plugin's hooks file, else None."""
    full = Path(os.path.abspath(path))
    for folder in list(full.parents)[:4]:  # hooks/hooks.json, or a manifest's own path a few levels down
        manifest = _manifest(folder, layout)
        if manifest is not None and full in _hooks_paths(folder, manifest):
            name = manifest.get("name")
            return folder, name if isinstance(name, str) and name else folder.name
    # A marketplace plugin without a manifest of its own (the marketplace entry describes it).
    for above in list(full.parents)[2:6]:
        for folder, name in _marketplace_plugins(above, layout):
            if full in _hooks_paths(folder, _manifest(folder, layout)):
                return folder, name or folder.name
    return None


def hook_place(path: Path, *, folders: tuple[str, ...], layout: PluginLayout | None = None,
               hook_dir: bool = False) -> HookPlace:
    """Where the hooks of ``path`` run, for a vendor whose project files live in ``folders``
    (``.claude`` …): the folder above the nearest of them (not the nearest ``.git``: the vendor
    roots a nested project's hooks at that project), the plugin ``path`` belongs to, and the
    hooks file's own folder when the vendor gives it (``hook_dir``)."""
    full = Path(os.path.abspath(path))
    root = next((str(f.parent) for f in full.parents if f.name in folders), None)
    found = plugin_of(full, layout) if layout is not None else None
    return HookPlace(root=root if found is None else None,
                     plugin_root=str(found[0]) if found else None, plugin_name=found[1] if found else None,
                     hook_dir=str(full.parent) if hook_dir else None)


def in_folders(*folders: str) -> Callable[[Path], HookPlace]:
    """An importer's ``hook_place`` for a vendor whose project files live in ``folders`` and that
    has no plugins: a file's hooks run in the project above the nearest of them (:func:`hook_place`)."""
    def place(path: Path) -> HookPlace:
        return hook_place(path, folders=folders)
    return place
