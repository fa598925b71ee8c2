"""GitHub Copilot: ``.github/hooks/*.json`` hook files, inline ``hooks`` in
``.github/copilot/settings.json`` / ``settings.local.json``, and instruction files.

A hook file is ``{"version": 1, "disableAllHooks"?: bool, "hooks": {"<event>": [entry, ...]}}``
where each entry is a handler carrying its own ``matcher`` (§5.1). Newer CLIs also accept Claude's
nested ``{"matcher", "hooks": [...]}`` groups, so both are read. Event names are Copilot's own
camelCase ones or the PascalCase ("VS Code compatible") ones, which switch Copilot to a snake_case
payload and Claude's matcher rules (the copilot dialect reads both).

Entries are ``command`` (``bash``/``command``, or ``exec`` with ``args`` and no shell) and
``http`` (run here); a ``prompt`` entry (a first user message Copilot submits at session start) is
one refused row saying why.

A malformed item is one refused row with its place: Copilot drops that item of a directory-loaded
file and runs the rest.
The repository's ``.claude/settings.json``, which Copilot also reads, is imported as ``claude``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from compat_adapter.errors import ConfigParseError, InvalidMatcher
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
    matcher_of,
    no_row,
    read_disable_all,
    refuse,
    rules_file,
)
from compat_adapter.importers import places
from compat_adapter.importers import solo
from compat_adapter.importers.loaders import load_json, load_jsonc
from compat_adapter.model import HookPlace, VendorSpec

__all__ = ("RUNS_HOOKS_OF", "extra_files", "hook_place", "rules_files", "classify", "import_file", "project_files")

#: Inline hooks in settings files, after the hooks folder (§5.1 load order).
SETTINGS = (".github/copilot/settings.json", ".github/copilot/settings.local.json")
_SETTINGS_NAMES = frozenset({"settings.json", "settings.local.json"})
_HANDLER_KEYS = frozenset({"type", "command", "bash", "powershell", "exec", "url", "prompt"})
#: Entry types Copilot runs here: commands (shell or exec form) and web requests.
_KINDS = frozenset({"command", "http"})
#: Events whose http hooks Copilot accepts only over https.
_HTTPS_ONLY = frozenset({"preToolUse", "permissionRequest", "PreToolUse", "PermissionRequest", "preMcpToolCall"})


def project_files(root: Path) -> list[Path]:
    folder = root / ".github" / "hooks"
    files = sorted(p for p in folder.glob("*.json") if p.is_file()) if folder.is_dir() else []
    files += [root / name for name in SETTINGS if (root / name).is_file()]
    return files + rules_files(root)


def import_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    suffix = path.suffix.lower()
    if suffix == ".md":
        return rules_file(spec, path, shown)
    if suffix == ".json":
        return _hooks_file(spec, path, shown)
    raise ConfigParseError(f"{shown}: not a {spec.id} file this importer reads (a hooks .json or "
                           "an instructions .md)", path=shown)


def _hooks_file(spec: VendorSpec, path: Path, shown: str) -> FileImport:
    try:
        data = load_json(path, shown)
    except ConfigParseError as strict:
        # A file with comments (VS Code reads hook files as JSONC) is still read, so that its
        # hooks show; Copilot CLI rejects a file that is not JSON (§5.1), so none of them run.
        data = load_jsonc(path, shown)  # not JSONC either: unusable, raise as it is
        out = _hooks_data(spec, path, shown, data)
        reason = (f"Copilot CLI rejects a hook file that is not strict JSON ({strict.message.split(': ', 1)[-1]}); "
                  "VS Code, which reads it as JSONC, would run it")
        out.refused += [Refused(vendor=spec.id, what=f"{h.event} hook", reason=reason, origin=h.origin,
                                code="SKIPPED_BY_VENDOR", event=h.event, matcher=h.matcher) for h in out.hooks]
        out.hooks = []
        return out
    return _hooks_data(spec, path, shown, data)


def _hooks_data(spec: VendorSpec, path: Path, shown: str, data: Mapping[str, Any]) -> FileImport:
    out = FileImport()
    if "version" in data and (isinstance(data["version"], bool) or data["version"] != 1):
        # Copilot rejects the whole file; it still imports here, as one row saying so.
        out.refused.append(entry_refusal(
            spec, f"hooks file {path.name}", shown, "version",
            f"Copilot reads only version 1 hook files, not {data['version']!r}, so none of this "
            "file's hooks run in Copilot", "SKIPPED_BY_VENDOR"))
        return out
    if "permissions" in data and path.name in _SETTINGS_NAMES:
        # Listed, never enforced: Copilot takes its tool rules from --allow-tool / --deny-tool only.
        out.refused.append(entry_refusal(
            spec, "permission rules", shown, "permissions",
            "Copilot CLI 1.0.102 does not enforce permission rules written in a repository settings file "
            "(measured: permissions.deny [\"shell(echo)\"] in .github/copilot/settings.json, and Claude's "
            "form in .claude/settings.json, left the command running); its tool rules come from the "
            "--allow-tool and --deny-tool flags, which no file holds", "SKIPPED_BY_VENDOR"))
    read_disable_all(spec, data, shown, out)
    if "hooks" not in data:
        if path.name not in _SETTINGS_NAMES:  # a settings file without inline hooks is fine
            out.refused.append(entry_refusal(spec, f"hooks file {path.name}", shown, "hooks",
                                             "a Copilot hooks file needs a `hooks` object"))
        return out
    for event, items, place in hook_table(spec, data["hooks"], shown, "hooks", out.refused):
        row = spec.row(event)
        if row is None:
            code, reason = no_row(spec, event)
            for i, item in enumerate(items):
                if isinstance(item, Mapping) and "hooks" in item and not (_HANDLER_KEYS & set(item)):
                    for slot in grouped_slots(spec, event, None, [item], shown, place, out.refused, first=i):
                        out.refused.append(refuse(spec, slot, shown, code, reason))
                else:
                    out.refused.append(entry_refusal(spec, f"{event} hook entry", shown, f"{place}[{i}]",
                                                     reason, code, event=event))
            continue
        for i, item in enumerate(items):
            iplace = f"{place}[{i}]"
            if not isinstance(item, Mapping):
                out.refused.append(entry_refusal(spec, f"{event} hook entry", shown, iplace,
                                                 f"expected a hook entry object, found {item!r}", event=event))
                continue
            if "hooks" in item and not (_HANDLER_KEYS & set(item)):
                slots = list(grouped_slots(spec, event, row, [item], shown, place, out.refused, first=i))
            else:
                try:
                    slots = [Slot(event, row, matcher_of(item, shown, iplace), item, iplace, iplace)]
                except InvalidMatcher as exc:
                    # Copilot skips an entry whose matcher is not a usable pattern.
                    out.refused.append(entry_refusal(spec, f"{event} hook entry", shown,
                                                     f"{iplace}.matcher", exc.message.split(": ", 1)[-1],
                                                     "INVALID_MATCHER", event=event))
                    continue
            for slot in slots:
                out.add(judged(classify, spec, slot, shown))
    return out


def _posix_command(h: Mapping[str, Any]) -> bool:
    return any(isinstance(h.get(k), str) for k in ("bash", "command"))


def _http_refusal(event: str, h: Mapping[str, Any]) -> str | None:
    """Copilot's own rules for an http entry's URL, as its 1.0.102 runtime states them: a hook that
    passes header variables, or one that can decide a call (preToolUse, permissionRequest), must
    use https:// unless the user sets COPILOT_HOOK_ALLOW_LOCALHOST=1 (localhost) or
    COPILOT_HOOK_ALLOW_HTTP_AUTH_HOOKS=1, which a repository cannot set for its readers."""
    url = h.get("url")
    if not isinstance(url, str) or url.startswith("https://"):
        return None  # a missing or odd url is the handler parser's to report
    override = "unless its user sets COPILOT_HOOK_ALLOW_LOCALHOST=1 for a localhost URL"
    if event in _HTTPS_ONLY:
        return (f"Copilot requires https:// for {event} http hooks (they decide a call) {override} or "
                "COPILOT_HOOK_ALLOW_HTTP_AUTH_HOOKS=1, so by default it never runs this one")
    if h.get("allowedEnvVars"):
        return ("Copilot requires https:// for an http hook that passes allowedEnvVars (credential "
                f"exposure) {override}, so by default it never runs this one")
    return None


def classify(spec: VendorSpec, slot: Slot, shown: str) -> ImportedHook | Refused:
    kind = handler_type(slot, shown)
    h = slot.handler
    if kind == "prompt":
        text = h.get("prompt")
        what = (f"{text.split()[0]!r} is a Copilot CLI slash command, which this host does not have"
                if isinstance(text, str) and text.startswith("/") else
                "this project never submits a prompt on the user's behalf")
        return refuse(spec, slot, shown, "INVALID_HANDLER",
                      "Copilot submits a prompt entry as the first user message of a new interactive "
                      f"session (sessionStart only); {what}")
    if kind not in _KINDS:
        return refuse(spec, slot, shown, "INVALID_HANDLER", f"Copilot has no {kind!r} hook entries")
    if kind == "http":
        why = _http_refusal(slot.event, h)
        if why:
            return refuse(spec, slot, shown, "SKIPPED_BY_VENDOR", why)
        return accept(spec, slot, shown)
    if "exec" in h and any(k in h for k in ("bash", "powershell", "command")):
        return refuse(spec, slot, shown, "INVALID_ENTRY",
                      "Copilot takes either `exec` or a shell command (bash, powershell, command), not both, "
                      "and drops this entry")
    if not _posix_command(h) and "exec" not in h and isinstance(h.get("powershell"), str):
        return refuse(spec, slot, shown, "INVALID_HANDLER",
                      "the entry has only a powershell command; this host runs POSIX shell "
                      "commands (as Copilot's cloud agent does)")
    return accept(spec, slot, shown)


#: Copilot CLI also runs these Claude files' hooks (vendor-protocols §5.1, item 4).
RUNS_HOOKS_OF: Mapping[str, tuple[tuple[str, ...], str]] = MappingProxyType({
    "claude": ((".claude/settings.json", ".claude/settings.local.json"),
               "Copilot CLI also runs the hooks of this Claude file; with the Copilot import registered too, a "
               "host that stands in for both would run it twice")})


def rules_files(root: Path) -> list[Path]:
    """§5.7: repository-wide, then path-specific, then the agent file (AGENTS.md, else a root
    CLAUDE.md or GEMINI.md)."""
    return (project_rules.existing(root, ".github/copilot-instructions.md")
            + project_rules.tree(root, ".github/instructions", "**/*.instructions.md")
            + project_rules.first(root, "AGENTS.md", "CLAUDE.md", "GEMINI.md"))


#: Nothing beyond the documented layout.
extra_files = solo.no_extra_files


def hook_place(path: Path) -> HookPlace:
    """Hooks run in the repository folder (above ``.github``), with ``COPILOT_HOOK_DIR`` at the
    hooks file's own folder."""
    return places.hook_place(path, folders=(".github",), hook_dir=True)
