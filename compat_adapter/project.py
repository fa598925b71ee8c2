"""Grade a project: every vendor's hook files, permission rules and rules text under some paths,
graded on one host, as the report ``compat-adapter grade --json`` prints (docs/schema/grade.schema.json).

A library function, so that the CLI, a pre-commit hook, an editor or another tool grade the same way:
``grade_project(["."], host="dsh")``. The CLI only renders what this returns.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from compat_adapter.host.surfaces import surface_named
from compat_adapter.importers.lines import line_of
from compat_adapter.vocabulary import Safety, finding_safety, safety_of

__all__ = ("grade_project", "hook_root", "hook_row", "row_safety")


def grade_project(paths: Sequence[str | os.PathLike[str]] = (), *, vendor: str | None = None,
                  host: str = "embedded", trust_all: bool = False, shared_as: str = "owner",
                  prefer: str = "fidelity") -> dict[str, Any]:
    """The report for ``paths`` (project folders, or hook files; default: the current folder).

    ``vendor`` reads named files as that vendor's and keeps only its files in folders; ``shared_as``
    says how a file several vendors read is loaded (owner, all, or a vendor id); ``trust_all`` grades
    files nobody trusted (it reaches the plugin host too: grading an OpenCode plugin loads it).
    Unusable paths are in the report's ``unusable``; only when every named file is unusable is the
    first error raised, as every command does.
    """
    from contextlib import nullcontext

    from compat_adapter.trust import trusting_all

    with trusting_all() if trust_all else nullcontext():
        return _collect([str(p) for p in paths], vendor=vendor, host=host, trust=True if trust_all else None,
                        shared_as=shared_as, prefer=prefer)


def row_safety(row: dict[str, Any]) -> str | None:
    """The worst safety class of what a row lists (its losses, its preflight findings, UNSUPPORTED,
    loading twice), or None when it lists nothing (a rules file carried, a hook DIRECT)."""
    classes = [safety_of(loss.split(":", 1)[0]) for loss in row["losses"]]
    classes += [finding_safety(f["kind"]) for f in row["preflight"]]
    if row["capability"] == "UNSUPPORTED":
        classes.append(finding_safety("unsupported"))
    if row.get("loads_twice"):
        classes.append(finding_safety("loads-twice"))
    return str(min(classes, key=lambda c: c.rank)) if classes else None


def hook_row(hook: Any, surface: Any, root: Path | None, prefer: str = "fidelity") -> dict[str, Any]:
    """One hook graded as `grade` shows it: capability, losses, preflight findings, whether it starts."""
    from compat_adapter.errors import InvalidHandler, InvalidMatcher
    from compat_adapter.grading import grade
    from compat_adapter.preflight import CANNOT_START, preflight
    from compat_adapter.trust import command_view

    place = hook.declared.place
    command = command_view(hook.vendor, hook.event, hook.matcher, hook.handler, Path.cwd()).command
    base = {"vendor": hook.vendor, "origin": hook.origin, "line": line_of(hook.origin), "event": hook.event,
            "matcher": hook.matcher, "command": command}
    try:
        result = grade(hook.declared, surface, id=hook.origin, prefer=prefer)
        row = {**base, "capability": str(result.capability), "route": str(result.route),
               "alternative": result.alternative,
               "seams": list(result.seams) + list(result.services),
               "losses": [f"{d.code}: {d.text}" for d in result.degradations], "reason": result.reason,
               "confidence": result.confidence}
    except (InvalidHandler, InvalidMatcher) as exc:
        row = {**base, "capability": "UNSUPPORTED", "route": "unsupported", "seams": [], "losses": [],
               "reason": f"{exc.code}: {exc.message}"}
    row["preflight"] = []
    if hook.declared.handler_kind == "command":  # what an http, prompt or MCP handler needs is not a program
        declared_row = hook.declared.row
        # A guard gates the action before it happens; a post-tool "block" cannot stop anything.
        blocking = declared_row.blocking
        if blocking == "verdict" and "tools/post-execute" in declared_row.seams:
            blocking = "observe"
        found = preflight(hook.declared.spec, hook.event, hook.matcher, hook.handler,
                          root or hook_root(hook), blocking=blocking, place=place)
        row["preflight"] = [{"kind": f.kind, "subject": f.subject, "text": f.text} for f in found]
        # Graded as it would behave once it starts; whether it can start here is said beside it.
        row["starts"] = not any(f.kind in CANNOT_START for f in found)
    return row


def hook_root(hook: Any) -> Path:
    """Where a named file's hooks run, as its vendor roots them: the project folder of its vendor
    folder (``x/.claude/settings.json`` runs in ``x``, even inside a larger repository); a plugin's
    hooks run in the session's folder, here the folder the command is run from."""
    from compat_adapter.trust import project_root

    place = hook.declared.place
    if place is not None and place.root is not None:
        return Path(place.root)
    if place is not None and place.plugin_root is not None:
        return Path.cwd()
    return project_root(Path(hook.origin.rsplit(":", 1)[0]))


def _rows(vendor: str, imported: Any, surface: Any, root: Path | None,
          prefer: str = "fidelity") -> list[dict[str, Any]]:
    from compat_adapter.grading import grade_rules


    rows = [hook_row(hook, surface, root, prefer) for hook in imported.hooks]
    for refused in imported.refused:
        rows.append({"vendor": vendor, "origin": refused.origin, "line": line_of(refused.origin),
                     "event": refused.what, "matcher": None, "code": refused.code,
                     "capability": "UNSUPPORTED", "route": "unsupported", "seams": [], "losses": [],
                     "reason": f"{refused.code}: {refused.reason}", "preflight": []})
    rows += _plugin_rows(vendor, getattr(imported, "plugins", ()), surface)
    rows += _permission_rows(imported, surface)
    rows += _policy_rows(vendor, imported, surface)
    for rules in imported.rules:
        result = grade_rules(rules.vendor, surface)
        rows.append({"vendor": vendor, "origin": rules.origin, "event": "rules", "matcher": None,
                     "capability": str(result.capability), "route": str(result.route),
                     "seams": list(result.seams), "losses": [], "reason": result.reason,
                     "sources": list(rules.sources), "trusted": rules.trusted, "preflight": [],
                     "confidence": result.confidence})
    from compat_adapter.catalog import resolve_vendor
    from compat_adapter.errors import UnknownVendor

    # Which release of the vendor the grading follows (the one its rows were measured on); an agent
    # with no unit here (its files named as not supported) follows none.
    try:
        measured = resolve_vendor(vendor).measured_on
    except UnknownVendor:
        measured = None
    return [{**row, "measured_on": measured} for row in rows]


def _permission_rows(imported: Any, surface: Any) -> list[dict[str, Any]]:
    """One row per permission rule and per setting beside the rules, graded on ``surface``."""
    from compat_adapter.permissions.grade import grade_permission, grade_setting
    from compat_adapter.permissions.read import language_of

    rows = []
    for item in (*getattr(imported, "permissions", ()), *getattr(imported, "permission_settings", ())):
        language = language_of(item.vendor)
        if language is None:
            continue  # its file's block was refused (UNREAD_PERMISSIONS): that row is there already
        judge = grade_permission if hasattr(item, "behavior") else grade_setting
        result = judge(item, language, surface, id=item.origin)
        rows.append({"vendor": item.vendor, "origin": item.origin, "line": line_of(item.origin),
                     "event": result.event, "matcher": result.matcher, "capability": str(result.capability),
                     "route": str(result.route), "seams": list(result.seams) + list(result.services),
                     "losses": [f"{d.code}: {d.text}" for d in result.degradations], "reason": result.reason,
                     "preflight": [], "confidence": result.confidence})
    return rows


def _policy_rows(vendor: str, imported: Any, surface: Any) -> list[dict[str, Any]]:
    """Command policy in rules files (a unit's ``policy`` capability: Codex ``.rules``) is permission
    rules too: one row per rule, beside the rules row (graded as their file is: enforced on
    tools/pre-execute where the host has it)."""
    from compat_adapter.capability import CommandPolicy, capability
    from compat_adapter.catalog import unit_of
    from compat_adapter.errors import CompatError, UnknownVendor
    from compat_adapter.grading import grade_rules
    from compat_adapter.model import RulesFile

    try:
        policy = capability(unit_of(vendor), CommandPolicy)
    except UnknownVendor:
        return []
    if policy is None:
        return []
    rows = []
    for entry in imported.rules:
        for source in (s for s in entry.sources if policy.holds(s)):
            try:
                rules = policy.parse(Path(source).read_text(encoding="utf-8", errors="replace"), source)
            except (OSError, CompatError):
                continue  # the rules row says what carrying it means; an unreadable file fails elsewhere
            graded = grade_rules(vendor, surface, files=(RulesFile(path=source, bytes=0, sha256=""),))
            for rule in rules:
                rows.append({"vendor": vendor, "origin": rule.source, "line": None,
                             "event": f"permissions.{rule.permission}",
                             "matcher": rule.shown, "capability": "ADAPTED",
                             "route": "native-translate", "seams": ["tools/pre-execute"],
                             "losses": [f"{d.code}: {d.text}" for d in graded.degradations
                                        if d.code != "message-provenance"],
                             "reason": None, "preflight": [], "confidence": graded.confidence})
    return rows


def _plugin_rows(vendor: str, plugins: Any, surface: Any) -> list[dict[str, Any]]:
    """OpenCode plugins of trusted files: loaded in a plugin-host sidecar (never this process), one
    row per hook key each plugin returns."""
    if not plugins:
        return []
    import anyio

    from compat_adapter.importers import plugin_runtime

    # Graded by the plugin runtime the vendor's unit brings (OpenCode's, for OpenCode and Kilo).
    runtime = plugin_runtime(vendor)
    by_root: dict[str, list[Any]] = {}
    for plugin in plugins:
        by_root.setdefault(plugin.root, []).append(runtime.source(plugin))
    rows = []
    for root, sources in by_root.items():
        for g in anyio.run(partial(runtime.grade, Path(root), surface, sources)):
            result = g.result
            rows.append({"vendor": vendor,
                         "origin": f"{g.source.origin}#{g.plugin.rsplit('#', 1)[-1]}" if g.plugin else g.source.origin,
                         "event": result.event, "matcher": None, "capability": str(result.capability),
                         "route": str(result.route), "seams": list(result.seams) + list(result.services),
                         "losses": [f"{d.code}: {d.text}" for d in result.degradations], "reason": result.reason,
                         "preflight": []})
    return rows


def _unusable(exc: Any) -> dict[str, Any]:
    out = {"code": exc.code, "message": exc.message, "path": str(exc.context.get("path", "")) or None}
    for key in ("line", "column"):
        value = exc.context.get(key)
        out[key] = int(value) if isinstance(value, int) or (isinstance(value, str) and value.isdigit()) else None
    return out


def _inputs(given_paths: list[str]) -> tuple[list[Path], list[Path], list[Any]]:
    """The folders and files named (default: .), and an error for each path that does not exist."""
    from compat_adapter.errors import NoSuchPath

    folders, files, missing = [], [], []
    for given in given_paths or ["."]:
        path = Path(given)
        if path.is_dir():
            folders.append(path)
        elif path.exists() or path.is_symlink():
            files.append(path)
        else:
            missing.append(NoSuchPath(f"{given}: no such file or folder", path=given))
    if missing and not folders and not files:
        raise missing[0]
    return folders, files, missing


def _collect(given: list[str], *, vendor: str | None, host: str, trust: bool | None, shared_as: str,
             prefer: str) -> dict[str, Any]:
    from compat_adapter.catalog import resolve_vendor
    from compat_adapter.importers import import_files
    from compat_adapter.importers.discover import EVERY, import_all, shared_files, twice, vendor_of

    surface = surface_named(host)
    if host == "embedded":
        from compat_adapter.handlers.model import endpoint_from_env

        if endpoint_from_env() is not None:  # the embedded host would ask this model (prompt/agent hooks)
            surface = surface.model_copy(update={"services": surface.services | {"model"}})
    chosen = resolve_vendor(vendor) if vendor else None  # an unknown vendor before any path
    folders, files, failed = _inputs(given)
    rows: list[dict[str, Any]] = []
    doubles: list[dict[str, str]] = []
    vendors: list[str] = []
    shared = _shared(shared_as)
    # A file without --vendor is read as the vendor that reads it where it sits, as `trust` infers it.
    by_vendor: dict[str, list[Path]] = {}
    for file in files:
        by_vendor.setdefault(chosen.id if chosen else vendor_of(file, shared=shared), []).append(file)
    unusable: list[Any] = []
    for vid, named in by_vendor.items():
        vendors.append(vid)
        result = import_files(vid, [str(f) for f in named], trust_all=trust, unusable=unusable)
        rows += _rows(vid, result, surface, None, prefer)
    if files and len(unusable) == len(files) and not folders and not failed:
        raise unusable[0]  # only named files, none usable: the one-line error of every command
    failed += unusable
    only = [chosen.id] if chosen else None
    shares: list[dict[str, Any]] = []
    for folder in folders:
        # --vendor V grades every file V reads, a shared one included: V was asked for by name.
        found = import_all(folder, trust_all=trust, vendors=only, shared=EVERY if chosen else shared)
        shares += [{"file": str(f.path), "readers": list(f.readers), "loaded_as": list(f.loaded_as), "why": f.why}
                   for f in shared_files(folder, shared=EVERY if chosen else shared)
                   if not chosen or chosen.id in f.readers]
        root = Path(os.path.abspath(folder))  # preflight reads scripts from here, whatever the spelling
        for part in found:
            if part.vendor not in vendors:
                vendors.append(part.vendor)
            failed += [e for e in part.errors if not any(e is f for f in failed)]
            if part.result is not None:
                rows += _rows(part.vendor, part.result, surface, root, prefer)
        doubles += [{"origin": t.origin, "other": t.other, "why": t.why} for t in twice(found, folder)]
    by_origin: dict[str, list[str]] = {}
    for d in doubles:
        by_origin.setdefault(d["origin"], []).append(d["why"])
    for r in rows:
        if r["origin"] in by_origin:
            r["loads_twice"] = by_origin[r["origin"]]
        r["safety"] = row_safety(r)
    unusable_rows = _dedupe([_unusable(e) for e in failed])
    out: dict[str, Any] = {"host": surface.host, "version": surface.version, "vendors": vendors, "rows": rows,
                           "unsupported": sum(r["capability"] == "UNSUPPORTED" for r in rows),
                           "safety": {str(c): sum(r["safety"] == c for r in rows) for c in Safety},
                           "cannot_start": sum(r.get("starts") is False for r in rows),
                           "loads_twice": doubles, "shared": shares, "errors": [f"{u['code']}: {u['message']}" for u in unusable_rows],
                           "unusable": unusable_rows}
    if len(vendors) == 1:
        out["vendor"] = vendors[0]
    return out


def _shared(value: str) -> str:
    """``--shared-as``: owner, all, or a vendor (its id; an alias or a typo is resolved or refused)."""
    from compat_adapter.catalog import resolve_vendor

    return value if value in ("owner", "all") else resolve_vendor(value).id


def _dedupe(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A file several vendors read (``AGENTS.md``) is one unusable file, reported once."""
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for item in items:
        seen.setdefault((item["code"], item["message"]), item)
    return list(seen.values())


