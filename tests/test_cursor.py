"""Cursor, from its documentation: real hook processes on the embedded host, the real corpus, the
Claude-compatibility mode and the matrix (a project holding every vendor's files is
tests/test_grade_every_vendor.py).

No Cursor CLI runs offline, so what is checked here is that this project does what Cursor's docs say
(cursor.com/docs/hooks, /docs/reference/third-party-hooks), with every row saying so
(``confidence: documented``); nothing here claims agreement with a running Cursor.
"""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import trust

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.host.script import call
from compat_adapter.importers import import_files, register_import
from compat_adapter.matrix import build_matrix, to_json
from compat_adapter.model import Capability

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(__file__).parent / "fixtures" / "real-configs"
CLI = [sys.executable, "-m", "compat_adapter.cli"]


def script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def hooks_file(project: Path, hooks: dict, name: str = ".cursor/hooks.json") -> Path:
    path = project / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": 1, "hooks": hooks}))
    return path


async def run_calls(project: Path, files: list[Path], calls: list, vendor: str = "cursor") -> tuple[list, list]:
    """Register the files' hooks, run one turn making ``calls``; (graded results, tool results)."""
    trust(vendor, *files)
    imported = import_files(vendor, files)
    async with MemoryHost(project) as host, CompatAdapter(host) as adapter:
        graded = await register_import(adapter, imported)
        agent = await host.create_agent(script=[*calls, "done"])
        await agent.run_turn("go")
        await host.settle()
        results = [e.data for e in agent.session.of_type("tool/result")]
    return list(graded), results


# ── the dialect on real hook processes ─────────────────────────────────────────────────────────

async def test_a_pretooluse_deny_blocks_a_real_command_and_the_model_reads_agent_message(tmp_path: Path) -> None:
    script(tmp_path / ".cursor/hooks/deny.sh",
           f"cat > '{tmp_path}/payload.json'\n"
           "echo '{\"permission\": \"deny\", \"agent_message\": \"no touching\", \"user_message\": \"blocked\"}'\n")
    path = hooks_file(tmp_path, {"preToolUse": [{"command": ".cursor/hooks/deny.sh", "matcher": "Shell"}]})
    graded, results = await run_calls(tmp_path, [path], [call("bash", command="touch marker")])
    assert [(g.event, g.capability, g.confidence) for g in graded] == [("preToolUse", Capability.ADAPTED,
                                                                          "documented")]
    assert not (tmp_path / "marker").exists()
    assert results[0]["isError"] is True and results[0]["text"] == "no touching"
    payload = json.loads((tmp_path / "payload.json").read_text())
    # Cursor's common fields and its Shell input, as its docs list them (the project hook ran from the root).
    assert payload["hook_event_name"] == "preToolUse" and payload["tool_name"] == "Shell"
    assert payload["tool_input"] == {"command": "touch marker", "working_directory": str(tmp_path)}
    assert payload["workspace_roots"] == [str(tmp_path)] and payload["user_email"] is None
    assert {"conversation_id", "generation_id", "model", "cursor_version", "transcript_path", "cwd",
            "tool_use_id"} <= set(payload)


async def test_before_shell_execution_exit_2_denies_and_fires_only_for_shell_calls(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    script(tmp_path / ".cursor/hooks/gate.sh", f"cat >> '{tmp_path}/calls.log'; echo >> '{tmp_path}/calls.log'\nexit 2\n")
    path = hooks_file(tmp_path, {"beforeShellExecution": [{"command": ".cursor/hooks/gate.sh", "matcher": "touch"}]})
    _, results = await run_calls(tmp_path, [path], [call("read", path="notes.txt"),
                                                    call("bash", command="touch marker")])
    assert not (tmp_path / "marker").exists()
    assert results[0]["isError"] is False and "hello" in results[0]["text"]  # a read never reaches it
    assert results[1]["isError"] is True
    seen = [json.loads(line) for line in (tmp_path / "calls.log").read_text().splitlines() if line.strip()]
    assert [(p["hook_event_name"], p["command"], p["sandbox"]) for p in seen] == [
        ("beforeShellExecution", "touch marker", False)]


@pytest.mark.parametrize("fail_closed", [True, False])
async def test_a_crashing_guard_denies_only_when_fail_closed(tmp_path: Path, fail_closed: bool) -> None:
    script(tmp_path / ".cursor/hooks/crash.sh", "echo 'Traceback: boom' >&2\nexit 1\n")
    entry = {"command": ".cursor/hooks/crash.sh", "failClosed": fail_closed}
    path = hooks_file(tmp_path, {"beforeShellExecution": [entry]})
    _, results = await run_calls(tmp_path, [path], [call("bash", command="touch marker")])
    # Cursor: "hook failures (crash, timeout, invalid JSON) allow the action through" unless failClosed.
    assert (tmp_path / "marker").exists() is not fail_closed
    assert results[0]["isError"] is fail_closed
    if fail_closed:
        assert "beforeShellExecution hook failed and is fail-closed" in results[0]["text"]


async def test_output_that_is_not_json_fails_open(tmp_path: Path) -> None:
    # A real corpus guard prints plain text: to Cursor that is invalid JSON, a failed run, so the call runs.
    script(tmp_path / ".cursor/hooks/talk.sh", "echo '[GUARD] High-impact script detected.'\n")
    path = hooks_file(tmp_path, {"preToolUse": [{"command": ".cursor/hooks/talk.sh", "matcher": "Shell"}]})
    _, results = await run_calls(tmp_path, [path], [call("bash", command="touch marker")])
    assert (tmp_path / "marker").exists() and results[0]["isError"] is False


async def test_a_stop_followup_continues_the_turn_as_the_next_message(tmp_path: Path) -> None:
    flag = tmp_path / "once"
    script(tmp_path / ".cursor/hooks/stop.sh",
           f"cat > '{tmp_path}/stop.json'\n"
           f"if [ ! -e '{flag}' ]; then touch '{flag}'; echo '{{\"followup_message\": \"run the tests too\"}}'; fi\n")
    path = hooks_file(tmp_path, {"stop": [{"command": ".cursor/hooks/stop.sh"}]})
    trust("cursor", path)
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await register_import(adapter, import_files("cursor", [path]))
        agent = await host.create_agent(script=["first answer", "second answer"])
        await agent.run_turn("go")
        await host.settle()
        steered = [e.data["text"] for e in agent.session.of_type("user/message")]
    assert "run the tests too" in steered  # the followup, word for word, as Cursor submits it
    last = json.loads((tmp_path / "stop.json").read_text())
    assert last["hook_event_name"] == "stop" and last["loop_count"] == 1 and last["status"] == "completed"


# ── the importer: Cursor's file shape, and the real corpus ─────────────────────────────────────

def test_one_unknown_event_makes_the_whole_file_load_nothing(tmp_path: Path) -> None:
    path = hooks_file(tmp_path, {"preToolUse": [{"command": "true"}], "beforeEverything": [{"command": "true"}],
                                 "stop": [{"command": "true"}]})
    trust("cursor", path)
    result = import_files("cursor", [path])
    assert result.hooks == ()
    codes = sorted((r.code, r.origin.rsplit(":", 1)[1]) for r in result.refused)
    assert codes == [("SKIPPED_BY_VENDOR", "hooks.preToolUse[0]"), ("SKIPPED_BY_VENDOR", "hooks.stop[0]"),
                     ("UNKNOWN_EVENT", "hooks.beforeEverything")]
    skipped = [r for r in result.refused if r.code == "SKIPPED_BY_VENDOR"]
    assert all("'beforeEverything'" in r.reason and "none of this file's hooks load" in r.reason for r in skipped)


async def test_a_discarded_file_runs_nothing_here_either(tmp_path: Path) -> None:
    script(tmp_path / ".cursor/hooks/deny.sh", "exit 2\n")
    path = hooks_file(tmp_path, {"preToolUse": [{"command": ".cursor/hooks/deny.sh"}],
                                 "PreToolUse": [{"command": ".cursor/hooks/deny.sh"}]})
    graded, results = await run_calls(tmp_path, [path], [call("bash", command="touch marker")])
    # Cursor would load nothing of this file (PreToolUse is a Claude name), so the deny never runs.
    imported = import_files("cursor", [path])
    assert imported.hooks == () and {r.code for r in imported.refused} == {"SKIPPED_BY_VENDOR", "UNKNOWN_EVENT"}
    assert all(g.capability is Capability.UNSUPPORTED for g in graded)
    assert (tmp_path / "marker").exists() and results[0]["isError"] is False


def test_cursor_file_shapes_refused_as_cursor_refuses_them(tmp_path: Path) -> None:
    path = hooks_file(tmp_path, {
        "preToolUse": [{"matcher": "Shell", "hooks": [{"type": "command", "command": "true"}]},  # nested group
                       {"type": "prompt", "prompt": "Is this safe?"},
                       {"command": "true", "matcher": "("}],
        "beforeMCPExecution": [{"command": "true"}],
        "afterTabFileEdit": [{"command": "true"}],
        "stop": [{"command": "true", "loop_limit": 10}],
    })
    trust("cursor", path)
    result = import_files("cursor", [path])
    codes = {r.origin.rsplit(":", 1)[1]: r.code for r in result.refused}
    assert codes == {"hooks.preToolUse[0]": "SKIPPED_BY_VENDOR", "hooks.preToolUse[1]": "INVALID_HANDLER",
                     "hooks.preToolUse[2]": "INVALID_MATCHER", "hooks.beforeMCPExecution[0]": "UNSERVED_EVENT",
                     "hooks.afterTabFileEdit[0]": "UNSERVED_EVENT"}
    (stop,) = result.hooks
    assert stop.declared.handler is not None and stop.declared.handler.ignored == ("loop_limit",)


def test_a_version_other_than_1_loads_nothing(tmp_path: Path) -> None:
    path = tmp_path / ".cursor/hooks.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"version": 2, "hooks": {"stop": [{"command": "true"}]}}))
    trust("cursor", path)
    result = import_files("cursor", [path])
    assert result.hooks == () and [r.code for r in result.refused] == ["SKIPPED_BY_VENDOR"]


def test_the_real_corpus_grades_whole_as_documented() -> None:
    files = sorted((CORPUS / "cursor").glob("*.json"))
    assert len(files) == 6
    done = subprocess.run([*CLI, "grade", "--json", "--trust-all", "--vendor", "cursor", *map(str, files)],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    every = [r for r in json.loads(done.stdout)["rows"] if r["event"] != "rules"]
    # planning-with-files names an event Cursor does not have (userPromptSubmit): Cursor drops that
    # whole file, so each of its 4 entries is one UNSUPPORTED row, and the other files grade whole.
    dropped = [r for r in every if Path(r["origin"]).name.startswith("planning-with-files.json")]
    assert len(dropped) == 4 and {r["capability"] for r in dropped} == {"UNSUPPORTED"}
    rows = [r for r in every if r not in dropped]
    assert len(rows) == 12
    assert {(r["capability"], r["confidence"]) for r in rows} == {("ADAPTED", "documented")}
    by = {(Path(r["origin"]).name.split(":")[0], r["event"]) for r in rows}
    assert ("go-utils.json", "preToolUse") in by and ("vercel-ai.json", "afterFileEdit") in by
    # go-utils' guards are failClosed: a guard that cannot start denies, and preflight says so.
    go = [r for r in rows if Path(r["origin"]).name.startswith("go-utils.json")]
    findings = {f["kind"] for r in go for f in r["preflight"]}
    assert "fails-closed" in findings or shutil.which("go") is not None


def test_the_corpus_figure_reports_cursor() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "corpus_figure.py"), "--json"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    part = json.loads(done.stdout)["vendors"]["cursor"]
    # Seven files: six hook files (16 handlers) and stoobly-agent's .cursor/cli.json (its 3 deny rules).
    assert (part["files"], part["handlers"], part["failed_files"]) == (7, 19, [])
    # The 4 not adapted are planning-with-files', a file Cursor drops whole (an event it lacks).
    assert part["adapted"] == 15, part["not_adapted"]
    assert {n["origin"].split(":")[0] for n in part["not_adapted"]} == {"cursor/planning-with-files.json"}


# ── Claude-compatibility mode ──────────────────────────────────────────────────────────────────

CLAUDE_SETTINGS = {"hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": ".claude/hooks/deny.sh", "if": "Bash(touch *)", "timeout": 5}]}],
    "Notification": [{"hooks": [{"type": "command", "command": "true"}]}],
    "PostToolUseFailure": [{"hooks": [{"type": "command", "command": "true"}]}],
    "Stop": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:9/stop"}]}],
}}


def claude_project(root: Path) -> Path:
    script(root / ".claude/hooks/deny.sh",
           "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"deny\", "
           "\"permissionDecisionReason\": \"not in this repo\"}}'\n")
    path = root / ".claude/settings.json"
    path.write_text(json.dumps(CLAUDE_SETTINGS))
    return path


def test_claude_files_grade_as_cursor_runs_them_only_when_named_for_cursor(tmp_path: Path) -> None:
    path = claude_project(tmp_path)
    named = subprocess.run([*CLI, "grade", "--json", "--trust-all", "--vendor", "cursor", str(path)],
                           capture_output=True, text=True, cwd=tmp_path)
    assert named.returncode == 0, named.stderr
    rows = {(r["event"], r.get("code")): r for r in json.loads(named.stdout)["rows"]}
    pre = rows[("PreToolUse", None)]
    assert (pre["vendor"], pre["capability"], pre["confidence"]) == ("cursor", "ADAPTED", "documented")
    # Cursor runs the command whatever Claude's `if` says: the field is listed, never honoured.
    assert any(loss.startswith("field-ignored: `if`") for loss in pre["losses"])
    assert any("Bash as Shell" in loss for loss in pre["losses"])
    refused = {r["origin"].rsplit(":", 1)[1]: (r["code"], r["reason"]) for r in rows.values() if r.get("code")}
    assert refused["hooks.Notification[0].hooks[0]"][0] == "SKIPPED_BY_VENDOR"
    assert "not supported" in refused["hooks.Notification[0].hooks[0]"][1]
    assert refused["hooks.PostToolUseFailure[0].hooks[0]"][0] == "SKIPPED_BY_VENDOR"
    assert "no Cursor mapping" in refused["hooks.PostToolUseFailure[0].hooks[0]"][1]
    assert refused["hooks.Stop[0].hooks[0]"][0] == "SKIPPED_BY_VENDOR"
    # Never by default: discovery reads the same file as Claude's only.
    found = subprocess.run([*CLI, "grade", "--json", "--trust-all", str(tmp_path)],
                           capture_output=True, text=True, cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    assert {r["vendor"] for r in json.loads(found.stdout)["rows"]} == {"claude"}


async def test_a_claude_hook_under_cursor_denies_a_real_command(tmp_path: Path) -> None:
    path = claude_project(tmp_path)
    graded, results = await run_calls(tmp_path, [path], [call("bash", command="touch marker")])
    assert [(g.event, g.capability) for g in graded if g.capability is Capability.ADAPTED] == [
        ("PreToolUse", Capability.ADAPTED)]
    assert not (tmp_path / "marker").exists() and results[0]["isError"] is True
    # permissionDecisionReason is Cursor's user_message: the model is not told why (a listed loss).
    assert "not in this repo" not in results[0]["text"]


# ── the matrix ───────────────────────────────────────────────────────────────────────────────────

def test_the_matrix_lists_every_documented_cursor_event() -> None:
    data = json.loads(to_json(build_matrix(vendor="cursor")))
    rows = {h["event"] for h in data["hooks"]} | {h["event"] for h in data["unserved"]}
    documented = {"sessionStart", "sessionEnd", "preToolUse", "postToolUse", "postToolUseFailure",
                  "subagentStart", "subagentStop", "beforeShellExecution", "afterShellExecution",
                  "beforeMCPExecution", "afterMCPExecution", "beforeReadFile", "afterFileEdit",
                  "beforeSubmitPrompt", "preCompact", "stop", "afterAgentResponse", "afterAgentThought",
                  "beforeTabFileRead", "afterTabFileEdit"}
    assert documented <= rows
    assert {h["confidence"] for h in data["hooks"] + data["unserved"]} == {"documented"}
    assert {h["event"]: h["capability"] for h in data["unserved"]} == dict.fromkeys(
        ("beforeMCPExecution", "afterMCPExecution", "afterAgentThought", "beforeTabFileRead", "afterTabFileEdit"),
        "UNSUPPORTED")
    assert data["counts"][0]["confidence"] == "documented"
    others = json.loads(to_json(build_matrix(vendor="claude")))
    assert {h["confidence"] for h in others["hooks"]} == {"measured"}
