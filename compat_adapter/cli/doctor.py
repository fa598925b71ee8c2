"""`compat-adapter doctor [FOLDER]`: one line per hook — will it run here, and if not, why.

The question users ask most ("my hook silently didn't run"), answered for every vendor's hooks in
the project at once, in the order a hook gets to run: its file is **found** where its vendor looks
(and usable), it is **trusted**, the host **supports** its event and handler, it **starts** (its
program and script are here), and its matcher **can fire** on this host. A hook that passes all five
runs; the line then says what a crash or a timeout of it does, as its vendor reads that failure: a
guard that lets the call through fails open. Nothing runs: the checks are `grade`'s, read-only.

Exit status: 0 every hook found would run; 1 some would not (each line says why); 2 a file is
unusable or the command is misused.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

__all__ = ("add_commands", "diagnose")

_CHECKS = ("found", "trusted", "supported", "starts", "fires")


def _failure(hook: Any, timed_out: bool) -> str:
    """What one failed run of ``hook`` does, as its vendor's dialect decodes that failure."""
    from compat_adapter.dialects import dialect_for
    from compat_adapter.runtime.outcome import ProcessOutcome

    blocking = hook.declared.row.blocking
    if blocking == "observe":
        return "nothing (it only observes)"
    outcome = ProcessOutcome(exit_code=None if timed_out else 1, stdout="",
                             stderr="" if timed_out else "Traceback (most recent call last): crashed",
                             timed_out=timed_out, truncated=False, cause="timeout" if timed_out else None,
                             duration_ms=0.0)
    decision = dialect_for(hook.vendor).decode(hook.event, outcome).decision
    if decision in ("deny", "block"):
        return {"verdict": "the call is denied (fails closed)", "continue": "the agent is sent back to work",
                "context": "what it gates is blocked"}.get(blocking, "it blocks")
    return {"verdict": "the call goes ahead (fails open)", "continue": "the agent stops as if it passed",
            "context": "the session goes on without it"}.get(blocking, "nothing")


def _timeout(hook: Any) -> float:
    own = getattr(hook.declared.handler, "timeout_s", None)
    return float(own if own is not None else hook.declared.spec.default_timeout_s)


def _hook(hook: Any, surface: Any, root: Path) -> dict[str, Any]:
    from compat_adapter.project import hook_row

    row = hook_row(hook, surface, root)
    out = {"vendor": hook.vendor, "event": hook.event, "matcher": hook.matcher, "command": row.get("command"),
           "origin": hook.origin, "line": row.get("line"), "passed": ["found", "trusted"]}
    never = [loss.split(": ", 1)[1] for loss in row["losses"] if loss.startswith("never-fires:")]
    if row["capability"] == "UNSUPPORTED":
        return {**out, "runs": False, "failed": "supported", "why": row["reason"]}
    out["passed"].append("supported")
    # A ported entry whose compiled client is not here does not run its hooks, even where its
    # command's own fallback (a refusal, port/clientname.py) makes it "start".
    fix = next((f["text"] for f in row["preflight"] if f["kind"] == "client-missing"), None)
    if row.get("starts") is False or fix:
        text = next((f["text"] for f in row["preflight"] if f["kind"] == "cannot-start"), None)
        text = "; ".join(t for t in (text, fix and f"client-missing: {fix}") if t) or "it cannot start here"
        return {**out, "runs": False, "failed": "starts", "why": text}
    out["passed"].append("starts")
    if never:
        return {**out, "runs": False, "failed": "fires", "why": never[0]}
    out["passed"].append("fires")
    ignored = [loss.split(": ", 1)[1] for loss in row["losses"] if loss.startswith("observe-only:")]
    return {**out, "runs": True, "failed": None, "why": None, "answer_ignored": ignored[0] if ignored else None,
            "crash": _failure(hook, timed_out=False), "timeout_s": _timeout(hook),
            "timeout": _failure(hook, timed_out=True)}


def _plugin(plugin: Any) -> dict[str, Any]:
    """An OpenCode plugin of a trusted file: it runs in the plugin host (a Bun sidecar) when that
    runtime is installed; its hooks are the keys it returns (`grade` lists them)."""
    from compat_adapter.importers import plugin_runtime

    out = {"vendor": plugin.vendor, "event": "plugin", "matcher": None, "command": plugin.name,
           "origin": plugin.origin, "line": None, "passed": ["found", "trusted", "supported"]}
    if not plugin_runtime(plugin.vendor).installed():
        return {**out, "runs": False, "failed": "starts",
                "why": "the plugin host runtime is not installed here (bash scripts/plugin_lane.sh installs it)"}
    return {**out, "passed": [*out["passed"], "starts"], "runs": True, "failed": None, "why": None,
            "answer_ignored": None, "crash": "the plugin host reports it and the session goes on",
            "timeout_s": 0.0, "timeout": None}


def diagnose(folder: Path, host: str = "embedded") -> list[dict[str, Any]]:
    """One entry per hook (and per unusable file) of every vendor in ``folder``."""
    from compat_adapter.importers.lines import line_of
    from compat_adapter.host.surfaces import surface_named
    from compat_adapter.importers.discover import import_all
    from compat_adapter.trust import UNTRUSTED, TRUST_COMMAND

    surface = surface_named(host)
    root = Path(os.path.abspath(folder))
    out: list[dict[str, Any]] = []
    for part in import_all(folder):
        for error in part.errors:
            out.append({"vendor": part.vendor, "event": None, "matcher": None, "command": None,
                        "origin": str(error.context.get("path") or part.files[0]), "line": None, "passed": [],
                        "runs": False, "failed": "found", "why": f"{error.code}: {error.message}"})
        if part.result is None:
            continue
        out += [_hook(hook, surface, root) for hook in part.result.hooks]
        out += [_plugin(plugin) for plugin in part.result.plugins]
        for refused in part.result.refused:
            untrusted = refused.code == UNTRUSTED
            out.append({"vendor": refused.vendor, "event": refused.what, "matcher": None, "command": None,
                        "origin": refused.origin, "line": line_of(refused.origin),
                        "passed": ["found"] if untrusted else ["found", "trusted"], "runs": False,
                        "failed": "trusted" if untrusted else "supported",
                        "why": (f"not trusted: review it with `{TRUST_COMMAND} {folder}`" if untrusted
                                else f"{refused.code}: {refused.reason}")})
    return out


def _line(entry: dict[str, Any]) -> tuple[str, str]:
    from compat_adapter.cli.reports import short_origin, split_origin

    on = f"{entry['event']}[{entry['matcher']}]" if entry.get("matcher") else str(entry["event"] or "")
    where = short_origin(split_origin(entry["origin"])[0]) + (f":{entry['line']}" if entry.get("line") else "")
    head = f"{entry['vendor']} {on} {where}".replace("  ", " ")
    if not entry["runs"]:
        return "WON'T RUN", f"{head} — {entry['failed']}: {entry['why']}"
    checks = ", ".join(entry["passed"])
    limit = f"; after {entry['timeout_s']:g}s: {entry['timeout']}" if entry["timeout_s"] else ""
    said = f"{head} — {checks}; a crash: {entry['crash']}{limit}"
    if entry.get("answer_ignored"):
        return "RUNS, IGNORED", f"{said}; but its answer is ignored: {entry['answer_ignored']}"
    return "RUNS", said


def _doctor(args: argparse.Namespace) -> int:
    from compat_adapter.cli.term import Printer
    from compat_adapter.errors import NoSuchPath, NotAFolder

    folder = Path(args.folder)
    if not folder.exists():
        raise NoSuchPath(f"{args.folder}: no such file or folder", path=args.folder)
    if not folder.is_dir():
        raise NotAFolder(f"{args.folder}: is a file, not a project folder", path=args.folder)
    found = diagnose(folder, args.host)
    unusable = any(e["failed"] == "found" for e in found)
    if args.json:
        print(json.dumps({"host": args.host, "hooks": found}, indent=2))
    else:
        out = Printer()
        if not found:
            out.line(f"no hook of any vendor in {args.folder} (each vendor's project files are searched, "
                     "nothing above): nothing would run", hang=2)
        for entry in found:
            lead, text = _line(entry)
            out.line(text, hang=4, lead=lead, lead_style="green bold" if lead == "RUNS" else "red bold")
        if found:
            runs = sum(e["runs"] for e in found)
            out.line()
            out.line(f"{runs} of {len(found)} would run on {args.host}; checks in order: {', '.join(_CHECKS)}",
                     hang=2, style="dim")
    if unusable:
        return 2
    return 0 if all(e["runs"] for e in found) else 1


def add_commands(sub: argparse._SubParsersAction) -> dict[str, Any]:
    d = sub.add_parser("doctor", help="one line per hook: will it run here, and if not, why",
                       epilog="exit status: 0 every hook would run; 1 some would not; 2 a file is unusable "
                              "or the command is misused")
    d.add_argument("folder", nargs="?", default=".", help="the project folder (default: .)")
    d.add_argument("--host", default="embedded", help="the host it would run on (embedded, dsh, dsh-0.2)")
    d.add_argument("--json", action="store_true", help="print the diagnosis as JSON")
    return {"doctor": _doctor}
