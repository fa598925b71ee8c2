"""`compat-adapter demo` and `run`: the commands that run hooks on the embedded host.

As in ``compat_adapter.cli``, each command imports what it runs only when it is chosen.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio

from compat_adapter.errors import CompatError, ScriptError
from compat_adapter.host.script import script_from_json

__all__ = ("add_commands", "print_report", "read_session_script")


def _console() -> Any:
    from rich.console import Console

    return Console(stderr=False, highlight=False, soft_wrap=False, width=140)


def _progress(enabled: bool) -> Callable[[str], None] | None:
    """One line per stage on stderr, so anything longer than a second shows it is working."""
    if not enabled:
        return None

    def say(message: str) -> None:
        print(f"… {message}", file=sys.stderr, flush=True)
    return say


def print_report(timeline: Sequence[Any], status: Any, title: str) -> None:
    from rich.table import Table

    console = _console()
    table = Table(title=title, show_lines=False)
    for column in ("seam", "hook", "vendor answer", "host verdict"):
        table.add_column(column, overflow="fold")
    for row in timeline:
        table.add_row(row.seam, row.hook, row.answer, row.verdict)
    console.print(table)
    hooks = Table(title="status(): hooks")
    for column in ("id", "capability", "route", "seams", "running", "note"):
        hooks.add_column(column, overflow="fold")
    for h in status.hooks:
        hooks.add_row(h.id, str(h.capability), str(h.route), ", ".join(h.seams) or "-",
                      "yes" if h.running else "no", h.note or "")
    console.print(hooks)
    rules = Table(title="status(): rules carried")
    for column in ("id", "file", "bytes", "sha256"):
        rules.add_column(column, overflow="fold")
    for r in status.rules:
        for f in r.files:
            rules.add_row(r.id, f.path, str(f.bytes), f.sha256[:16] + "…")
    console.print(rules)


def _demo(args: argparse.Namespace) -> int:
    from compat_adapter.cli.demo import run_demo

    report = anyio.run(run_demo, Path(args.keep) if args.keep else None, _progress(not args.json))
    if args.json:
        print(report.model_dump_json(indent=2))
        return 0
    print_report(report.timeline, report.status,
                 "compat-adapter demo: seam → hook → vendor answer → host verdict")
    print(f"turns: {', '.join(report.turn_reasons)}; hook processes run: {report.hook_runs}")
    print("trust: the example preset is code installed with compat-adapter, so its hooks run as they are;\n"
          "a repository's own hook files run only after `compat-adapter trust` shows them and you agree.")
    return 0


def read_session_script(path: Path) -> tuple[list[str], list[Any]]:
    """A session script file: a JSON list of script items (one turn), or
    ``{"prompts": [...], "script": [...]}`` (one turn per prompt)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScriptError(f"script file {path} does not exist") from None
    except json.JSONDecodeError as exc:
        raise ScriptError(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    if isinstance(data, list):
        prompts, items = ["Begin."], data
    elif isinstance(data, dict) and isinstance(data.get("script"), list):
        prompts = data.get("prompts") or ["Begin."]
        items = data["script"]
        if not isinstance(prompts, list) or not all(isinstance(p, str) for p in prompts):
            raise ScriptError(f"{path}: prompts must be a list of strings")
    else:
        raise ScriptError(f"{path}: a session script is a JSON list, or an object with a script list")
    return prompts, list(script_from_json(items))


async def _run_session(preset: str, script_path: Path, cwd: Path, progress: Any,
                       prefer: str = "fidelity") -> Any:
    from compat_adapter.cli.demo import run_session
    from compat_adapter.host.embedded.memory import MemoryHost
    from compat_adapter.presets import apply_preset
    from compat_adapter.service import CompatAdapter
    from compat_adapter.cli.timeline import build_timeline

    prompts, script = read_session_script(script_path)
    async with MemoryHost(cwd) as host:
        async with CompatAdapter(host) as adapter:
            await apply_preset(adapter, preset, prefer=prefer)
            reasons, agent = await run_session(adapter, script, prompts, progress)
            return reasons, build_timeline(agent.session.events, adapter.audit), adapter.status()


def _run(args: argparse.Namespace) -> int:
    cwd = Path(args.cwd or ".").resolve()
    if not cwd.is_dir():
        raise CompatError(f"--cwd {cwd} is not a directory")
    from contextlib import nullcontext

    from compat_adapter.trust import trusting_all

    with trusting_all() if args.trust_all else nullcontext():
        reasons, timeline, status = anyio.run(_run_session, args.preset, Path(args.script), cwd,
                                              _progress(not args.json), args.prefer)
    if args.json:
        print(json.dumps({"turns": reasons, "timeline": [r.model_dump() for r in timeline],
                          "status": status.model_dump(mode="json")}, indent=2))
        return 0
    print_report(timeline, status, f"compat-adapter run: {args.preset}")
    print(f"turns: {', '.join(reasons)}")
    return 0


_PREFER_HELP = ("route policy: fidelity (default) translates every event it can with the vendor's own "
                "semantics; official keeps the host's official bridge for the events it carries")
_TRUST_ALL_HELP = ("DANGEROUS: run hooks from files nobody trusted (`compat-adapter trust`); "
                   "warns on every file")


def add_commands(sub: argparse._SubParsersAction) -> dict[str, Any]:
    d = sub.add_parser("demo", help="run the example preset and a scripted session on the embedded host")
    d.add_argument("--json", action="store_true", help="print the report as JSON")
    d.add_argument("--keep", metavar="DIR", help="keep the demo repository and logs in DIR")
    r = sub.add_parser("run", help="run your preset and session script on the embedded host")
    r.add_argument("--preset", required=True, help="entry-point name, file.py or module:attr")
    r.add_argument("--script", required=True, help="session script (JSON)")
    r.add_argument("--cwd", default=None, help="session working directory (default: .)")
    r.add_argument("--json", action="store_true", help="print the report as JSON")
    r.add_argument("--trust-all", action="store_true", help=_TRUST_ALL_HELP)
    r.add_argument("--prefer", choices=("fidelity", "official"), default="fidelity", help=_PREFER_HELP)
    return {"demo": _demo, "run": _run}
