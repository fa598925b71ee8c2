"""Where hook context lands, on both hosts (the embedded one and the real DSH agent loop): appended
to the tool's result where Copilot and CodeBuddy append it, inside the user's prompt message where
CodeBuddy adds it; and, pinned on a real DSH 0.2.1 runtime, that Claude's system message and Codex's
developer message are system-prompt text there (the ``context-cost`` loss graded on dsh only: the
embedded host gives them a message of their role)."""

from __future__ import annotations

import json
from pathlib import Path

from test_contract import LANE_DIR, Lane, bash, dsh_lane, lane, printing

from compat_adapter.declare import declare_hook
from compat_adapter.grading import grade
from compat_adapter.host.dsh.lane import launch
from compat_adapter.host.dsh.surface import DSH_SURFACE, DSH_VERSION
from compat_adapter.host.script import Reply
from compat_adapter.host.surfaces import EMBEDDED_SURFACE
from compat_adapter.model import DegradationCode
from compat_adapter.service import CompatAdapter

__all__ = ("dsh_lane", "lane")  # the fixtures, shared with the contract suite


def _ctx(event: str, text: str) -> dict:
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


async def test_post_tool_context_is_appended_to_the_result_and_prompt_context_rides_in_the_prompt(
        lane: Lane, tmp_path: Path) -> None:
    async with lane.adapter(tmp_path) as adapter:
        await adapter.register_hook("workbuddy", "UserPromptSubmit", None,
                                    printing(tmp_path, "u", _ctx("UserPromptSubmit", "WB-PROMPT")))
        await adapter.register_hook("workbuddy", "PostToolUse", "Bash",
                                    printing(tmp_path, "p", _ctx("PostToolUse", "WB-POST")))
        await adapter.register_hook("copilot", "postToolUse", "bash",
                                    printing(tmp_path, "c", {"additionalContext": "CP-POST"}))
        agent = await lane.agent([Reply(None, (bash("echo hello-from-tool"),)), "done"])
        reason, _ = await lane.run(agent, "go on")
        log = await lane.log(agent)
    assert reason == "completed"
    [(is_error, text)] = Lane.tool_results(log)
    assert not is_error and "hello-from-tool" in text
    # In registration order, each in its vendor's words, after the tool's own output.
    assert text.endswith('\n<system-reminder data-role="tool-hint">WB-POST</system-reminder>'
                         '\n\nTool "bash" succeeded. Additional guidance from postToolUse hooks:\nCP-POST')
    prompts = [m for m, kind, _ in Lane.messages(log) if kind == "user"]
    assert prompts == ['<system-reminder data-role="hook">WB-PROMPT</system-reminder>\n\ngo on']
    assert not [m for m, _, _ in Lane.messages(log) if "WB-POST" in m or "CP-POST" in m]


async def test_on_real_dsh_claude_prompt_context_reaches_the_model_as_system_text(
        dsh_lane: Path, tmp_path: Path) -> None:
    """On 0.2.1 the bundle gives hook context the system role as system-prompt text, in the first
    request of the turn whose prompt the hook saw (bundle/voice.mjs); no message carries it."""
    ws = tmp_path / "ws"
    ws.mkdir()
    async with launch(ws, lane_root=LANE_DIR) as runner:
        async with CompatAdapter(runner.host, target_host_version=DSH_VERSION,
                                 state_dir=str(tmp_path / "state")) as adapter:
            await adapter.register_hook("claude", "UserPromptSubmit", None,
                                        printing(tmp_path, "u", _ctx("UserPromptSubmit", "CTX-ROLE")))
            agent = await runner.create_agent(["ok"])
            await runner.run_turn(agent, "hello")
        first = runner.model.main_requests[0].body
    said = "UserPromptSubmit hook additional context: CTX-ROLE"
    assert said in json.dumps(first.get("system"))
    assert said not in json.dumps(first["messages"])


def test_the_role_rows_list_where_each_host_puts_the_role() -> None:
    """Both hosts give the vendor's role; the embedded host a message of it, DSH system-prompt text
    with its costs (``context-cost``); neither lists the ``message-provenance`` role loss."""
    for vendor, event in (("claude", "UserPromptSubmit"), ("claude", "PreToolUse"), ("claude", "SubagentStart"),
                          ("codex", "PostToolUse"), ("codex", "SessionStart")):
        decl = declare_hook(vendor, event, None, "true")
        for surface in (EMBEDDED_SURFACE, DSH_SURFACE):
            provenance = [d.text for d in grade(decl, surface).degradations
                          if d.code is DegradationCode.MESSAGE_PROVENANCE]
            assert not [t for t in provenance if "role" in t and "user message" in t], (vendor, event, provenance)
        costs = [d.text for d in grade(decl, DSH_SURFACE).degradations if d.code is DegradationCode.CONTEXT_COST]
        assert len(costs) == 1 and "prompt cache" in costs[0] and "copy" in costs[0], (vendor, event)
        assert not [d for d in grade(decl, EMBEDDED_SURFACE).degradations if d.code is DegradationCode.CONTEXT_COST]
