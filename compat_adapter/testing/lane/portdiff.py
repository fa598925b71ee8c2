"""The port lane: directed pairs of lane vendors, each source scenario run under the source CLI
with its original file and under the target CLI with the file ``port`` wrote, compared as the
vendor lane compares (which hooks ran, did the tool run, what the model read, what the person saw),
with the texts the model and the person read held to the target's own words
(:mod:`~compat_adapter.testing.lane.portcompare`).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio

from compat_adapter.testing.lane.compare import compare
from compat_adapter.testing.lane.drivers import embedded_outcome, vendor_outcome
from compat_adapter.testing.lane.outcome import Outcome
from compat_adapter.testing.lane.portcompare import in_target_words, normalized, roots_of
from compat_adapter.testing.lane.porting import degradations_of, guard_case, ported_case, source_case
from compat_adapter.testing.lane.scenarios import Case
from compat_adapter.testing.lane.vendors import cases_for, cli_for, lane_vendors

__all__ = ("DEFAULT_KINDS", "port_vendors", "run_pair", "run_pairs", "summary")

#: The scenarios a pair runs unless told otherwise: the vendor lane's standard answers that every
#: lane vendor's scenario set expresses (a guard's deny both ways, context at each point, a blocked
#: prompt, a Stop that forces another step, a post-tool block).
DEFAULT_KINDS = ("deny_exit2", "deny_json", "pre_context", "post_context", "prompt_context", "session_context",
                 "prompt_block", "post_block", "stop_block_json", "allow")

#: The source runs of this process, by (vendor, kind): every target of a source compares with one run.
_SOURCE_RUNS: dict[tuple[str, str], Outcome] = {}


def port_vendors() -> tuple[str, ...]:
    """The lane vendors whose CLI runs here and whose unit has a host face (port can write for it):
    the sources and targets of the port lane's pairs."""
    from compat_adapter.catalog import unit_of

    return tuple(v for v in lane_vendors() if unit_of(v).host is not None)


def _source_cases(source: str, kinds: Sequence[str]) -> list[Case]:
    guard = guard_case()
    out = [guard] if source == guard.vendor and "port_guard" in kinds else []
    return out + [c for c in cases_for(source) if c.kind in kinds]


def _source_outcome(case: Case, root: Path, guard: str | None) -> Outcome:
    key = (case.vendor, case.kind)
    if key not in _SOURCE_RUNS:
        run = root / f"{case.vendor}-{case.kind}-src"
        shutil.rmtree(run, ignore_errors=True)
        run.mkdir(parents=True)
        # The guard's source run has its hook run the guard too.
        original = source_case(case, run, guard_command=guard) if guard is not None else case
        _SOURCE_RUNS[key] = vendor_outcome(original, run)
    return _SOURCE_RUNS[key]


def run_pair(case: Case, target: str, root: Path) -> dict[str, Any]:
    """One source case ported to ``target``: both runs, the verdict, and port's grade."""
    name = f"{case.vendor}->{target}:{case.kind}"
    if case.not_drivable:
        return {"case": name, "status": "not_drivable", "why": case.not_drivable}
    case = cli_for(case.vendor).port_source(case)
    dst_run = root / f"{case.vendor}-{target}-{case.kind}"
    shutil.rmtree(dst_run, ignore_errors=True)
    dst_run.mkdir(parents=True)
    guard = "./guard.sh" if case.kind == "port_guard" else None
    ported, report = ported_case(case, target, dst_run, guard_command=guard)
    grades = [{"event": r["event"], "capability": r["capability"], "codes": [d["code"] for d in r["degradations"]]}
              for r in report["results"]]
    if not report["entries"]:
        return {"case": name, "status": "unsupported", "grades": grades,
                "why": [r["reason"] for r in report["results"] if r["capability"] == "UNSUPPORTED"] or
                list(report["refused"]) or ["nothing to port"]}
    source = _source_outcome(case, root, guard)
    here = vendor_outcome(ported, dst_run)
    here = replace(here, side="ported", degradations=degradations_of(report))
    # The target's own words for the same answers: the ported file run as the target's config on
    # the embedded host, in a folder of its own (its texts name the ported run's folder as <run>).
    # The ported hooks are the run's own recorder: a hook that answers once (a Stop block) has used
    # its once in the real run; the wording run starts it afresh, as the real run started.
    for marker in (dst_run / "state").glob("once-*"):
        marker.unlink()
    framed_run = dst_run.with_name(dst_run.name + "-worded")
    shutil.rmtree(framed_run, ignore_errors=True)
    framed_run.mkdir(parents=True)
    worded = anyio.run(embedded_outcome, replace(ported, imports=(report["file"],)), framed_run)
    worded = normalized(worded, roots_of(dst_run))
    expected, notes = in_target_words(case, source, worded, here)
    verdict = compare(case, expected, here)
    return {**verdict.as_json(), "case": name, "grades": grades, "adapted": _adapted(grades),
            "target_read": here.tool_result, "source_read": source.tool_result,
            "target_words": worded.tool_result, "worded": notes}


def _adapted(grades: list[dict[str, Any]]) -> bool:
    """Whether the target grades every ported event of the case ADAPTED (or DIRECT: written as it is)."""
    return bool(grades) and all(g["capability"] in ("DIRECT", "ADAPTED") for g in grades)


STATUSES = ("agree", "differ_listed", "differ_unlisted", "unsupported", "not_drivable", "failed")


def summary(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Counts, overall and per pair, and the agreement over the cases the target grades ADAPTED."""
    count = {s: sum(r["status"] == s for r in results) for s in STATUSES}
    compared = count["agree"] + count["differ_listed"] + count["differ_unlisted"]
    adapted = [r for r in results if r.get("adapted") and r["status"] in STATUSES[:3]]
    per_pair: dict[str, dict[str, int]] = {}
    for r in results:
        pair = r["case"].rsplit(":", 1)[0]
        per_pair.setdefault(pair, dict.fromkeys(STATUSES, 0))[r["status"]] += 1
    return {**count, "agree_or_listed_pct": round(100 * (count["agree"] + count["differ_listed"]) / compared, 1)
            if compared else None, "adapted_cases": len(adapted),
            "adapted_agree_pct": round(100 * sum(r["status"] == "agree" for r in adapted) / len(adapted), 1)
            if adapted else None, "per_pair": per_pair}


def run_pairs(pairs: Sequence[tuple[str, str]], kinds: Sequence[str], root: Path) -> dict[str, Any]:
    results = []
    for source, target in pairs:
        for case in _source_cases(source, kinds):
            try:
                results.append(run_pair(case, target, root))
            except Exception as exc:  # a failed run is reported as such, never dropped
                results.append({"case": f"{source}->{target}:{case.kind}", "status": "failed",
                                "why": f"{type(exc).__name__}: {exc}"[:600]})
    return {"pairs": [f"{s}->{t}" for s, t in pairs], "pairs_driven": len(pairs), "cases": len(results),
            **summary(results), "results": results}
