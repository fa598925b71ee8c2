"""The DSH host itself: its surface against the installed packages, fail-closed, bridge mounts, and
the production shape where the Cordis plugin spawns `compat-adapter serve --stdio` on its own.

Everything here runs the real published DSH 0.1.0-rc.8 packages from the lane
(``bash scripts/dsh_lane.sh``); the host-agnostic contract lives in ``test_contract.py``.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import anyio
import pytest
from conftest import write_script
from test_contract import LANE_DIR, Lane, bash, claude_deny, dsh_lane, printing

from compat_adapter.host.dsh.host import DshHost
from compat_adapter.host.dsh.lane import PLUGIN_DIR, lane, launch
from compat_adapter.host.dsh.surface import DSH_RC8_SEAMS, DSH_RC8_SURFACE, NOT_OFFERED
from compat_adapter.host.protocol import SeamMode, validate_host
from compat_adapter.host.script import Reply
from compat_adapter.host.surfaces import CLAUDE_BRIDGE, EMBEDDED_SURFACE
from compat_adapter.matrix import build_matrix
from compat_adapter.model import Capability
from compat_adapter.service import CompatAdapter

REPO = Path(__file__).resolve().parents[2]
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


def test_the_lane_is_installed() -> None:
    where = lane(LANE_DIR)
    where.check()  # raises with "run bash scripts/dsh_lane.sh" when it is not
    assert (where.modules / "@deepseek-ai" / "dsh-hooks-claude-code" / "package.json").is_file()


def test_the_seam_table_matches_the_mode_tags_of_the_installed_packages() -> None:
    modules = lane(LANE_DIR).modules / "@deepseek-ai"
    declared: dict[str, set[tuple[str, str]]] = {}
    pattern = re.compile(r"@mode\s+(\w+)(?:(?!@mode).)*?\*/\s*'([^']+)'\s*\(", re.S)
    for dts in modules.glob("*/lib/types/**/*.d.ts"):
        package = "@deepseek-ai/" + dts.relative_to(modules).parts[0]
        for mode, seam in pattern.findall(dts.read_text(encoding="utf-8")):
            declared.setdefault(seam, set()).add((mode, package))
    checked = 0
    for seam, info in DSH_RC8_SEAMS.items():
        if not (modules / info.package.split("/")[1]).is_dir():
            continue  # dsh-subagent is not in the lane; its rows come from the reference notes
        assert declared.get(seam) == {(str(info.mode), info.package)}, seam
        checked += 1
    assert checked >= 15
    assert "user-questions/request" not in declared
    assert ("emit", "@deepseek-ai/dsh-agent") in declared["agent/created"]


async def test_the_live_composition_publishes_the_documented_surface(runner) -> None:
    surface = runner.host.surface
    assert surface == DSH_RC8_SURFACE
    assert surface.host == "dsh" and surface.version == "0.1.0-rc.8"
    assert surface.seams["agent/created"] is SeamMode.EMIT
    assert surface.seams["agent/session-start"] is SeamMode.EMIT
    assert "user-questions/request" not in surface.seams and "subagent/start" not in surface.seams
    assert CLAUDE_BRIDGE in surface.bridge_packages
    composition = runner.host.composition
    assert {"shell", "shellEnv", "agents", "approval", "tools"} <= set(composition["services"])
    assert composition["versions"]["@deepseek-ai/dsh-hooks-claude-code"] == "0.0.1-rc.5"
    # shellEnv exists in rc.8 but is not offered, and the surface says so by leaving it out.
    assert "shellEnv" not in surface.services and "shellEnv" in NOT_OFFERED


async def test_validate_host_lists_what_the_dsh_host_does_not_offer(runner) -> None:
    problems = validate_host(runner.host)
    assert not [p for p in problems if p.startswith(("missing", "claims"))], problems
    assert "degraded: watch (fs.watch)" in problems
    assert "degraded: register_shell_env (shellEnv)" in problems
    assert not [p for p in problems if "mount_bridge" in p]


def test_every_row_that_grades_differently_on_dsh_says_why() -> None:
    embedded = {(h.vendor, h.event): h for h in build_matrix(EMBEDDED_SURFACE).hooks}
    dsh = {(h.vendor, h.event): h for h in build_matrix(DSH_RC8_SURFACE).hooks}
    assert embedded.keys() == dsh.keys()
    differ = [k for k in dsh if dsh[k].capability is not embedded[k].capability]
    assert differ, "rc.8 lacks seams and services the embedded surface has"
    for key in differ:
        result = dsh[key]
        assert result.capability is Capability.UNSUPPORTED and result.reason, key
        if result.reason in DSH_RC8_SURFACE.unserved.values():
            continue  # a seam it has, but evidence the composition never produces (see below)
        assert "0.1.0-rc.8" in result.reason, key
        assert re.search(r" has (no \S+ (seam|service)$|\S+ only as an? \w+ seam)", result.reason), key
    reasons = {dsh[k].reason for k in differ}
    assert any("user-questions/request" in r for r in reasons)


async def test_the_plugin_fails_closed_when_the_service_does_not_answer_in_time(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    slow = write_script(tmp_path / "slow.sh", "cat > /dev/null\nsleep 4\n"
                        "printf '%s' '{\"permissionDecision\":\"allow\"}'\n")
    async with launch(ws, lane_root=LANE_DIR, answer_timeout_ms=1500) as r:
        async with CompatAdapter(r.host, target_host_version="0.1.0-rc.8",
                                 state_dir=str(tmp_path / "state")) as adapter:
            await adapter.register_hook("copilot", "preToolUse", "bash", str(slow))
            agent = await r.create_agent([Reply(None, (bash(f"touch {ws}/ran"),)), "ok"])
            await r.run_turn(agent, "go")
            log = await r.events(agent)
            plugin_log = await r.plugin_log()
    assert not (ws / "ran").exists()
    [(is_error, text)] = Lane.tool_results(log)
    assert is_error and "did not answer tools/pre-execute within 1500 ms" in text
    assert any("failing closed on tools/pre-execute" in rec["text"] for rec in plugin_log)


async def test_a_remount_swaps_the_real_bridge_and_a_bad_config_mounts_nothing(runner, tmp_path: Path) -> None:
    ws = runner.host.cwd
    async with CompatAdapter(runner.host, target_host_version="0.1.0-rc.8", prefer="official",
                             state_dir=str(tmp_path / "state")) as adapter:
        await adapter.register_hook("claude", "PreToolUse", "Read", printing(tmp_path, "first", "{}"))
        first = adapter.status().bridges[CLAUDE_BRIDGE]
        await adapter.register_hook("claude", "PreToolUse", "Bash",
                                    printing(tmp_path, "second", claude_deny("second-deny")))
        second = adapter.status().bridges[CLAUDE_BRIDGE]
        assert first != second and not Path(first).exists() and Path(second).exists()
        agent = await runner.create_agent([Reply(None, (bash(f"touch {ws}/ran"),)), "ok"])
        await runner.run_turn(agent, "go")
        log = await runner.events(agent)
        # Only the new mount runs: one PreToolUse pair, from the second config.
        assert Lane.hook_pairs(log, "PreToolUse") == [("hook/invoked", "claude-code"), ("hook/result", "deny")]
        assert not (ws / "ran").exists()
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    mount = await runner.host.mount_bridge(CLAUDE_BRIDGE, bad)
    try:
        assert mount.loaded is False
        assert any("could not load hook config" in w for w in mount.warnings)
    finally:
        await mount.unmount()


async def test_the_plugin_spawns_the_service_itself_in_a_real_composition(tmp_path: Path) -> None:
    """The production shape: the composition owns `compat-adapter serve --stdio`."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "AGENTS.md").write_text("Rule 9: small commits.\n")
    scenario = {
        "hooks": [
            {"vendor": "claude", "event": "PreToolUse", "matcher": "Bash",
             "handler": printing(tmp_path, "cc", claude_deny("spawned-deny"))},
            {"vendor": "copilot", "event": "userPromptSubmitted", "handler": printing(tmp_path, "up", "{}")},
        ],
        "rules": [{"vendor": "codex", "source": str(tmp_path / "AGENTS.md")}],
        "agents": [{"script": [{"tools": [{"name": "bash", "arguments": {
            "command": f"touch {ws}/ran", "description": "touch"}}]}, {"text": "ok"}],
            "prompts": ["do it"]}],
    }
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario))
    where = lane(LANE_DIR)
    service = [sys.executable, "-m", "compat_adapter.serve", "--stdio", "--state-dir", str(tmp_path / "state")]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = await anyio.run_process([str(where.node), str(PLUGIN_DIR / "runner.mjs"), "--modules",
                                    str(where.modules), "--cwd", str(ws), "--service", json.dumps(service),
                                    "--scenario", str(path)], cwd=str(ws), env=env, check=False)
    assert done.returncode == 0, done.stderr.decode()
    out = json.loads(done.stdout.decode().strip().splitlines()[-1])
    assert out["hello"]["surface"]["version"] == "0.1.0-rc.8"
    assert [(h["capability"], h["running"]) for h in out["status"]["hooks"]] == [("ADAPTED", True)] * 2
    [result] = out["results"]
    assert result["turns"][0]["reason"] == "completed"
    log = result["events"]
    assert not (ws / "ran").exists()
    assert "spawned-deny" in Lane.tool_results(log)[0][1]
    assert any("Rule 9: small commits." in t for t, kind, _ in Lane.messages(log) if kind == "compat-adapter-rules")
    assert Lane.hook_pairs(log, "userPromptSubmitted") == [("hook/invoked", "copilot"), ("hook/result", "none")]
    # The pre-step batch carries the injected rules before the prompt; the route hands the hook
    # the whole batch as the prompt (the embedded host does the same).
    assert json.loads((tmp_path / "up.stdin").read_text())["prompt"].endswith("do it")


def test_the_bridge_package_names_agree_with_the_embedded_surfaces() -> None:
    from compat_adapter.host import surfaces
    from compat_adapter.host.dsh import surface as dsh_surface

    assert (dsh_surface.CLAUDE_BRIDGE, dsh_surface.CODEX_BRIDGE) == (surfaces.CLAUDE_BRIDGE, surfaces.CODEX_BRIDGE)
    assert DSH_RC8_SURFACE.bridge_packages == EMBEDDED_SURFACE.bridge_packages


def test_a_dsh_host_needs_hello_before_it_has_a_surface() -> None:
    from compat_adapter.errors import ProtocolError

    class Quiet:
        def notify(self, *a: object) -> None: ...

    host = DshHost(Quiet(), cwd=Path("."), tg=None)  # type: ignore[arg-type]
    with pytest.raises(ProtocolError):
        _ = host.surface
    host.welcome({"composition": {"services": ["tools"], "versions": {}, "bridges": []}})
    assert set(host.surface.seams) == {"tools/pre-execute", "tools/execute", "tools/post-execute",
                                       "tools/result"}
    # The tool registry is the "tools" service: a nested call through its pipeline (input rewrites).
    assert host.surface.services == frozenset({"tools"})
