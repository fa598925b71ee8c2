"""Permission rules enforced on a real DeepSeek Harness (0.2.1-rc.2 ``sdk`` profile): a project
whose only guardrail is a Claude ``permissions.deny`` rule stops the command, in Claude's words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_contract import LANE_DIR, Lane, bash, dsh_lane, printing

from compat_adapter.host.dsh.lane import launch
from compat_adapter.host.dsh.surface import DSH_VERSION
from compat_adapter.host.script import Reply
from compat_adapter.importers import import_project, register_import
from compat_adapter.model import Capability
from compat_adapter.service import CompatAdapter

__all__ = ("dsh_lane",)

REFUSED = "Permission to use Bash with command rm -rf build has been denied."


@pytest.fixture(autouse=True)
def _installed(dsh_lane: Path) -> None:
    """Every test here runs on the lane."""


def workspace(tmp_path: Path, settings: dict[str, object]) -> Path:
    ws = tmp_path / "ws"
    (ws / ".claude").mkdir(parents=True)
    (ws / ".claude/settings.json").write_text(json.dumps(settings))
    (ws / "build").mkdir()
    (ws / "build/keep.txt").write_text("x\n")
    return ws


async def test_a_deny_rule_alone_stops_rm_rf_build_on_dsh(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"permissions": {"deny": ["Bash(rm -rf *)"]}})
    async with launch(ws, lane_root=LANE_DIR) as r:
        async with CompatAdapter(r.host, target_host_version=DSH_VERSION,
                                 state_dir=str(tmp_path / "state")) as adapter:
            results = await register_import(adapter, import_project("claude", ws))
            assert [(x.event, x.matcher) for x in results] == [("permissions.deny", "Bash(rm -rf *)")]
            assert results[0].capability is Capability.ADAPTED
            agent = await r.create_agent([Reply(None, (bash("rm -rf build"),)),
                                          Reply(None, (bash(f"echo fine > {ws}/ok.txt"),)), "ok"])
            await r.run_turn(agent, "go")
            log = await r.events(agent)
    assert (ws / "build/keep.txt").is_file()
    assert (ws / "ok.txt").read_text() == "fine\n"
    results_seen = Lane.tool_results(log)
    assert results_seen[0] == (True, REFUSED)
    assert results_seen[1][0] is False


async def test_a_hooks_allow_lifts_no_rule_on_dsh(tmp_path: Path) -> None:
    allow = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}
    hook = printing(tmp_path, "allow", allow)
    ws = workspace(tmp_path, {"permissions": {"deny": ["Bash(rm -rf *)"], "ask": ["Bash(git push:*)"]},
                              "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                                  {"type": "command", "command": hook}]}]}})
    async with launch(ws, lane_root=LANE_DIR) as r:
        async with CompatAdapter(r.host, target_host_version=DSH_VERSION,
                                 state_dir=str(tmp_path / "state")) as adapter:
            await register_import(adapter, import_project("claude", ws, trust_all=True))
            agent = await r.create_agent([Reply(None, (bash("rm -rf build"),)),
                                          Reply(None, (bash("git push origin main"),)), "ok"])
            await r.run_turn(agent, "go")
            log = await r.events(agent)
    assert (ws / "build").is_dir()
    assert (tmp_path / "allow.stdin").exists()  # the hook fired first, as under Claude Code
    # Nobody answers the ask on this composition: refused as `claude -p` refuses it.
    assert [t for _, t in Lane.tool_results(log)] == [
        REFUSED, "Claude requested permissions to use Bash, but you haven't granted it yet."]
