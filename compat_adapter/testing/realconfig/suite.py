"""The real-config lane: every file of the real corpus, installed as its vendor loads it (with the
repository's own scripts where the corpus keeps them, stand-ins for the rest), driven through the
standard scenarios under the real vendor CLI and on compat-adapter (the embedded host), and judged
by :func:`compat_adapter.testing.realconfig.judge.judge`: which hook processes ran and what hook
text the model read, seen from outside both sides, besides whether the tool ran, the model calls
and the tool result (the comparison is never adjusted).

Both sides run in the lane's sandbox (a loopback-only namespace, scratch folders) under the same
process observer (:mod:`compat_adapter.testing.realconfig.procwatch`): the vendor as the vendor
lane runs it, the embedded side through :mod:`compat_adapter.testing.realconfig.isolated`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from compat_adapter.testing.lane.drivers import vendor_outcome
from compat_adapter.testing.lane.scenarios import TOOL_COMMAND, Case
from compat_adapter.testing.lane.suite import CaseResult, run_parallel
from compat_adapter.testing.lane.vendors import cli_for
from compat_adapter.testing.realconfig.install import Installed, install
from compat_adapter.testing.realconfig.isolated import run_isolated
from compat_adapter.testing.realconfig.judge import Side, commands_in, judge
from compat_adapter.testing.realconfig.procwatch import parse, traced

__all__ = ("DESTRUCTIVE", "SCENARIOS", "case_commands", "cases_of", "run_cases", "run_lane", "summarize")

#: A command every guard against destructive shell commands refuses, harmless if it ran. A folder of
#: the project, not an absolute path: Claude Code 2.1.328 refuses `rm -rf /<anything>` by itself
#: ("Dangerous rm operation detected … cannot be auto-allowed by permission rules"), with no hook
#: involved, and the lane compares hooks.
DESTRUCTIVE = "rm -rf build; echo ran > tool-ran.txt"
#: scenario → (the model's steps, the prompt).
SCENARIOS: Mapping[str, tuple[tuple[tuple[str, str], ...], str]] = {
    "destructive": ((("shell", DESTRUCTIVE), ("text", "done")), "clean the build folder"),
    "benign": ((("shell", TOOL_COMMAND), ("text", "done")), "run the lane step"),
    # The edit writes the file the lane reads "the tool ran" from, as the shell steps do.
    "edit": ((("write", "tool-ran.txt"), ("text", "done")), "write the notes"),
    "prompt": ((("text", "done"),), "deploy the release to prod please"),
    "stop": ((("shell", TOOL_COMMAND), ("text", "first answer"), ("text", "second answer"),
              ("text", "third answer")), "finish the task"),
    "session": ((("text", "hello"),), "say hello"),
}


def _name(source: str) -> str:
    return source.split("/", 1)[1].replace("/", "_")


def cases_of(source: str, scenarios: Iterable[str] | None = None) -> tuple[Installed, tuple[Case, ...]]:
    """The cases of one corpus file: one per scenario, or one that says why none can be driven."""
    installed = install(source)
    chosen = tuple(scenarios) if scenarios is not None else tuple(SCENARIOS)
    out = []
    for scenario in chosen:
        kind = f"{_name(source)}/{scenario}"
        why = installed.not_drivable
        if why is not None:  # a vendor with no CLI here has no lane driver to ask either
            out.append(Case(installed.vendor, kind, not_drivable=why))
            continue
        steps, prompt = SCENARIOS[scenario]
        cli = cli_for(installed.vendor)
        if scenario == "destructive" and cli.destructive:
            steps = (("shell", cli.destructive), *steps[1:])
        options = dict(installed.options)
        if scenario == "edit":
            if cli.write_tool is None:
                why = (f"the vendor lane's {installed.vendor} driver has no file-write tool for the scripted model "
                       "(its CLI offers the mock model none it can call by a known name)")
            options["allowed_tools"] = "Bash,Write"
        if why is not None:
            out.append(Case(installed.vendor, kind, not_drivable=why))
            continue
        out.append(Case(installed.vendor, kind, steps=steps, prompt=prompt, options=options, files=installed.files,
                        installed=True, imports=installed.imports))
    return installed, tuple(out)


def case_commands(case: Case) -> list[str]:
    """Every hook command the case's files spell (what the process observer looks for). A hook file
    that is itself the program (a ``#!`` script: Cline's event-named files) is started by its path."""
    return list(dict.fromkeys(c for name in case.imports for c in (
        [name] if case.files.get(name, "").startswith("#!") else commands_in(case.files.get(name, "")))))


def _one(case: Case, root: Path) -> CaseResult:
    if case.not_drivable:
        return CaseResult(case, None, None, None)
    base = root / case.vendor / case.kind
    vendor_log, our_log = base / "vendor" / "out" / "procs.strace", base / "embedded" / "procs.strace"
    try:
        vendor = vendor_outcome(case, base / "vendor", wrap=lambda argv: traced(argv, vendor_log))
        ours = run_isolated(case, base / "embedded")
        if not (vendor_log.exists() and our_log.exists()):
            raise RuntimeError("the process observer recorded nothing (is strace installed? apt-get install strace)")
        sides = [Side(o, parse(log.read_text(encoding="utf-8", errors="replace")), (str(run), str(run.resolve())))
                 for o, log, run in ((vendor, vendor_log, base / "vendor"), (ours, our_log, base / "embedded"))]
    except Exception as exc:  # a run that breaks is reported loudly, with the case it broke on
        return CaseResult(case, None, None, None, failure=f"{type(exc).__name__}: {exc}")
    return CaseResult(case, vendor, ours, judge(case, case_commands(case), *sides))


def run_lane(sources: Sequence[str], *, scenarios: Iterable[str] | None = None, root: Path | None = None,
             workers: int | None = None) -> tuple[list[Installed], list[CaseResult], float]:
    """Every case of ``sources``; the installs, the results (in order) and the wall time."""
    chosen = tuple(scenarios) if scenarios is not None else None
    built = [cases_of(s, chosen) for s in sources]
    results, wall = run_cases([c for _, cs in built for c in cs], root=root, workers=workers)
    return [i for i, _ in built], results, wall


def run_cases(cases: Sequence[Case], *, root: Path | None = None, workers: int | None = None
              ) -> tuple[list[CaseResult], float]:
    """The given cases, several at a time; the results (in order) and the wall time."""
    return run_parallel(cases, _one, root=root or Path(tempfile.mkdtemp(prefix="realconfig-lane-")), workers=workers)


def summarize(installs: Sequence[Installed], results: Sequence[CaseResult]) -> dict[str, Any]:
    """Per vendor: pairs, agree, differ_listed, differ_unlisted, the share that agrees, every pair
    that cannot be driven with why, failures, and per file its own scripts, its stand-ins and what
    it runs that the lane cannot stand in."""
    out: dict[str, Any] = {}
    for vendor in dict.fromkeys(i.vendor for i in installs):
        mine = [r for r in results if r.case.vendor == vendor]
        verdicts = [r.verdict for r in mine if r.verdict is not None]
        agree = sum(v.status == "agree" for v in verdicts)
        out[vendor] = {
            "pairs": len(verdicts),
            "agree": agree,
            "differ_listed": sum(v.status == "differ_listed" for v in verdicts),
            "differ_unlisted": sum(v.status == "differ_unlisted" for v in verdicts),
            "agree_share": round(agree / len(verdicts), 3) if verdicts else None,
            "not_drivable": {r.case.kind: r.case.not_drivable for r in mine if r.case.not_drivable},
            "failures": {r.case.kind: r.failure for r in mine if r.failure},
            "verdicts": {v.case.split(":", 1)[1]: v.as_json() for v in verdicts if v.status != "agree"},
            "files": {i.source: {"scripts": [list(s) for s in i.scripts], "standins": [list(s) for s in i.standins],
                                 "cannot_stand_in": list(i.cannot),
                                 "not_drivable": i.not_drivable}
                      for i in installs if i.vendor == vendor},
        }
    return out
