#!/usr/bin/env python3
"""The port lane's report: directed pairs of the seven lane CLIs, each source scenario run under the
real source CLI with its original file and under the real target CLI with the file
`compat-adapter port` wrote, compared as the vendor lane compares.

    python scripts/port_diff.py --json                                  # every pair, default scenarios
    python scripts/port_diff.py --json --source claude --kind port_guard # the done-when guard, claude → 6
    python scripts/port_diff.py --source codex --target gemini --kind deny_json
    python scripts/port_diff.py --merge claude.json codex.json ... --markdown  # runs made apart, one report

Runs made apart (one per source, in parallel) are merged with ``--merge``: the counts are recomputed
from the cases, never added up from the parts.

Each case: ``agree``, ``differ_listed`` (port's grade names every difference), ``differ_unlisted``,
``unsupported`` (port could not host the source event on the target, with the reason), ``failed``.
Install the CLIs first: bash scripts/vendor_lane.sh.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from compat_adapter.testing.lane.portdiff import DEFAULT_KINDS, port_vendors, run_pairs, summary  # noqa: E402


def merged(paths: list[str]) -> dict:
    """One report from several ``--json`` reports (each case once: a later file's case replaces an
    earlier one's)."""
    pairs: dict[str, None] = {}
    cases: dict[str, dict] = {}
    for path in paths:
        part = json.loads(Path(path).read_text())
        pairs.update(dict.fromkeys(part["pairs"]))
        cases.update({r["case"]: r for r in part["results"]})
    results = sorted(cases.values(), key=lambda r: r["case"])
    return {"pairs": list(pairs), "pairs_driven": len(pairs), "cases": len(results), **summary(results),
            "results": results}


def markdown(report: dict) -> str:
    """The report as the tables of docs/port-lane.md."""
    statuses = ("agree", "differ_listed", "differ_unlisted", "unsupported", "not_drivable", "failed")
    out = ["| | cases | agree | listed | unlisted | unsupported | not drivable | failed |", "|---|" + "---|" * 7,
           "| all | " + " | ".join(str(report[k]) for k in ("cases", *statuses)) + " |", "",
           f"Agreement over the cases the target grades ADAPTED (every ported event ADAPTED or DIRECT): "
           f"{report['adapted_agree_pct']} % of {report['adapted_cases']}.", "",
           "| pair | agree | listed | unlisted | unsupported | not drivable | failed |", "|---|" + "---|" * 6]
    out += [f"| {pair} | " + " | ".join(str(n[s]) for s in statuses) + " |" for pair, n in sorted(report["per_pair"].items())]
    out += ["", "## Every case that does not agree", "", "| case | status | facet [listed by] or why |", "|---|---|---|"]
    for r in report["results"]:
        if r["status"] == "agree":
            continue
        if r.get("differences"):
            what = "; ".join(f"{d['facet']} [{', '.join(d.get('listed_by') or [])}]" for d in r["differences"])
        else:
            why = r.get("why")
            what = "; ".join(why) if isinstance(why, list) else str(why or "")
        out.append(f"| {r['case']} | {r['status']} | {what.replace('|', '/')} |")
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--source", action="append", choices=port_vendors(), help="only these sources (repeatable)")
    parser.add_argument("--target", action="append", choices=port_vendors(), help="only these targets (repeatable)")
    parser.add_argument("--kind", action="append", help=f"scenario kinds (default: {', '.join(DEFAULT_KINDS)}; "
                                                       "port_guard: the done-when Claude guard)")
    parser.add_argument("--merge", nargs="+", metavar="JSON", help="merge these --json reports into one (no run)")
    parser.add_argument("--markdown", action="store_true", help="print the report as docs/port-lane.md's tables")
    args = parser.parse_args()
    if args.merge:
        report = merged(args.merge)
        print(markdown(report) if args.markdown else json.dumps(report, indent=2))
        return 1 if report["differ_unlisted"] or report["failed"] else 0
    vendors = port_vendors()
    pairs = [(s, t) for s in (args.source or vendors) for t in (args.target or vendors) if s != t]
    with tempfile.TemporaryDirectory(prefix="port-lane-") as tmp:
        # A private trust store: the runs trust their own scenario files, never the user's.
        os.environ["COMPAT_ADAPTER_STATE_HOME"] = str(Path(tmp) / "state")
        report = run_pairs(pairs, args.kind or DEFAULT_KINDS, Path(tmp) / "runs")
    if args.markdown:
        print(markdown(report))
    elif args.json:
        print(json.dumps(report, indent=2))
    else:
        keys = ("pairs_driven", "cases", "agree", "differ_listed", "differ_unlisted", "unsupported", "failed",
                "adapted_cases", "adapted_agree_pct")
        print(", ".join(f"{k} {report[k]}" for k in keys))
        for r in report["results"]:
            if r["status"] != "agree":
                print(f"  {r['case']}: {r['status']}" + (f" — {r.get('why')}" if r.get("why") else ""))
    return 1 if report["differ_unlisted"] or report["failed"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
