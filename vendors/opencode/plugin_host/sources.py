"""Which OpenCode plugins a project has, in OpenCode's load order (vendor-protocols §4.1).

A project's plugins are the npm names (or ``[name, options]`` pairs, or ``file:`` URLs) that its
``opencode.json``/``opencode.jsonc`` lists under ``plugin``, then the files of
``.opencode/plugin/`` and ``.opencode/plugins/`` together, sorted by path as OpenCode sorts them. OpenCode also loads a
global config and a global plugin folder; this host reads the project only (a listed loss).
Pure: nothing here loads or runs a plugin.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote, urlparse

from compat_adapter.vendor import load_jsonc, thaw
from vendors.opencode.table import OPENCODE

__all__ = ("CONFIGS", "PLUGIN_DIRS", "PLUGIN_SUFFIXES", "PluginSource", "project_sources")

CONFIGS = ("opencode.json", "opencode.jsonc")
PLUGIN_DIRS = (".opencode/plugins", ".opencode/plugin")
#: The files OpenCode's plugin folders load.
PLUGIN_SUFFIXES = frozenset({".ts", ".js"})


@dataclass(frozen=True, slots=True)
class PluginSource:
    """One plugin to load: a file of the project or an npm package the config names."""

    id: str
    """Stable name: the file's path relative to the project, or the npm spec."""
    kind: Literal["file", "npm"]
    path: str | None = None
    spec: str | None = None
    options: Mapping[str, Any] | None = None
    origin: str = ""
    """Where it was named (config place or file), for messages."""
    vendor: str = OPENCODE.id
    """The vendor whose project named it (OpenCode, or a fork whose plugins are OpenCode's): its
    rows are graded and mounted under that vendor's id and table."""

    def wire(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "path": self.path, "spec": self.spec,
                "options": thaw(self.options) if self.options is not None else None}


def project_sources(root: Path) -> tuple[PluginSource, ...]:
    """The project's plugins in load order: config entries first, then the plugin folders."""
    out: list[PluginSource] = []
    for name in CONFIGS:
        config = root / name
        if config.is_file():
            out += _config_sources(root, config)
    # One glob over both folders, the paths sorted as strings: `plugin/b.ts` before `plugins/a.ts`
    # (OpenCode starts the loads in that order, then runs them concurrently).
    files = (p for folder in PLUGIN_DIRS if (root / folder).is_dir() for p in (root / folder).iterdir()
             if p.is_file() and p.suffix in PLUGIN_SUFFIXES)
    out += [file_source(root, path) for path in sorted(files, key=str)]
    return tuple(out)


def file_source(root: Path, path: Path, *, options: Mapping[str, Any] | None = None,
                origin: str | None = None, vendor: str = OPENCODE.id) -> PluginSource:
    """A plugin file; its id is its path relative to the project when it is inside it."""
    root, full = root.resolve(), path.resolve()
    shown = str(full.relative_to(root)) if full.is_relative_to(root) else str(full)
    return PluginSource(id=shown, kind="file", path=str(full), options=options, origin=origin or shown,
                        vendor=vendor)


def _config_sources(root: Path, config: Path) -> list[PluginSource]:
    data = load_jsonc(config, config.name)
    entries = data.get("plugin")
    if not isinstance(entries, list):
        return []
    out = []
    for i, entry in enumerate(entries):
        spec, options = entry, None
        if isinstance(entry, list) and entry and isinstance(entry[0], str):
            spec = entry[0]
            options = entry[1] if len(entry) > 1 and isinstance(entry[1], Mapping) else None
        if not isinstance(spec, str) or not spec.strip():
            continue
        origin = f"{config.name}:plugin[{i}]"
        if spec.startswith("file:"):
            path = Path(unquote(urlparse(spec).path))
            path = path if path.is_absolute() else (root / path)
            out.append(PluginSource(id=spec, kind="file", path=str(path.resolve()), options=options,
                                    origin=origin))
        else:
            out.append(PluginSource(id=spec, kind="npm", spec=spec, options=options, origin=origin))
    return out
