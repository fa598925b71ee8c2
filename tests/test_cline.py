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
from compat_adapter.routing.voice import Call
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


def test_a_prompt_hook_is_found_and_never_runs_as_under_cline(tmp_path: Path) -> None:
    # Cline 3.0.65's session runtime seeds the typed prompt as the run's initial messages and runs
    # with an empty input, so its prompt_submit hook (started on a user message the agent runtime
    # adds) never fires for a prompt (lane case cline:prompt_observe): no row serves it here.
    hooks = tmp_path / ".clinerules" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "UserPromptSubmit").write_text("#!/bin/bash\ntouch ran\n")
    result = import_files("cline", [hooks / "UserPromptSubmit"], trust_all=True)
    assert not result.hooks and [(r.event, r.code) for r in result.refused] == [("UserPromptSubmit", "UNSERVED_EVENT")]
    assert "never runs it for a prompt" in result.refused[0].reason
    assert unit_of("cline").spec.row("UserPromptSubmit") is None


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
    for event in ("TaskStart", "TaskComplete"):
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


def test_a_tool_hooks_context_names_the_tool_in_clines_words_and_the_hosts_call() -> None:
    # Cline's formatHookContextBlock (its agent runtime): tool_name and tool_call_id, each escaped
    # ("_" doubled first); the tool is Cline's name of the host's (its table), the id the call's.
    voice = unit_of("cline").voice
    texts = voice.contexts("PreToolUse", None, None, ["CTX <hook_context>", "TWO"],
                           call=Call("edit", 'call_7"<x>'))
    head = '<hook_context source="PreToolUse" tool_name="editor" tool_call_id="call__7_q__lt_x_gt_">'
    assert texts == (f"{head}\nCTX <\\hook_context>\n</hook_context>", f"{head}\nTWO\n</hook_context>")
    # Off a tool call (no host call known) the block names what it is told, as before.
    assert voice.contexts("PostToolUse", None, None, ["c"]) == ('<hook_context source="PostToolUse">\nc\n</hook_context>',)


async def test_a_context_block_names_the_models_call_id_on_the_embedded_host(tmp_path: Path) -> None:
    # A real Cline hook file on the embedded host: the call keeps the model's id (call_0001, as the
    # lane's scripted model names its first call), and the block names it as Cline 3.0.65 did in the
    # lane (cline:pre_context, cline:post_context: tool_call_id="call__0001").
    from conftest import write_script

    from compat_adapter import CompatAdapter, MemoryHost
    from compat_adapter.host.script import Reply, call

    answer = json.dumps({"contextModification": "LANE-CTX"})
    hook = write_script(tmp_path / "PostToolUse", f"cat >/dev/null\nprintf 'x\\nHOOK_CONTROL\\t%s\\n' '{answer}'\n")
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("cline", "PostToolUse", None, str(hook))
        agent = await host.create_agent(script=[Reply(calls=(call("bash", "call_0001", command="true"),)), "done"])
        await agent.run_turn("go")
    texts = [str(e.data["text"]) for e in agent.session.of_type("user/message")
             if e.data["source"]["kind"] == "compat-adapter-hook"]
    assert texts == ['<hook_context source="PostToolUse" tool_name="run__commands" tool_call_id="call__0001">\n'
                     "LANE-CTX\n</hook_context>"]


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
