"""OpenAI Codex: ``.codex/hooks.json`` and the ``[hooks]`` tables of ``.codex/config.toml``
(``[[hooks.PreToolUse]]`` groups with ``[[hooks.PreToolUse.hooks]]`` handlers), and
``AGENTS.md`` / ``.codex/rules/*.rules`` rules files.

Codex's own load behaviour is kept where it decides what runs (§2.1, §2.2, §2.5):

* a ``hooks.json`` with any top-level key other than ``description`` and ``hooks`` (even
  ``$schema``) loads none of its hooks in Codex (measured on 0.169.0): the file imports, and each
  hook is a SKIPPED_BY_VENDOR row saying why;
* a ``requirements.toml`` holds managed hooks: its ``[hooks]`` table also names ``managed_dir`` /
  ``windows_managed_dir`` (settings, not events), and ``allow_managed_hooks_only = true`` skips
  every other file's hooks of the import;
* ``prompt`` and ``agent`` handlers and ``async: true`` handlers are parsed and skipped by Codex,
  so they are refused with SKIPPED_BY_VENDOR;
* a Claude event Codex does not dispatch (Notification, PostToolUseFailure …) loads silently in
  Codex and never runs: SKIPPED_BY_VENDOR. A name that no vendor uses is an UnknownEvent;
* a matcher that does not compile drops its whole group in Codex (with a warning): one
  SKIPPED_BY_VENDOR for the group;
* ``[features] hooks = false`` (or the older ``codex_hooks``) in a config.toml switches every
  hook of the import off.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from compat_adapter.catalog import resolve_vendor
from compat_adapter.declare import REFUSED_HANDLER_TYPES
from compat_adapter.errors import CompatError, ConfigParseError, InvalidMatcher
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
    no_row,
    refuse,
    refuse_slots,
    rules_file,
)
from compat_adapter.importers import places
from compat_adapter.importers import solo
from compat_adapter.importers.loaders import load_json, load_toml
from compat_adapter.importers.places import PluginLayout
from compat_adapter.model import HookPlace, VendorSpec

__all__ = ("PLUGINS", "RUNS_HOOKS_OF", "extra_files", "hook_place", "rules_files", "classify", "import_file", "project_files")

#: The two hook forms of the project layer; Codex merges them when both exist (§2.1).
CONFIGS = (".codex/hooks.json", ".codex/config.toml")
#: Managed hooks (admin-enforced): a requirements.toml `[hooks]` table (§2.1).
REQUIREMENTS = (".codex/requirements.toml",)
_ROOT_KEYS = frozenset({"description", "hooks"})


def project_files(root: Path) -> list[Path]:
    return [root / name for name in (*CONFIGS, *REQUIREMENTS) if (root / name).is_file()] + \
        rules_files(root)


def import_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    suffix = path.suffix.lower()
    if suffix in (".md", ".rules"):
        return rules_file(spec, path, shown)
    if suffix == ".json":
        data = load_json(path, shown)
        extra = sorted(set(data) - _ROOT_KEYS)
        out = _hooks(spec, data, shown)
        if extra:
            # Measured on Codex 0.169.0 (vendor lane): a project hooks.json whose root also has
            # `$schema` loads none of its hooks. The file still imports: each hook is one row.
            reason = (f"Codex refuses a hooks.json whose root has a key other than description and "
                      f"hooks ({', '.join(extra)}), so none of this file's hooks run in Codex")
            out.refused += [Refused(vendor=spec.id, what=f"{h.event} hook", reason=reason,
                                    origin=h.origin, code="SKIPPED_BY_VENDOR", event=h.event,
                                    matcher=h.matcher) for h in out.hooks]
            out.hooks = []
        return out
    if suffix == ".toml":
        data = load_toml(path, shown)
        managed = path.name == "requirements.toml"
        out = _hooks(spec, data, shown, managed=managed)
        out.hooks_switch = _features(spec, data, shown, out)
        if managed:
            only = data.get("allow_managed_hooks_only")
            if only is True:
                out.managed_only = f"{shown}:allow_managed_hooks_only"
            out.managed = True
        return out
    raise ConfigParseError(f"{shown}: not a {spec.id} file this importer reads (hooks.json, "
                           "config.toml, requirements.toml, AGENTS.md or a .rules file)", path=shown)


def _features(spec: VendorSpec, data: Mapping[str, Any], shown: str, out: FileImport
              ) -> tuple[bool, str] | None:
    features = data.get("features")
    if not isinstance(features, Mapping):
        return None
    for key in ("hooks", "codex_hooks"):  # codex_hooks: the deprecated spelling
        value = features.get(key)
        if value is None:
            continue
        if not isinstance(value, bool):
            out.refused.append(entry_refusal(spec, f"features.{key}", shown, f"features.{key}",
                                             f"expected true or false, found {value!r}"))
            return None
        return (not value, f"{shown}:features.{key}")
    return None


#: Keys of a requirements.toml `[hooks]` table that are settings, not events (managed hooks).
_MANAGED_KEYS = frozenset({"managed_dir", "windows_managed_dir"})


def _hooks(spec: VendorSpec, data: Mapping[str, Any], shown: str, *, managed: bool = False
           ) -> FileImport:
    out = FileImport()
    if "hooks" not in data:
        return out
    table = data["hooks"]
    if managed and isinstance(table, Mapping):
        # managed_dir names where the admin keeps the managed scripts; the commands name them.
        table = {k: v for k, v in table.items() if k not in _MANAGED_KEYS}
    claude = resolve_vendor("claude")
    for event, groups, place in hook_table(spec, table, shown, "hooks", out.refused):
        row = spec.row(event)
        if row is None:
            if claude.row(event) is not None:
                # Codex loads a Claude event's hooks and never dispatches that event.
                refuse_slots(spec, event, groups, shown, place, out.refused, "SKIPPED_BY_VENDOR",
                             f"Codex loads {event} hooks but never dispatches that event")
            else:
                refuse_slots(spec, event, groups, shown, place, out.refused, *no_row(spec, event))
            continue
        dropped: set[str] = set()
        for slot in grouped_slots(spec, event, row, groups, shown, place, out.refused):
            if slot.group_place in dropped:
                continue
            try:
                found = classify(spec, slot, shown)
            except InvalidMatcher as exc:
                dropped.add(slot.group_place)
                out.refused.append(Refused(
                    vendor=spec.id, what=f"matcher group {event}[{slot.matcher}]",
                    reason=f"Codex drops a group whose matcher does not compile: {exc.message}",
                    origin=f"{shown}:{slot.group_place}", code="SKIPPED_BY_VENDOR", event=event,
                    matcher=slot.matcher))
                continue
            except CompatError:
                found = judged(classify, spec, slot, shown)
            out.add(found)
    return out


def classify(spec: VendorSpec, slot: Slot, shown: str) -> ImportedHook | Refused:
    kind = handler_type(slot, shown)
    if kind in ("prompt", "agent"):
        return refuse(spec, slot, shown, "SKIPPED_BY_VENDOR",
                      f"Codex parses {kind!r} handlers and skips them")
    if kind in REFUSED_HANDLER_TYPES:
        return refuse(spec, slot, shown, "INVALID_HANDLER",
                      f"{kind!r} handlers are not run here: only command hooks are adapted")
    h = slot.handler
    if "commandWindows" in h and "command_windows" in h:
        raise ConfigParseError(f"{shown}:{slot.place}: commandWindows and command_windows are the "
                               "same field; Codex rejects a handler with both",
                               path=shown, place=slot.place)
    if h.get("async") is True:
        return refuse(spec, slot, shown, "SKIPPED_BY_VENDOR",
                      "Codex parses async: true and skips the handler")
    return accept(spec, slot, shown)


#: Codex runs no other vendor's hook files.
RUNS_HOOKS_OF = solo.NO_OTHER_VENDOR


def rules_files(root: Path) -> list[Path]:
    """§2.7: at most one instructions file per folder, the override first; empty files are skipped."""
    return (project_rules.first(root, "AGENTS.override.md", "AGENTS.md", nonempty=True)
            + project_rules.tree(root, ".codex/rules", "*.rules"))


#: Codex reads a plugin with its own manifest folder, Claude's or Cursor's (the binary's strings).
PLUGINS = PluginLayout(markers=(".codex-plugin", ".claude-plugin", ".cursor-plugin"))


#: Nothing beyond the documented layout: a Codex plugin's hooks come with its installation from a
#: marketplace (``codex exec`` loads no plugin folder by itself).
extra_files = solo.no_extra_files


def hook_place(path: Path) -> HookPlace:
    """A project file's hooks run in the folder above ``.codex``; a plugin's hooks file (named
    directly) gets its plugin folder."""
    return places.hook_place(path, folders=(".codex",), layout=PLUGINS)
