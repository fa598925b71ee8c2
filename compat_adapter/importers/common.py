"""What every importer shares: the result types and the walk over Claude-shaped
``{"hooks": {Event: [{matcher, hooks: [handler, ...]}]}}`` tables (reading a file into data is
:mod:`compat_adapter.importers.loaders`).

Importers only read files. They never run, fetch or register anything; ``register_import`` in the
package does the registering. Every problem names the file and the place in it (a JSON path such
as ``hooks.PreToolUse[0].hooks[1]``, or a line and column when the text does not parse).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from compat_adapter.catalog import resolve_event, unit_of
from compat_adapter.declare import REFUSED_HANDLER_TYPES, Declared, declare_hook
from compat_adapter.errors import (
    ConfigParseError,
    InvalidDeclaration,
    InvalidHandler,
    InvalidMatcher,
    UnknownEvent,
)
from compat_adapter.importers.loaders import json_kind, read_text
from compat_adapter.model import EventRow, HookPlace, VendorSpec
from compat_adapter.permissions.model import PermissionRule, PermissionSetting
from compat_adapter.trust import project_root

__all__ = (
    "REFUSAL_CODES",
    "FileImport",
    "ImportResult",
    "ImportedHook",
    "ImportedPlugin",
    "ImportedRules",
    "Refused",
    "absolute",
    "freeze",
    "rules_file",
)

#: Every ``Refused.code`` an importer uses, and what it means.
REFUSAL_CODES: Mapping[str, str] = MappingProxyType({
    "INVALID_HANDLER": "a handler kind this project does not run for that vendor or file (Codex and "
                       "Copilot http, prompt, agent or mcp_tool; CodeBuddy agent or http in settings), "
                       "a PowerShell-only command, or an exec form without a shell command",
    "SKIPPED_BY_VENDOR": "the vendor itself would not run it (Codex async/prompt/agent handlers, a "
                         "Claude-only event in a Codex file, hooks switched off, an invalid Codex "
                         "matcher, Claude `if` on an event without a tool call)",
    "REMOTE_SOURCE": "a remote rules source; rules are never fetched",
    "SOURCE_MISSING": "a local rules source that matches no file",
    "UNREAD_PERMISSIONS": "permission rules of a vendor whose rule language this project does not read "
                          "yet: listed, not enforced",
    "PLUGIN_RUNTIME": "a plugin: code for the vendor's own runtime (OpenCode plugins are imported "
                      "for the plugin host instead)",
    "UNSUPPORTED_CONFIG": "a vendor config feature with no row in the vendor table",
    "UNTRUSTED": "the file is not trusted, or changed since it was trusted: review it with "
                 "`compat-adapter trust PATH` (compat_adapter.trust)",
    "UNKNOWN_EVENT": "an event name the vendor does not have, so the vendor never runs its hooks",
    "UNSERVED_EVENT": "a real event of the vendor that no route on this host serves; the reason says "
                      "why",
    "INVALID_ENTRY": "one entry whose shape the vendor would reject (not an object, no hooks list, a "
                     "field of the wrong type, an unknown handler type); the rest of the file imports",
    "INVALID_MATCHER": "a matcher that is not a string or does not compile in the vendor's regex engine",
    "UNSUPPORTED_VENDOR": "a hook file of an agent this project has no vendor unit for (Windsurf, Kiro, "
                          "Cline …, vendors/unsupported.py): named, never read",
})


@dataclass(frozen=True, slots=True)
class ImportedHook:
    """One handler of one matcher group, declared once and ready for ``CompatAdapter.register``."""

    vendor: str
    event: str
    matcher: str | None
    handler: str | Mapping[str, Any]
    """As written in the file (read-only)."""
    origin: str
    """``<file>:<place>``, the file path as it was given."""
    declared: Declared = field(compare=False, repr=False)
    """The one declaration of this hook, made when the file was read."""


@dataclass(frozen=True, slots=True)
class ImportedRules:
    """Rules sources for ``CompatAdapter.register_rules``."""

    vendor: str
    sources: tuple[str, ...]
    base_dir: str
    """Absolute folder that relative sources are resolved against, and that a symlinked source must
    stay inside (a rules file named directly: the project it is named in)."""
    origin: str
    trusted: bool | None = None
    """Whether the file it came from is trusted (rules are carried either way: context, not code)."""


@dataclass(frozen=True, slots=True)
class ImportedPlugin:
    """An OpenCode plugin for the plugin host: a project file, or an npm package a config names.

    Loaded only when registered (``register_import``), in the adapter's sidecar, never here.
    """

    vendor: str
    kind: str
    """``file`` or ``npm``."""
    name: str
    """The absolute path of a file, or the npm spec."""
    root: str
    """The project folder the plugin belongs to (its ``directory`` in OpenCode's context)."""
    origin: str
    options: Mapping[str, Any] | None = None
    """The options of a ``[name, options]`` config entry (read-only)."""


@dataclass(frozen=True, slots=True)
class Refused:
    """Something in a file that will never run here, and why (``event``: where, as spelled; None: not one event's)."""

    vendor: str
    what: str
    reason: str
    origin: str
    code: str
    """One of :data:`REFUSAL_CODES`."""
    event: str | None = None
    matcher: str | None = None


@dataclass(frozen=True, slots=True)
class ImportResult:
    hooks: tuple[ImportedHook, ...] = ()
    rules: tuple[ImportedRules, ...] = ()
    refused: tuple[Refused, ...] = ()
    plugins: tuple[ImportedPlugin, ...] = ()
    permissions: tuple[PermissionRule, ...] = ()
    """Permission rules, in file order (the vendor's scopes, lowest first); enforced whatever the
    trust: a rule can only refuse or ask here, never approve what the host would not."""
    permission_settings: tuple[PermissionSetting, ...] = ()


@dataclass(slots=True)
class FileImport:
    """What one file yields; the package folds these into one ImportResult."""

    hooks: list[ImportedHook] = field(default_factory=list)
    rules: list[ImportedRules] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    plugins: list[ImportedPlugin] = field(default_factory=list)
    permissions: list[PermissionRule] = field(default_factory=list)
    permission_settings: list[PermissionSetting] = field(default_factory=list)
    #: A file-level switch that turns every hook of the import off (or back on): Claude and
    #: Copilot ``disableAllHooks``, Codex ``[features] hooks``. (disabled, where it was set)
    hooks_switch: tuple[bool, str] | None = None
    #: Codex managed hooks (a requirements.toml): they run whatever the other files say.
    managed: bool = False
    #: Where ``allow_managed_hooks_only = true`` was set: only managed hooks of the import run.
    managed_only: str | None = None

    def add(self, found: ImportedHook | Refused) -> None:
        """One judged handler: kept as a hook, or listed as refused."""
        if isinstance(found, ImportedHook):
            self.hooks.append(found)
        else:
            self.refused.append(found)


# ── paths and values ───────────────────────────────────────────────────────────────────────────

def absolute(path: Path) -> Path:
    """The absolute path without resolving symlinks (a symlinked rules file keeps its name)."""
    return Path(os.path.abspath(path))


def freeze(value: Any) -> Any:
    """A read-only copy: mappings become mapping proxies, lists become tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    return value


def shape_error(shown: str, place: str, expected: str, found: object) -> ConfigParseError:
    return ConfigParseError(f"{shown}:{place}: expected {expected}, found {json_kind(found)}",
                            path=shown, place=place)


def place_of(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


# ── the Claude-shaped hook table ───────────────────────────────────────────────────────────────

@dataclass(frozen=True, slots=True)
class Slot:
    """One handler position in a hook table, before the vendor decides what it is."""

    event: str
    row: EventRow | None
    """None for an event with no row (unknown or unserved): such a slot is only ever refused."""
    matcher: str | None
    handler: Any
    place: str
    group_place: str
    group: Mapping[str, Any] | None = None
    """Its matcher group as written (e.g. ``sequential``); None in a flat list (Copilot, Cursor)
    and for a refused slot. (Not an empty mapping: Python 3.11's dataclasses reject a
    ``MappingProxyType`` default as mutable, and a factory would build one per slot.)"""


def event_row(spec: VendorSpec, event: str, shown: str, place: str, hint: str = "") -> EventRow:
    try:
        return resolve_event(spec, event)
    except UnknownEvent as exc:
        raise UnknownEvent(f"{shown}:{place}: {spec.id} has no hook event {event!r}{hint}",
                           vendor=spec.id, event=event, path=shown, place=place) from exc


def no_row(spec: VendorSpec, event: str, hint: str = "") -> tuple[str, str]:
    """(code, reason) for an event key with no row: a real but unserved event, or an unknown one."""
    why = spec.unserved_reason(event)
    if why is not None:
        return "UNSERVED_EVENT", f"{spec.id} {event} cannot be served on this host: {why}"
    return "UNKNOWN_EVENT", f"{spec.id} has no hook event {event!r}, so it never runs these hooks{hint}"


def entry_refusal(spec: VendorSpec, what: str, shown: str, place: str, reason: str,
                  code: str = "INVALID_ENTRY", event: str | None = None) -> Refused:
    """One refused entry at one place of a file; the rest of the file still imports."""
    return Refused(vendor=spec.id, what=what, reason=reason, origin=f"{shown}:{place}", code=code, event=event)


def matcher_of(group: Mapping[str, Any], shown: str, place: str) -> str | None:
    matcher = group.get("matcher")
    if matcher is not None and not isinstance(matcher, str):
        raise InvalidMatcher(f"{shown}:{place_of(place, 'matcher')}: expected a string, found "
                             f"{json_kind(matcher)}", path=shown, place=place_of(place, "matcher"))
    return matcher


def hook_table(spec: VendorSpec, table: object, shown: str, prefix: str, refused: list[Refused]
               ) -> Iterator[tuple[str, list[Any], str]]:
    """(event, its list, place) for each well-formed key of a ``hooks`` object; a malformed one
    becomes one refusal in ``refused``."""
    if not isinstance(table, Mapping):
        refused.append(entry_refusal(spec, f"`{prefix}` table", shown, prefix,
                                     f"expected an object of event names, found {json_kind(table)}"))
        return
    for event, items in table.items():
        place = place_of(prefix, event)
        if not isinstance(items, list):
            refused.append(entry_refusal(spec, f"{event} hooks", shown, place,
                                         f"expected a list of matcher groups, found {json_kind(items)}", event=event))
            continue
        yield event, items, place


def grouped_slots(spec: VendorSpec, event: str, row: EventRow | None, groups: list[Any], shown: str,
                  place: str, refused: list[Refused], first: int = 0) -> Iterator[Slot]:
    """The handlers of ``[{matcher, hooks: [...]}]`` under one event; a malformed group or handler
    becomes one refusal and the others still come out."""
    for gi, group in enumerate(groups, start=first):
        gplace = f"{place}[{gi}]"
        if not isinstance(group, Mapping):
            refused.append(entry_refusal(spec, f"{event} matcher group", shown, gplace,
                                         f"expected a matcher group object, found {json_kind(group)}", event=event))
            continue
        handlers = group.get("hooks")
        if handlers is None:
            refused.append(entry_refusal(spec, f"{event} matcher group", shown, gplace,
                                         "a matcher group needs a `hooks` list", event=event))
            continue
        if not isinstance(handlers, list):
            refused.append(entry_refusal(spec, f"{event} matcher group", shown, f"{gplace}.hooks",
                                         f"expected a list of handlers, found {json_kind(handlers)}", event=event))
            continue
        try:
            matcher = matcher_of(group, shown, gplace)
        except InvalidMatcher as exc:
            refused.append(entry_refusal(spec, f"{event} matcher group", shown, f"{gplace}.matcher",
                                         exc.message.split(": ", 1)[-1], "INVALID_MATCHER", event=event))
            continue
        for hi, handler in enumerate(handlers):
            hplace = f"{gplace}.hooks[{hi}]"
            if not isinstance(handler, Mapping):
                refused.append(entry_refusal(spec, f"{event} handler", shown, hplace,
                                             f"expected a handler object, found {json_kind(handler)}", event=event))
                continue
            yield Slot(event, row, matcher, handler, hplace, gplace, group)


#: A vendor's judge of one handler: ``decide(spec, slot, shown)``.
Decide = Callable[[VendorSpec, Slot, str], "ImportedHook | Refused"]


def judged(decide: Decide, spec: VendorSpec, slot: Slot, shown: str) -> ImportedHook | Refused:
    """``decide(spec, slot, shown)``, with a handler or matcher it cannot accept turned into one
    refusal at its place (the way the vendor skips one bad entry), never a dead file."""
    try:
        return decide(spec, slot, shown)
    except InvalidMatcher as exc:
        return refuse(spec, slot, shown, "INVALID_MATCHER", exc.message.split(": ", 1)[-1])
    except (ConfigParseError, InvalidHandler, InvalidDeclaration) as exc:
        return refuse(spec, slot, shown, "INVALID_ENTRY", exc.message.split(": ", 1)[-1])


def refuse_slots(spec: VendorSpec, event: str, groups: list[Any], shown: str, place: str,
                 refused: list[Refused], code: str, reason: str) -> None:
    """Every handler under an event that will never run here, one refusal each; an entry that is
    not a well-formed group is one refusal at its own place, for the same reason."""
    for gi, group in enumerate(groups):
        handlers = group.get("hooks") if isinstance(group, Mapping) else None
        if isinstance(handlers, list) and all(isinstance(h, Mapping) for h in handlers):
            matcher = group.get("matcher")
            for hi, handler in enumerate(handlers):
                slot = Slot(event, None, matcher if isinstance(matcher, str) else None, handler,
                            f"{place}[{gi}].hooks[{hi}]", f"{place}[{gi}]")
                refused.append(refuse(spec, slot, shown, code, reason))
        else:
            refused.append(entry_refusal(spec, f"{event} hook entry", shown, f"{place}[{gi}]", reason, code, event))


def read_disable_all(spec: VendorSpec, data: Mapping[str, Any], shown: str, out: FileImport) -> None:
    """A settings file's ``disableAllHooks`` switch into ``out``; a value that is not true or false
    is no switch the vendor would honour, so it is refused (the hooks still grade)."""
    switch = data.get("disableAllHooks")
    if switch is None:
        return
    if not isinstance(switch, bool):
        out.refused.append(entry_refusal(spec, "disableAllHooks", shown, "disableAllHooks",
                                         f"expected true or false, found {switch!r}"))
    else:
        out.hooks_switch = (switch, f"{shown}:disableAllHooks")


def import_events(spec: VendorSpec, table: object, shown: str, prefix: str, out: FileImport,
                  decide: Decide) -> None:
    """Each handler of a Claude-shaped ``hooks`` table judged by ``decide`` into ``out``; the
    handlers of an event with no row here are refused, one each, for the reason :func:`no_row` gives."""
    for event, groups, place in hook_table(spec, table, shown, prefix, out.refused):
        row = spec.row(event)
        if row is None:
            refuse_slots(spec, event, groups, shown, place, out.refused, *no_row(spec, event))
            continue
        for slot in grouped_slots(spec, event, row, groups, shown, place, out.refused):
            out.add(judged(decide, spec, slot, shown))


def handler_type(slot: Slot, shown: str) -> str:
    kind = slot.handler.get("type", "command")
    if not isinstance(kind, str):
        raise shape_error(shown, f"{slot.place}.type", "a string", kind)
    if kind != "command" and kind not in REFUSED_HANDLER_TYPES:
        raise ConfigParseError(f"{shown}:{slot.place}: unknown handler type {kind!r}",
                               path=shown, place=slot.place)
    return kind


def refuse(spec: VendorSpec, slot: Slot, shown: str, code: str, reason: str,
           what: str | None = None) -> Refused:
    return Refused(vendor=spec.id, what=what or describe(slot), reason=reason,
                   origin=f"{shown}:{slot.place}", code=code, event=slot.event, matcher=slot.matcher)


def describe(slot: Slot) -> str:
    """A short human name for a handler: event, matcher and what it would run."""
    h = slot.handler
    kind = h.get("type", "command") if isinstance(h, Mapping) else "command"
    body = (h.get("command") or h.get("bash") or h.get("url") or h.get("tool") or h.get("prompt")
            or h.get("powershell") or "") if isinstance(h, Mapping) else h
    text = str(body)
    text = text if len(text) <= 60 else text[:57] + "..."
    on = f"{slot.event}[{slot.matcher}]" if slot.matcher else slot.event
    return f"{kind} handler on {on}" + (f": {text}" if text else "")


def accept(spec: VendorSpec, slot: Slot, shown: str) -> ImportedHook:
    """Check the handler and matcher the way registration will, so that an import that succeeds
    also registers; a problem names the file and the place instead of surfacing later."""
    origin = f"{shown}:{slot.place}"
    handler = freeze(slot.handler)
    try:
        declared = declare_hook(spec, slot.row, slot.matcher, handler, origin=origin, place=file_place(spec, shown))
    except InvalidHandler as exc:
        raise ConfigParseError(f"{shown}:{slot.place}: {exc.message}", path=shown,
                               place=slot.place) from exc
    except InvalidMatcher as exc:
        raise InvalidMatcher(f"{shown}:{slot.group_place}.matcher: {exc.message}", vendor=spec.id,
                             event=slot.event, path=shown, place=f"{slot.group_place}.matcher"
                             ) from exc
    return ImportedHook(vendor=spec.id, event=slot.event, matcher=slot.matcher, handler=handler,
                        origin=origin, declared=declared)


def in_sequence(slot: Slot, imported: ImportedHook) -> ImportedHook:
    """``imported`` marked to run one after another when its group says ``sequential: true``
    (Gemini's and Qwen's group key; any other value leaves the event's hooks in parallel)."""
    declared = imported.declared
    if slot.group is None or slot.group.get("sequential") is not True or declared.handler is None:
        return imported
    handler = declared.handler.model_copy(update={"sequential": True})
    return replace(imported, declared=replace(declared, handler=handler))


def file_place(spec: VendorSpec, shown: str) -> HookPlace:
    """Where the hooks of file ``shown`` run, as the vendor's own importer says."""
    return unit_of(spec.id).importer.hook_place(Path(shown))


def rules_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    """A rules file named directly: carried as it is, by its absolute path."""
    read_text(path, shown)  # exists, is a file, is UTF-8 text: fail here with the file's name
    full = absolute(path)
    # The source is absolute, so the base only bounds the read: a symlink may point anywhere in
    # the project, as for a config file.
    return FileImport(rules=[ImportedRules(vendor=spec.id, sources=(str(full),),
                                           base_dir=str(project_root(full, follow=False)), origin=shown)])
