"""Gemini CLI: ``.gemini/settings.json`` hook tables and ``GEMINI.md`` rules (or the names the
settings' ``context.fileName`` gives).

A settings file is read for ``hooks`` and ``hooksConfig`` (0.61.0's settings schema); every other
key (``security``, ``model``, ``mcpServers`` …) is ignored. ``hooksConfig.enabled: false`` switches
every hook off, and a hook named in ``hooksConfig.disabled`` (by its ``name``, else its command)
never runs. Inside ``hooks`` the keys ``enabled``, ``disabled`` and ``notifications`` are settings,
not events, as Gemini skips them. The group shape is Claude's (``{matcher, sequential, hooks: […]}``);
a group's ``sequential: true`` makes the event's whole run sequential, as Gemini's planner does;
Gemini discards a handler with no ``type`` and one whose group has no ``hooks`` list, so those are
refused. ``timeout`` is in milliseconds and becomes seconds here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from compat_adapter.errors import ConfigParseError
from compat_adapter.importers import places
from compat_adapter.importers import solo
from compat_adapter.importers import rules as project_rules
from compat_adapter.importers.common import (
    FileImport,
    ImportedHook,
    Refused,
    Slot,
    accept,
    entry_refusal,
    handler_type,
    import_events,
    in_sequence,
    refuse,
    rules_file,
)
from compat_adapter.importers.loaders import load_json
from compat_adapter.model import HookPlace, VendorSpec
from compat_adapter.permissions.read import read_block

__all__ = ("EXTENSIONS", "RUNS_HOOKS_OF", "SETTINGS", "classify", "context_names", "extra_files", "hook_place",
           "hydrated", "import_file", "project_files", "rules_files", "settings_file")

#: The project settings file (user and system settings are never searched).
SETTINGS = ".gemini/settings.json"
#: The project policy folder Gemini 0.61.0 does not read (listed, never read).
POLICIES = ".gemini/policies"
#: Keys of ``hooks`` that are settings, not events (HOOKS_CONFIG_FIELDS).
_CONFIG_KEYS = frozenset({"enabled", "disabled", "notifications"})
#: Gemini's context file name when the settings name none.
DEFAULT_CONTEXT = "GEMINI.md"


def project_files(root: Path) -> list[Path]:
    settings = root / SETTINGS
    policies = sorted((root / POLICIES).glob("*.toml")) if (root / POLICIES).is_dir() else []
    return ([settings] if settings.is_file() else []) + rules_files(root) + policies


def import_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    suffix = path.suffix.lower()
    if suffix == ".json":
        return settings_file(spec, path, shown)
    if suffix == ".toml" and path.parent.name == "policies":
        # Listed, never read: Gemini CLI 0.61.0 does not load a project's policy folder.
        return FileImport(refused=[Refused(
            vendor=spec.id, what=f"policy file {path.name}", origin=shown, code="SKIPPED_BY_VENDOR",
            reason="Gemini CLI 0.61.0 does not read a project's .gemini/policies folder (its loader is "
                   "switched off; measured: a deny rule there did nothing), so its rules guard nothing "
                   "there or here; a user's ~/.gemini/policies is read by Gemini and not imported here")])
    if suffix in (".md", ".txt", ""):
        return rules_file(spec, path, shown)
    raise ConfigParseError(f"{shown}: not a {spec.id} file this importer reads (a settings .json or a "
                           "context .md)", path=shown)


def settings_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    """One Gemini settings file, or an extension's ``hooks/hooks.json``: its ``hooks`` table judged
    handler by handler (an extension's with its variables filled in, as Gemini loads it)."""
    data = load_json(path, shown)
    out = FileImport()
    if path.name == EXTENSIONS.manifest:
        # An extension's manifest: its `excludeTools` take tools from the model while it is active.
        if "excludeTools" in data:
            read_block(spec, data["excludeTools"], path=path, shown=shown, place="excludeTools", scope="extension",
                       out=out)
        return out
    extension = places.plugin_of(path, EXTENSIONS)
    if extension is not None:
        # loadExtensionHooks reads only `hooks`, hydrated: no hooksConfig of an extension's counts.
        data = {"hooks": hydrated(data.get("hooks"), extension[0])} if "hooks" in data else {}
    if "tools" in data:
        # Gemini's permission rules (tools.exclude / allowed / core / confirmationRequired), through
        # its rule language (vendors/gemini/permission_language.py).
        read_block(spec, data["tools"], path=path, shown=shown, place="tools", scope="project", out=out)
    if "policyPaths" in data or "adminPolicyPaths" in data:
        key = "policyPaths" if "policyPaths" in data else "adminPolicyPaths"
        out.refused.append(Refused(vendor=spec.id, what=f"`{key}`", origin=f"{shown}:{key}", code="UNSUPPORTED_CONFIG",
                                   reason="the policy files a settings file names are not read here: none of "
                                          "their rules is enforced on the host"))
    config = data.get("hooksConfig")
    disabled: frozenset[str] = frozenset()
    if config is not None and not isinstance(config, Mapping):
        out.refused.append(entry_refusal(spec, "hooksConfig", shown, "hooksConfig",
                                         "expected an object (enabled, disabled, notifications)"))
    elif config is not None:
        enabled = config.get("enabled", True)
        if not isinstance(enabled, bool):
            out.refused.append(entry_refusal(spec, "hooksConfig.enabled", shown, "hooksConfig.enabled",
                                             f"expected true or false, found {enabled!r}"))
        else:
            out.hooks_switch = (not enabled, f"{shown}:hooksConfig.enabled")
        names = config.get("disabled", [])
        if isinstance(names, list):
            disabled = frozenset(n for n in names if isinstance(n, str))
    if "hooks" not in data:
        return out
    table = data["hooks"]
    if isinstance(table, Mapping):
        table = {k: v for k, v in table.items() if k not in _CONFIG_KEYS}

    def decide(spec: VendorSpec, slot: Slot, shown: str) -> ImportedHook | Refused:
        return classify(spec, slot, shown, disabled)

    import_events(spec, table, shown, "hooks", out, decide)
    return out


def classify(spec: VendorSpec, slot: Slot, shown: str, disabled: frozenset[str] = frozenset()
             ) -> ImportedHook | Refused:
    h = slot.handler
    if "type" not in h:
        return refuse(spec, slot, shown, "SKIPPED_BY_VENDOR",
                      "Gemini discards a hook configuration with no type (it runs only type \"command\")")
    kind = handler_type(slot, shown)
    if kind != "command":
        return refuse(spec, slot, shown, "INVALID_HANDLER",
                      f"{kind!r} handlers do not run from a Gemini settings file: it runs command hooks")
    name = h.get("name") or h.get("command")
    if isinstance(name, str) and name in disabled:
        return refuse(spec, slot, shown, "SKIPPED_BY_VENDOR",
                      f"{name!r} is listed in hooksConfig.disabled, so Gemini never runs it")
    return in_sequence(slot, accept(spec, replace(slot, handler=_seconds(h, shown, slot.place)), shown))


def _seconds(h: Mapping[str, Any], shown: str, place: str) -> Mapping[str, Any]:
    """The handler with its timeout in seconds (Gemini writes milliseconds)."""
    if "timeout" not in h:
        return h
    ms = h["timeout"]
    if isinstance(ms, bool) or not isinstance(ms, int | float) or not math.isfinite(ms) or ms <= 0:
        raise ConfigParseError(f"{shown}:{place}.timeout: a timeout is a positive number of milliseconds, "
                               f"not {ms!r}", path=shown, place=f"{place}.timeout")
    return {**h, "timeout": ms / 1000}


#: Gemini CLI runs no other vendor's hook files (it reads no .claude folder).
RUNS_HOOKS_OF = solo.NO_OTHER_VENDOR


def context_names(root: Path) -> tuple[str, ...]:
    """The context file names of the project's settings (``context.fileName``: a string or a list),
    else ``GEMINI.md``. A settings file that cannot be read names none of its own."""
    settings = root / SETTINGS
    try:
        data = load_json(settings, SETTINGS) if settings.is_file() else {}
    except ConfigParseError:
        data = {}
    context = data.get("context")
    names = context.get("fileName") if isinstance(context, Mapping) else None
    given = [names] if isinstance(names, str) else names if isinstance(names, list) else []
    # Names are files in the project: an absolute path or one leaving it is not searched.
    inside = tuple(n for n in given if isinstance(n, str) and n.strip() and not Path(n).is_absolute()
                   and ".." not in Path(n).parts)
    return inside or (DEFAULT_CONTEXT,)


def rules_files(root: Path) -> list[Path]:
    """The project's context files at its root, in the settings' order. Gemini also reads the same
    names in subfolders and up to the repository root; only the project root is searched here."""
    return project_rules.existing(root, *context_names(root))


#: A Gemini CLI extension: ``gemini-extension.json`` in its own folder, its hooks in
#: ``hooks/hooks.json`` beside it (0.61.0's loadExtensionHooks); no marketplaces.
EXTENSIONS = places.PluginLayout(markers=("",), manifest="gemini-extension.json", marketplace=None)
#: ``${name}`` in an extension's hooks file, filled in when Gemini loads it (hydrateString).
_VARIABLE = re.compile(r"\$\{(.*?)\}")
#: Keys recursivelyHydrateStrings drops from an object.
_DROPPED_KEYS = frozenset({"__proto__", "constructor", "prototype"})


def hydrated(value: Any, extension: Path) -> Any:
    """``value`` with every string's ``${extensionPath}``, ``${/}`` and ``${pathSeparator}`` filled in
    as Gemini fills them; an unknown name stays as written. ``${workspacePath}`` (the session's
    folder, unknown until a session runs) becomes ``${GEMINI_PROJECT_DIR}``, which the hook's shell
    expands to that same folder when the command runs."""
    if isinstance(value, str):
        known = {"extensionPath": str(extension), "workspacePath": "${GEMINI_PROJECT_DIR}", "/": "/",
                 "pathSeparator": "/"}
        return _VARIABLE.sub(lambda m: known.get(m.group(1), m.group(0)), value)
    if isinstance(value, list):
        return [hydrated(v, extension) for v in value]
    if isinstance(value, Mapping):
        return {k: hydrated(v, extension) for k, v in value.items() if k not in _DROPPED_KEYS}
    return value


def extra_files(root: Path) -> list[Path]:
    """A Gemini CLI extension's ``hooks/hooks.json`` when the folder is an extension (the folder a
    user installs with ``gemini extensions install`` or ``link``), and its manifest when it
    excludes tools."""
    manifest = root / EXTENSIONS.manifest
    excludes = manifest.is_file() and '"excludeTools"' in manifest.read_text(errors="replace")
    return places.plugin_hook_files(root, EXTENSIONS) + ([manifest] if excludes else [])


def hook_place(path: Path) -> HookPlace:
    """A settings file's hooks run in the project above its ``.gemini`` folder (Gemini runs them
    in the session's folder, ``input.cwd``), and so do an extension's, which belong to it."""
    return places.hook_place(path, folders=(".gemini",), layout=EXTENSIONS)
