"""OpenAI Codex: ``.codex/hooks.json`` and the ``[hooks]`` tables of ``.codex/config.toml``
(``[[hooks.PreToolUse]]`` groups with ``[[hooks.PreToolUse.hooks]]`` handlers), and
``AGENTS.md`` / ``.codex/rules/*.rules`` rules files.

Codex's own load behaviour is kept where it decides what runs (§2.1, §2.2, §2.5):

* a ``hooks.json`` with any top-level key other than ``description`` and ``hooks`` (even
  ``$schema``) is refused whole, as Codex refuses it;
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
from compat_adapter.errors import ConfigParseError, InvalidMatcher
from compat_adapter.importers import rules as project_rules
from compat_adapter.importers.common import (
    FileImport,
    ImportedHook,
    Refused,
    Slot,
    accept,
    event_row,
    grouped_slots,
    handler_type,
    hook_table,
    load_json,
    load_toml,
    refuse,
    rules_file,
    shape_error,
)
from compat_adapter.model import VendorSpec

__all__ = ("classify", "import_file", "project_files")

#: The two hook forms of the project layer; Codex merges them when both exist (§2.1).
CONFIGS = (".codex/hooks.json", ".codex/config.toml")
_ROOT_KEYS = frozenset({"description", "hooks"})


def project_files(root: Path) -> list[Path]:
    return [root / name for name in CONFIGS if (root / name).is_file()] + \
        project_rules.project_rules("codex", root)


def import_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    suffix = path.suffix.lower()
    if suffix in (".md", ".rules"):
        return rules_file(spec, path, shown)
    if suffix == ".json":
        data = load_json(path, shown)
        extra = sorted(set(data) - _ROOT_KEYS)
        if extra:
            raise ConfigParseError(f"{shown}:{extra[0]}: Codex refuses a hooks.json with a "
                                   f"top-level key other than description and hooks",
                                   path=shown, place=extra[0])
        return _hooks(spec, data, shown)
    if suffix == ".toml":
        data = load_toml(path, shown)
        out = _hooks(spec, data, shown)
        out.hooks_switch = _features(data, shown)
        return out
    raise ConfigParseError(f"{shown}: not a {spec.id} file this importer reads (hooks.json, "
                           "config.toml, AGENTS.md or a .rules file)", path=shown)


def _features(data: Mapping[str, Any], shown: str) -> tuple[bool, str] | None:
    features = data.get("features")
    if not isinstance(features, Mapping):
        return None
    for key in ("hooks", "codex_hooks"):  # codex_hooks: the deprecated spelling
        value = features.get(key)
        if value is None:
            continue
        if not isinstance(value, bool):
            raise shape_error(shown, f"features.{key}", "true or false", value)
        return (not value, f"{shown}:features.{key}")
    return None


def _hooks(spec: VendorSpec, data: Mapping[str, Any], shown: str) -> FileImport:
    out = FileImport()
    if "hooks" not in data:
        return out
    claude = resolve_vendor("claude")
    for event, groups, place in hook_table(data["hooks"], shown, "hooks"):
        if spec.row(event) is None and claude.row(event) is not None:
            # Validate the shape anyway (as Codex does), then refuse every handler.
            for slot in grouped_slots(spec, event, claude.row(event), groups, shown, place):
                out.refused.append(refuse(spec, slot, shown, "SKIPPED_BY_VENDOR",
                                          f"Codex loads {event} hooks but never dispatches that "
                                          "event"))
            continue
        row = event_row(spec, event, shown, place)
        dropped: set[str] = set()
        for slot in grouped_slots(spec, event, row, groups, shown, place):
            if slot.group_place in dropped:
                continue
            try:
                found = classify(spec, slot, shown)
            except InvalidMatcher as exc:
                dropped.add(slot.group_place)
                out.refused.append(Refused(
                    vendor=spec.id, what=f"matcher group {event}[{slot.matcher}]",
                    reason=f"Codex drops a group whose matcher does not compile: {exc.message}",
                    origin=f"{shown}:{slot.group_place}", code="SKIPPED_BY_VENDOR"))
                continue
            (out.hooks if isinstance(found, ImportedHook) else out.refused).append(found)
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
