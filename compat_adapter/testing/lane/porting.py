"""Ported runs in the vendor lane: a source vendor's hook config, ported to a target with
``compat-adapter port``, run under the target's real CLI.

The source project is laid out as the source's lane case lays it out (same run folder, so the
recorder's paths hold), ported in place, and then handed to the target's driver as an installed
project: the target's files as port wrote them, and the source's own config files left out (the
ported entries carry the hooks; a target that also reads the source's files, as Copilot reads
``.claude/settings.json``, would otherwise run them natively and prove nothing).
"""

from __future__ import annotations

import shlex
import shutil
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from compat_adapter.testing.lane.run import hook_files, prepare_project
from compat_adapter.testing.lane.scenarios import Case, HookAnswer

__all__ = ("GUARD", "degradations_of", "entry_launcher", "guard_case", "launcher", "ported_case", "source_case")

#: A team's guard, as a project script: it refuses a recursive delete, with its reason on stderr.
GUARD = ("#!/bin/sh\n# The team's guard: no recursive delete in this project.\ninput=$(cat)\n"
         'case "$input" in\n  *"rm -r"*) echo "LANE-DENY-GUARD recursive delete refused by the team guard" >&2; '
         "exit 2;;\nesac\nexit 0\n")


def launcher() -> list[str]:
    """The command that starts this compat-adapter (the interpreter running the lane)."""
    return [sys.executable, "-m", "compat_adapter"]


def entry_launcher() -> list[str]:
    """What the ported entries start: the compiled shim client, as ``port`` writes by default (its
    built path: the lane's CLIs need no PATH of ours), or, where no C compiler builds it, this
    compat-adapter, as ``port`` falls back."""
    from compat_adapter.errors import BadArgument
    from compat_adapter.port.fastclient import install_build

    try:
        return [str(install_build())]
    except BadArgument:
        return launcher()


def guard_case() -> Case:
    """The done-when guard: a Claude PreToolUse hook on Bash running ``guard.sh`` (its config in
    ``.claude/settings.json``), with the model asking for ``rm -rf build``."""
    return Case("claude", "port_guard", (HookAnswer("PreToolUse", matcher="Bash"),),
                steps=(("shell", "rm -rf build && echo ran > tool-ran.txt"), ("text", "done")),
                files={"guard.sh": GUARD, "build/keep.txt": "kept\n"})


def _files(proj: Path) -> dict[str, str]:
    out = {}
    for path in sorted(proj.rglob("*")):
        if ".git" in path.relative_to(proj).parts or not path.is_file() or path.is_symlink():
            continue
        out[str(path.relative_to(proj))] = path.read_text()
    return out


def source_case(case: Case, run: Path, *, guard_command: str) -> Case:
    """``case`` under its own vendor with its hooks running ``guard_command`` (the source run of the
    guard case), as an installed project."""
    proj = prepare_project(case, run)
    _guard(hook_files(case, proj), guard_command)
    files = _files(proj)
    shutil.rmtree(proj)
    return replace(case, files=files, installed=True)


def _guard(sources: list[Path], guard_command: str) -> None:
    for source in sources:
        text = source.read_text()
        start = text.index("python3 ")
        source.write_text(text[:start] + guard_command + text[text.index('"', start):])


def ported_case(case: Case, target: str, run: Path, *, guard_command: str | None = None) -> tuple[Case, Mapping[str, Any]]:
    """``case`` (a source vendor's) ported to ``target`` in ``run``: the target's case and port's
    plan as JSON. ``guard_command``: the command the source hooks run in place of the recorder."""
    from compat_adapter.catalog import unit_of
    from compat_adapter.cli.port import port_report  # the report `port --json` prints
    from compat_adapter.importers.gate import trust_files
    from compat_adapter.port.files import write_port
    from compat_adapter.port.plan import plan_port
    from compat_adapter.port.shim import decode_spec
    from compat_adapter.testing.lane.drivers import TRUST_COMMAND
    from compat_adapter.testing.lane.vendors import cli_for

    proj = prepare_project(case, run)
    sources = hook_files(case, proj)
    if guard_command is not None:
        _guard(sources, guard_command)
    trust_files(case.vendor, sources, command=TRUST_COMMAND)
    plan = plan_port(proj, target, launcher=entry_launcher(), sources=[case.vendor])
    change = write_port(proj, unit_of(target).host, plan)  # type: ignore[arg-type]
    files = _files(proj)
    # A ported plugin file is the hook's own code (as guard.sh is a command's): the shim loads it
    # from the project, and no other CLI reads it as config.
    code = {h["plugin"] for e in plan.entries for h in decode_spec(e.command.rsplit(" ", 1)[-1]).hooks if "plugin" in h}
    for source in sources:
        if str(source.relative_to(proj)) not in code:
            files.pop(str(source.relative_to(proj)), None)
    shutil.rmtree(proj)
    cli = cli_for(target)
    options = dict(case.options.get("options", {}))
    steps = tuple((kind, cli.destructive.split(";")[0] + " && echo ran > tool-ran.txt")
                  if kind == "shell" and "rm -rf" in value and cli.destructive else (kind, value)
                  for kind, value in case.steps)
    ported = replace(case, vendor=target, kind=f"port_{case.vendor}_{case.kind}", files=files, installed=True,
                     imports=(), options=options, steps=steps)
    report = port_report(plan, change.action)
    report["command"] = shlex.join(launcher() + ["port", "--to", target])
    return ported, report


def degradations_of(report: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """Each source event → the loss codes port graded for it on the target ("unsupported" for a
    hook it could not host): what names a difference the comparison finds."""
    out: dict[str, tuple[str, ...]] = {}
    for r in report["results"]:
        codes = tuple(d["code"] for d in r["degradations"]) + (("unsupported",) if r["capability"] == "UNSUPPORTED"
                                                                 else ())
        out[r["event"]] = tuple(dict.fromkeys(out.get(r["event"], ()) + codes))
    return out
