#!/usr/bin/env python3
"""The drift report: what the vendors' newest releases do differently from the pinned lane.

    python scripts/vendor_drift.py                      # install latest beside the pins, run both, report
    python scripts/vendor_drift.py --vendor claude      # one vendor (repeatable)
    python scripts/vendor_drift.py --json               # the report as JSON
    python scripts/vendor_drift.py --pin claude=2.1.328 # compare an older release (installed apart) instead of the pin
    python scripts/vendor_drift.py --save DIR           # also write the two snapshots (pinned.json, latest.json)
    python scripts/vendor_drift.py --snapshots A B      # report on two saved snapshots; installs and runs nothing

The pinned lane is ``.cache/vendors/`` (scripts/vendor_lane.sh); what the registries call latest is
installed into ``.cache/vendors-latest/`` (``vendor_lane.sh --latest``), never over the pins; a
``--pin`` baseline goes to ``.cache/vendors-baseline/``. For each vendor whose newest release differs
from its pin, the lane (scripts/vendor_diff.py) runs under both releases, offline as always, and the
report names per vendor: each case whose verdict moved and what the real vendor did differently,
payload fields added or removed per event, and the events the release knows (read from what it
ships) that the pin or our vendor table does not. A vendor whose newest release is its pin is not
rerun (``--always-run`` runs it anyway). "no drift" when nothing moved.

Run it on demand and before each pin bump. It is not a CI gate: a vendor's release must not break
CI. Exit status: 0 whether or not there is drift; 1 when an install or a lane run failed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from compat_adapter.testing.drift.releases import lane_folders, read_release  # noqa: E402
from compat_adapter.testing.drift.report import compare_snapshots, drift_json, render  # noqa: E402

VENDORS = tuple(lane_folders())


def _install(lane: Path, *flags: str) -> None:
    env = {**os.environ, "COMPAT_ADAPTER_VENDOR_DIR": str(lane)}
    done = subprocess.run(["bash", str(ROOT / "scripts" / "vendor_lane.sh"), *flags], env=env, capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise RuntimeError(f"vendor_lane.sh {' '.join(flags)} failed:\n{done.stdout}{done.stderr}")
    sys.stderr.write(done.stdout)


def _lane_report(lane: Path, vendors: list[str]) -> dict[str, Any]:
    if not vendors:
        return {}
    env = {**os.environ, "COMPAT_ADAPTER_VENDOR_DIR": str(lane)}
    argv = [sys.executable, str(ROOT / "scripts" / "vendor_diff.py"), "--json", "--outcomes", "--no-install"]
    for v in vendors:
        argv += ["--vendor", v]
    sys.stderr.write(f"vendor drift: running the lane in {lane} for {', '.join(vendors)}\n")
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    if not done.stdout.strip():
        raise RuntimeError(f"vendor_diff.py gave no report (rc {done.returncode}):\n{done.stderr[-3000:]}")
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def _snapshot(lane: Path, vendors: list[str], run: list[str]) -> dict[str, Any]:
    """The releases of ``lane`` and its lane report for the vendors in ``run``. Of each outcome only
    the real vendor's side is kept, without its per-request reads: the report compares the vendor's
    facets and hook payloads, and the verdicts (which already name each difference from ours)."""
    report = _lane_report(lane, run)
    for case, sides in report.get("outcomes", {}).items():
        vendor = sides.get("vendor")
        if vendor:
            vendor.pop("reads", None)
        report["outcomes"][case] = {"vendor": vendor}
    return {"releases": {v: read_release(v, lane).as_json() for v in vendors}, "report": report}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vendor", action="append", choices=VENDORS, help="only these vendors (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--pin", action="append", default=[], metavar="VENDOR=VERSION",
                        help="compare this release instead of the pin, installed into .cache/vendors-baseline "
                             "(vendor_lane.sh names: claude, codex, copilot, opencode, codebuddy, qwen)")
    parser.add_argument("--always-run", action="store_true",
                        help="run the lane on both sides even where the newest release is the pin")
    parser.add_argument("--save", metavar="DIR", help="write the two snapshots to DIR/pinned.json, DIR/latest.json")
    parser.add_argument("--snapshots", nargs=2, metavar=("PINNED", "LATEST"),
                        help="compare two saved snapshots; install and run nothing")
    args = parser.parse_args()
    vendors = list(args.vendor or VENDORS)
    if args.snapshots:
        pinned, latest = (json.loads(Path(p).read_text()) for p in args.snapshots)
        vendors = [v for v in vendors if v in pinned["releases"] and v in latest["releases"]]
    else:
        try:
            base = ROOT / ".cache"
            pinned_lane = base / ("vendors-baseline" if args.pin else "vendors")
            latest_lane = base / "vendors-latest"
            _install(pinned_lane, *(f for p in args.pin for f in ("--pin", p)))
            _install(latest_lane, "--latest")
            stamps = {v: (read_release(v, pinned_lane).stamp, read_release(v, latest_lane).stamp) for v in vendors}
            run = [v for v in vendors if args.always_run or stamps[v][0] != stamps[v][1]]
            pinned = _snapshot(pinned_lane, vendors, run)
            latest = _snapshot(latest_lane, vendors, run)
        except (RuntimeError, OSError, LookupError) as exc:
            sys.stderr.write(f"vendor drift: {exc}\n")
            return 1
        if args.save:
            folder = Path(args.save)
            folder.mkdir(parents=True, exist_ok=True)
            for name, snap in (("pinned", pinned), ("latest", latest)):
                (folder / f"{name}.json").write_text(json.dumps(snap, indent=1, sort_keys=True) + "\n")
    drifts = compare_snapshots(pinned, latest, vendors)
    if args.json:
        print(json.dumps(drift_json(drifts), indent=1))
    else:
        print(render(drifts))
    failed = {f"{side}:{v}:{k}": why for side, snap in (("pinned", pinned), ("latest", latest))
              for v, s in snap["report"].get("vendors", {}).items() for k, why in s.get("failures", {}).items()}
    for name, why in failed.items():
        sys.stderr.write(f"vendor drift: FAILED {name}: {why}\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
