"""Cline's unit: its hook files found and run as cline 3.0.65 finds and runs them, and its reading of
a hook's answer (the file-hook runner of @cline/core 0.0.86 in the release; the vendor lane measured
the rest)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compat_adapter.catalog import unit_of
from compat_adapter.dialects.base import Moment
from compat_adapter.importers import import_files
from compat_adapter.runtime.process import ProcessOutcome


def outcome(stdout: str = "", code: int | None = 0, *, cause: str | None = None, stderr: str = "") -> ProcessOutcome:
    return ProcessOutcome(exit_code=code, stdout=stdout, stderr=stderr, timed_out=cause == "timeout", truncated=False,
                          cause=cause, duration_ms=1.0)


def control(**answer: object) -> str:
    return "some log line\nHOOK_CONTROL\t" + json.dumps(answer) + "\n"


def test_hook_files_are_found_by_name_and_run_as_cline_runs_them(tmp_path: Path) -> None:
    hooks = tmp_path / ".clinerules" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "PreToolUse").write_text("#!/usr/bin/env python3\nprint('x')\n")
    (hooks / "posttooluse.sh").write_text("echo hi\n")  # any case; no execute bit needed
    (hooks / "TaskComplete.ts").write_text("console.log(1)\n")
    (hooks / "PreToolUse.txt").write_text("not a hook\n")  # an extension Cline does not run
    (hooks / "README.md").write_text("notes\n")
    (tmp_path / ".cline" / "hooks").mkdir(parents=True)
    (tmp_path / ".cline" / "hooks" / "PreCompact").write_text("true\n")
    (tmp_path / "AGENTS.md").write_text("rules\n")
    importer = unit_of("cline").importer
    found = importer.project_files(tmp_path)
    assert [p.relative_to(tmp_path).as_posix() for p in found] == [
        ".cline/hooks/PreCompact", ".clinerules/hooks/PreToolUse", ".clinerules/hooks/TaskComplete.ts",
        ".clinerules/hooks/posttooluse.sh", "AGENTS.md"]
    result = import_files("cline", found, trust_all=True)
    commands = {h.event: h.handler["command"] for h in result.hooks}  # type: ignore[index]
    assert commands == {"PreToolUse": f"python3 {hooks.resolve()}/PreToolUse",
                        "PostToolUse": f"bash {hooks.resolve()}/posttooluse.sh",
                        "TaskComplete": f"bun run {hooks.resolve()}/TaskComplete.ts"}
    # PreCompact is a file Cline finds but runs for no event.
    assert [(r.event, r.code) for r in result.refused] == [("PreCompact", "UNSERVED_EVENT")]
    assert "never runs" in result.refused[0].reason
    named = import_files("cline", [hooks / "PreToolUse.txt"], trust_all=True)
    assert not named.hooks and [r.code for r in named.refused] == ["UNKNOWN_EVENT"]


@pytest.mark.parametrize(("stdout", "stop", "reason", "context"), [
    (control(cancel=True, errorMessage="no"), True, "no", ()),
    (control(cancel=True, contextModification="ctx"), True, "ctx", ()),  # the context is the reason then
    (control(contextModification="c"), False, None, ("c",)),
    (control(context="a", contextModification="b"), False, None, ("a",)),
    (control(errorMessage="e"), False, None, ("e",)),  # a lone errorMessage is context
    (control(cancel="true", errorMessage="e"), False, None, ("e",)),  # not a boolean: no cancel
    (control(cancel=False) + "HOOK_CONTROL\t" + json.dumps({"cancel": True}) + "\n", True, None, ()),  # the last
    (json.dumps({"cancel": True, "errorMessage": "plain"}), True, "plain", ()),  # no control line: all of stdout
    ("HOOK_CONTROL\tnot json", False, None, ()),
    (json.dumps({"decision": "block"}), False, None, ()),  # no field Cline reads
    (json.dumps([{"cancel": True}]), False, None, ()),
])
def test_the_last_control_line_is_the_answer(stdout: str, stop: bool, reason: str | None,
                                             context: tuple[str, ...]) -> None:
    answer = unit_of("cline").dialect.decode("PreToolUse", outcome(stdout))
    assert (answer.stop, answer.stop_reason, answer.additional_context) == (stop, reason, context)
    assert answer.decision == "none"


def test_the_exit_code_and_stderr_are_never_read_but_a_timeout_drops_the_answer() -> None:
    dialect = unit_of("cline").dialect
    cancel = control(cancel=True, errorMessage="r")
    assert dialect.decode("PreToolUse", outcome(cancel, 2, stderr="x")).stop
    assert dialect.decode("PostToolUse", outcome(cancel, 1)).stop
    assert dialect.decode("PreToolUse", outcome(cancel, None, cause="signal")).stop  # killed after answering
    assert not dialect.decode("PreToolUse", outcome("", 2, stderr="blocked")).stop
    timed_out = dialect.decode("PreToolUse", outcome(cancel, None, cause="timeout"))
    assert not timed_out.stop and timed_out.failed
    # Started detached: nothing of TaskStart's or TaskComplete's answer is read.
    for event in ("TaskStart", "TaskComplete", "UserPromptSubmit"):
        assert not dialect.decode(event, outcome(cancel)).stop


def test_answers_of_one_event_fold_as_clines_do() -> None:
    dialect = unit_of("cline").dialect
    answers = [dialect.decode("PreToolUse", outcome(control(contextModification=t))) for t in ("a", "b")]
    answers.append(dialect.decode("PreToolUse", outcome(control(overrideInput={"commands": ["x", "y"]}))))
    merged = dialect.merge("PreToolUse", answers)
    assert merged.additional_context == ("a\nb",) and not merged.stop
    assert merged.updated_input == {"commands": "x\ny"}  # the host's shell runs them as one script
    assert dialect.merge("PreToolUse", [*answers, dialect.decode("PreToolUse", outcome(control(cancel=True)))]).stop


def test_the_payload_is_clines_with_the_runtime_event_name() -> None:
    dialect = unit_of("cline").dialect
    moment = Moment("PreToolUse", "s-1", "/w/proj", turn=1,
                    fields={"tool_name": "bash", "tool_input": {"command": "ls"}, "tool_use_id": "c1"})
    payload = dialect.payload(moment)
    assert payload["hookName"] == "tool_call" and payload["taskId"] == "s-1"
    assert payload["workspaceRoots"] == ["/w/proj"]
    assert payload["tool_call"] == {"id": "c1", "name": "run_commands", "input": {"commands": ["ls"]}}
    assert payload["preToolUse"] == {"toolName": "run_commands", "parameters": {"commands": '["ls"]'}}
    done = dialect.payload(Moment("TaskComplete", "s-1", "/w/proj", fields={"last_assistant_message": "ok"}))
    assert done["hookName"] == "agent_end" and done["turn"] == {"outputText": "ok", "status": "completed"}


def test_context_is_a_hook_context_block_and_no_matcher_exists() -> None:
    unit = unit_of("cline")
    assert unit.voice.context("PostToolUse", "run_commands", " c <hook_context> ") == (
        '<hook_context source="PostToolUse" tool_name="run__commands">\nc <\\hook_context>\n</hook_context>')
    assert unit.dialect.validate_matcher("PreToolUse", "Bash") is not None
    assert [r.event for r in unit.spec.events if r.matcher_subject is not None] == []
    assert {r.event for r in unit.spec.events if r.blocking != "observe"} == {"PreToolUse", "PostToolUse"}


def test_clines_own_example_hook_adds_context_and_its_should_continue_is_not_read(tmp_path: Path) -> None:
    # The Cline repository's .clinerules/hooks/PreToolUse (tests/fixtures/real-configs/SOURCES.md),
    # imported from where Cline finds it and run as Cline runs it, on the payload this dialect sends.
    import shlex
    import shutil
    import subprocess

    hooks = tmp_path / ".clinerules" / "hooks"
    hooks.mkdir(parents=True)
    shutil.copyfile(Path(__file__).parent / "fixtures" / "real-configs" / "cline" / "PreToolUse", hooks / "PreToolUse")
    unit = unit_of("cline")
    [hook] = import_files("cline", unit.importer.project_files(tmp_path), trust_all=True).hooks
    command = hook.handler["command"]  # type: ignore[index]
    assert command == f"bash {hooks.resolve()}/PreToolUse"  # its shebang, through env
    payload = unit.dialect.payload(Moment("PreToolUse", "s-1", str(tmp_path), turn=1,
                                          fields={"tool_name": "bash", "tool_input": {"command": "ls"}}))
    done = subprocess.run(shlex.split(command), input=unit.dialect.encode(payload), capture_output=True,
                          cwd=tmp_path, timeout=30)
    answer = unit.dialect.decode("PreToolUse", outcome(done.stdout.decode(), done.returncode))
    assert answer.additional_context == ("Tool being executed: run_commands\nWorkspace context: This is an "
                                         "example hook demonstrating context injection.",)
    assert not answer.stop and answer.decision == "none"
