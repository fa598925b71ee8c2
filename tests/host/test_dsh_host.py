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
from compat_adapter.host.dsh.surface import BROUGHT_SERVICES, DSH_SURFACE, DSH_VERSION
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
    # DSH's own shell-environment registry, relayed to; DSH's own workspace-changes recorder,
    # composed by the bundle where the profile has none; the rest brought by the service side.
    assert "shellEnv" in runner.host.composition["services"] and runner.host.composition["relays"] == ["shellEnv"]
    assert "workspaceChanges" in runner.host.composition["services"]
    assert {"shellEnv", "fs.watch", "worktrees", "lsp"} <= surface.services


async def test_validate_host_lists_what_the_dsh_host_does_not_offer(runner) -> None:
    problems = validate_host(runner.host)
    assert not [p for p in problems if p.startswith(("missing", "claims"))], problems
    # The services the runtime lacks are brought: nothing the contract knows is missing.
    assert not problems, problems


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
    assert host.surface.services == frozenset({"tools"}) | BROUGHT_SERVICES


def test_rows_grade_on_the_live_surface_not_on_a_pinned_table() -> None:
    assert all(r.capability is not Capability.DIRECT for r in build_matrix(DSH_SURFACE).hooks)


async def test_dispose_while_a_guard_is_deciding_never_lets_its_call_run(tmp_path: Path) -> None:
    """The guard was asked: its deny stands, or the call fails closed; the command never runs."""
    import anyio

    ws = tmp_path / "ws"
    ws.mkdir()
    asked = tmp_path / "asked"
    guard = write_script(tmp_path / "guard.sh", (
        f"cat > '{asked}'\nsleep 3\n"
        "printf '%s' '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\","
        "\"permissionDecisionReason\":\"not while disposing\"}}'\n"))
    async with launch(ws, lane_root=LANE_DIR) as r:
        adapter = CompatAdapter(r.host, target_host_version=DSH_VERSION, state_dir=str(tmp_path / "state"))
        await adapter.register_hook("claude", "PreToolUse", "Bash", str(guard))
        agent = await r.create_agent([Reply(None, (bash(f"touch {ws}/ran"),)), "ok"])
        async with anyio.create_task_group() as tg:
            tg.start_soon(r.run_turn, agent, "go")
            with anyio.fail_after(60):
                while not asked.exists():
                    await anyio.sleep(0.05)
            await adapter.dispose()
        log = await r.events(agent)
    assert not (ws / "ran").exists(), "the guarded command ran"
    [(is_error, _text)] = Lane.tool_results(log)
    assert is_error


async def test_a_crashed_service_fails_every_guarded_call_closed(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    allow = write_script(tmp_path / "allow.sh", "cat > /dev/null\nprintf '%s' '{}'\n")
    async with launch(ws, lane_root=LANE_DIR) as r:
        async with CompatAdapter(r.host, target_host_version=DSH_VERSION,
                                 state_dir=str(tmp_path / "state")) as adapter:
            await adapter.register_hook("claude", "PreToolUse", "Bash", str(allow))
            # The service side goes away without a word (as a killed `serve` process does).
            r.runtime.channel.finish("the service crashed")
            agent = await r.create_agent([Reply(None, (bash(f"touch {ws}/ran"),)), "ok"])
            outcome = await r.run_turn(agent, "go")
            log = await r.events(agent)
    assert not (ws / "ran").exists(), "a guarded call ran with no service to ask"
    # The first forwarded seam that cannot be answered fails closed: the step is rejected before
    # the model is asked, so no tool call is even made.
    assert (outcome.reason, outcome.steps, Lane.tool_results(log)) == ("blocked", 0, [])
