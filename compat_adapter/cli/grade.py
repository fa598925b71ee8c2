"""`compat-adapter grade`: grade a vendor's files, or every vendor's files in a project folder.

``grade --vendor V FILE…`` reads the named files as V's. ``grade`` with no file, or with folders,
finds every vendor's files in each folder (``importers.discover``) and grades them all at once:
each row names its vendor, hooks that would load twice on one host are flagged, and each command
hook carries its preflight findings (a program not on PATH, a missing script, an unset variable, a
guard that would fail open). Exit 2 only for unusable input: an unreadable file, or one that is not
JSON/TOML at all.
"""

from __future__ import annotations

import argparse
import json
import os
from contextlib import nullcontext
from functools import partial
from pathlib import Path
from typing import Any

from compat_adapter.host.surfaces import surface_named
from compat_adapter.vocabulary import Safety, finding_safety, safety_of

__all__ = ("add_commands", "hook_row", "row_safety", "strict_status")


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


def strict_status(report: dict[str, Any], fail_on: str) -> int:
    """``--strict``: 1 when a row's worst class is ``fail_on`` or worse, or when nothing was graded
    (an empty or mistyped folder is never a pass); else 0."""
    if not report["rows"]:
        return 1
    threshold = Safety(fail_on).rank
    return 1 if any(r["safety"] is not None and Safety(r["safety"]).rank <= threshold for r in report["rows"]) else 0


def hook_row(hook: Any, surface: Any, root: Path | None, prefer: str = "fidelity") -> dict[str, Any]:
    """One hook graded as `grade` shows it: capability, losses, preflight findings, whether it starts."""
    from compat_adapter.errors import InvalidHandler, InvalidMatcher
    from compat_adapter.grading import grade
    from compat_adapter.preflight import CANNOT_START, preflight

    from compat_adapter.cli.lines import line_of
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

    from compat_adapter.cli.lines import line_of

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
    from compat_adapter.cli.lines import line_of
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


#: Codex policy decisions under the permission-rule keys they stand for.
_POLICY_KEYS = {"forbidden": "deny", "prompt": "ask", "allow": "allow"}


def _policy_rows(vendor: str, imported: Any, surface: Any) -> list[dict[str, Any]]:
    """Codex ``.rules`` are permission rules too: one row per ``prefix_rule``, beside the rules row
    (graded as their file is: enforced on tools/pre-execute where the host has it)."""
    from compat_adapter.catalog import resolve_vendor
    from compat_adapter.errors import CompatError, UnknownVendor
    from compat_adapter.grading import grade_rules
    from compat_adapter.model import RulesFile
    from compat_adapter.routing.execpolicy import parse_rules

    try:
        if not resolve_vendor(vendor).rules_policy:
            return []
    except UnknownVendor:
        return []
    rows = []
    for entry in imported.rules:
        for source in (s for s in entry.sources if s.endswith(".rules")):
            try:
                rules = parse_rules(Path(source).read_text(encoding="utf-8", errors="replace"), source)
            except (OSError, CompatError):
                continue  # the rules row says what carrying it means; an unreadable file fails elsewhere
            graded = grade_rules(vendor, surface, files=(RulesFile(path=source, bytes=0, sha256=""),))
            for rule in rules:
                shown = " ".join("|".join(sorted(words)) for words in rule.pattern)
                rows.append({"vendor": vendor, "origin": rule.source, "line": None,
                             "event": f"permissions.{_POLICY_KEYS[rule.decision]}",
                             "matcher": f"prefix_rule({shown})", "capability": "ADAPTED",
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

    from compat_adapter.importers import plugin_source
    from compat_adapter.plugin_host.host import grade_plugins

    by_root: dict[str, list[Any]] = {}
    for plugin in plugins:
        by_root.setdefault(plugin.root, []).append(plugin_source(plugin))
    rows = []
    for root, sources in by_root.items():
        for g in anyio.run(partial(grade_plugins, Path(root), surface, sources=sources)):
            result = g.result
            rows.append({"vendor": vendor,
                         "origin": f"{g.source.origin}#{g.plugin.rsplit('#', 1)[-1]}" if g.plugin else g.source.origin,
                         "event": result.event, "matcher": None, "capability": str(result.capability),
                         "route": str(result.route), "seams": list(result.seams) + list(result.services),
                         "losses": [f"{d.code}: {d.text}" for d in result.degradations], "reason": result.reason,
                         "preflight": []})
    return rows


def _grade(args: argparse.Namespace) -> int:
    from compat_adapter.trust import trusting_all

    # --trust-all reaches the plugin host too: grading an OpenCode plugin loads (runs) it.
    with trusting_all() if args.trust_all else nullcontext():
        report = collect(args)
    if args.sarif:
        from compat_adapter.cli.reports import sarif
        from compat_adapter.host.wire.channel import version

        print(json.dumps(sarif(report, Path.cwd(), version()), indent=2))
    elif args.json:
        print(json.dumps(report, indent=2))
    else:
        from compat_adapter.cli.gradeview import render

        named = bool(args.vendor) and any(not Path(f).is_dir() for f in args.files)
        render(report, verbose=args.verbose, graded=args.files or ["."], named=named)
    if report["unusable"]:
        return 2  # a file CI could not read is never a pass, whatever else graded
    if args.strict and not report["rows"]:
        import sys

        print(f"--strict: nothing to grade in {', '.join(args.files or ['.'])}; an empty or mistyped folder is "
              "never a pass", file=sys.stderr)
    return strict_status(report, args.fail_on) if args.strict else 0


def _unusable(exc: Any) -> dict[str, Any]:
    out = {"code": exc.code, "message": exc.message, "path": str(exc.context.get("path", "")) or None}
    for key in ("line", "column"):
        value = exc.context.get(key)
        out[key] = int(value) if isinstance(value, int) or (isinstance(value, str) and value.isdigit()) else None
    return out


def _inputs(args: argparse.Namespace) -> tuple[list[Path], list[Path], list[Any]]:
    """The folders and files named (default: .), and an error for each path that does not exist."""
    from compat_adapter.errors import NoSuchPath

    folders, files, missing = [], [], []
    for given in args.files or ["."]:
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


def collect(args: argparse.Namespace) -> dict[str, Any]:
    """The ``grade --json`` report (docs/schema/grade.schema.json) for the paths ``args`` names."""
    from compat_adapter.catalog import resolve_vendor
    from compat_adapter.importers import import_files
    from compat_adapter.importers.discover import EVERY, import_all, shared_files, twice, vendor_of

    surface = surface_named(args.host)
    if args.host == "embedded":
        from compat_adapter.handlers.model import endpoint_from_env

        if endpoint_from_env() is not None:  # the embedded host would ask this model (prompt/agent hooks)
            surface = surface.model_copy(update={"services": surface.services | {"model"}})
    trust = True if args.trust_all else None
    chosen = resolve_vendor(args.vendor) if args.vendor else None  # an unknown vendor before any path
    folders, files, failed = _inputs(args)
    rows: list[dict[str, Any]] = []
    doubles: list[dict[str, str]] = []
    vendors: list[str] = []
    shared = _shared(args)
    # A file without --vendor is read as the vendor that reads it where it sits, as `trust` infers it.
    by_vendor: dict[str, list[Path]] = {}
    for file in files:
        by_vendor.setdefault(chosen.id if chosen else vendor_of(file, shared=shared), []).append(file)
    unusable: list[Any] = []
    for vid, named in by_vendor.items():
        vendors.append(vid)
        result = import_files(vid, [str(f) for f in named], trust_all=trust, unusable=unusable)
        rows += _rows(vid, result, surface, None, args.prefer)
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
                rows += _rows(part.vendor, part.result, surface, root, args.prefer)
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


def _shared(args: argparse.Namespace) -> str:
    """``--shared-as``: owner, all, or a vendor (its id; an alias or a typo is resolved or refused)."""
    from compat_adapter.catalog import resolve_vendor

    value = getattr(args, "shared_as", "owner")
    return value if value in ("owner", "all") else resolve_vendor(value).id


def _dedupe(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A file several vendors read (``AGENTS.md``) is one unusable file, reported once."""
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for item in items:
        seen.setdefault((item["code"], item["message"]), item)
    return list(seen.values())


_TRUST_ALL_HELP = ("DANGEROUS: run hooks from files nobody trusted (`compat-adapter trust`); "
                   "warns on every file")


def add_commands(sub: argparse._SubParsersAction) -> dict[str, Any]:
    g = sub.add_parser("grade", help="grade a vendor's files, or every vendor's files in a project",
                       epilog="exit status: 0 graded; 1 with --strict when a guard is disarmed (or worse than "
                              "--fail-on allows) or nothing was graded; 2 when a "
                              "file is unusable (it is in the report, the JSON and the SARIF too) or the "
                              "command is misused")
    g.add_argument("--vendor", default=None,
                   help="the vendor of the named files (for folders: only this vendor's files)")
    g.add_argument("files", nargs="*",
                   help="hook files (of --vendor, else of the vendor that reads them where they sit), or "
                        "project folders (default: .)")
    g.add_argument("--host", default="embedded", help="grade on this host's surface (embedded, dsh, dsh-0.2)")
    g.add_argument("--json", action="store_true",
                   help="print the report as JSON (schema: docs/schema/grade.schema.json)")
    g.add_argument("--sarif", action="store_true", help="print SARIF 2.1.0 (for CI annotations of a pull request)")
    g.add_argument("--verbose", "-v", action="store_true", help="every row in full, each with all its losses")
    g.add_argument("--strict", action="store_true",
                   help="exit 1 when a hook's worst loss or finding is of the --fail-on class or worse (by "
                        "default: a disarmed guard — UNSUPPORTED, cannot start, fails open, never fires, "
                        "observe-only), or when nothing was found to grade")
    g.add_argument("--fail-on", default=str(Safety.DISARMS_GUARD), choices=[str(c) for c in Safety],
                   help="the safety class --strict fails on, and every worse one (default: disarms-guard)")
    g.add_argument("--trust-all", action="store_true", help=_TRUST_ALL_HELP)
    g.add_argument("--shared-as", default="owner", metavar="VENDOR|owner|all",
                   help="a hook file several vendors read (a Claude plugin's hooks/hooks.json, which CodeBuddy "
                        "reads too) is loaded once, as the vendor whose layout it belongs to (owner, the "
                        "default); VENDOR loads it as that reader's, all as every reader's (it then runs "
                        "once per vendor)")
    g.add_argument("--prefer", choices=("fidelity", "official"), default="fidelity",
                   help="route policy: fidelity (default) translates every event it can with the vendor's own "
                        "semantics; official keeps the host's official bridge for the events it carries")
    return {"grade": _grade}
