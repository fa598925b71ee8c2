"""The side-by-side benchmark's own pieces (``scripts/bench_vendor.py``): its hook files are what
the importers read as that many PreToolUse hooks, and its interval is that of the median."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from scripts.bench_vendor import HOOK_COUNTS, VENDORS, _case, interval  # noqa: E402


def test_the_interval_is_of_the_median_by_order_statistics() -> None:
    values = [float(v) for v in range(1, 42)]  # 41 rounds, the count
    mid, lo, hi = interval(list(reversed(values)))
    assert mid == 21.0
    assert (lo, hi) == (14.0, 28.0)  # ranks 14 and 28 of 41: 95 % for the median
    assert interval([5.0]) == (5.0, 5.0, 5.0)


@pytest.mark.parametrize("vendor", VENDORS)
def test_each_session_file_imports_as_that_many_distinct_pretooluse_hooks(vendor: str, tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from compat_adapter.importers import import_files
    from compat_adapter.importers.gate import trust_files
    from compat_adapter.testing.lane.run import prepare_project
    from compat_adapter.testing.lane.vendors import cli_for

    monkeypatch.setenv("COMPAT_ADAPTER_STATE_HOME", str(tmp_path / "trust"))
    for n in HOOK_COUNTS:
        case = _case(vendor, n)
        proj = prepare_project(case, tmp_path / f"{vendor}-{n}")
        files = [proj / cli_for(vendor).hooks_file]
        trust_files(vendor, files, command="test")
        imported = import_files(vendor, files)
        assert not imported.refused
        commands = sorted(h.handler["command"] for h in imported.hooks)
        assert commands == [f"true {i + 1}" for i in range(n)]
        assert {h.event for h in imported.hooks} <= {"PreToolUse"}
