"""The port lane: directed pairs of lane vendors, each source scenario run under the source CLI
with its original file and under the target CLI with the file ``port`` wrote, compared as the
vendor lane compares (which hooks ran, did the tool run, what the model read, what the person saw).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from compat_adapter.testing.lane.compare import compare
from compat_adapter.testing.lane.drivers import vendor_outcome
from compat_adapter.testing.lane.porting import degradations_of, guard_case, ported_case, source_case
from compat_adapter.testing.lane.scenarios import Case
from compat_adapter.testing.lane.vendors import cases_for

__all__ = ("DEFAULT_KINDS", "run_pair", "run_pairs")

#: The scenarios a pair runs unless told otherwise: the guard answers every vendor can give.
DEFAULT_KINDS = ("deny_exit2", "deny_json")


def _source_cases(source: str, kinds: Sequence[str]) -> list[Case]:
    guard = guard_case()
    out = [guard] if source == guard.vendor and "port_guard" in kinds else []
    return out + [c for c in cases_for(source) if c.kind in kinds]


def run_pair(case: Case, target: str, root: Path) -> dict[str, Any]:
    """One source case ported to ``target``: both runs, the verdict, and port's grade."""
    name = f"{case.vendor}->{target}:{case.kind}"
    if case.not_drivable:
        return {"case": name, "status": "not_drivable", "why": case.not_drivable}
    src_run, dst_run = root / f"{case.vendor}-{case.kind}-src", root / f"{case.vendor}-{target}-{case.kind}"
    for run in (src_run, dst_run):
        shutil.rmtree(run, ignore_errors=True)
        run.mkdir(parents=True)
    guard = "./guard.sh" if case.kind == "port_guard" else None
    # The guard's source run has its hook run the guard too.
    original = source_case(case, src_run, guard_command=guard) if guard is not None else case
    ported, report = ported_case(case, target, dst_run, guard_command=guard)
    if not report["entries"]:
        return {"case": name, "status": "unsupported",
                "why": [r["reason"] for r in report["results"] if r["capability"] == "UNSUPPORTED"] or
                list(report["refused"]) or ["nothing to port"]}
    source = vendor_outcome(original, src_run)
    here = vendor_outcome(ported, dst_run)
    here = replace(here, side="ported", degradations=degradations_of(report))
    verdict = compare(case, source, here)
    return {**verdict.as_json(), "case": name, "grades": report["results"] and
            [{"event": r["event"], "capability": r["capability"],
              "codes": [d["code"] for d in r["degradations"]]} for r in report["results"]],
            "target_read": here.tool_result, "source_read": source.tool_result}


def run_pairs(pairs: Sequence[tuple[str, str]], kinds: Sequence[str], root: Path) -> dict[str, Any]:
    results = []
    for source, target in pairs:
        for case in _source_cases(source, kinds):
            try:
                results.append(run_pair(case, target, root))
            except Exception as exc:  # a failed run is reported as such, never dropped
                results.append({"case": f"{source}->{target}:{case.kind}", "status": "failed",
                                "why": f"{type(exc).__name__}: {exc}"[:600]})
    count = {s: sum(r["status"] == s for r in results)
             for s in ("agree", "differ_listed", "differ_unlisted", "unsupported", "not_drivable", "failed")}
    compared = count["agree"] + count["differ_listed"] + count["differ_unlisted"]
    return {"pairs": [f"{s}->{t}" for s, t in pairs], "pairs_driven": len(pairs), "cases": len(results), **count,
            "agree_or_listed_pct": round(100 * (count["agree"] + count["differ_listed"]) / compared, 1)
            if compared else None, "results": results}
