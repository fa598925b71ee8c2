#!/usr/bin/env python3
"""The real-config lane's differential report: every hook file of the real corpus
(tests/fixtures/real-configs, placed as tests/fixtures/real-configs/LANE.json says), installed into a
scratch project the way its vendor loads it, driven through the standard scenarios (a destructive
shell command, a benign one, a file edit, a prompt, a stop, a session start) under the real vendor
CLI and on compat-adapter's embedded host, both in the lane's sandbox and under the same process
observer (strace), and compared: which hook processes ran (``ran:<command>``, counted from outside
the processes), what hook text the model read (``text:<line>``), whether the tool ran, the model
calls and the tool result; a difference is listed only by the grade of the hook that made it.

    python scripts/realconfig_diff.py --json                  # the report as JSON on stdout
    python scripts/realconfig_diff.py --vendor claude         # one vendor, a short text summary
    python scripts/realconfig_diff.py --file claude/settings.uv.json --scenario destructive
    python scripts/realconfig_diff.py --json --outcomes       # also every normalized outcome

Per vendor: ``pairs`` (file × scenario pairs driven), ``agree``, ``differ_listed``, ``differ_unlisted``,
``agree_share``, ``not_drivable`` (each pair that cannot be driven, with why), ``failures``, every
verdict that is not ``agree``, and per file its own scripts (path, kept copy), its stand-ins (path,
behaviour, why) and what its commands run that the lane cannot stand in. Install the CLIs first: bash scripts/vendor_lane.sh.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from compat_adapter.testing.lane.run import isolation  # noqa: E402
from compat_adapter.testing.realconfig.install import corpus_files, vendor_of  # noqa: E402
from compat_adapter.testing.lane.suite import ready  # noqa: E402
from compat_adapter.testing.realconfig.suite import SCENARIOS, run_lane, summarize  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--vendor", action="append", help="only this vendor's files (repeatable)")
    parser.add_argument("--file", action="append", help="only this corpus file (repeatable)")
    parser.add_argument("--scenario", action="append", choices=tuple(SCENARIOS), help="only this scenario")
    parser.add_argument("--outcomes", action="store_true", help="include every normalized outcome")
    parser.add_argument("--no-install", action="store_true", help="do not run scripts/vendor_lane.sh first")
    args = parser.parse_args()
    failed = ready(not args.no_install, "realconfig-lane-state-")
    if failed is not None:
        sys.stderr.write(failed)
        return 1
    sources = [s for s in corpus_files() if (not args.file or s in args.file)
               and (not args.vendor or vendor_of(s) in args.vendor)]
    installs, results, wall = run_lane(sources, scenarios=args.scenario)
    summary = summarize(installs, results)
    netns, why = isolation()
    totals = {k: sum(v[k] for v in summary.values()) for k in ("pairs", "agree", "differ_listed", "differ_unlisted")}
    totals["not_drivable"] = sum(len(v["not_drivable"]) for v in summary.values())
    totals["agree_share"] = round(totals["agree"] / totals["pairs"], 3) if totals["pairs"] else None
    report = {"isolation": {"netns": netns, "how": why}, "wall_s": wall, "files": len(sources), "totals": totals,
              "vendors": summary}
    if args.outcomes:
        report["outcomes"] = {r.case.name: {"vendor": r.vendor.as_json() if r.vendor else None,
                                            "ours": r.ours.as_json() if r.ours else None} for r in results}
    failures = {f"{v}:{k}": w for v, s in summary.items() for k, w in s["failures"].items()}
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"real-config lane ({why}); {len(sources)} files; {wall} s")
        for vendor, s in summary.items():
            print(f"{vendor:10} pairs {s['pairs']:3}  agree {s['agree']:3} ({s['agree_share']})  differ_listed "
                  f"{s['differ_listed']:3}  differ_unlisted {s['differ_unlisted']:3}  not_drivable {len(s['not_drivable'])}")
            for name, verdict in s["verdicts"].items():
                facets = ", ".join(f"{d['facet']}{'' if d['listed_by'] else ' (UNLISTED)'}"
                                   for d in verdict["differences"])
                print(f"    {verdict['status']:15} {name}: {facets}")
        for name, why in failures.items():
            print(f"FAILED {name}: {why}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
