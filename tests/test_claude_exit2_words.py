"""What Claude Code 2.1.332's model reads from a guard that exits 2 (issue 34; vendor lane cases
claude:deny_exit2_json, deny_exit2_json_block, deny_exit2_newline, stop_block_exit2_json): a JSON
reason on exit 2 is worded as a JSON answer, with no command quoted; stderr keeps its newline."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import write_script

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.host.script import Reply, call

BASH_THEN_DONE = [Reply(calls=(call("bash", command="echo hello-from-tool"),)), "done"]


def guard(tmp: Path, name: str, stdout: str, stderr: str) -> str:
    body = f"cat >/dev/null\nprintf '%s' '{stdout}'\nprintf '{stderr}' >&2\nexit 2\n"
    return str(write_script(tmp / f"{name}.sh", body))


async def tool_text(tmp: Path, command: str) -> str:
    async with MemoryHost(tmp) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("claude", "PreToolUse", "Bash", command)
        agent = await host.create_agent(script=BASH_THEN_DONE)
        await agent.run_turn("go")
    [result] = [dict(e.data) for e in agent.session.of_type("tool/result")]
    assert result["isError"]
    return str(result["text"])


async def test_a_json_deny_that_exits_2_reads_as_a_decision(tmp_path: Path) -> None:
    deny = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                              "permissionDecisionReason": "no writes here"}})
    assert await tool_text(tmp_path, guard(tmp_path, "deny", deny, "noise\\n")) == \
        "PreToolUse:Bash hook error: no writes here"
    block = json.dumps({"decision": "block", "reason": "blocked by policy"})
    assert await tool_text(tmp_path, guard(tmp_path, "block", block, "")) == \
        "PreToolUse:Bash hook error: blocked by policy"


async def test_an_exit_2_message_keeps_its_newline_and_quotes_the_command(tmp_path: Path) -> None:
    command = guard(tmp_path, "plain", "", "refused\\n")
    assert await tool_text(tmp_path, command) == f"PreToolUse:Bash hook error: [{command}]: refused\n"
    # A JSON that allows does not lift an exit 2: stderr is the reason, as an exit-2 answer.
    allow = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}})
    command = guard(tmp_path, "allow", allow, "still refused\\n")
    assert await tool_text(tmp_path, command) == f"PreToolUse:Bash hook error: [{command}]: still refused\n"
