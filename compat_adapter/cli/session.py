"""`compat-adapter demo` and `run`: the commands that run hooks on the embedded host.

As in ``compat_adapter.cli``, each command imports what it runs only when it is chosen.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio

from compat_adapter.errors import ScriptError
from compat_adapter.host.script import script_from_json

__all__ = ("add_commands", "print_report", "read_session_script")


def _console() -> Any:
    from rich.console import Console

    from compat_adapter.cli.term import width

    # The terminal's width (COLUMNS without one); cells fold inside it, nothing is cut. Colour
    # follows rich's own rules: a terminal only, never with NO_COLOR.
    return Console(stderr=False, highlight=False, soft_wrap=False, width=width())


def _progress(enabled: bool) -> Callable[[str], None] | None:
    """One line per stage on stderr, so anything longer than a second shows it is working."""
    if not enabled:
        return None

    def say(message: str) -> None:
        print(f"… {message}", file=sys.stderr, flush=True)
    return say


#: Longer cells are shortened in the table (a verdict or a deny reason is well under it).
_CELL_LIMIT = 240
_MESSAGE_LIMIT = 100


def _cell(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def print_report(timeline: Sequence[Any], status: Any, title: str) -> None:
    from rich.table import Table

    console = _console()
    table = Table(title=title, show_lines=False)
    for column in ("host point", "hook", "hook said", "what the host did"):
        table.add_column(column, overflow="fold")
    for row in timeline:
        # The table folds every cell to the width. A message that entered the context (rules, hook
        # context) is shown by its start, as is any cell past the limit; --json keeps each whole.
        limit = _MESSAGE_LIMIT if row.answer == "message entered" else _CELL_LIMIT
        table.add_row(row.seam, _cell(row.hook, limit), row.answer, _cell(row.verdict, limit))
    console.print(table)
    hooks = Table(title="hooks registered")
    notes = any(h.note for h in status.hooks)
    for column in ("hook", "grade", "route", "host points", "running") + (("note",) if notes else ()):
        hooks.add_column(column, overflow="fold")
    for h in status.hooks:
        hooks.add_row(h.id, str(h.capability), str(h.route), ", ".join(h.seams) or "-",
                      "yes" if h.running else "no", *((h.note or "",) if notes else ()))
    console.print(hooks)
    if not status.rules:
        return
    rules = Table(title="rules carried into the context")
    for column in ("rules", "file", "bytes"):
        rules.add_column(column, overflow="fold")
    for r in status.rules:
        for f in r.files:
            rules.add_row(r.id, f.path, str(f.bytes))
    console.print(rules)


def _demo(args: argparse.Namespace) -> int:
    from compat_adapter.cli.demo import run_demo

    report = anyio.run(run_demo, Path(args.keep) if args.keep else None, _progress(not args.json))
    if args.json:
        print(report.model_dump_json(indent=2))
        return 0
    print_report(report.timeline, report.status,
                 "compat-adapter demo: host point → hook → what the hook said → what the host did")
    from compat_adapter.cli.term import Printer

    out = Printer()
    out.line(f"turns: {', '.join(report.turn_reasons)}; hook processes run: {report.hook_runs}", hang=2)
    out.line("trust: the example preset is code installed with compat-adapter, so its hooks run as they are; "
             "a repository's own hook files run only after `compat-adapter trust` shows them and you agree.",
             hang=2)
    return 0


def read_session_script(path: Path, vendors: Sequence[str] = ()) -> tuple[list[str], list[Any]]:
    """A session script file: a JSON list of script items (one turn), or
    ``{"prompts": [...], "script": [...]}`` (one turn per prompt). Tool calls name the host's tools
    (``bash``) or a vendor's (``Bash``; ``vendors`` first where two spell a name differently)."""
    from compat_adapter.cli.scripttools import host_tool_names
    from compat_adapter.host.embedded.tools import TOOLS

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
    return prompts, list(script_from_json(host_tool_names(items, frozenset(TOOLS), vendors)))


class ProjectPreset:
    """A project's own hook and rules files, as every vendor finds them (``importers.discover``):
    what ``run FOLDER`` registers without a Python preset. Files follow the project's trust; a file
    that is not trusted registers none of its hooks, and an unusable file is reported, not fatal."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.held: list[str] = []
        """What did not register: untrusted hooks and unusable files, one line each."""
        self.unusable: list[str] = []
        """``CODE: message`` of each file that could not be used (the command exits 2)."""

    async def apply(self, adapter: Any) -> None:
        from compat_adapter.importers import register_import
        from compat_adapter.importers.discover import import_all

        from compat_adapter.importers.held import held_back

        held: dict[str, int] = {}
        announced: list[tuple[str, str]] = []
        for found in import_all(self.root):
            for e in found.errors:
                held[f"{e.code}: {e.message}"] = 0
                self.unusable.append(f"{e.code}: {e.message}")
            announced += held_back((), [(", ".join(map(str, found.files)), f"{e.code}: {e.message}")
                                        for e in found.errors])
            if found.result is None:
                continue
            for r in found.result.refused:  # one line per reason: a file's hooks share theirs
                key = f"{r.code}: {r.reason}"
                held[key] = held.get(key, 0) + 1
            announced += held_back(found.result.refused)
            await register_import(adapter, found.result)
        self.held = [f"{n} hook(s): {line}" if n else line for line, n in held.items()]
        if announced:
            _announce_at_start(adapter.host, tuple(announced))


def _announce_at_start(host: Any, held: tuple[tuple[str, str], ...]) -> None:
    """Every session on ``host`` starts by telling the person which hooks are held back and why."""
    from compat_adapter.host.protocol import Notice

    async def announce(event: Any) -> None:
        for text, file in held:
            host.notify(Notice("held", text, event.agent.session.id, file))
    host.on("agent/created", announce)


async def _run_session(preset: Any, script_path: Path, cwd: Path, progress: Any,
                       prefer: str = "fidelity") -> Any:
    from compat_adapter.cli.demo import run_session
    from compat_adapter.cli.timeline import build_timeline
    from compat_adapter.host.embedded.memory import MemoryHost
    from compat_adapter.presets import apply_preset
    from compat_adapter.service import CompatAdapter

    from compat_adapter.importers.discover import discover

    prompts, script = read_session_script(script_path, list(discover(cwd)))
    async with MemoryHost(cwd) as host:
        async with CompatAdapter(host) as adapter:
            await apply_preset(adapter, preset, prefer=prefer)
            reasons, agent = await run_session(adapter, script, prompts, progress)
            return reasons, build_timeline(agent.session.events, adapter.audit), adapter.status()


def _run(args: argparse.Namespace) -> int:
    from contextlib import nullcontext

    from compat_adapter.errors import BadArgument, NoSuchPath, NotAFolder
    from compat_adapter.trust import trusting_all

    if args.project and args.cwd:
        raise BadArgument("give the project folder once: as FOLDER or as --cwd")
    given = args.project or args.cwd or "."
    cwd = Path(given).resolve()
    if not cwd.exists():
        raise NoSuchPath(f"{given}: no such file or folder", path=given)
    if not cwd.is_dir():
        raise NotAFolder(f"{given}: is a file, not a folder to run the session in", path=given)
    if not args.script:
        raise BadArgument("run needs --script FILE: the embedded host's agent follows a session script "
                          "(a model endpoint, COMPAT_ADAPTER_MODEL_URL, answers prompt and agent hooks)")
    from compat_adapter.cli.scratch import SCRATCH_NOTE, scratch_project

    script = Path(args.script).resolve()
    with scratch_project(cwd) if not args.in_place else nullcontext(cwd) as where:
        preset: Any = args.preset or ProjectPreset(where)
        with trusting_all() if args.trust_all else nullcontext():
            reasons, timeline, status = anyio.run(_run_session, preset, script, where,
                                                  _progress(not args.json), args.prefer)
    # Said in the project's own paths: the copy is gone when the user reads them.
    held = [line.replace(str(where), str(cwd)) for line in preset.held] if isinstance(preset, ProjectPreset) else []
    unusable = ([line.replace(str(where), str(cwd)) for line in preset.unusable]
                if isinstance(preset, ProjectPreset) else [])
    # A file that could not be used is never a pass, as in every command (exit 2).
    status_code = 2 if unusable else 0
    note = None if args.in_place else SCRATCH_NOTE.format(root=given)
    if args.json:
        print(json.dumps({"turns": reasons, "timeline": [r.model_dump() for r in timeline],
                          "status": status.model_dump(mode="json"), "held": held, "unusable": unusable,
                          "in_place": bool(args.in_place)}, indent=2))
        return status_code
    title = f"compat-adapter run: {args.preset}" if args.preset else f"compat-adapter run: the hooks of {given}"
    print_report(timeline, status, title)
    from compat_adapter.cli.term import Printer

    out = Printer()
    out.line(f"turns: {', '.join(reasons)}")
    if held:
        out.line(f"not registered ({len(held)}); `compat-adapter grade {shlex.quote(given)}` says why and what "
                 "to do:", hang=2)
        for line in held:
            out.line(line, indent=2, hang=4)
    if note:
        out.line(note, hang=2)
    for line in unusable:
        print(line, file=sys.stderr)
    return status_code


_PREFER_HELP = ("route policy: fidelity (default) translates every event it can with the vendor's own "
                "semantics; official keeps the host's official bridge for the events it carries")
_TRUST_ALL_HELP = ("DANGEROUS: run hooks from files nobody trusted (`compat-adapter trust`); "
                   "warns on every file")


def add_commands(sub: argparse._SubParsersAction) -> dict[str, Any]:
    d = sub.add_parser("demo", help="run the example preset and a scripted session on the embedded host")
    d.add_argument("--json", action="store_true", help="print the report as JSON")
    d.add_argument("--keep", metavar="DIR", help="keep the demo repository and logs in DIR")
    r = sub.add_parser("run", help="run a session on the embedded host with a project's own (trusted) hooks")
    r.add_argument("project", nargs="?", default=None, metavar="FOLDER",
                   help="the project: its trusted hook and rules files are registered, and the session "
                        "runs in it (default: .)")
    r.add_argument("--script", default=None, help="session script (JSON; see INTEGRATION.md)")
    r.add_argument("--preset", default=None,
                   help="register this preset instead of the project's files (entry-point name, file.py or "
                        "module:attr)")
    r.add_argument("--cwd", default=None, help="the session's working folder (as FOLDER)")
    r.add_argument("--json", action="store_true", help="print the report as JSON")
    r.add_argument("--trust-all", action="store_true", help=_TRUST_ALL_HELP)
    r.add_argument("--prefer", choices=("fidelity", "official"), default="fidelity", help=_PREFER_HELP)
    r.add_argument("--in-place", action="store_true",
                   help="run the hooks in the project itself; by default they run in a scratch copy of it, "
                        "so what they write or delete is never the project's")
    return {"demo": _demo, "run": _run}
