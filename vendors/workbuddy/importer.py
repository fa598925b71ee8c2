"""CodeBuddy Code / WorkBuddy (vendor ``workbuddy``): ``.codebuddy/settings.json`` hook tables in
Claude's shape, and ``CODEBUDDY.md`` / ``.codebuddy/rules/**/*.md`` (or ``.mdc``) rules files.

Settings hold ``command`` and ``prompt`` handlers (frontmatter also ``agent`` and ``http``); only
``command`` runs here. CodeBuddy documents no ``if``, ``args`` or ``async`` handler fields, so
unknown handler keys are ignored, as CodeBuddy ignores them.
"""

from __future__ import annotations

from pathlib import Path

from compat_adapter.importers import rules as project_rules
from vendors.claude.importer import settings_or_rules
from compat_adapter.importers.common import (
    FileImport,
    ImportedHook,
    Refused,
    Slot,
    accept,
    handler_type,
    refuse,
)
from compat_adapter.importers import places
from compat_adapter.importers import solo
from compat_adapter.importers.places import PluginLayout, plugin_hook_files
from compat_adapter.model import HookPlace, VendorSpec

__all__ = ("PLUGINS", "RUNS_HOOKS_OF", "extra_files", "hook_place", "rules_files", "classify", "import_file", "project_files")

#: Project settings files, lowest precedence first (§3.1). WorkBuddy's own `.workbuddy/` folder is
#: a documentation gap (§3.1), so it is not searched; import such a file by name.
SETTINGS = (".codebuddy/settings.json", ".codebuddy/settings.local.json")


def project_files(root: Path) -> list[Path]:
    return project_rules.existing(root, *SETTINGS) + rules_files(root)


def import_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    return settings_or_rules(spec, path, shown, classify, rules=(".md", ".mdc"),
                             what="a settings .json or a rules .md/.mdc")


def classify(spec: VendorSpec, slot: Slot, shown: str) -> ImportedHook | Refused:
    kind = handler_type(slot, shown)
    if kind not in ("command", "prompt"):
        return refuse(spec, slot, shown, "INVALID_HANDLER",
                      f"{kind!r} handlers are not run from a CodeBuddy settings file: it runs command and "
                      "prompt hooks there (agent and http only in agent or skill frontmatter)")
    if kind == "prompt" and slot.event not in _PROMPT_EVENTS:
        return refuse(spec, slot, shown, "SKIPPED_BY_VENDOR",
                      f"CodeBuddy runs prompt hooks only on {', '.join(sorted(_PROMPT_EVENTS))}, not {slot.event}")
    return accept(spec, slot, shown)


#: The events CodeBuddy runs a settings prompt hook on.
_PROMPT_EVENTS = frozenset({"Stop", "UserPromptSubmit", "PreToolUse"})


#: CodeBuddy runs no other vendor's hook files.
RUNS_HOOKS_OF = solo.NO_OTHER_VENDOR


def rules_files(root: Path) -> list[Path]:
    """§3.7: CODEBUDDY.md (root or .codebuddy/), CODEBUDDY.local.md; AGENTS.md only without a
    CODEBUDDY.md; rules recursively, .mdc included."""
    memory = project_rules.existing(root, "CODEBUDDY.md", ".codebuddy/CODEBUDDY.md")
    files = memory + project_rules.existing(root, "CODEBUDDY.local.md")
    if not memory:
        files += project_rules.existing(root, "AGENTS.md")
    return files + project_rules.tree(root, ".codebuddy/rules", "**/*.md", "**/*.mdc")


def extra_files(root: Path) -> list[Path]:
    """WorkBuddy's own settings (a documentation gap, found where it is), and a CodeBuddy
    plugin's ``hooks/hooks.json`` when the folder is a plugin."""
    files = [root / name for name in (".workbuddy/settings.json", ".workbuddy/settings.local.json")
             if (root / name).is_file()]
    return files + [p for p in plugin_hook_files(root, PLUGINS) if p not in files]


#: CodeBuddy reads a plugin with its own manifest folder or Claude's (measured, --plugin-dir).
PLUGINS = PluginLayout(markers=(".codebuddy-plugin", ".claude-plugin"))


def hook_place(path: Path) -> HookPlace:
    """A project file's hooks run in the folder above ``.codebuddy`` (or ``.workbuddy``); a plugin's
    in the session's folder, with ``${CODEBUDDY_PLUGIN_ROOT}`` at the plugin."""
    return places.hook_place(path, folders=(".codebuddy", ".workbuddy"), layout=PLUGINS)
