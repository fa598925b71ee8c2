"""Claude Code: ``.claude/settings.json`` (and ``settings.local.json``, plugin ``hooks/hooks.json``)
hook tables, and ``CLAUDE.md`` / ``.claude/rules/*.md`` rules files.

A settings file is read for its ``hooks``, ``disableAllHooks`` and ``permissions`` keys (the
permission rules through the vendor's rule language, :mod:`vendors.claude.permissions`); every other
key (``env``, ``model`` …) is ignored. User settings (``~/.claude/settings.json``) are not read:
like the hooks there, only the project's files are imported. ``$CLAUDE_PROJECT_DIR`` in a command stays as
written: the runtime exports the variable. Handler fields that change when or how Claude runs a
command and that this project does not honour (``if``, ``args``, ``async``, ``asyncRewake``) make
the handler refused rather than run more often or differently than Claude would.
"""

from __future__ import annotations

from pathlib import Path

from compat_adapter.errors import ConfigParseError
from compat_adapter.handlers.rules import IF_EVENTS
from compat_adapter.importers import rules as project_rules
from compat_adapter.importers.common import (
    Decide,
    FileImport,
    ImportedHook,
    Refused,
    Slot,
    accept,
    handler_type,
    import_events,
    read_disable_all,
    refuse,
    rules_file,
)
from compat_adapter.importers import places
from compat_adapter.importers import solo
from compat_adapter.importers.loaders import load_json
from compat_adapter.importers.places import PluginLayout, plugin_hook_files
from compat_adapter.model import HookPlace, VendorSpec
from compat_adapter.permissions.read import read_block

__all__ = ("PLUGINS", "RUNS_HOOKS_OF", "extra_files", "hook_place", "rules_files", "classify", "import_file", "project_files", "settings_file",
           "settings_or_rules")

#: Project settings files in Claude's precedence order, lowest first (§1.1).
SETTINGS = (".claude/settings.json", ".claude/settings.local.json")


def project_files(root: Path) -> list[Path]:
    return project_rules.existing(root, *SETTINGS) + rules_files(root)


def import_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    return settings_or_rules(spec, path, shown, classify)


def settings_or_rules(spec: VendorSpec, path: Path, shown: str, decide: Decide, *, rules: tuple[str, ...] = (".md",),
                      what: str = "a settings .json or a rules .md") -> FileImport:
    """A file named directly to an importer of Claude-shaped settings: a ``.json`` is a settings
    file whose handlers ``decide`` judges, a ``rules`` suffix a rules file; anything else fails,
    saying ``what`` the importer reads. The agents that copy Claude's settings files share it."""
    suffix = path.suffix.lower()
    if suffix in rules:
        return rules_file(spec, path, shown)
    if suffix == ".json":
        return settings_file(spec, path, shown, decide)
    raise ConfigParseError(f"{shown}: not a {spec.id} file this importer reads ({what})", path=shown)


def settings_file(spec: VendorSpec, path: Path, shown: str, decide: Decide) -> FileImport:
    """A Claude-shaped settings file; ``decide(spec, slot, shown)`` judges each handler."""
    data = load_json(path, shown)
    out = FileImport()
    if "permissions" in data:
        # Claude merges the rules of every scope it reads: project, then local (settings.local.json).
        scope = "local" if path.name.endswith(".local.json") else "project"
        read_block(spec, data["permissions"], path=path, shown=shown, place="permissions", scope=scope, out=out)
    read_disable_all(spec, data, shown, out)
    if "hooks" not in data:
        return out
    import_events(spec, data["hooks"], shown, "hooks", out, decide)
    return out


def classify(spec: VendorSpec, slot: Slot, shown: str) -> ImportedHook | Refused:
    handler_type(slot, shown)  # an unknown type fails the file, as Claude's schema rejects it
    h = slot.handler
    if "if" in h and slot.event not in IF_EVENTS:
        return refuse(spec, slot, shown, "SKIPPED_BY_VENDOR",
                      f"Claude checks `if` only on tool events and never runs a handler that "
                      f"has one on {slot.event}")
    return accept(spec, slot, shown)


#: Claude Code runs no other vendor's hook files.
RUNS_HOOKS_OF = solo.NO_OTHER_VENDOR


def rules_files(root: Path) -> list[Path]:
    """§1.7: CLAUDE.md (root or .claude/), then CLAUDE.local.md, then .claude/rules recursively."""
    return (project_rules.existing(root, "CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")
            + project_rules.tree(root, ".claude/rules", "**/*.md"))


#: How Claude Code lays a plugin out: ``.claude-plugin/plugin.json`` (or a marketplace there).
PLUGINS = PluginLayout(markers=(".claude-plugin",))


def extra_files(root: Path) -> list[Path]:
    """A Claude Code plugin's hooks file when the folder is a plugin, and those of the local
    plugins of a marketplace in it (``.claude-plugin/marketplace.json``)."""
    return plugin_hook_files(root, PLUGINS)


def hook_place(path: Path) -> HookPlace:
    """A project file's hooks run in the folder above ``.claude``; a plugin's in the session's
    folder, with ``${CLAUDE_PLUGIN_ROOT}`` at the plugin."""
    return places.hook_place(path, folders=(".claude",), layout=PLUGINS)
