"""CodeBuddy's second PreToolUse run after an ask, on a real DeepSeek Harness: the hooks that answered
``ask`` run again as the call executes (CodeBuddy Code 2.163.0, lane case workbuddy:ask), and a deny
then keeps the call from running, in CodeBuddy's words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write_script
from test_contract import LANE_DIR, Lane, bash, dsh_lane

from compat_adapter.host.dsh.lane import launch
from compat_adapter.host.dsh.surface import DSH_VERSION
from compat_adapter.host.script import Reply
from compat_adapter.service import CompatAdapter

__all__ = ("dsh_lane",)


@pytest.fixture(autouse=True)
def _installed(dsh_lane: Path) -> None:
    """Every test here runs on the lane."""


def _decision(kind: str, reason: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": kind,
                                              "permissionDecisionReason": reason}})


@pytest.mark.parametrize(("second", "runs"), [("ask", True), ("deny", False)])
async def test_an_asked_call_runs_codebuddys_pre_tool_hooks_again_on_dsh(tmp_path: Path, second: str,
                                                                         runs: bool) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    log = tmp_path / "pre.log"
    hook = write_script(tmp_path / "pre.sh", (
        f"cat >/dev/null\necho x >> {log}\nif [ $(wc -l < {log}) -eq 1 ]; then printf '%s\\n' '{_decision('ask', 'ASK-WHY')}'\n"
        f"else printf '%s\\n' '{_decision(second, 'NOT-NOW')}'; fi\n"))
    async with launch(ws, lane_root=LANE_DIR) as r:
        async with CompatAdapter(r.host, target_host_version=DSH_VERSION,
                                 state_dir=str(tmp_path / "state")) as adapter:
            await adapter.register_hook("workbuddy", "PreToolUse", "Bash", str(hook))
            agent = await r.create_agent([Reply(None, (bash(f"touch {ws}/ran.txt"),)), "ok"])
            await r.run_turn(agent, "go")
            events = await r.events(agent)
    assert len(log.read_text().splitlines()) == 2
    assert (ws / "ran.txt").exists() is runs
    if not runs:
        assert Lane.tool_results(events)[0] == (True, "Error: NOT-NOW")
