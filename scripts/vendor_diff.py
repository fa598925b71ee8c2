#!/usr/bin/env python3
"""The vendor lane's differential report: every scenario under the real vendor CLI (offline) and
through compat-adapter on the embedded host, compared case by case.

    python scripts/vendor_diff.py --json               # the report as JSON on stdout
    python scripts/vendor_diff.py --vendor claude      # one vendor, a short text summary
    python scripts/vendor_diff.py --json --outcomes    # also every normalized outcome
    python scripts/vendor_diff.py --write-pin FILE     # write the verdict pin the suite checks

Per vendor: ``cases`` (driven), ``agree``, ``differ_listed`` (a listed degradation, or a refusal or
UNSUPPORTED row of the hook that made it, names every difference), ``differ_unlisted``, ``not_drivable`` (with why), and a payload
check: for each event the vendor fired, the fields it sent that our dialect's payload lacks
(``missing``) and the fields ours adds (``extra``). Install the CLIs first: bash scripts/vendor_lane.sh.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from compat_adapter.testing.lane.run import isolation  # noqa: E402
from compat_adapter.testing.lane.suite import pin_of, ready, run_suite, summarize  # noqa: E402
from compat_adapter.testing.lane.vendors import lane_vendors  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--vendor", action="append", choices=lane_vendors(), help="only these vendors (repeatable)")
    parser.add_argument("--outcomes", action="store_true", help="include every normalized outcome")
    parser.add_argument("--write-pin", metavar="FILE", help="write each case's verdict and differing facets")
    parser.add_argument("--no-install", action="store_true", help="do not run scripts/vendor_lane.sh first")
    args = parser.parse_args()
    failed = ready(not args.no_install, "vendor-lane-state-")
    if failed is not None:
        sys.stderr.write(failed)
        return 1
    results, wall = run_suite(tuple(args.vendor or lane_vendors()))
    summary = summarize(results)
    netns, why = isolation()
    report = {"isolation": {"netns": netns, "how": why}, "wall_s": wall,
              "totals": {k: sum(v[k] for v in summary.values())
                         for k in ("cases", "agree", "differ_listed", "differ_unlisted")},
              "vendors": summary}
    if args.outcomes:
        report["outcomes"] = {r.case.name: {"vendor": r.vendor.as_json() if r.vendor else None,
                                            "ours": r.ours.as_json() if r.ours else None} for r in results}
    if args.write_pin:
        Path(args.write_pin).write_text(json.dumps(pin_of(results), indent=1, sort_keys=True) + "\n")
    failures = {f"{v}:{k}": why for v, s in summary.items() for k, why in s["failures"].items()}
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"vendor lane ({why}); {wall} s")
        for vendor, s in summary.items():
            print(f"{vendor:10} cases {s['cases']:3}  agree {s['agree']:3}  differ_listed {s['differ_listed']:3}  "
                  f"differ_unlisted {s['differ_unlisted']:3}  not_drivable {len(s['not_drivable'])}")
        for name, why in failures.items():
            print(f"FAILED {name}: {why}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
