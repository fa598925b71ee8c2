"""A shell command that ran and ended non-zero: a completed call to CodeBuddy, a failure to Claude.

Measured with the vendor lane: CodeBuddy Code 2.163.0 fires PostToolUse, not PostToolUseFailure,
for a Bash command that exits 3 (workbuddy:post_exit_nonzero) or is killed by SIGKILL
(workbuddy:post_killed), with the ending in ``tool_response``; Claude Code 2.1.332 fires
PostToolUseFailure for ``exit 3`` (claude:post_exit_nonzero); Copilot CLI 1.0.102 fires postToolUse
with ``resultType: "success"`` (copilot:post_exit_nonzero and its PascalCase twin). Real hook
processes, embedded host.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import write_script

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.host.script import Reply, call


def recorder(where: Path, event: str) -> str:
    """A hook that appends its stdin payload as one line to ``<event>.jsonl``."""
    log = where / f"{event}.jsonl"
    return str(write_script(where / f"{event}.sh", f"cat >> '{log}'\necho >> '{log}'\n"))


def recorded(where: Path, event: str) -> list[dict]:
    log = where / f"{event}.jsonl"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]


async def run_calls(where: Path, vendor: str, *calls, events=("PostToolUse", "PostToolUseFailure")) -> None:
    async with MemoryHost(where) as host, CompatAdapter(host) as adapter:
        for event in events:
            matcher = None if event == "postToolUseFailure" else "Bash" if vendor != "copilot" else "bash"
            await adapter.register_hook(vendor, event, matcher, recorder(where, event))
        agent = await host.create_agent(script=[*(Reply(calls=(c,)) for c in calls), "done"])
        assert (await agent.run_turn("go")).reason == "completed"


async def test_codebuddy_fires_post_tool_use_for_a_command_that_exits_or_is_killed(tmp_path: Path) -> None:
    await run_calls(tmp_path, "workbuddy", call("bash", command="echo ran > ran.txt; exit 3"),
                    call("bash", command="kill -9 $$"))
    assert (tmp_path / "ran.txt").exists()
    assert recorded(tmp_path, "PostToolUseFailure") == []
    exited, killed = (p["tool_response"] for p in recorded(tmp_path, "PostToolUse"))
    # CodeBuddy's own ending fields (lane payloads): error code 8002 for an exit, 8013 for a signal.
    assert (exited["exitCode"], exited["signal"], exited["tool_error_code"], exited["is_error"]) == (3, None, "8002", True)
    assert exited["error"] == ("Command: echo ran > ran.txt; exit 3\nStdout: (empty)\nStderr: (empty)\n"
                               "Exit Code: 3\nSignal: (none)")
    assert (killed["exitCode"], killed["signal"], killed["tool_error_code"]) == (None, "SIGKILL", "8013")
    assert killed["error"].endswith("Exit Code: (none)\nSignal: SIGKILL")


async def test_codebuddy_success_payload_keeps_no_error_fields(tmp_path: Path) -> None:
    await run_calls(tmp_path, "workbuddy", call("bash", command="echo fine"))
    (payload,) = recorded(tmp_path, "PostToolUse")
    assert payload["tool_response"]["exitCode"] == 0 and payload["tool_response"]["tool_error_code"] == "0"
    assert "is_error" not in payload["tool_response"] and "error" not in payload["tool_response"]


async def test_codebuddy_fires_post_tool_use_failure_for_a_call_that_cannot_run(tmp_path: Path) -> None:
    # The host rejects the argument before any process starts: no ending to report, a failure.
    await run_calls(tmp_path, "workbuddy", call("bash", command="touch never", timeout=-1))
    assert not (tmp_path / "never").exists()
    assert recorded(tmp_path, "PostToolUse") == []
    (payload,) = recorded(tmp_path, "PostToolUseFailure")
    assert "timeout" in payload["error"]


async def test_codebuddy_timed_out_command_stays_a_failure(tmp_path: Path) -> None:
    # What CodeBuddy fires on its own timeout was not measured: the host's timeout stays a failure.
    await run_calls(tmp_path, "workbuddy", call("bash", command="sleep 30", timeout=0.3))
    assert recorded(tmp_path, "PostToolUse") == []
    assert len(recorded(tmp_path, "PostToolUseFailure")) == 1


async def test_claude_fires_post_tool_use_failure_for_a_nonzero_exit(tmp_path: Path) -> None:
    await run_calls(tmp_path, "claude", call("bash", command="echo ran > ran.txt; exit 3"))
    assert (tmp_path / "ran.txt").exists()
    assert recorded(tmp_path, "PostToolUse") == []
    (payload,) = recorded(tmp_path, "PostToolUseFailure")
    assert payload["hook_event_name"] == "PostToolUseFailure" and "exit code 3" in payload["error"]


async def test_copilot_fires_post_tool_use_as_a_success_for_a_nonzero_exit(tmp_path: Path) -> None:
    await run_calls(tmp_path, "copilot", call("bash", command="echo ran > ran.txt; exit 3"),
                    call("bash", command="touch never", timeout=-1), events=("postToolUse", "postToolUseFailure"))
    (payload,) = recorded(tmp_path, "postToolUse")
    assert payload["toolResult"]["resultType"] == "success" and "exit code 3" in payload["toolResult"]["textResultForLlm"]
    # The call the host could not run is Copilot's failure.
    (failure,) = recorded(tmp_path, "postToolUseFailure")
    assert "timeout" in failure["error"]
