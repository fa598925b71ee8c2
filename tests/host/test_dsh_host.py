"""The DSH host itself, on a real DeepSeek Harness 0.2.1-rc.2 ``sdk`` profile: the surface read from
the live runtime, fail-closed, the session mirrors, and hello before a surface.

The host-agnostic contract lives in ``test_contract.py``; the install path a user takes (``dsh
plugin add``, the official SDK, the spawned service) in ``test_dsh_sdk.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_script
from test_contract import LANE_DIR, Lane, bash, dsh_lane

from compat_adapter.host.dsh.host import DshHost
from compat_adapter.host.dsh.lane import launch
from compat_adapter.host.dsh.surface import DSH_SURFACE, DSH_VERSION, NOT_OFFERED
from compat_adapter.host.protocol import SeamMode, validate_host
from compat_adapter.host.script import Reply
from compat_adapter.host.surfaces import EMBEDDED_SURFACE
from compat_adapter.matrix import build_matrix
from compat_adapter.model import Capability
from compat_adapter.service import CompatAdapter

__all__ = ("dsh_lane",)  # the session fixture, shared with the contract suite


@pytest.fixture(autouse=True)
def _installed(dsh_lane: Path) -> None:
    """Every test here runs on the lane."""


@pytest.fixture
async def runner(tmp_path: Path):
    ws = tmp_path / "ws"
    ws.mkdir()
    async with launch(ws, lane_root=LANE_DIR) as r:
        yield r


async def test_the_live_runtime_publishes_the_documented_surface(runner) -> None:
    surface = runner.host.surface
    assert surface == DSH_SURFACE
    # The version is the runtime's own (its @deepseek-ai/dsh package, served from the executable's
    # snapshot: there is no node_modules to scan).
    assert surface.host == "dsh" and surface.version == DSH_VERSION == runner.host.composition["version"]
    assert "agent/session-start" not in surface.seams
    assert surface.seams["agent/created"] is SeamMode.SERIAL
    assert surface.seams["agent/pre-step"] is SeamMode.WATERFALL
    # 0.2.1 bundles no official hook bridge.
    assert surface.bridge_packages == frozenset() and runner.host.composition["bridges"] == []
    assert "shellEnv" in runner.host.composition["services"] and "shellEnv" not in surface.services
    assert "shellEnv" in NOT_OFFERED


async def test_validate_host_lists_what_the_dsh_host_does_not_offer(runner) -> None:
    problems = validate_host(runner.host)
    assert not [p for p in problems if p.startswith(("missing", "claims"))], problems
    assert "degraded: watch (fs.watch)" in problems


def test_every_row_that_grades_differently_on_dsh_says_why() -> None:
    embedded = {(h.vendor, h.event): h for h in build_matrix(EMBEDDED_SURFACE).hooks}
    dsh = {(h.vendor, h.event): h for h in build_matrix(DSH_SURFACE).hooks}
    assert embedded.keys() == dsh.keys()
    differ = [k for k in dsh if dsh[k].capability is not embedded[k].capability or dsh[k].route != embedded[k].route]
    assert differ
    for key in differ:
        assert dsh[key].reason, key


async def test_the_plugin_fails_closed_when_the_service_does_not_answer_in_time(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    slow = write_script(tmp_path / "slow.sh", "cat > /dev/null\nsleep 6\n"
                        "printf '%s' '{\"permissionDecision\":\"allow\"}'\n")
    async with launch(ws, lane_root=LANE_DIR, answer_timeout_ms=2000) as r:
        async with CompatAdapter(r.host, target_host_version=DSH_VERSION,
                                 state_dir=str(tmp_path / "state")) as adapter:
            await adapter.register_hook("copilot", "preToolUse", "bash", str(slow))
            agent = await r.create_agent([Reply(None, (bash(f"touch {ws}/ran"),)), "ok"])
            await r.run_turn(agent, "go")
            log = await r.events(agent)
    assert not (ws / "ran").exists()
    [(is_error, text)] = Lane.tool_results(log)
    assert is_error and "did not answer tools/pre-execute within 2000 ms" in text


async def test_session_mirrors_are_released_with_their_sessions_or_bounded(runner) -> None:
    host = runner.host
    for _ in range(3):
        agent = await runner.create_agent(["ok"])
        await runner.run_turn(agent, "hi")
    assert 1 <= host.session_count <= 3


def test_a_wire_host_keeps_at_most_max_sessions_mirrors() -> None:
    class Quiet:
        def notify(self, *a: object) -> None: ...

    host = DshHost(Quiet(), cwd=Path("."), tg=None, max_sessions=4)  # type: ignore[arg-type]
    for n in range(50):
        host.session_from({"id": f"s{n}"})
    assert host.session_count == 4


def test_a_dsh_host_needs_hello_before_it_has_a_surface() -> None:
    from compat_adapter.errors import ProtocolError

    class Quiet:
        def notify(self, *a: object) -> None: ...

    host = DshHost(Quiet(), cwd=Path("."), tg=None)  # type: ignore[arg-type]
    with pytest.raises(ProtocolError):
        _ = host.surface
    host.welcome({"composition": {"services": ["tools"], "version": DSH_VERSION, "bridges": [],
                                  "forwards": ["tools/pre-execute", "tools/execute"]}})
    assert set(host.surface.seams) == {"tools/pre-execute", "tools/execute"}
    assert host.surface.services == frozenset({"tools"})


def test_rows_grade_on_the_live_surface_not_on_a_pinned_table() -> None:
    assert all(r.capability is not Capability.DIRECT for r in build_matrix(DSH_SURFACE).hooks)
