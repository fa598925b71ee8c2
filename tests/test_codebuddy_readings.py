"""CodeBuddy Code 2.163.0's own readings where it parts from Claude's (issue 34, vendor lane cases
workbuddy:prompt_json_unknown, prompt_json_known, session_json_unknown, prompt_context_mixed,
session_end and stop_block_always): what the dialect reads, what the embedded host does with it,
and the losses the row lists where the host cannot do what CodeBuddy does."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import write_script

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.catalog import resolve_vendor
from compat_adapter.dialects import dialect_for
from compat_adapter.host.script import Reply, call
from compat_adapter.model import DegradationCode
from compat_adapter.runtime.process import ProcessOutcome

WORKBUDDY = dialect_for("workbuddy")


def ran(stdout: str, code: int = 0) -> ProcessOutcome:
    return ProcessOutcome(exit_code=code, stdout=stdout, stderr="", timed_out=False, truncated=False, cause=None,
                          duration_ms=1.0, signal=None)


def js(value: object) -> str:
    return json.dumps(value)


def losses(event: str, code: DegradationCode) -> list[str]:
    spec = resolve_vendor("workbuddy")
    row = spec.row(event)
    assert row is not None
    return [d.text for d in spec.losses_for(row) if d.code is code]


def test_json_without_a_context_is_context_as_printed_on_prompt_and_session_start() -> None:
    for event in ("UserPromptSubmit", "SessionStart"):
        unknown = WORKBUDDY.decode(event, ran(js({"rule": "always run the tests"}) + "\n"))
        assert unknown.additional_context == ('{"rule": "always run the tests"}',), event
        # A field CodeBuddy knows does not change it: only a context or suppressOutput: true does.
        known = WORKBUDDY.decode(event, ran(js({"rule": "r", "suppressOutput": False})))
        assert known.additional_context == ('{"rule": "r", "suppressOutput": false}',), event
        quiet = WORKBUDDY.decode(event, ran(js({"rule": "r", "suppressOutput": True})))
        assert quiet.additional_context == (), event
        given = WORKBUDDY.decode(event, ran(js({"rule": "r", "hookSpecificOutput": {
            "hookEventName": event, "additionalContext": "the context"}})))
        assert given.additional_context == ("the context",), event
    # Elsewhere (and in Claude) a JSON object is read for its fields, never shown as text.
    assert WORKBUDDY.decode("PostToolUse", ran(js({"rule": "r"}))).additional_context == ()
    assert dialect_for("claude").decode("UserPromptSubmit", ran(js({"rule": "r"}))).additional_context == ()
    # A blocked prompt carries no context.
    blocked = WORKBUDDY.decode("UserPromptSubmit", ran(js({"decision": "block", "reason": "no"})))
    assert blocked.decision == "block" and blocked.additional_context == ()


def test_a_json_context_of_any_hook_drops_the_printed_stdout_of_the_others() -> None:
    printed = WORKBUDDY.decode("UserPromptSubmit", ran("plain words"))
    nested = WORKBUDDY.decode("UserPromptSubmit", ran(js({"hookSpecificOutput": {
        "hookEventName": "UserPromptSubmit", "additionalContext": "json words"}})))
    merged = WORKBUDDY.merge("UserPromptSubmit", [printed, nested])
    assert merged.additional_context == ("json words",)
    # Printed stdouts are one text, joined by a newline; of two additionalContexts the last wins.
    both_plain = WORKBUDDY.merge("UserPromptSubmit", [printed, WORKBUDDY.decode("UserPromptSubmit", ran(js({"a": 1})))])
    assert both_plain.additional_context == both_plain.printed == ('plain words\n{"a": 1}',)
    other = WORKBUDDY.decode("UserPromptSubmit", ran(js({"hookSpecificOutput": {
        "hookEventName": "UserPromptSubmit", "additionalContext": "last words"}})))
    assert WORKBUDDY.merge("UserPromptSubmit", [nested, printed, other]).additional_context == ("last words",)


async def test_the_standing_rule_reaches_the_model_in_the_prompt(tmp_path: Path) -> None:
    rule = js({"rule": "STANDING-RULE never push to main"})
    command = str(write_script(tmp_path / "rule.sh", f"cat >/dev/null\nprintf '%s\\n' '{rule}'\n"))
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("workbuddy", "UserPromptSubmit", None, command)
        agent = await host.create_agent(script=["done"])
        await agent.run_turn("go")
    prompts = [dict(e.data)["text"] for e in agent.session.of_type("user/message")]
    assert prompts == [f'<system-reminder data-role="hook">{rule}</system-reminder>\n\ngo']


async def test_session_end_runs_on_dispose_and_the_row_says_codebuddy_never_fires_it(tmp_path: Path) -> None:
    log = tmp_path / "ended.log"
    command = str(write_script(tmp_path / "end.sh", f"cat > {log}\n"))
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("workbuddy", "SessionEnd", None, command)
        agent = await host.create_agent(script=["done"])
        await agent.run_turn("go")
        assert not log.exists()
        await agent.dispose()
        await host.settle()
    assert json.loads(log.read_text())["hook_event_name"] == "SessionEnd"
    # The row names where CodeBuddy does fire it (/clear, /exit, a stop signal; read in 2.163.0's binary)
    # and that a finished -p run exits without it (lane case workbuddy:session_end).
    [row] = [t for t in losses("SessionEnd", DegradationCode.TIMING_DIFFERS) if "CodeBuddy fires SessionEnd" in t]
    assert "a -p run that finishes exits without it" in row and "/clear" in row and "/exit" in row


async def test_a_stop_hook_that_always_blocks_ends_at_the_host_step_bound_and_that_is_listed(tmp_path: Path) -> None:
    log = tmp_path / "stops.log"
    block = js({"decision": "block", "reason": "again"})
    command = str(write_script(tmp_path / "stop.sh", f"cat >/dev/null\necho x >> {log}\nprintf '%s\\n' '{block}'\n"))
    async with MemoryHost(tmp_path, max_steps_per_turn=5) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("workbuddy", "Stop", None, command)
        agent = await host.create_agent(script=[f"answer {i}" for i in range(10)])
        result = await agent.run_turn("never stop")
    # CodeBuddy loops until it is killed; here the turn ends at the bound, each step's Stop blocked.
    assert result.steps == 5 and result.reason != "completed"
    assert len(log.read_text().splitlines()) == 5
    assert any("no cap" in t for t in losses("Stop", DegradationCode.DECISION_NARROWED))
    assert any("always blocks" in t for t in losses("Stop", DegradationCode.TIMING_DIFFERS))


async def test_a_halt_on_session_start_is_shown_as_printed(tmp_path: Path) -> None:
    """CodeBuddy runs on after a SessionStart continue:false and shows its JSON as the context
    (lane case workbuddy:session_halt: the model read it in a data-role="hook" reminder)."""
    halt = js({"continue": False, "stopReason": "HALT-TEXT"})
    command = str(write_script(tmp_path / "halt.sh", f"cat >/dev/null\nprintf '%s\\n' '{halt}'\n"))
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("workbuddy", "SessionStart", None, command)
        agent = await host.create_agent(script=["done"])
        assert (await agent.run_turn("go")).reason == "completed"
    prompts = [dict(e.data)["text"] for e in agent.session.of_type("user/message")]
    assert prompts == [f'<system-reminder data-role="hook">{halt}</system-reminder>\n\ngo']


def _pre_hook(tmp_path: Path, answers: list[dict[str, object]]) -> tuple[str, Path]:
    """A PreToolUse hook that logs each firing and gives the next of ``answers`` (the last one after)."""
    log = tmp_path / "pre.log"
    cases = "".join(f"  {i}) printf '%s\\n' '{js(a)}' ;;\n" for i, a in enumerate(answers[:-1]))
    body = (f"cat >/dev/null\necho x >> {log}\nn=$(($(wc -l < {log}) - 1))\ncase $n in\n{cases}"
            f"  *) printf '%s\\n' '{js(answers[-1])}' ;;\nesac\n")
    return str(write_script(tmp_path / "pre.sh", body)), log


def _decision(kind: str, reason: str) -> dict[str, object]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": kind,
                                   "permissionDecisionReason": reason}}


async def test_an_asked_call_runs_its_pre_tool_hooks_again_as_it_executes(tmp_path: Path) -> None:
    """CodeBuddy 2.163.0 runs PreToolUse again when a call its hooks asked about executes (lane case
    workbuddy:ask: they fired twice, and with nobody to ask -p ran the call)."""
    command, log = _pre_hook(tmp_path, [_decision("ask", "ASK-WHY")])
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("workbuddy", "PreToolUse", "Bash", command)
        agent = await host.create_agent(script=[Reply(None, (call("bash", command="touch ran.txt"),)), "done"])
        await agent.run_turn("go")
    assert len(log.read_text().splitlines()) == 2 and (tmp_path / "ran.txt").exists()


async def test_a_deny_on_the_second_run_blocks_the_asked_call(tmp_path: Path) -> None:
    post = tmp_path / "post.log"
    command, log = _pre_hook(tmp_path, [_decision("ask", "ASK-WHY"), _decision("deny", "NOT-NOW")])
    observer = str(write_script(tmp_path / "post.sh", f"cat >/dev/null\necho x >> {post}\n"))
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("workbuddy", "PreToolUse", "Bash", command)
        await adapter.register_hook("workbuddy", "PostToolUse", "Bash", observer)
        agent = await host.create_agent(script=[Reply(None, (call("bash", command="touch ran.txt"),)), "done"])
        await agent.run_turn("go")
    assert len(log.read_text().splitlines()) == 2 and not (tmp_path / "ran.txt").exists()
    assert [dict(e.data)["text"] for e in agent.session.of_type("tool/result")] == ["Error: NOT-NOW"]
    assert not post.exists()  # a denied call fires no PostToolUse, as a first-run deny
