"""Windsurf (Cascade), from its documentation: real hook processes on the embedded host, its
``.windsurf/hooks.json`` (one real file of the corpus), and its exit-code-only answers.

Windsurf is an IDE with hosted models and no CLI on the registries, so what is checked is that this
project does what docs.windsurf.com/windsurf/cascade/hooks says, every row saying so
(``confidence: documented``); nothing here claims agreement with a running Windsurf.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from conftest import trust

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.catalog import unit_of
from compat_adapter.host.script import call
from compat_adapter.importers import import_files, register_import
from compat_adapter.model import Capability
from compat_adapter.runtime.process import ProcessOutcome

CORPUS = Path(__file__).parent / "fixtures" / "real-configs" / "windsurf"


def outcome(code: int | None, stdout: str = "", stderr: str = "") -> ProcessOutcome:
    return ProcessOutcome(exit_code=code, stdout=stdout, stderr=stderr, timed_out=code is None, truncated=False,
                          cause=None if code is not None else "timed out", duration_ms=1.0)


def hooks_file(project: Path, hooks: dict) -> Path:
    path = project / ".windsurf" / "hooks.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks}))
    return path


def test_the_real_file_and_each_kind_of_entry_import_as_windsurf_loads_them(tmp_path: Path) -> None:
    real = import_files("windsurf", [CORPUS / "agent-hooks.1password.json"], trust_all=True)
    assert [(h.event, h.matcher) for h in real.hooks] == [("pre_run_command", None)] and not real.refused
    path = hooks_file(tmp_path, {
        "pre_write_code": [{"command": "./guard.sh", "show_output": True}, {"powershell": "guard.ps1"},
                           {"command": "x", "working_directory": "sub"}],
        "pre_mcp_tool_use": [{"command": "x"}], "PreToolUse": [{"command": "x"}]})
    result = import_files("windsurf", [path], trust_all=True)
    assert [h.event for h in result.hooks] == ["pre_write_code"]
    assert [r.code for r in result.refused] == ["INVALID_HANDLER", "INVALID_HANDLER", "UNSERVED_EVENT",
                                                "UNKNOWN_EVENT"]
    assert "Windows" in result.refused[0].reason and "working_directory" in result.refused[1].reason
    assert [p.relative_to(tmp_path).as_posix() for p in unit_of("windsurf").importer.project_files(tmp_path)] == [
        ".windsurf/hooks.json"]


@pytest.mark.parametrize(("event", "given", "decision", "reason"), [
    ("pre_run_command", outcome(2, stderr="Command blocked: rm -rf\n"), "deny", "Command blocked: rm -rf"),
    ("pre_user_prompt", outcome(2, stderr="no secrets"), "block", "no secrets"),
    ("pre_run_command", outcome(0, '{"decision": "deny", "permission": "deny"}'), "none", None),  # no JSON read
    ("pre_run_command", outcome(1, stderr="boom"), "none", None),  # any other exit: the action goes on
    ("post_run_command", outcome(2, stderr="late"), "none", None),  # a post-hook cannot block
    ("pre_read_code", outcome(None), "none", None),
])
def test_only_exit_2_on_a_pre_hook_blocks(event: str, given: ProcessOutcome, decision: str,
                                          reason: str | None) -> None:
    answer = unit_of("windsurf").dialect.decode(event, given)
    assert (answer.decision, answer.reason) == (decision, reason)


async def test_a_pre_run_command_guard_blocks_a_real_command_and_cascade_reads_stderr(tmp_path: Path) -> None:
    guard = tmp_path / "guard.sh"
    guard.write_text(f"#!/bin/sh\ncat > '{tmp_path}/payload.json'\n"
                     "grep -q 'rm -rf' '" + str(tmp_path) + "/payload.json' && "
                     "{ echo \"Command blocked: 'rm -rf' is not allowed\" >&2; exit 2; }\nexit 0\n")
    guard.chmod(guard.stat().st_mode | stat.S_IXUSR)
    path = hooks_file(tmp_path, {"pre_run_command": [{"command": str(guard), "show_output": True}]})
    trust("windsurf", path)
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        graded = await register_import(adapter, import_files("windsurf", [path]))
        agent = await host.create_agent(script=[call("bash", command="rm -rf build > ran.txt"), "done"])
        await agent.run_turn("go")
        await host.settle()
        results = [e.data for e in agent.session.of_type("tool/result")]
    assert [(g.event, g.capability, g.confidence) for g in graded] == [("pre_run_command", Capability.ADAPTED,
                                                                          "documented")]
    assert not (tmp_path / "ran.txt").exists()
    assert results[0]["isError"] is True and results[0]["text"] == "Command blocked: 'rm -rf' is not allowed"
    payload = json.loads((tmp_path / "payload.json").read_text())
    assert payload["agent_action_name"] == "pre_run_command"
    assert payload["tool_info"] == {"command_line": "rm -rf build > ran.txt", "cwd": str(tmp_path)}
    assert {"trajectory_id", "execution_id", "timestamp"} <= set(payload)
