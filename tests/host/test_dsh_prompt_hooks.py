"""Prompt hooks on the real DSH host: the composition's own model answers them (the host contract's
``complete``, the bundle's one ``llm.stream`` call on a live agent's route), on a real 0.2.1 ``sdk``
profile (``bash scripts/dsh_lane.sh``) with the lane's scripted model, which answers the agent's
steps from its script and the hook's question from the route of that question."""

from __future__ import annotations

from pathlib import Path

from test_contract import LANE_DIR, Lane, bash, dsh_lane

from compat_adapter.declare import declare_hook
from compat_adapter.grading import grade
from compat_adapter.host.dsh.lane import launch
from compat_adapter.host.protocol import validate_host
from compat_adapter.host.script import Reply
from compat_adapter.model import Capability
from compat_adapter.service import CompatAdapter
from compat_adapter.testing.models.base import ModelTurn

__all__ = ("dsh_lane",)


async def test_a_prompt_hook_on_dsh_asks_the_compositions_own_model(dsh_lane: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    async with launch(ws, lane_root=LANE_DIR) as runner:
        host = runner.host
        assert "model" in host.surface.services
        assert not [p for p in validate_host(host) if "complete" in p or "model" in p]
        async with CompatAdapter(host, target_host_version=host.surface.version,
                                 state_dir=str(tmp_path / "state")) as adapter:
            result = await adapter.register_hook("claude", "PreToolUse", "Bash",
                                                 {"type": "prompt", "prompt": "Is this safe? $ARGUMENTS"})
            assert result.capability is Capability.ADAPTED, result.reason
            # Step 1 calls bash; the hook's question gets its own answer; then the agent ends.
            agent = await runner.create_agent([Reply("trying", (bash(f"touch {ws}/ran"),)), "gave up"])
            runner.model.route({"Is this safe?": [ModelTurn('{"ok": false, "reason": "touching files is '
                                                            'not allowed"}')]}, add=True)
            outcome = await runner.run_turn(agent, "please run it")
            log = await runner.events(agent)
    assert outcome.reason == "completed"
    assert not (ws / "ran").exists(), "the prompt hook's ok:false must deny the call"
    [(is_error, text)] = Lane.tool_results(log)
    assert is_error and "touching files is not allowed" in text


async def test_a_prompt_hook_on_dsh_with_a_reply_that_is_not_its_json_lets_the_call_run(
        dsh_lane: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    async with launch(ws, lane_root=LANE_DIR) as runner:
        async with CompatAdapter(runner.host, target_host_version=runner.host.surface.version,
                                 state_dir=str(tmp_path / "state")) as adapter:
            await adapter.register_hook("claude", "PreToolUse", "Bash", {"type": "prompt", "prompt": "Safe?"})
            agent = await runner.create_agent([Reply("trying", (bash(f"touch {ws}/ran"),)), "done"])
            runner.model.route({"Safe?": [ModelTurn("sure, go ahead")]}, add=True)
            await runner.run_turn(agent, "please run it")
    assert (ws / "ran").exists(), "a reply that is not {\"ok\": …} is a non-blocking error, as in Claude"


def test_prompt_hooks_grade_adapted_on_the_dsh_lane_surface() -> None:
    from compat_adapter.host.dsh.surface import DSH_SURFACE

    decl = declare_hook("claude", "Stop", None, {"type": "prompt", "prompt": "Are all tasks done?"})
    result = grade(decl, DSH_SURFACE)
    assert result.capability is Capability.ADAPTED, result.reason
    assert any(str(d.code) == "model-differs" for d in result.degradations)
