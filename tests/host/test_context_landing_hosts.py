"""Where hook context lands, on both hosts (the embedded one and the real DSH agent loop): appended
to the tool's result where Copilot and CodeBuddy append it, inside the user's prompt message where
CodeBuddy adds it; and, pinned on a real DSH 0.2.1 runtime, that Claude's system message and Codex's
developer message are user messages there (the ``message-provenance`` loss graded on dsh only: the
embedded host gives them their role)."""

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


async def test_on_real_dsh_claude_prompt_context_reaches_the_model_as_a_user_message(
        dsh_lane: Path, tmp_path: Path) -> None:
    """The pin of the dsh-only loss: on 0.2.1 the bundle enters hook context as a sourced user
    message (a developer message appended where the first request would carry it is refused or
    lands after that request), and the model reads it there, never in a system message."""
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
    roles = [m["role"] for m in first["messages"] if said in json.dumps(m)]
    assert roles == ["user"], first["messages"]
    assert said not in json.dumps(first.get("system"))


def test_the_role_losses_are_graded_on_the_host_that_lacks_the_role() -> None:
    for vendor, event, role in (("claude", "UserPromptSubmit", "system message"),
                                ("claude", "PreToolUse", "system message"),
                                ("claude", "SubagentStart", "system message"),
                                ("codex", "PostToolUse", "developer message"),
                                ("codex", "SessionStart", "developer message")):
        decl = declare_hook(vendor, event, None, "true")
        embedded = [d.text for d in grade(decl, EMBEDDED_SURFACE).degradations
                    if d.code is DegradationCode.MESSAGE_PROVENANCE]
        dsh = [d.text for d in grade(decl, DSH_SURFACE).degradations
               if d.code is DegradationCode.MESSAGE_PROVENANCE]
        assert not [t for t in embedded if "no " + role.split()[0] + " role" in t], (vendor, event, embedded)
        assert any(role in t and "user message" in t for t in dsh), (vendor, event, dsh)
