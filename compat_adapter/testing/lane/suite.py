"""Run the whole differential suite: every scenario of every vendor, under the real CLI and on the
embedded host, in parallel where the machine allows, and summarize it per vendor."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from compat_adapter.testing.lane.compare import Verdict, compare, payload_fields
from compat_adapter.testing.lane.drivers import TIMED_OUT_NOTE, embedded_outcome, vendor_outcome
from compat_adapter.testing.lane.outcome import Outcome
from compat_adapter.testing.lane.scenarios import Case
from compat_adapter.testing.lane.vendors import cases_for, lane_vendors

__all__ = ("CaseResult", "pin_of", "ready", "run_parallel", "run_suite", "summarize")


@dataclass(frozen=True, slots=True)
class CaseResult:
    case: Case
    vendor: Outcome | None
    ours: Outcome | None
    verdict: Verdict | None
    failure: str | None = None


def _one(case: Case, root: Path) -> CaseResult:
    base = root / case.vendor / case.kind
    if case.not_drivable:
        return CaseResult(case, None, None, None)
    try:
        vendor = vendor_outcome(case, base / "vendor")
        if _cut_short(vendor):
            # A vendor run killed at the lane's time bound (a loaded machine: Kilo took 150 s for a
            # 24 s case at load 50) measured nothing: it runs once more, and if it is cut short
            # again the case is a failure, never compared as though the vendor had answered so.
            vendor = vendor_outcome(case, base / "vendor-again")
        if _cut_short(vendor):
            return CaseResult(case, None, None, None, failure=f"the vendor's run was cut short twice: {vendor.error}")
        ours = anyio.run(embedded_outcome, case, base / "embedded")
    except Exception as exc:  # a run that breaks is reported loudly, with the case it broke on
        return CaseResult(case, None, None, None, failure=f"{type(exc).__name__}: {exc}")
    return CaseResult(case, vendor, ours, compare(case, vendor, ours))


def _cut_short(vendor: Outcome) -> bool:
    """Whether the vendor's run failed because the lane killed it at its time bound (a case that
    expects a kill sets its own bound and reports no error)."""
    return vendor.error is not None and TIMED_OUT_NOTE in vendor.notes


def run_suite(vendors: Sequence[str] | None = None, *, root: Path | None = None, workers: int | None = None,
              kinds: Iterable[str] | None = None) -> tuple[list[CaseResult], float]:
    """All cases of ``vendors``; returns the results (in case order) and the wall time in seconds."""
    wanted = set(kinds) if kinds is not None else None
    # Every vendor whose unit has a lane driver, unless named.
    cases = [c for v in (vendors or lane_vendors()) for c in cases_for(v) if wanted is None or c.kind in wanted]
    return run_parallel(cases, _one, root=root or Path(tempfile.mkdtemp(prefix="vendor-lane-")), workers=workers)


def run_parallel(cases: Sequence[Case], one: Callable[[Case, Path], CaseResult], *, root: Path,
                 workers: int | None = None) -> tuple[list[CaseResult], float]:
    """``one(case, root)`` for every case, several at a time; the results in case order, the wall time."""
    # The CLIs mostly wait on their own start-up and on the hooks; three at a time fit two cores.
    workers = workers or int(os.environ.get("COMPAT_ADAPTER_LANE_WORKERS", "3"))
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(lambda c: one(c, root), cases))
    return results, round(time.monotonic() - started, 1)


def ready(install: bool, state_prefix: str) -> str | None:
    """Before a report: the pinned CLIs installed (``scripts/vendor_lane.sh``, unless ``install`` is
    False) and a private trust store for this run (the embedded side trusts each case's own config;
    those records never go to the user's store). The installer's output when it failed, else None."""
    if install:
        script = Path(__file__).resolve().parents[3] / "scripts" / "vendor_lane.sh"
        done = subprocess.run(["bash", str(script)], capture_output=True, text=True)
        if done.returncode != 0:
            return done.stdout + done.stderr
    os.environ["COMPAT_ADAPTER_STATE_HOME"] = tempfile.mkdtemp(prefix=state_prefix)
    return None


def summarize(results: Sequence[CaseResult]) -> dict[str, Any]:
    """Per vendor: cases, agree, differ_listed, differ_unlisted, not_drivable (with why), failures,
    and the payload check (per event, the fields the vendor sent that ours lacks, and the extra)."""
    out: dict[str, Any] = {}
    for vendor in dict.fromkeys(r.case.vendor for r in results):
        mine = [r for r in results if r.case.vendor == vendor]
        verdicts = [r.verdict for r in mine if r.verdict is not None]
        sent: dict[str, set[str]] = {}
        built: dict[str, set[str]] = {}
        for r in mine:
            for outcome, into in ((r.vendor, sent), (r.ours, built)):
                for hook in outcome.hooks if outcome else ():
                    into.setdefault(hook.event, set()).update(payload_fields(hook.stdin))
        payload = {event: {"missing": sorted(fields - built.get(event, set())),
                           "extra": sorted(built.get(event, set()) - fields),
                           "built": event in built}
                   for event, fields in sorted(sent.items())}
        out[vendor] = {
            "cases": len(verdicts),
            "agree": sum(v.status == "agree" for v in verdicts),
            "differ_listed": sum(v.status == "differ_listed" for v in verdicts),
            "differ_unlisted": sum(v.status == "differ_unlisted" for v in verdicts),
            "not_drivable": {r.case.kind: r.case.not_drivable for r in mine if r.case.not_drivable},
            "failures": {r.case.kind: r.failure for r in mine if r.failure},
            "verdicts": {v.case.split(":", 1)[1]: v.as_json() for v in verdicts},
            "payload": payload,
        }
    return out


def pin_of(results: Sequence[CaseResult]) -> dict[str, Any]:
    """What the suite pins per case: its verdict and which facets differ (not their texts), so that
    a fix or a regression in a dialect shows up as a changed pin."""
    pin: dict[str, Any] = {}
    for r in results:
        if r.case.not_drivable:
            pin[r.case.name] = {"status": "not_drivable"}
        elif r.verdict is not None:
            pin[r.case.name] = {"status": r.verdict.status,
                                "facets": sorted(d.facet for d in r.verdict.differences)}
    return pin
