"""``scripts/verify_live.py --host dsh``: every row graded ADAPTED on a real DeepSeek Harness
0.2.1-rc.2 ``sdk`` profile, run end to end on it (the same drivers and checks as the embedded run;
two booted runtimes serve every row, one row at a time each).

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
    # The sdk profile composes a todo tool, a compaction engine (its manual compaction is what
    # /compact runs) and a command registry, and the bundle composes DSH's workspace-changes
    # recorder (the language-server queries follow its records): those rows are verified live.
    served = {"todo/write", "compaction/start", "compaction/end", "command/run", "workspace/changes", "lsp/query"}
    assert not served & set(surface.unserved), served & set(surface.unserved)
    # What an SDK session of 0.2.1 never produces, each with its reason: a settings form, a model
    # switch, a question to the person.
    assert set(surface.unserved) == {"request/header", "settings/document-updated", "user-questions/request"}
    assert all(surface.unserved.values())


def test_no_row_of_the_dsh_run_is_checked_on_a_bridge_it_does_not_have(dsh_run: dict) -> None:
    # 0.2.1 bundles no official bridge: a row with an official form is checked once, natively.
    assert not [r for r in dsh_run["results"] if r["route"] == "official-bridge"]
