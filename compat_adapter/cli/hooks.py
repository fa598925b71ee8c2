"""`compat-adapter hooks [FOLDER]`: every hook of a project by vendor and event, with its matcher, its
command and where it is declared (``file:line``), and whether its file is trusted: the list each
vendor's own ``/hooks`` view gives, for every vendor at once; beside them, the permission rules
(``permissions.deny`` …), which guard the same tool calls.

Listing runs nothing: the files are read as the trust review reads them (no hook starts, no plugin
loads), so untrusted hooks are listed too, marked as such.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

__all__ = ("add_commands", "list_hooks")

_STATE = {"trusted": "trusted", "untrusted": "NOT TRUSTED", "changed": "CHANGED since trusted"}


def list_hooks(folder: Path) -> list[dict[str, Any]]:
    """One entry per hook the project's files declare, in each vendor's file order."""
    from compat_adapter.importers.lines import line_of
    from compat_adapter.errors import CompatError
    from compat_adapter.importers.discover import discover
    from compat_adapter.importers.gate import review

    out: list[dict[str, Any]] = []
    for vendor, files in discover(folder).items():
        for file in files:
            try:
                seen = review(vendor, file, str(file))
            except CompatError as exc:
                out.append({"vendor": vendor, "file": str(file), "error": f"{exc.code}: {exc.message}"})
                continue
            for view, origin in zip(seen.hooks, seen.origins, strict=True):
                out.append({"vendor": vendor, "event": view.event, "matcher": view.matcher,
                            "command": view.command, "origin": origin, "line": line_of(origin),
                            "file": str(file), "trust": seen.verdict.state})
            out += [{"vendor": vendor, "event": "plugin", "matcher": None, "command": plugin, "origin": str(file),
                     "line": None, "file": str(file), "trust": seen.verdict.state} for plugin in seen.plugins]
            # Permission rules guard the same calls: listed with them, under their key.
            out += [{"vendor": vendor, "event": f"permissions.{kind}", "matcher": None, "command": text,
                     "origin": origin, "line": line_of(origin), "file": str(file), "trust": seen.verdict.state}
                    for kind, text, origin in seen.permissions]
    return out


def _hooks(args: argparse.Namespace) -> int:
    from compat_adapter.cli.reports import short_origin
    from compat_adapter.cli.term import Printer
    from compat_adapter.errors import NoSuchPath, NotAFolder

    folder = Path(args.folder)
    if not folder.exists():
        raise NoSuchPath(f"{args.folder}: no such file or folder", path=args.folder)
    if not folder.is_dir():
        raise NotAFolder(f"{args.folder}: is a file, not a project folder", path=args.folder)
    found = list_hooks(folder)
    if args.json:
        print(json.dumps({"hooks": found}, indent=2))
        return 2 if any("error" in h for h in found) else 0
    out = Printer()
    hooks = [h for h in found if "error" not in h]
    rules = sum(h["event"].startswith("permissions.") for h in hooks)
    out.line(f"{len(hooks) - rules} hook(s)" + (f" and {rules} permission rule(s) or setting(s)" if rules else "")
             + f" in {args.folder}, by vendor and event", style="bold")
    shown: tuple[str, str] | None = None
    for h in found:
        if "error" in h:
            out.line(h["error"], indent=0, hang=2, lead="UNUSABLE", lead_style="red bold")
            continue
        if shown != (h["vendor"], h["event"]):
            if shown is None or shown[0] != h["vendor"]:
                out.line()
            shown = (h["vendor"], h["event"])
            out.line(h["event"], lead=h["vendor"], lead_style="bold")
        where = short_origin(h["file"]) + (f":{h['line']}" if h["line"] else "")
        # A rule only refuses or asks here: it is enforced whatever the trust.
        state = "enforced whether trusted or not" if h["event"].startswith("permissions.") else _STATE[h["trust"]]
        out.line(f"{h['command']}", indent=2, hang=6, lead=f"[{h['matcher'] or '*'}]", lead_style="cyan")
        out.line(f"{where} · {state}", indent=6, hang=8, style="dim" if h["trust"] == "trusted" else "yellow")
    if not found:
        out.line(f"no vendor's hook file in {args.folder}")
    return 2 if any("error" in h for h in found) else 0


def add_commands(sub: argparse._SubParsersAction) -> dict[str, Any]:
    h = sub.add_parser("hooks", help="list a project's hooks by vendor and event, with where each is declared")
    h.add_argument("folder", nargs="?", default=".", help="the project folder (default: .)")
    h.add_argument("--json", action="store_true", help="print the list as JSON")
    return {"hooks": _hooks}
