"""``scripts/verify_live.py --host dsh``: every row graded ADAPTED on the real DeepSeek Harness
rc.8 lane, run end to end on it (the same drivers and checks as the embedded run).

Needs ``bash scripts/dsh_lane.sh`` (``.ci/run`` runs it; the fixture runs it too, a no-op when
the lane is there). One run of the script checks every row; the figures are asserted whole.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compat_adapter.catalog import vendors
from compat_adapter.host.surfaces import surface_named
from compat_adapter.testing.live import graded_rows

REPO = Path(__file__).resolve().parents[1]
LANE_DIR = Path(os.environ.get("COMPAT_ADAPTER_DSH_DIR") or REPO / ".cache" / "dsh")


@pytest.fixture(scope="module")
def dsh_run() -> dict:
    env = {**os.environ, "COMPAT_ADAPTER_DSH_DIR": str(LANE_DIR)}
    lane = subprocess.run(["bash", str(REPO / "scripts" / "dsh_lane.sh")], capture_output=True,
                          text=True, env=env, timeout=900)
    assert lane.returncode == 0, f"scripts/dsh_lane.sh failed:\n{lane.stdout}\n{lane.stderr}"
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "verify_live.py"), "--host", "dsh",
                           "--json"], capture_output=True, text=True, env=env, cwd=REPO, timeout=1500)
    *document, last = done.stdout.rstrip("\n").split("\n")
    report = json.loads("\n".join(document))
    report["last_line"] = last
    report["returncode"] = done.returncode
    return report


def test_every_row_graded_adapted_on_dsh_passes_on_the_real_lane(dsh_run: dict) -> None:
    failed = [f"{r['vendor']} {r['event']}: {r['detail']}" for r in dsh_run["results"] if not r["passed"]]
    assert not failed, "\n".join(failed)
    adapted = graded_rows("dsh")
    # A row the official bridge also carries is checked on that route too (prefer="official").
    official = [(s, r) for s, r in graded_rows("dsh", prefer="official") if r.official is not None]
    runs = len(adapted) + len(official)
    assert len(dsh_run["results"]) == runs == dsh_run["passed"]
    assert dsh_run["last_line"] == f"{runs} passed, 0 failed" and dsh_run["returncode"] == 0
    assert sum(r["route"] == "official-bridge" for r in dsh_run["results"]) == len(official)
    assert {(r["vendor"], r["event"]) for r in dsh_run["results"]} == {(s.id, r.event) for s, r in adapted}


def test_the_dsh_run_covers_every_vendor(dsh_run: dict) -> None:
    assert {r["vendor"] for r in dsh_run["results"]} == {s.id for s in vendors()}


def test_rows_the_lane_cannot_evidence_are_graded_unsupported_with_the_reason() -> None:
    surface = surface_named("dsh")
    adapted = {(s.id, r.event) for s, r in graded_rows("dsh")}
    for spec, row in graded_rows("embedded"):
        if row.point in surface.unserved:
            assert (spec.id, row.event) not in adapted, (spec.id, row.event)
    # The lane composes the published rc.8 todo tool, compaction engine, command registry and a
    # writable settings store, so those rows are verified live, not graded out.
    served = {"todo/write", "compaction/start", "compaction/end", "command/run", "settings/document-updated"}
    assert not served & set(surface.unserved), served & set(surface.unserved)
    # What rc.8 never produces: workspace/changes (0.1.7), a model switch, a SessionStart context in
    # turn 1 through the detached official bridges.
    assert set(surface.unserved) == {"workspace/changes", "request/header", "SessionStart"}
