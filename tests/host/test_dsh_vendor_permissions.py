"""Gemini CLI's and OpenCode's permission rules enforced on a real DeepSeek Harness, with each
vendor's own precedence and words (measured on Gemini CLI 0.61.0 and OpenCode 1.18.33)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_contract import LANE_DIR, Lane, bash, dsh_lane

from compat_adapter.host.dsh.lane import launch
from compat_adapter.host.dsh.surface import DSH_VERSION
from compat_adapter.host.script import Reply
from compat_adapter.importers import import_project, register_import
from compat_adapter.service import CompatAdapter

__all__ = ("dsh_lane",)


@pytest.fixture(autouse=True)
def _installed(dsh_lane: Path) -> None:
    """Every test here runs on the lane."""


def workspace(tmp_path: Path, name: str, text: str) -> Path:
    ws = tmp_path / "ws"
    (ws / name).parent.mkdir(parents=True, exist_ok=True)
    (ws / name).write_text(text)
    (ws / "build").mkdir()
    (ws / "build/keep.txt").write_text("x\n")
    return ws


@pytest.mark.parametrize(("vendor", "name", "config", "refused"), [
    # Gemini: an allowed command narrows the shell; the rest reads Gemini's policy denial.
    ("gemini", ".gemini/settings.json", {"tools": {"allowed": ["run_shell_command(echo)"]}},
     "Tool execution denied by policy."),
    # OpenCode: the last matching rule wins; the deny lists the rules that name the permission.
    ("opencode", "opencode.json", {"permission": {"bash": {"*": "allow", "rm *": "deny", "echo *": "allow"}}},
     'The user has specified a rule which prevents you from using this specific tool call. Here are some of the '
     'relevant rules [{"permission":"*","action":"allow","pattern":"*"},{"permission":"bash","pattern":"*",'
     '"action":"allow"},{"permission":"bash","pattern":"rm *","action":"deny"},{"permission":"bash",'
     '"pattern":"echo *","action":"allow"}]'),
])
async def test_a_vendor_rule_stops_rm_rf_build_on_dsh(tmp_path: Path, vendor: str, name: str,
                                                     config: dict[str, object], refused: str) -> None:
    ws = workspace(tmp_path, name, json.dumps(config))
    async with launch(ws, lane_root=LANE_DIR) as r:
        async with CompatAdapter(r.host, target_host_version=DSH_VERSION,
                                 state_dir=str(tmp_path / "state")) as adapter:
            results = await register_import(adapter, import_project(vendor, ws))
            assert results and all(x.mounted for x in results)
            agent = await r.create_agent([Reply(None, (bash("rm -rf build"),)),
                                          Reply(None, (bash(f"echo fine > {ws}/ok.txt"),)), "ok"])
            await r.run_turn(agent, "go")
            log = await r.events(agent)
    assert (ws / "build/keep.txt").is_file()
    assert (ws / "ok.txt").read_text() == "fine\n"
    seen = Lane.tool_results(log)
    assert seen[0] == (True, refused)
    assert seen[1][0] is False
