"""The ported-hook benchmark's sessions under the real Codex (offline, ``.cache/vendors``): each
measured shell call is followed by Codex's inert call (``update_plan``), the session's own
reference, which no hook sees. Checked on a native guard that counts its runs."""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import scripts.bench_port as bench_port  # noqa: E402

pytestmark = pytest.mark.vendor


def test_codex_sessions_alternate_the_measured_call_with_one_no_hook_sees(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = tmp_path / "guard-runs.log"
    monkeypatch.setattr(bench_port, "CALLS", 3)
    # The benchmark's guard, which also writes a line for each run it makes.
    monkeypatch.setattr(bench_port, "GUARD", f"#!/bin/sh\necho ran >> {runs}\n" + bench_port.GUARD.split("\n", 1)[1])
    measured, inert = bench_port.session("codex", "native", tmp_path)
    assert len(measured) == 3 and len(inert) == 3
    # Three shell calls ran the guard; the three plan updates between them ran nothing.
    assert runs.read_text().splitlines() == ["ran"] * 3
    # The plan update is the CLI's own time alone: well under a shell call with its hook.
    assert statistics.median(inert) < statistics.median(measured)
