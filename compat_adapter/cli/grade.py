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
from contextlib import nullcontext
from functools import partial
from pathlib import Path
from typing import Any

from compat_adapter.host.surfaces import surface_named

__all__ = ("add_commands",)


def _hook_row(hook: Any, surface: Any, root: Path | None, prefer: str = "fidelity") -> dict[str, Any]:
    from compat_adapter.errors import InvalidHandler, InvalidMatcher
    from compat_adapter.grading import grade
    from compat_adapter.preflight import preflight
    from compat_adapter.trust import project_root

    base = {"vendor": hook.vendor, "origin": hook.origin, "event": hook.event, "matcher": hook.matcher}
    try:
        result = grade(hook.declared, surface, id=hook.origin, prefer=prefer)
        row = {**base, "capability": str(result.capability), "route": str(result.route),
               "alternative": result.alternative,
               "seams": list(result.seams) + list(result.services),
               "losses": [f"{d.code}: {d.text}" for d in result.degradations], "reason": result.reason}
    except (InvalidHandler, InvalidMatcher) as exc:
        row = {**base, "capability": "UNSUPPORTED", "route": "unsupported", "seams": [], "losses": [],
               "reason": f"{exc.code}: {exc.message}"}
    row["preflight"] = []
    if hook.declared.handler_kind == "command":  # what an http, prompt or MCP handler needs is not a program
        place = Path(hook.origin.rsplit(":", 1)[0])
        declared_row = hook.declared.row
        # A guard gates the action before it happens; a post-tool "block" cannot stop anything.
        guard = declared_row.blocking == "verdict" and "tools/post-execute" not in declared_row.seams
        found = preflight(hook.declared.spec, hook.event, hook.matcher, hook.handler,
                          root or project_root(place), blocking="verdict" if guard else "observe")
        row["preflight"] = [{"kind": f.kind, "subject": f.subject, "text": f.text} for f in found]
    return row


def _rows(vendor: str, imported: Any, surface: Any, root: Path | None,
          prefer: str = "fidelity") -> list[dict[str, Any]]:
    from compat_adapter.grading import grade_rules

    rows = [_hook_row(hook, surface, root, prefer) for hook in imported.hooks]
    for refused in imported.refused:
        rows.append({"vendor": vendor, "origin": refused.origin, "event": refused.what, "matcher": None,
                     "capability": "UNSUPPORTED", "route": "unsupported", "seams": [], "losses": [],
                     "reason": f"{refused.code}: {refused.reason}", "preflight": []})
    rows += _plugin_rows(vendor, getattr(imported, "plugins", ()), surface)
    for rules in imported.rules:
        result = grade_rules(rules.vendor, surface)
        rows.append({"vendor": vendor, "origin": rules.origin, "event": "rules", "matcher": None,
                     "capability": str(result.capability), "route": str(result.route),
                     "seams": list(result.seams), "losses": [], "reason": result.reason,
                     "sources": list(rules.sources), "trusted": rules.trusted, "preflight": []})
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
        return _graded(args)


def _graded(args: argparse.Namespace) -> int:
    from compat_adapter.catalog import resolve_vendor
    from compat_adapter.errors import ConfigParseError
    from compat_adapter.importers import import_files
    from compat_adapter.importers.discover import import_all, twice

    surface = surface_named(args.host)
    if args.host == "embedded":
        from compat_adapter.handlers.model import endpoint_from_env

        if endpoint_from_env() is not None:  # the embedded host would ask this model (prompt/agent hooks)
            surface = surface.model_copy(update={"services": surface.services | {"model"}})
    trust = True if args.trust_all else None
    given = [Path(f) for f in args.files] or [Path.cwd()]
    folders = [p for p in given if p.is_dir()]
    files = [p for p in given if not p.is_dir()]
    rows: list[dict[str, Any]] = []
    doubles: list[dict[str, str]] = []
    vendors: list[str] = []
    errors: list[str] = []
    if files:
        if not args.vendor:
            raise ConfigParseError(f"{files[0]}: name the vendor of these files with --vendor "
                                   "(a folder is searched for every vendor's files)", path=str(files[0]))
        spec = resolve_vendor(args.vendor)
        vendors.append(spec.id)
        rows += _rows(spec.id, import_files(spec.id, [str(f) for f in files], trust_all=trust),
                      surface, None, args.prefer)
    only = [resolve_vendor(args.vendor).id] if args.vendor else None
    for folder in folders:
        found = import_all(folder, trust_all=trust, vendors=only)
        for part in found:
            if part.vendor not in vendors:
                vendors.append(part.vendor)
            if part.result is None:
                assert part.error is not None
                errors.append(f"{part.error.code}: {part.error.message}")
                continue
            rows += _rows(part.vendor, part.result, surface, folder, args.prefer)
        doubles += [{"origin": t.origin, "other": t.other, "why": t.why} for t in twice(found, folder)]
    by_origin: dict[str, list[str]] = {}
    for d in doubles:
        by_origin.setdefault(d["origin"], []).append(d["why"])
    for r in rows:
        if r["origin"] in by_origin:
            r["loads_twice"] = by_origin[r["origin"]]
    unsupported = sum(r["capability"] == "UNSUPPORTED" for r in rows)
    out: dict[str, Any] = {"host": surface.host, "vendors": vendors, "rows": rows,
                           "unsupported": unsupported, "loads_twice": doubles, "errors": errors}
    if len(vendors) == 1:
        out["vendor"] = vendors[0]
    if args.sarif:
        from compat_adapter.cli.reports import sarif
        from compat_adapter.host.dsh.channel import version

        print(json.dumps(sarif(out, Path.cwd(), version()), indent=2))
    elif args.json:
        print(json.dumps(out, indent=2))
    elif args.verbose:
        _table(rows, surface, vendors, doubles, errors, unsupported)
    else:
        _summary(rows, surface, vendors, doubles, errors, unsupported)
    if errors and not rows:
        return 2
    return 1 if args.strict and unsupported else 0


def _table(rows: list[dict[str, Any]], surface: Any, vendors: list[str], doubles: list[dict[str, str]],
           errors: list[str], unsupported: int) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{', '.join(vendors) or 'no'} hooks graded on {surface.host} {surface.version}")
    for column in ("vendor", "where", "event", "matcher", "grade", "route", "losses, reason, preflight"):
        table.add_column(column, overflow="fold")
    for r in rows:
        notes = [r["reason"]] if r["reason"] else list(r["losses"])
        notes += [f"preflight {p['kind']}: {p['text']}" for p in r["preflight"]]
        notes += [f"loads twice: {why}" for why in r.get("loads_twice", ())]
        if r.get("alternative"):
            notes.append(f"alternative: {r['alternative']}")
        if not notes and r.get("trusted") is not None:
            notes = ["file trusted" if r["trusted"] else
                     "file not trusted (rules still carry: context, not code)"]
        table.add_row(r["vendor"], r["origin"], r["event"], r["matcher"] or "", r["capability"],
                      r["route"], "\n".join(n for n in notes if n))
    console = Console()  # the terminal's width (COLUMNS when not a terminal); long cells fold
    console.print(table)
    for error in errors:
        console.print(f"unusable: {error}")
    warned = sum(bool(r["preflight"]) for r in rows)
    console.print(f"{len(rows)} graded, {unsupported} UNSUPPORTED, {warned} with preflight findings, "
                  f"{len(doubles)} would load twice")


def _summary(rows: list[dict[str, Any]], surface: Any, vendors: list[str], doubles: list[dict[str, str]],
             errors: list[str], unsupported: int) -> None:
    """Summary first: one line per hook with its loss codes, then each loss text once with the hooks
    it affects (``--verbose`` prints every row in full)."""
    from rich.console import Console

    from compat_adapter.cli.reports import losses_once, short_origin, split_origin, summary_lines

    def _short(origin: str) -> str:
        path, place = split_origin(origin)
        return place or short_origin(path)

    console = Console(markup=False, highlight=False, soft_wrap=False)
    console.print(f"{', '.join(vendors) or 'no'} hooks graded on {surface.host} {surface.version}")
    for line in summary_lines(rows):
        console.print(line, overflow="ellipsis", no_wrap=True)
    lost = losses_once(rows)
    if lost:
        console.print("\nlosses (each once, with the hooks it affects):")
        for text, origins in lost:
            console.print(f"- {text}")
            shown = ", ".join(_short(o) for o in origins[:3]) + (f" and {len(origins) - 3} more" if len(origins) > 3
                                                                  else "")
            console.print(f"  affects {len(origins)}: {shown}", overflow="ellipsis", no_wrap=True)
    for r in rows:
        for p in r["preflight"]:
            console.print(f"preflight {p['kind']}: {r['origin']}: {p['text']}")
    for d in doubles:
        console.print(f"loads twice: {d['origin']}: {d['why']}")
    for error in errors:
        console.print(f"unusable: {error}")
    warned = sum(bool(r["preflight"]) for r in rows)
    console.print(f"{len(rows)} graded, {unsupported} UNSUPPORTED, {warned} with preflight findings, "
                  f"{len(doubles)} would load twice (--verbose: every row in full)")


_TRUST_ALL_HELP = ("DANGEROUS: run hooks from files nobody trusted (`compat-adapter trust`); "
                   "warns on every file")


def add_commands(sub: argparse._SubParsersAction) -> dict[str, Any]:
    g = sub.add_parser("grade", help="grade a vendor's files, or every vendor's files in a project")
    g.add_argument("--vendor", default=None,
                   help="the vendor of the named files (for folders: only this vendor's files)")
    g.add_argument("files", nargs="*", help="files of --vendor, or project folders (default: .)")
    g.add_argument("--host", default="embedded", help="grade on this host's surface (embedded, dsh, dsh-0.2)")
    g.add_argument("--json", action="store_true",
                   help="print the report as JSON (schema: docs/schema/grade.schema.json)")
    g.add_argument("--sarif", action="store_true", help="print SARIF 2.1.0 (for CI annotations of a pull request)")
    g.add_argument("--verbose", "-v", action="store_true", help="every row in full, each with all its losses")
    g.add_argument("--strict", action="store_true", help="exit 1 when anything is UNSUPPORTED")
    g.add_argument("--trust-all", action="store_true", help=_TRUST_ALL_HELP)
    g.add_argument("--prefer", choices=("fidelity", "official"), default="fidelity",
                   help="route policy: fidelity (default) translates every event it can with the vendor's own "
                        "semantics; official keeps the host's official bridge for the events it carries")
    return {"grade": _grade}
