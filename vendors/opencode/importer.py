"""OpenCode: ``opencode.json`` / ``opencode.jsonc``, plugin files, and ``AGENTS.md``.

OpenCode hooks are TypeScript callbacks inside OpenCode's runtime, so nothing in its config becomes
a hook here. What a config yields (§4.1, §4.5):

* ``instructions``: local paths and globs, relative to the config's folder, become one
  ImportedRules; a local entry that matches no file is refused (SOURCE_MISSING: OpenCode would
  load nothing from it either); an ``http(s)`` URL is refused (REMOTE_SOURCE) and never fetched;
* ``plugin`` entries (npm names, ``[name, options]`` pairs, ``file:`` URLs) and plugin files
  (``.opencode/plugins/*.ts`` …) become :class:`ImportedPlugin` entries for the plugin host, which
  loads them when they are registered (trusted files only, like hooks); a file kind OpenCode's plugin
  folders do not load (``.mjs``, ``.tsx`` …) is refused with the vendor's plugin-runtime reason;
* ``experimental.hook`` commands (``file_edited``, ``session_completed``) have no row in the
  OpenCode table: refused (UNSUPPORTED_CONFIG).

Both file names are read as JSONC, as OpenCode reads them: ``//`` and ``/* */`` comments and
trailing commas are accepted (blanked, so error positions stay true); anything else must be JSON.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from compat_adapter.errors import CompatError, ConfigParseError, RulesSourceMissing
from compat_adapter.importers import rules as project_rules
from compat_adapter.importers.common import (
    FileImport,
    ImportedPlugin,
    ImportedRules,
    Refused,
    absolute,
    freeze,
    rules_file,
    shape_error,
)
from compat_adapter.importers import places
from compat_adapter.importers import solo
from compat_adapter.importers.loaders import load_jsonc
from compat_adapter.model import HookPlace, VendorSpec
from compat_adapter.permissions.read import read_block
from compat_adapter.rules import resolve_sources

__all__ = ("RUNS_HOOKS_OF", "extra_files", "hook_place", "rules_files", "PLUGIN_SUFFIXES", "import_file", "project_files")

CONFIGS = ("opencode.json", "opencode.jsonc")
#: Project plugin folders: `plugins/` now, `plugin/` in older builds (§4.1).
PLUGIN_DIRS = (".opencode/plugins", ".opencode/plugin")
PLUGIN_SUFFIXES = frozenset({".ts", ".js", ".mjs", ".cjs", ".mts", ".cts", ".tsx", ".jsx"})
#: What OpenCode's plugin folders load (the plugin host loads the same).
HOSTED_SUFFIXES = frozenset({".ts", ".js"})


def project_files(root: Path) -> list[Path]:
    # Vendor order: project rules, then the config (whose instructions are combined with them,
    # and whose plugins load before the plugin folder's), then the plugin folder.
    files = rules_files(root)
    files += [root / name for name in CONFIGS if (root / name).is_file()]
    # OpenCode globs both plugin folders at once and sorts the paths as strings, so `plugin/b.ts`
    # starts loading before `plugins/a.ts` (its loads then run concurrently).
    files += sorted((p for folder in PLUGIN_DIRS if (root / folder).is_dir() for p in (root / folder).iterdir()
                     if p.is_file() and p.suffix.lower() in PLUGIN_SUFFIXES), key=str)
    return files


def import_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    suffix = path.suffix.lower()
    if suffix == ".md":
        return rules_file(spec, path, shown)
    if suffix in (".json", ".jsonc"):
        return _config(spec, path, shown)
    if suffix in PLUGIN_SUFFIXES:
        if not path.is_file():
            raise ConfigParseError(f"{shown}: no such file", path=shown)
        if suffix not in HOSTED_SUFFIXES:
            return FileImport(refused=[Refused(vendor=spec.id, what=f"plugin file {path.name}",
                                               reason=spec.plugin_runtime, origin=shown,
                                               code="PLUGIN_RUNTIME")])
        full = absolute(path)
        return FileImport(plugins=[ImportedPlugin(vendor=spec.id, kind="file", name=str(full),
                                                  root=str(_plugin_root(full)), origin=shown)])
    raise ConfigParseError(f"{shown}: not an {spec.id} file this importer reads (opencode.json, "
                           "opencode.jsonc, a plugin .ts/.js file or a rules .md)", path=shown)


def _plugin_root(path: Path) -> Path:
    """The project of a plugin file: the folder holding ``.opencode`` for one in a plugin folder."""
    if path.parent.name in ("plugin", "plugins") and path.parent.parent.name == ".opencode":
        return path.parent.parent.parent
    return path.parent


def _config(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    data = load_jsonc(path, shown)
    out = FileImport()
    _instructions(spec, data.get("instructions"), absolute(path).parent, shown, out)
    _plugins(spec, data.get("plugin"), absolute(path).parent, shown, out)
    experimental = data.get("experimental")
    if isinstance(experimental, Mapping):
        _experimental_hooks(spec, experimental.get("hook"), shown, out)
    tools = data.get("tools")
    if isinstance(tools, Mapping) and tools:
        # The legacy switches: OpenCode turns `"bash": false` into a deny of every bash call (write,
        # edit and patch into `edit`), before the config's own permission rules.
        switched = {("edit" if k in ("write", "edit", "patch") else k): ("allow" if v else "deny")
                    for k, v in tools.items() if isinstance(v, bool)}
        read_block(spec, switched, path=path, shown=shown, place="tools", scope="project", out=out)
    if "permission" in data:
        # OpenCode's permission rules, through its rule language (vendors/opencode/permission_language.py).
        read_block(spec, data["permission"], path=path, shown=shown, place="permission", scope="project", out=out)
    agents = data.get("agent")
    if isinstance(agents, Mapping):
        for name, agent in agents.items():
            if not isinstance(agent, Mapping) or "permission" not in agent:
                continue
            if name == "build":
                # The default agent's own rules come after the config's (its ruleset is merged last).
                read_block(spec, agent["permission"], path=path, shown=shown, place="agent.build.permission",
                           scope="project", out=out)
            else:
                out.refused.append(Refused(vendor=spec.id, what=f"agent {name} permission rules",
                                           origin=f"{shown}:agent.{name}.permission", code="UNSUPPORTED_CONFIG",
                                           reason=f"rules of OpenCode's {name!r} agent apply only while that agent "
                                                  "runs; the host runs no such agent, so they are not enforced"))
    return out


def _instructions(spec: VendorSpec, entries: Any, base: Path, shown: str, out: FileImport) -> None:
    if entries is None:
        return
    if not isinstance(entries, list):
        raise shape_error(shown, "instructions", "a list of paths, globs or URLs", entries)
    local: list[str] = []
    for i, entry in enumerate(entries):
        place = f"instructions[{i}]"
        if not isinstance(entry, str) or not entry.strip():
            raise shape_error(shown, place, "a non-empty string", entry)
        origin = f"{shown}:{place}"
        if urlparse(entry).scheme in ("http", "https"):
            out.refused.append(Refused(
                vendor=spec.id, what=f"instructions URL {entry}", origin=origin, code="REMOTE_SOURCE",
                reason="OpenCode fetches this URL at start; rules are never fetched here, so save "
                       "it as a local file and list that instead"))
            continue
        source = os.path.expanduser(entry) if entry.startswith("~") else entry
        try:
            resolve_sources([source], base)
        except RulesSourceMissing:
            out.refused.append(Refused(
                vendor=spec.id, what=f"instructions entry {entry}", origin=origin,
                code="SOURCE_MISSING",
                reason=("matches no file" + ("" if Path(source).is_absolute() else f" under {base}")
                        + "; OpenCode would load nothing from it")))
            continue
        except CompatError as exc:
            raise ConfigParseError(f"{shown}:{place}: {exc.message}", path=shown,
                                   place=place) from exc
        local.append(source)
    if local:
        out.rules.append(ImportedRules(vendor=spec.id, sources=tuple(local), base_dir=str(base),
                                       origin=f"{shown}:instructions"))


def _plugins(spec: VendorSpec, entries: Any, base: Path, shown: str, out: FileImport) -> None:
    if entries is None:
        return
    if not isinstance(entries, list):
        raise shape_error(shown, "plugin", "a list of plugin names", entries)
    for i, entry in enumerate(entries):
        place = f"plugin[{i}]"
        # Newer builds accept [name, options]; the name is what the user recognises.
        name = entry[0] if isinstance(entry, list) and entry and isinstance(entry[0], str) else entry
        if not isinstance(name, str):
            raise shape_error(shown, place, "a plugin name or a [name, options] pair", entry)
        options = entry[1] if isinstance(entry, list) and len(entry) > 1 and isinstance(entry[1], Mapping) \
            else None
        kind, target = "npm", name
        if name.startswith("file:"):
            local = Path(unquote(urlparse(name).path))
            kind, target = "file", str(local if local.is_absolute() else base / local)
        out.plugins.append(ImportedPlugin(vendor=spec.id, kind=kind, name=target, root=str(base),
                                          origin=f"{shown}:{place}",
                                          options=freeze(options) if options is not None else None))


_NO_ROW = ("OpenCode's experimental config hooks have no row in the OpenCode table, so this command "
           "is not run here; declare it as a command hook on an OpenCode event instead")


def _experimental_hooks(spec: VendorSpec, hooks: Any, shown: str, out: FileImport) -> None:
    if not isinstance(hooks, Mapping):
        return
    for key, value in hooks.items():
        place = f"experimental.hook.{key}"
        # file_edited maps a file extension to a list of commands; session_completed is a list.
        groups = value.items() if isinstance(value, Mapping) else [(None, value)]
        for ext, items in groups:
            at = place if ext is None else f"{place}[{ext!r}]"
            listed = items if isinstance(items, list) else [items]
            for i, item in enumerate(listed):
                command = item.get("command") if isinstance(item, Mapping) else None
                text = " ".join(map(str, command)) if isinstance(command, list) else str(command or "")
                out.refused.append(Refused(
                    vendor=spec.id, what=f"experimental {key} command {text}".rstrip(),
                    reason=_NO_ROW, origin=f"{shown}:{at}[{i}]", code="UNSUPPORTED_CONFIG"))


#: OpenCode runs no other vendor's hook files.
RUNS_HOOKS_OF = solo.NO_OTHER_VENDOR


def rules_files(root: Path) -> list[Path]:
    """§4.5: AGENTS.md, else CLAUDE.md. ``instructions`` entries come from opencode.json itself."""
    return project_rules.first(root, "AGENTS.md", "CLAUDE.md")


def hook_place(path: Path) -> HookPlace:
    """A config's or plugin's project is the folder above ``.opencode`` (or the config's own)."""
    return places.hook_place(path, folders=(".opencode",))


def extra_files(root: Path) -> list[Path]:
    """The config under ``.opencode/``, which OpenCode also reads."""
    return [root / name for name in (".opencode/opencode.json", ".opencode/opencode.jsonc")
            if (root / name).is_file()]
