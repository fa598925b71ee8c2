#!/usr/bin/env python3
"""The port lane's report: directed pairs of the seven lane CLIs, each source scenario run under the
real source CLI with its original file and under the real target CLI with the file
`compat-adapter port` wrote, compared as the vendor lane compares.

    python scripts/port_diff.py --json                                  # every pair, default scenarios
    python scripts/port_diff.py --json --source claude --kind port_guard # the done-when guard, claude → 6
    python scripts/port_diff.py --source codex --target gemini --kind deny_json

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

from compat_adapter.testing.lane.portdiff import DEFAULT_KINDS, port_vendors, run_pairs  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--source", action="append", choices=port_vendors(), help="only these sources (repeatable)")
    parser.add_argument("--target", action="append", choices=port_vendors(), help="only these targets (repeatable)")
    parser.add_argument("--kind", action="append", help=f"scenario kinds (default: {', '.join(DEFAULT_KINDS)}; "
                                                       "port_guard: the done-when Claude guard)")
    args = parser.parse_args()
    vendors = port_vendors()
    pairs = [(s, t) for s in (args.source or vendors) for t in (args.target or vendors) if s != t]
    with tempfile.TemporaryDirectory(prefix="port-lane-") as tmp:
        # A private trust store: the runs trust their own scenario files, never the user's.
        os.environ["COMPAT_ADAPTER_STATE_HOME"] = str(Path(tmp) / "state")
        report = run_pairs(pairs, args.kind or DEFAULT_KINDS, Path(tmp) / "runs")
    if args.json:
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
