"""Cursor: ``.cursor/hooks.json``, its rules files, and Claude settings files in Cursor's
compatibility mode.

``.cursor/hooks.json`` is ``{"version": 1, "hooks": {"<event>": [entry, ...]}}`` with flat entries
(``{command, type, timeout, matcher, failClosed, loop_limit}``): no nested ``hooks`` groups, which
Cursor never fires. Cursor's validator drops the whole file when one event name is not one of its
own (a CLI measurement others published; the docs are silent), so such a file grades as Cursor
would load it: nothing, every hook one row saying why. A ``prompt`` entry asks Cursor's own model
and is refused here; an event with no seam on this host is one UNSERVED row per entry.

Claude Code's ``.claude/settings.json`` / ``settings.local.json`` are read as Cursor's only when
named for Cursor (``compat-adapter grade --vendor cursor .claude/settings.json``, or
``import_files("cursor", …)``): that is Cursor's opt-in "Third-party configs" mode, and discovery
never turns it on. Their hooks are read as Cursor runs them: the eight Claude events Cursor maps
(PreToolUse → preToolUse …) onto the table's Claude rows, every other Claude event refused as Cursor
drops it, and the Claude handler fields Cursor does not read listed as ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from compat_adapter.errors import ConfigParseError, InvalidMatcher
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
    freeze,
    grouped_slots,
    handler_type,
    hook_table,
    judged,
    matcher_of,
    no_row,
    refuse,
    refuse_slots,
    rules_file,
)
from compat_adapter.importers.loaders import load_json
from compat_adapter.model import HookPlace, VendorSpec
from compat_adapter.permissions.read import read_block
from vendors.cursor.payload import CLAUDE_EVENTS

__all__ = ("HOOKS_FILE", "NATIVE_EVENTS", "RUNS_HOOKS_OF", "extra_files", "hook_place", "import_file", "project_files",
           "rules_files")

HOOKS_FILE = ".cursor/hooks.json"
#: The CLI's project config, which holds its permission tokens.
CLI_FILE = ".cursor/cli.json"
#: Every event name Cursor's hooks.json accepts (cursor.com/docs/hooks): the 18 agent and 2 Tab events.
NATIVE_EVENTS = frozenset({
    "sessionStart", "sessionEnd", "preToolUse", "postToolUse", "postToolUseFailure", "subagentStart",
    "subagentStop", "beforeShellExecution", "afterShellExecution", "beforeMCPExecution", "afterMCPExecution",
    "beforeReadFile", "afterFileEdit", "beforeSubmitPrompt", "preCompact", "stop", "afterAgentResponse",
    "afterAgentThought", "beforeTabFileRead", "afterTabFileEdit",
})
_CLAUDE_SETTINGS = frozenset({"settings.json", "settings.local.json"})
#: Claude handler fields Cursor's compatibility mode does not read (its docs name command, type and timeout).
_CLAUDE_ONLY = ("if", "once", "async", "asyncRewake", "rewakeMessage", "rewakeSummary", "statusMessage",
                "shell", "args", "onFailure", "cloud")
_NOT_MAPPED = frozenset({"Notification", "PermissionRequest"})


def project_files(root: Path) -> list[Path]:
    hooks, cli = root / HOOKS_FILE, root / CLI_FILE
    return [f for f in (hooks, cli) if f.is_file()] + rules_files(root)


def rules_files(root: Path) -> list[Path]:
    """Project rules (``.cursor/rules``, recursively), the legacy ``.cursorrules``, then AGENTS.md."""
    return (project_rules.tree(root, ".cursor/rules", "**/*.mdc", "**/*.md")
            + project_rules.existing(root, ".cursorrules", "AGENTS.md"))


#: Nothing beyond the documented layout: a plugin's hooks.json is not read by Cursor's CLI.
extra_files = solo.no_extra_files


def hook_place(path: Path) -> HookPlace:
    """A project's ``.cursor/hooks.json`` (and, in Claude-compatibility mode, its
    ``.claude/settings*.json``) runs its hooks in the project above that folder: Cursor's docs run
    project hooks from the workspace root."""
    return places.hook_place(path, folders=(".cursor", ".claude"))


def import_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    if path.suffix.lower() in (".md", ".mdc") or path.name == ".cursorrules":
        return rules_file(spec, path, shown)
    if path.suffix.lower() == ".json":
        if path.name in _CLAUDE_SETTINGS and path.parent.name == ".claude":
            return _claude_file(spec, path, shown)
        if path.name == "cli.json" and path.parent.name == ".cursor":
            return _cli_file(spec, path, shown)
        return _hooks_file(spec, path, shown)
    raise ConfigParseError(f"{shown}: not a {spec.id} file this importer reads (a hooks .json, a Claude "
                           "settings .json, or a rules .mdc/.md)", path=shown)


# ── .cursor/cli.json ───────────────────────────────────────────────────────────────────────────

def _cli_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    """The CLI's project config: its ``permissions`` tokens (vendors/cursor/permission_language.py);
    its other keys are not guardrails."""
    data = load_json(path, shown)
    out = FileImport()
    if "permissions" in data:
        read_block(spec, data["permissions"], path=path, shown=shown, place="permissions", scope="project", out=out)
    return out


# ── .cursor/hooks.json ─────────────────────────────────────────────────────────────────────────

def _hooks_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    data = load_json(path, shown)
    out = FileImport()
    version = data.get("version", 1)
    if isinstance(version, bool) or version != 1:
        out.refused.append(entry_refusal(
            spec, f"hooks file {path.name}", shown, "version",
            f"Cursor reads only version 1 hooks files, not {version!r}, so none of this file's hooks run "
            "in Cursor", "SKIPPED_BY_VENDOR"))
        return out
    if "hooks" not in data:
        out.refused.append(entry_refusal(spec, f"hooks file {path.name}", shown, "hooks",
                                         "a Cursor hooks file needs a `hooks` object"))
        return out
    tables = list(hook_table(spec, data["hooks"], shown, "hooks", out.refused))
    unknown = [event for event, _, _ in tables if event not in NATIVE_EVENTS]
    for event, items, place in tables:
        if event in unknown:
            hint = " (a Claude event name: Cursor maps it only in a Claude settings file)" \
                if event in CLAUDE_EVENTS else ""
            out.refused.append(entry_refusal(spec, f"{event} hooks", shown, place,
                                             f"Cursor has no hook event {event!r}{hint}", "UNKNOWN_EVENT",
                                             event=event))
            continue
        found = _entries(spec, event, items, shown, place)
        if not unknown:
            for item in found:
                out.add(item)
            continue
        # One unknown name and Cursor loads nothing of the file: each hook says so at its place.
        names = ", ".join(repr(e) for e in unknown)
        why = (f"Cursor drops the whole hooks file when an event name is not one of its own (here {names}), "
               "so none of this file's hooks load under Cursor")
        for item in found:
            if isinstance(item, ImportedHook):
                out.refused.append(Refused(vendor=spec.id, what=f"{item.event} hook", reason=why,
                                           origin=item.origin, code="SKIPPED_BY_VENDOR", event=item.event,
                                           matcher=item.matcher))
            else:
                out.refused.append(item)
    return out


def _entries(spec: VendorSpec, event: str, items: list[Any], shown: str, place: str) -> list[ImportedHook | Refused]:
    """Each flat entry of one event, judged: a hook, or one refusal at its place."""
    row = spec.row(event)
    found: list[ImportedHook | Refused] = []
    for i, item in enumerate(items):
        iplace = f"{place}[{i}]"
        if not isinstance(item, Mapping):
            found.append(entry_refusal(spec, f"{event} hook entry", shown, iplace,
                                       f"expected a hook entry object, found {item!r}", event=event))
            continue
        if "hooks" in item and "command" not in item:
            found.append(entry_refusal(spec, f"{event} hook entry", shown, iplace,
                                       "a nested Claude-style group ({matcher, hooks: [...]}): Cursor reads flat "
                                       "entries ({command, matcher, …}) and never fires this one",
                                       "SKIPPED_BY_VENDOR", event=event))
            continue
        if row is None:
            code, reason = no_row(spec, event)
            found.append(entry_refusal(spec, f"{event} hook entry", shown, iplace, reason, code, event=event))
            continue
        try:
            slot = Slot(event, row, matcher_of(item, shown, iplace), item, iplace, iplace)
        except InvalidMatcher as exc:
            found.append(entry_refusal(spec, f"{event} hook entry", shown, f"{iplace}.matcher",
                                       exc.message.split(": ", 1)[-1], "INVALID_MATCHER", event=event))
            continue
        found.append(judged(_classify, spec, slot, shown))
    return found


def _classify(spec: VendorSpec, slot: Slot, shown: str) -> ImportedHook | Refused:
    kind = handler_type(slot, shown)
    if kind == "prompt":
        return refuse(spec, slot, shown, "INVALID_HANDLER",
                      "a Cursor prompt hook asks Cursor's own fast model to judge the input ({ok, reason}); "
                      "this project runs only Cursor's command hooks")
    if kind != "command":
        return refuse(spec, slot, shown, "INVALID_HANDLER", f"Cursor has no {kind!r} hook entries")
    return accept(spec, slot, shown)


# ── Claude settings files, in Cursor's compatibility mode ──────────────────────────────────────

def _claude_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    data = load_json(path, shown)
    out = FileImport()
    switch = data.get("disableAllHooks")
    if isinstance(switch, bool):
        out.hooks_switch = (switch, f"{shown}:disableAllHooks")
    if "hooks" not in data:
        return out
    for event, groups, place in hook_table(spec, data["hooks"], shown, "hooks", out.refused):
        if event not in CLAUDE_EVENTS:
            why = ("Cursor's compatibility mode does not support Claude's {e} hooks (its docs list {e} as "
                   "not supported), so Cursor never runs these" if event in _NOT_MAPPED else
                   "Cursor maps only PreToolUse, PostToolUse, UserPromptSubmit, Stop, SubagentStop, "
                   "SessionStart, SessionEnd and PreCompact from a Claude file; {e} has no Cursor mapping, "
                   "so Cursor never runs these").format(e=event)
            refuse_slots(spec, event, groups, shown, place, out.refused, "SKIPPED_BY_VENDOR", why)
            continue
        row = spec.row(event)
        for slot in grouped_slots(spec, event, row, groups, shown, place, out.refused):
            out.add(judged(_claude_handler, spec, slot, shown))
    return out


def _claude_handler(spec: VendorSpec, slot: Slot, shown: str) -> ImportedHook | Refused:
    kind = handler_type(slot, shown)
    if kind not in ("command", "prompt"):
        return refuse(spec, slot, shown, "SKIPPED_BY_VENDOR",
                      f"Cursor runs only command and prompt hooks from a Claude file, not {kind!r} ones")
    if kind == "prompt":
        return _classify(spec, slot, shown)
    written: Mapping[str, Any] = slot.handler
    dropped = tuple(k for k in _CLAUDE_ONLY if k in written)
    hook = accept(spec, replace(slot, handler={k: v for k, v in written.items() if k not in dropped}), shown)
    handler = hook.declared.handler
    if not dropped or handler is None:
        return replace(hook, handler=freeze(written))
    # Cursor runs the command as it is: the Claude-only fields are listed, never honoured.
    ignored = handler.model_copy(update={"ignored": (*dropped, *handler.ignored)})
    return replace(hook, handler=freeze(written), declared=replace(hook.declared, handler=ignored))


#: Cursor runs Claude files' hooks only in its opt-in compatibility mode, which discovery never
#: assumes: a project's Claude hooks are Claude's, and Cursor's when named for Cursor.
RUNS_HOOKS_OF = solo.NO_OTHER_VENDOR
