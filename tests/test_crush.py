"""Crush, from its source: real hook processes on the embedded host, its crush.json read as Crush
loads it, and its dialect read as internal/hooks reads a hook's answer.

No Crush binary runs here (its npm package downloads it from GitHub at install, which CI cannot
reach), so what is checked is that this project does what Crush's source says (charmbracelet/crush
37f36e938: internal/hooks, internal/agent/hooked_tool.go, internal/config/load.go), every row saying
so (``confidence: documented``); nothing here claims agreement with a running Crush.
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


def outcome(code: int | None, stdout: str = "", stderr: str = "") -> ProcessOutcome:
    return ProcessOutcome(exit_code=code, stdout=stdout, stderr=stderr, timed_out=code is None, truncated=False,
                          cause=None if code is not None else "timed out", duration_ms=1.0)


def config(project: Path, hooks: dict, name: str = "crush.json") -> Path:
    path = project / name
    path.write_text(json.dumps({"$schema": "https://charm.land/crush.json", "hooks": hooks}))
    return path


def script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


async def run_calls(project: Path, files: list[Path], calls: list) -> tuple[list, list, str]:
    """Register the files' hooks, run one turn making ``calls``; (graded, tool results, how the turn ended)."""
    trust("crush", *files)
    imported = import_files("crush", files)
    async with MemoryHost(project) as host, CompatAdapter(host) as adapter:
        graded = await register_import(adapter, imported)
        agent = await host.create_agent(script=[*calls, "done"])
        turn = await agent.run_turn("go")
        await host.settle()
        results = [e.data for e in agent.session.of_type("tool/result")]
    return list(graded), results, turn.reason


# ── crush.json, as Crush loads it ─────────────────────────────────────────────────────────────────

def test_its_flat_entries_import_one_row_each_and_what_crush_refuses_to_load_is_refused(tmp_path: Path) -> None:
    path = config(tmp_path, {
        "pre_tool_use": [{"name": "no-haskell", "matcher": "^bash$", "command": "./no-haskell.sh", "timeout": 10}],
        "PreToolUse": [{"command": "true"}, {"matcher": "*", "command": "true"}, {"matcher": "x"},
                       {"command": "true", "timeout": 1.5}, "true"],
        "PostToolUse": [{"command": "true"}],
        "post_tool_use": [{"command": "true"}],
    })
    result = import_files("crush", [path], trust_all=True)
    # pre_tool_use is PreToolUse (normalizeHookEvent); no matcher matches every tool.
    assert [(h.event, h.matcher) for h in result.hooks] == [("PreToolUse", "^bash$"), ("PreToolUse", None)]
    assert result.hooks[0].handler["timeout"] == 10.0  # type: ignore[index]  # a mapping: a command handler
    assert [r.code for r in result.refused] == ["INVALID_MATCHER", "INVALID_HANDLER", "INVALID_HANDLER",
                                                "INVALID_HANDLER", "UNSERVED_EVENT", "UNKNOWN_EVENT"]
    # `*` is no Go pattern, and a hook without a command stops Crush from starting (ValidateHooks).
    assert "repetition" in result.refused[0].reason
    assert "command is required" in result.refused[1].reason and "does not start" in result.refused[1].reason
    assert "PreToolUse" in next(r.reason for r in result.refused if r.code == "UNSERVED_EVENT")
    assert [p.name for p in unit_of("crush").importer.project_files(tmp_path)] == ["crush.json"]


# ── the dialect: how internal/hooks reads an answer ───────────────────────────────────────────────

@pytest.mark.parametrize(("given", "decision", "reason", "stop"), [
    (outcome(2, stderr=" No Haskell allowed \n"), "deny", "No Haskell allowed", False),
    (outcome(2), "deny", "blocked by hook", False),
    (outcome(49, stderr="stop everything"), "deny", "stop everything", True),
    (outcome(49), "deny", "turn halted by hook", True),
    (outcome(1, '{"decision": "deny"}', "boom"), "none", None, False),  # any other exit: no opinion
    (outcome(None), "none", None, False),  # a timeout: no opinion
    (outcome(0, '{"decision": "DENY", "reason": "r"}'), "deny", "r", False),  # strings.ToLower
    (outcome(0, '{"Decision": "allow"}'), "allow", None, False),  # Go matches field names by case
    (outcome(0, '{"halt": true, "reason": "h"}'), "deny", "h", True),  # halt blocks the call too
    (outcome(0, '{"decision": "deny", "halt": "yes"}'), "none", None, False),  # a wrong type: no opinion
    (outcome(0, '{"decision": "deny", "version": 1.5}'), "none", None, False),
    (outcome(0, '{"decision": "block", "reason": "x"}'), "none", None, False),  # Claude's block is no word here
    (outcome(0, '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "c"}}'),
     "deny", "c", False),
    (outcome(0, '{"hookSpecificOutput": {"permissionDecision": "ask"}}'), "none", None, False),
    (outcome(0, '{"hookSpecificOutput": {"permissionDecision": "allow"}, "decision": "deny"}'), "allow", None,
     False),  # with hookSpecificOutput present, Crush's own fields are not read
    (outcome(0, "not json"), "none", None, False),
])
def test_an_answer_reads_as_crush_reads_it(given: ProcessOutcome, decision: str, reason: str | None,
                                           stop: bool) -> None:
    answer = unit_of("crush").dialect.decode("PreToolUse", given)
    assert (answer.decision, answer.reason, answer.stop) == (decision, reason, stop)


def test_context_patches_and_reasons_compose_in_config_order() -> None:
    dialect = unit_of("crush").dialect
    answers = [dialect.decode("PreToolUse", outcome(0, json.dumps(a))) for a in (
        {"decision": "allow", "context": ["one", "", "two"], "updated_input": {"command": "bun test"}},
        {"context": "three", "updated_input": json.dumps({"timeout": 5})},
        {"updated_input": [1]},  # not an object: shallowMerge rejects it
    )]
    merged = dialect.merge("PreToolUse", answers)
    assert merged.decision == "allow" and merged.additional_context == ("one\ntwo", "three")
    assert merged.updated_input == {"command": "bun test", "timeout": 5}
    denied = dialect.merge("PreToolUse", [dialect.decode("PreToolUse", outcome(2, stderr="same")),
                                          dialect.decode("PreToolUse", outcome(0, '{"decision": "allow"}')),
                                          dialect.decode("PreToolUse", outcome(2, stderr="same"))])
    assert (denied.decision, denied.reason) == ("deny", "same\nsame")  # aggregate() keeps every reason


def test_the_payload_is_crushs_five_fields_in_gos_bytes() -> None:
    dialect = unit_of("crush").dialect
    sent = dialect.encode({"event": "PreToolUse", "session_id": "s", "cwd": "/p", "tool_name": "bash",
                           "tool_input": {"command": "a < b && c > d"}})
    assert sent == (b'{"event":"PreToolUse","session_id":"s","cwd":"/p","tool_name":"bash",'
                    b'"tool_input":{"command":"a \\u003c b \\u0026\\u0026 c \\u003e d"}}')


# ── real hook processes on the embedded host ──────────────────────────────────────────────────────

async def test_a_guard_reading_crush_tool_input_command_denies_a_real_command(tmp_path: Path) -> None:
    script(tmp_path / "no-haskell.sh",
           f"cat > '{tmp_path}/payload.json'\nenv | grep -E '^(CRUSH|AGENT|AI_AGENT)' | sort > '{tmp_path}/env.txt'\n"
           "if echo \"$CRUSH_TOOL_INPUT_COMMAND\" | grep -q ghc; then echo 'No Haskell allowed, kiddo.' >&2; exit 2; fi\n")
    path = config(tmp_path, {"PreToolUse": [{"matcher": "^bash$", "command": "./no-haskell.sh"}]})
    graded, results, _ = await run_calls(tmp_path, [path], [call("bash", command="ghc --version > ran.txt")])
    assert [(g.event, g.capability, g.confidence) for g in graded] == [("PreToolUse", Capability.ADAPTED,
                                                                          "documented")]
    assert not (tmp_path / "ran.txt").exists()
    assert results[0]["isError"] is True
    assert results[0]["text"] == "Tool call blocked by hook. Reason: No Haskell allowed, kiddo."
    raw = (tmp_path / "payload.json").read_bytes()
    assert not raw.endswith(b"\n")
    payload = json.loads(raw)
    assert list(payload) == ["event", "session_id", "cwd", "tool_name", "tool_input"]
    assert (payload["event"], payload["tool_name"], payload["tool_input"]["command"]) == (
        "PreToolUse", "bash", "ghc --version > ran.txt")
    env = dict(line.split("=", 1) for line in (tmp_path / "env.txt").read_text().splitlines())
    assert env["CRUSH"] == "1" and env["AGENT"] == env["AI_AGENT"] == "crush"
    assert (env["CRUSH_EVENT"], env["CRUSH_TOOL_NAME"]) == ("PreToolUse", "bash")
    assert env["CRUSH_TOOL_INPUT_COMMAND"] == "ghc --version > ran.txt"
    assert env["CRUSH_PROJECT_DIR"] == env["CRUSH_CWD"] == str(tmp_path)
    assert env["CRUSH_SESSION_ID"] == payload["session_id"] and "CRUSH_TOOL_INPUT_FILE_PATH" not in env


async def test_context_reaches_the_model_once_the_call_ran(tmp_path: Path) -> None:
    path = config(tmp_path, {"PreToolUse": [
        {"matcher": "bash", "command": "echo '{\"context\": [\"run gofumpt\", \"\"]}'"},
        {"matcher": "^view$", "command": "echo '{\"context\": \"never\"}'"}]})
    trust("crush", path)
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await register_import(adapter, import_files("crush", [path]))
        agent = await host.create_agent(script=[call("bash", command="echo hi"), "done"])
        await agent.run_turn("go")
        await host.settle()
        results = [e.data for e in agent.session.of_type("tool/result")]
        seen = json.dumps([e.data for e in agent.session.events], default=str)
    assert results[0]["isError"] is False and results[0]["text"].startswith("hi")
    # Crush appends it to the result; the host places it as a message (the row's listed loss).
    assert "run gofumpt" in seen and "never" not in seen


async def test_exit_49_blocks_the_call_and_ends_the_turn(tmp_path: Path) -> None:
    path = config(tmp_path, {"PreToolUse": [{"command": "echo 'enough' >&2; exit 49"}]})
    _, results, reason = await run_calls(tmp_path, [path], [call("bash", command="touch ran.txt"),
                                                            call("bash", command="touch again.txt")])
    assert not (tmp_path / "ran.txt").exists() and not (tmp_path / "again.txt").exists()
    assert results[0]["isError"] is True and "enough" in results[0]["text"]
    assert reason != "completed"
