"""Kimi Code's unit: its config.toml ``[[hooks]]`` read as Kimi 2.1.0 reads them, and its narrow
reading of a hook's answer (its release's runHook.ts; the vendor lane measured the rest)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compat_adapter.catalog import unit_of
from compat_adapter.importers import import_files
from compat_adapter.runtime.process import ProcessOutcome


def outcome(code: int | None, stdout: str = "", stderr: str = "") -> ProcessOutcome:
    return ProcessOutcome(exit_code=code, stdout=stdout, stderr=stderr, timed_out=code is None, truncated=False,
                          cause=None if code is not None else "timed out", duration_ms=1.0)


def test_its_hooks_tables_import_one_row_per_entry_and_refuse_bad_ones(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('default_model = "x"\n'
                      '[[hooks]]\nevent = "PreToolUse"\nmatcher = "Bash"\ncommand = "./guard.sh"\ntimeout = 5\n'
                      '[[hooks]]\nevent = "Stop"\ncommand = "notify"\n'
                      '[[hooks]]\nevent = "Interrupt"\ncommand = "x"\n'
                      '[[hooks]]\nevent = "NoSuchEvent"\ncommand = "x"\n'
                      '[[hooks]]\nevent = "PreToolUse"\n')
    result = import_files("kimi", [config], trust_all=True)
    assert [(h.event, h.matcher) for h in result.hooks] == [("PreToolUse", "Bash"), ("Stop", None)]
    assert result.hooks[0].handler["timeout"] == 5.0  # type: ignore[index]  # a mapping: a command handler
    assert [r.code for r in result.refused] == ["UNSERVED_EVENT", "UNKNOWN_EVENT", "INVALID_HANDLER"]
    # Kimi's hooks live in the user's config only: a project holds no Kimi hook file.
    assert unit_of("kimi").importer.project_files(tmp_path) == []


@pytest.mark.parametrize(("event", "given", "decision", "reason"), [
    ("PreToolUse", outcome(2, stderr=" no \n"), "deny", "no"),
    ("PreToolUse", outcome(2), "deny", "Blocked by PreToolUse hook"),
    ("PreToolUse", outcome(0, '{"hookSpecificOutput": {"permissionDecision": "deny", '
                              '"permissionDecisionReason": "why"}}'), "deny", "why"),
    ("PreToolUse", outcome(1, '{"hookSpecificOutput": {"permissionDecision": "deny"}}'), "none", None),  # exit 1
    ("PreToolUse", outcome(0, '{"decision": "block", "reason": "x"}'), "none", None),  # Claude's top level
    ("PreToolUse", outcome(None), "none", None),  # a timeout fails open
    ("Stop", outcome(2, stderr="go on"), "block", "go on"),
    ("PostToolUse", outcome(2, stderr="late"), "none", None),  # only PreToolUse and Stop read a block
])
def test_only_exit_2_and_a_deny_block_and_only_where_kimi_reads_it(event: str, given: ProcessOutcome,
                                                                   decision: str, reason: str | None) -> None:
    answer = unit_of("kimi").dialect.decode(event, given)
    assert (answer.decision, answer.reason) == (decision, reason)


def test_a_prompt_hooks_stdout_is_a_hook_result_and_nothing_else_is_context() -> None:
    dialect, voice = unit_of("kimi").dialect, unit_of("kimi").voice
    said = dialect.decode("UserPromptSubmit", outcome(0, '{"hookSpecificOutput": {"additionalContext": "c"}}\n'))
    assert said.additional_context == ('{"hookSpecificOutput": {"additionalContext": "c"}}',)
    wrapped = '<hook_result hook_event="UserPromptSubmit">\nc\n</hook_result>'
    assert voice.context("UserPromptSubmit", None, "c") == wrapped
    assert dialect.decode("SessionStart", outcome(0, "plain")).additional_context == ()
    assert not dialect.matches("PreToolUse", "[", "Bash") and dialect.matches("PreToolUse", "^Ba", "Bash")


def test_its_rows_read_of_an_answer_what_kimi_reads() -> None:
    """Kimi drops the answers of SessionStart and SubagentStart (``trigger``) and of PostToolUse,
    PostToolUseFailure and PermissionRequest (``fireAndForget``): observe rows, with none of Claude's
    answer losses left; a prompt hook's stdout is context and never a block."""
    spec = unit_of("kimi").spec
    rows = {row.event: row for row in spec.events}
    for event in ("SessionStart", "SubagentStart", "PostToolUse", "PostToolUseFailure", "PermissionRequest"):
        row = rows[event]
        assert row.blocking == "observe" and not row.role_losses, event
        assert not {d.code.value for d in row.degradations} & {"message-provenance", "decision-narrowed",
                                                                "output-rewrite-ignored", "scope-differs"}, event
    assert rows["UserPromptSubmit"].blocking == "context"
    assert (rows["PreToolUse"].blocking, rows["Stop"].blocking) == ("verdict", "continue")


def test_its_stop_failure_payload_names_the_error_and_its_live_block_is_a_deny() -> None:
    from compat_adapter.dialects.base import Moment
    from compat_adapter.testing.live.speakers import speaker_for

    dialect = unit_of("kimi").dialect
    sent = dialect.payload(Moment(event="StopFailure", session_id="s", cwd="/p", fields={"error": "overloaded"}))
    assert sent["error_message"] == "overloaded" and "error_type" in sent
    block = json.dumps(speaker_for("kimi").block("Stop", "again"))
    assert dialect.decode("Stop", outcome(0, block)).decision == "block"
    prompt = dialect.decode("UserPromptSubmit", outcome(0, block))
    assert prompt.decision == "none" and prompt.additional_context == (block,)


async def test_after_a_stop_block_kimi_runs_no_stop_hook_again_in_that_turn(tmp_path: Path) -> None:
    # Kimi 2.1.0's runStop returns at once while a Stop continuation of the turn was used (lane case
    # kimi:stop_block_exit2): a hook that always blocks runs once and continues the turn once.
    from compat_adapter.host.embedded.memory import MemoryHost
    from compat_adapter.service import CompatAdapter

    log = tmp_path / "stop.log"
    script = tmp_path / "stop.sh"
    script.write_text(f"#!/bin/sh\ncat > /dev/null\necho fired >> {log}\necho 'once more' >&2\nexit 2\n")
    script.chmod(0o755)
    async with MemoryHost(tmp_path, max_steps_per_turn=20) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("kimi", "Stop", None, str(script))
        agent = await host.create_agent(script=[f"answer {i}" for i in range(20)])
        result = await agent.run_turn("never stop")
        assert result.reason == "completed" and result.steps == 2
        assert log.read_text().splitlines() == ["fired"]
        await agent.run_turn("again")  # a new turn runs the Stop hooks again
    assert log.read_text().splitlines() == ["fired", "fired"]
