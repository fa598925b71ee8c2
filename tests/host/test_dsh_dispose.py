"""Dispose means gone on the real DSH host: a 0.2.1 ``sdk`` runtime outlives several adapters and
keeps nothing of any of them.

Each adapter registers one real command hook on every row the composition serves (the rest
grade UNSUPPORTED) plus a rules file, runs a scripted turn on the real agent loop and is disposed.
0.2.1 bundles no official bridge, so nothing is mounted. After each dispose: no listener on this
side, no seam the plugin still forwards, no mount, no service the plugin provided for the
adapter's rows, no dispatch in flight, no hook process, and no hook start.
"""

from __future__ import annotations

import os
import shlex
import threading
from pathlib import Path

import anyio
import pytest
from conftest import write_script
from test_contract import LANE_DIR, dsh_lane
from test_dispose import descendants, starts

from compat_adapter.host.dsh.lane import launch
from compat_adapter.host.script import call
from compat_adapter.host.dsh.surface import DSH_VERSION
from compat_adapter.model import Capability, Route
from compat_adapter.service import CompatAdapter
from compat_adapter.testing.live.harness import all_rows

pytestmark = pytest.mark.anyio

__all__ = ("dsh_lane",)  # the session fixture, shared with the contract suite

CYCLES = 3
MAX_RECORDS = 100
#: What the plugin holds with no adapter on it.
IDLE = {"subscriptions": [], "mounts": 0, "services": [], "dispatches": 0, "inflight": 0, "capturing": 0}


def _fds() -> list[str]:
    """What each open descriptor of this process points at, to name what a cycle left open."""
    out = []
    for fd in sorted(os.listdir("/proc/self/fd"), key=int):
        try:
            out.append(f"{fd}:{os.readlink(f'/proc/self/fd/{fd}')}")
        except OSError:
            continue
    return out


@pytest.fixture(autouse=True)
def _installed(dsh_lane: Path) -> None:
    """Every test here runs on the lane."""


async def test_repeated_adapters_on_the_real_dsh_host_leave_nothing_behind(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "CLAUDE.md").write_text("Keep the tests green.\n", encoding="utf-8")
    async with launch(ws, lane_root=LANE_DIR) as runner:
        host = runner.host
        host.records = type(host.records)(host.records, maxlen=MAX_RECORDS)
        assert await host.plugin_state() == IDLE
        composition = descendants()  # the DSH runtime
        baseline: dict[str, int] | None = None
        for cycle in range(CYCLES):
            adapter = CompatAdapter(host, target_host_version=DSH_VERSION, state_dir=str(tmp_path / "state"))
            marker = tmp_path / f"starts-{adapter.id}"
            hook = write_script(tmp_path / f"hook-{adapter.id}.sh",
                                f"echo start >> {shlex.quote(str(marker))}\ncat > /dev/null\n")
            served = []
            for spec, row in all_rows():
                result = await adapter.register_hook(spec.id, row.event, None, shlex.quote(str(hook)))
                if result.capability is not Capability.UNSUPPORTED:
                    served.append(result)
            await adapter.register_rules("claude", "CLAUDE.md", base_dir=ws)
            assert len(served) > 90
            held = await host.plugin_state()
            assert held["subscriptions"] and held["mounts"] == 0 and held["services"] == []
            assert not [r for r in served if r.route is Route.OFFICIAL_BRIDGE]
            agent = await runner.create_agent([call("bash", command="echo hi", description="say hi"), "done"])
            await runner.run_turn(agent, "work")
            assert starts(marker) > 0, "the hooks never ran: the cycle proves nothing"
            await adapter.dispose()
            started, audited = starts(marker), len(adapter.audit)
            await runner.runtime.settle()
            await anyio.sleep(0.5)
            assert starts(marker) == started, f"cycle {cycle}: a hook started after dispose() returned"
            assert len(adapter.audit) == audited
            assert await host.plugin_state() == IDLE, f"cycle {cycle}"
            assert sum(host.listener_count(seam) for seam in host.surface.seams) == 0
            assert descendants() == composition
            assert len(host.records) <= MAX_RECORDS
            now = {"fds": len(os.listdir("/proc/self/fd")), "threads": threading.active_count(),
                   "tasks": len(anyio.get_running_tasks())}
            if baseline is None:
                baseline = now
                continue
            for key, value in now.items():
                assert value <= baseline[key], (f"cycle {cycle}: {key} grew: {baseline} → {now}; threads "
                                                f"{sorted(t.name for t in threading.enumerate())}, fds {_fds()}")
