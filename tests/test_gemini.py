"""Gemini CLI (0.61.0): its settings file as Gemini reads it, its dialect's readings that the lane
cannot show one by one, and the words the model reads.

Every expectation is Gemini CLI's own behaviour (its shipped hook runner, aggregator and planner; the
vendor lane's runs): the real CLI decides, the lane (``tests/test_vendor_lane.py``) checks the rest.
"""

from __future__ import annotations

import json
from pathlib import Path

from compat_adapter.dialects import dialect_for
from compat_adapter.dialects.base import HookAnswer, Moment
from compat_adapter.importers import import_files
from compat_adapter.runtime.process import ProcessOutcome
from vendors.gemini.voice import hook_context

GEMINI = dialect_for("gemini")


def _settings(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def _command(command: str, **fields: object) -> dict:
    return {"type": "command", "command": command, **fields}


def _outcome(stdout: str = "", stderr: str = "", code: int | None = 0, cause: str | None = None) -> ProcessOutcome:
    return ProcessOutcome(exit_code=code, stdout=stdout, stderr=stderr, timed_out=cause == "timeout",
                          truncated=False, cause=cause, duration_ms=1.0, signal=9 if cause == "signal" else None)


# ── the settings file ───────────────────────────────────────────────────────────────────────────

def test_timeouts_are_milliseconds_and_become_seconds(tmp_path: Path) -> None:
    path = _settings(tmp_path, {"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [
        _command("true", name="guard", timeout=5000)]}]}})
    result = import_files("gemini", [path], trust_all=True)
    [hook] = result.hooks
    assert hook.declared.handler is not None and hook.declared.handler.timeout_s == 5.0
    bad = _settings(tmp_path, {"hooks": {"BeforeTool": [{"hooks": [_command("true", timeout="5s")]}]}})
    [refused] = import_files("gemini", [bad], trust_all=True).refused
    assert refused.code == "INVALID_ENTRY" and "milliseconds" in refused.reason


def test_what_gemini_discards_is_refused_where_it_stands(tmp_path: Path) -> None:
    path = _settings(tmp_path, {"hooks": {
        "enabled": True, "disabled": [], "notifications": True,  # settings, not events
        "SessionStart": [_command("echo flat")],  # a handler with no group: Gemini discards it
        "BeforeTool": [{"hooks": [{"command": "echo untyped"}, _command("echo off", name="off"),
                                  _command("echo on")]}],
        "AfterModel": [{"hooks": [_command("echo model")]}],
        "Stop": [{"hooks": [_command("echo claude")]}],
    }, "hooksConfig": {"disabled": ["off"]}})
    result = import_files("gemini", [path], trust_all=True)
    assert [h.handler["command"] for h in result.hooks] == ["echo on"]
    codes = sorted((r.code, r.origin.rsplit(":", 1)[-1]) for r in result.refused)
    assert codes == [("INVALID_ENTRY", "hooks.SessionStart[0]"),
                     ("SKIPPED_BY_VENDOR", "hooks.BeforeTool[0].hooks[0]"),
                     ("SKIPPED_BY_VENDOR", "hooks.BeforeTool[0].hooks[1]"),
                     ("UNKNOWN_EVENT", "hooks.Stop[0].hooks[0]"),
                     ("UNSERVED_EVENT", "hooks.AfterModel[0].hooks[0]")]
    model = next(r for r in result.refused if r.code == "UNSERVED_EVENT")
    assert "no seam around a model request" in model.reason


def test_hooks_config_enabled_false_switches_every_hook_off(tmp_path: Path) -> None:
    path = _settings(tmp_path, {"hooksConfig": {"enabled": False},
                                "hooks": {"BeforeTool": [{"hooks": [_command("true")]}]}})
    result = import_files("gemini", [path], trust_all=True)
    assert not result.hooks
    [off] = result.refused
    assert off.code == "SKIPPED_BY_VENDOR" and off.reason.endswith("settings.json:hooksConfig.enabled")
    on = _settings(tmp_path, {"hooksConfig": {"enabled": True},
                              "hooks": {"BeforeTool": [{"hooks": [_command("true")]}]}})
    assert len(import_files("gemini", [on], trust_all=True).hooks) == 1


def test_context_file_names_come_from_the_settings(tmp_path: Path) -> None:
    from vendors.gemini.importer import project_files

    (tmp_path / "GEMINI.md").write_text("gemini rules\n")
    (tmp_path / "AGENTS.md").write_text("shared rules\n")
    _settings(tmp_path, {"context": {"fileName": ["AGENTS.md", "../outside.md", "/etc/passwd"]}})
    assert [p.name for p in project_files(tmp_path)] == ["settings.json", "AGENTS.md"]
    _settings(tmp_path, {})
    assert [p.name for p in project_files(tmp_path)] == ["settings.json", "GEMINI.md"]


# ── the dialect ─────────────────────────────────────────────────────────────────────────────────

def test_the_payload_is_gemini_s_own() -> None:
    moment = Moment(event="AfterTool", session_id="s1", cwd="/w", fields={
        "tool_name": "bash", "tool_input": {"command": "ls"}, "tool_response": "a\nb\n", "stdout": "a\nb\n",
        "is_error": False, "tool_use_id": "call-1", "timestamp": 1_764_583_200.5})
    payload = GEMINI.payload(moment)
    assert payload == {"session_id": "s1", "transcript_path": "", "cwd": "/w", "hook_event_name": "AfterTool",
                       "timestamp": "2025-12-01T10:00:00.500Z", "tool_name": "run_shell_command",
                       "tool_input": {"command": "ls"},
                       "tool_response": {"llmContent": "a\nb\n", "returnDisplay": "a\nb"}}
    assert not GEMINI.encode(payload).endswith(b"\n")  # JSON.stringify, no newline
    write = GEMINI.payload(Moment(event="BeforeTool", session_id="s", cwd="/w",
                                  fields={"tool_name": "edit", "tool_input": {"path": "a.py", "old": "x", "new": "y"}}))
    assert (write["tool_name"], write["tool_input"]) == ("replace", {"file_path": "a.py", "old_string": "x",
                                                                     "new_string": "y"})
    stop = GEMINI.payload(Moment(event="AfterAgent", session_id="s", cwd="/w", fields={"stop_hook_active": True}))
    assert stop["prompt_response"] == "[no response text]" and stop["stop_hook_active"] is True


def test_matchers_regex_on_tools_exact_on_lifecycle_events() -> None:
    assert GEMINI.matches("BeforeTool", "write_.*|replace", "replace")
    assert GEMINI.matches("BeforeTool", "file", "write_file")  # unanchored
    assert not GEMINI.matches("BeforeTool", "write_.*", "run_shell_command")
    # A pattern RegExp rejects is an exact name; never a configuration error.
    assert GEMINI.validate_matcher("BeforeTool", "run(") is None
    assert GEMINI.matches("BeforeTool", "run(", "run(") and not GEMINI.matches("BeforeTool", "run(", "run")
    assert GEMINI.matches("SessionStart", " startup ", "startup")  # trimmed
    assert not GEMINI.matches("SessionStart", "start.*", "startup")  # exact, not a pattern
    assert GEMINI.matches("BeforeAgent", "anything", None)  # no matcher on this event


def test_exit_codes_as_the_hook_runner_reads_them() -> None:
    deny = GEMINI.decode("BeforeTool", _outcome(stderr="nope\n", code=2))
    assert (deny.decision, deny.reason) == ("deny", "nope")
    assert GEMINI.decode("BeforeTool", _outcome(stderr="crash\n", code=127)).decision == "deny"
    warning = GEMINI.decode("BeforeTool", _outcome(stderr="lint missing\n", code=1))
    assert warning.decision == "none" and warning.system_message == "Warning: lint missing"
    # Nothing printed: nothing to deny with, whatever the exit code.
    assert GEMINI.decode("BeforeTool", _outcome(code=2)).decision == "none"
    # stdout wins over stderr; a JSON string holding JSON is read twice.
    twice = GEMINI.decode("BeforeTool", _outcome(stdout=json.dumps(json.dumps({"decision": "deny"})), code=0))
    assert (twice.decision, GEMINI.merge("BeforeTool", [twice]).reason) == ("deny", "No reason provided")
    assert GEMINI.decode("BeforeTool", _outcome(stdout="42")).ignored == ("non-object JSON",)
    # A signal death reads as exit 0; a timeout gives no answer.
    killed = GEMINI.decode("BeforeTool", _outcome(stdout='{"decision":"deny","reason":"r"}', code=None,
                                                  cause="signal"))
    assert killed.decision == "deny" and killed.failed is None
    assert GEMINI.decode("BeforeTool", _outcome(stdout='{"decision":"deny"}', code=None,
                                                cause="timeout")).decision == "none"


def test_fields_where_gemini_reads_them() -> None:
    def read(event: str, answer: dict) -> HookAnswer:
        return GEMINI.decode(event, _outcome(stdout=json.dumps(answer)))

    halt = {"continue": False, "stopReason": "halt", "decision": "deny"}
    assert not read("SessionStart", halt).stop and read("SessionStart", halt).decision == "none"
    assert read("BeforeTool", halt).stop and read("AfterAgent", halt).stop_reason == "halt"
    assert read("BeforeAgent", {"decision": "ask"}).decision == "none"  # ask is a BeforeTool decision
    assert read("AfterTool", {"decision": "deny", "reason": "hidden"}).decision == "block"
    rewrite = read("BeforeTool", {"hookSpecificOutput": {"tool_input": {"command": "ls"}}})
    assert rewrite.updated_input == {"command": "ls"}  # no hookEventName needed
    cleared = read("AfterAgent", {"hookSpecificOutput": {"clearContext": True}})
    assert cleared.ignored == ("hookSpecificOutput.clearContext",)


def test_answers_merge_by_or_with_every_reason_and_one_context() -> None:
    a = HookAnswer(reason="looked", additional_context=("one",))
    b = HookAnswer(decision="deny", reason="denied", additional_context=("two",), updated_input={"x": 1})
    merged = GEMINI.merge("BeforeTool", [a, b])
    assert (merged.decision, merged.reason) == ("deny", "looked\ndenied")
    assert merged.additional_context == ("one\ntwo",) and merged.updated_input == {"x": 1}


def test_context_is_escaped_and_tagged_as_gemini_hands_it_to_the_model() -> None:
    assert hook_context("<b>x</b> & y") == "<hook_context>&lt;b&gt;x&lt;/b&gt; & y</hook_context>"


# ── BeforeModel: the step before each model call, which it can refuse ─────────────────────────

def test_before_model_blocks_on_a_block_decision_and_on_an_exit_but_0_and_1() -> None:
    gemini = dialect_for("gemini")
    assert gemini.decode("BeforeModel", _outcome('{"decision": "block", "reason": "no"}')).decision == "block"
    # A hook script that cannot start (no exec bit: bash exits 126) blocks the call, as in Gemini.
    denied = gemini.decode("BeforeModel", _outcome(stderr="bash: line 1: ./hook.sh: Permission denied", code=126))
    assert denied.decision == "block"
    assert gemini.decode("BeforeModel", _outcome("{}")).decision == "none"
    assert gemini.decode("BeforeModel", _outcome('{"continue": false, "stopReason": "halt"}')).stop


async def test_a_before_model_hook_that_cannot_start_keeps_the_model_from_being_called(tmp_path: Path) -> None:
    """planning-with-files' before-model.sh is committed without its exec bit: under Gemini CLI the
    model is never called (the real-config lane's vendor side: 0 model calls); here the step is refused
    before the call, and the tool the model would have asked for never runs."""
    import anyio  # noqa: F401 - the test runs under the anyio plugin

    from compat_adapter import CompatAdapter, MemoryHost
    from compat_adapter.host.script import Reply, call

    hook = tmp_path / "before-model.sh"
    hook.write_text("#!/bin/bash\necho '{}'\n")  # mode 0644: bash cannot run it
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("gemini", "BeforeModel", None, str(hook))
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="touch ran"),)), "done"])
        result = await agent.run_turn("go")
        await host.settle()
        calls = [e for e in agent.session.events if e.type == "assistant/message"]
    assert calls == [] and not (tmp_path / "ran").exists(), result
    assert [a.decision for a in adapter.audit if a.event == "BeforeModel"] == ["block"]


async def test_a_before_model_hook_that_answers_runs_before_every_step(tmp_path: Path) -> None:
    log = tmp_path / "runs"
    hook = tmp_path / "before-model.sh"
    hook.write_text(f"#!/bin/bash\ncat >> '{log}'; echo >> '{log}'; echo '{{}}'\n")
    hook.chmod(0o755)
    from compat_adapter import CompatAdapter, MemoryHost
    from compat_adapter.host.script import Reply, call

    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("gemini", "BeforeModel", None, str(hook))
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="touch ran"),)), "done"])
        await agent.run_turn("go")
        await host.settle()
    runs = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert [r["hook_event_name"] for r in runs] == ["BeforeModel", "BeforeModel"]  # the prompt, the continuation
    assert (tmp_path / "ran").exists()
