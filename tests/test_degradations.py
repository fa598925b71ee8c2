"""Degradation sentences pinned by real runs: each test shows that the loss a vendor row names
really happens (or that a field the sentence describes really looks that way) on the embedded
host, through CompatAdapter, with real hook scripts."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import anyio
from conftest import write_script

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.catalog import resolve_vendor
from compat_adapter.declare import declare_hook
from compat_adapter.host.protocol import ApprovalOutcome
from compat_adapter.host.script import Error, Reply, call
from compat_adapter.model import DegradationCode


def capture(tmp: Path, name: str, answer: str = "") -> tuple[str, Path]:
    """A hook that appends its stdin payload (one JSON per line) to a file, then prints `answer`."""
    out = tmp / f"{name}.jsonl"
    body = f"cat >> '{out}'\necho >> '{out}'\n"
    if answer:
        body += f"printf '%s\\n' '{answer}'\n"
    return str(write_script(tmp / f"{name}.sh", body)), out


def payloads(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def sentence(vendor: str, event: str, code: DegradationCode) -> list[str]:
    spec = resolve_vendor(vendor)
    row = spec.row(event)
    assert row is not None
    return [d.text for d in spec.losses_for(row) if d.code is code]


def _ask(reason: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                              "permissionDecision": "ask",
                                              "permissionDecisionReason": reason}})


# ── end reasons and compaction facts ───────────────────────────────────────────────────────────

async def test_workbuddy_session_end_reason_is_other_not_missing(tmp_path: Path) -> None:
    assert any('always "other"' in t for t in
               sentence("workbuddy", "SessionEnd", DegradationCode.PAYLOAD_FIELD_MISSING))
    hook, out = capture(tmp_path, "end")
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("workbuddy", "SessionEnd", None, hook)
        agent = await host.create_agent(script=["done"])
        await agent.run_turn("hi")
        await agent.dispose()
        await host.settle()
    [payload] = payloads(out)
    assert payload["hook_event_name"] == "SessionEnd"
    assert payload["reason"] == "other"


async def test_claude_pre_compact_reports_a_manual_compaction_as_auto(tmp_path: Path) -> None:
    assert sentence("claude", "PreCompact", DegradationCode.MATCHER_NARROWED)
    manual, manual_out = capture(tmp_path, "manual")
    auto, auto_out = capture(tmp_path, "auto")
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("claude", "PreCompact", "manual", manual)
        await adapter.register_hook("claude", "PreCompact", "auto", auto)
        agent = await host.create_agent(script=["done"])
        await agent.run_turn("hi")
        await agent.compact()  # a manual compaction between turns
        await host.settle()
    assert payloads(manual_out) == []  # the "manual" matcher never fires
    [payload] = payloads(auto_out)
    assert payload["trigger"] == "auto"
    assert payload["custom_instructions"] == ""


async def test_codex_pre_compact_trigger_is_auto_for_a_manual_compaction(tmp_path: Path) -> None:
    hook, out = capture(tmp_path, "codex-compact")
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("codex", "PreCompact", None, hook)
        agent = await host.create_agent(script=["done"])
        await agent.run_turn("hi")
        await agent.compact()
        await host.settle()
    [payload] = payloads(out)
    assert payload["trigger"] == "auto"


async def test_copilot_pre_compact_custom_instructions_is_an_empty_string(tmp_path: Path) -> None:
    assert any("always an empty string" in t for t in
               sentence("copilot", "preCompact", DegradationCode.PAYLOAD_FIELD_MISSING))
    hook, out = capture(tmp_path, "copilot-compact")
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("copilot", "preCompact", None, hook)
        agent = await host.create_agent(script=["done"])
        await agent.run_turn("hi")
        await agent.compact()
        await host.settle()
    [payload] = payloads(out)
    assert "customInstructions" in payload and payload["customInstructions"] == ""


async def test_copilot_error_occurred_names_every_error_error(tmp_path: Path) -> None:
    hook, out = capture(tmp_path, "error")
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("copilot", "errorOccurred", None, hook)
        agent = await host.create_agent(script=[Error("TypeError: boom")])
        await agent.run_turn("hi")
        await host.settle()
    [payload] = payloads(out)
    assert payload["error"] == {"message": "TypeError: boom", "name": "Error", "stack": ""}
    assert payload["errorContext"] == "" and payload["recoverable"] is False


# ── approvals: what the request really carries ────────────────────────────────────────────────

async def test_permission_payloads_carry_what_the_host_logged(tmp_path: Path) -> None:
    """Claude PermissionRequest: tool_input is the call's arguments as the host logged the call (as
    Claude sends them), permission_suggestions is empty. OpenCode permission.asked: the fields are
    there, but empty or holding the host's reason, never the call's arguments."""
    ask = str(write_script(tmp_path / "ask.sh", f"cat >/dev/null\necho '{_ask('needs a look')}'\n"))
    claude, claude_out = capture(tmp_path, "claude-perm")
    opencode, opencode_out = capture(tmp_path, "opencode-perm")
    async with MemoryHost(tmp_path, approver=lambda _r: ApprovalOutcome.ALLOWED_ONCE) as host, \
            CompatAdapter(host) as adapter:
        await adapter.register_hook("claude", "PreToolUse", "Bash", ask)
        await adapter.register_hook("claude", "PermissionRequest", None, claude)
        await adapter.register_hook("opencode", "permission.asked", None, opencode)
        agent = await host.create_agent(script=[
            Reply(calls=(call("bash", command="echo secret-arg"),)), "done"])
        await agent.run_turn("go")
        await host.settle()
    [req] = payloads(claude_out)
    assert req["tool_name"] == "Bash"
    assert req["tool_input"] == {"command": "echo secret-arg"}  # read back from the tool/call record
    assert req["permission_suggestions"] == []
    [asked] = payloads(opencode_out)
    props = asked["input"]["event"]["properties"]
    assert props["patterns"] == [] and props["always"] == []
    assert props["metadata"] == {"reason": "needs a look"}
    assert "secret-arg" not in json.dumps(asked)


# ── Codex through its official bridge (prefer="official") ─────────────────────────────────────────────────────────

async def test_codex_apply_patch_matcher_no_longer_selects_writes(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("old\n")
    hook, out = capture(tmp_path, "patch")
    async with MemoryHost(tmp_path) as host, CompatAdapter(host, prefer="official") as adapter:
        await adapter.register_hook("codex", "PreToolUse", "apply_patch", hook)
        agent = await host.create_agent(script=[
            Reply(calls=(call("write", path="new.txt", content="x"),)),
            Reply(calls=(call("edit", path="f.txt", old="old", new="new"),)),
            "done"])
        await agent.run_turn("go")
        await host.settle()
    # Codex would run the hook for both file changes (apply_patch answers to Write too).
    assert [p["tool_name"] for p in payloads(out)] == ["edit"]
    assert (tmp_path / "new.txt").exists()


async def test_codex_user_prompt_carries_injected_rules_text(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("RULE-TEXT-42: small diffs.\n")
    hook, out = capture(tmp_path, "ups")
    async with MemoryHost(tmp_path) as host, CompatAdapter(host, prefer="official") as adapter:
        await adapter.register_rules("codex", "AGENTS.md", base_dir=tmp_path)
        await adapter.register_hook("codex", "UserPromptSubmit", None, hook)
        agent = await host.create_agent(script=["done"])
        await agent.run_turn("the typed prompt")
        await host.settle()
    [payload] = payloads(out)
    assert "RULE-TEXT-42" in payload["prompt"]
    assert "the typed prompt" in payload["prompt"]
    assert payload["permission_mode"] == "default"


async def test_codex_session_start_context_is_a_sourced_untrusted_message(tmp_path: Path) -> None:
    assert sentence("codex", "SessionStart", DegradationCode.MESSAGE_PROVENANCE)
    hook = str(write_script(tmp_path / "ctx.sh", "cat >/dev/null\necho plain-start-context\n"))
    async with MemoryHost(tmp_path) as host, CompatAdapter(host, prefer="official") as adapter:
        await adapter.register_hook("codex", "SessionStart", None, hook)
        agent = await host.create_agent(script=["done"])
        await agent.run_turn("hi")
        await host.settle()
        records = [e.data for e in agent.session.of_type("user/message")
                   if "plain-start-context" in e.data["text"]]
    [record] = records
    assert record["source"]["kind"] == "hooks-codex"
    # The published bridge sends the context as it is: no notice in front of it.
    assert record["text"] == "plain-start-context"
    # It rides with the first step of the first turn, not later.
    assert record["turn"] == 1 and record["step"] == 1


async def test_codex_stop_continue_false_does_not_override_a_block(tmp_path: Path) -> None:
    marker = tmp_path / "stop.once"
    answer = json.dumps({"decision": "block", "reason": "one more", "continue": False})
    hook = str(write_script(tmp_path / "stop.sh",
                            f"cat >/dev/null\nif [ ! -f '{marker}' ]; then : > '{marker}'; "
                            f"echo '{answer}'; fi\n"))
    async with MemoryHost(tmp_path) as host, CompatAdapter(host, prefer="official") as adapter:
        await adapter.register_hook("codex", "Stop", None, hook)
        agent = await host.create_agent(script=["first", "second"])
        result = await agent.run_turn("hi")
        await host.settle()
    # Codex: continue:false wins and the turn stops after one step; here the block steers on.
    assert result.steps == 2


async def test_claude_notification_continue_false_is_ignored_and_listed(tmp_path: Path) -> None:
    """Claude documents continue:false as stopping Claude on any event; on Notification (an agent
    left idle here, with the row's 60 s wait made short) the answer is audited and ignored, and the
    next turn runs in full."""
    halt = json.dumps({"continue": False, "stopReason": "stop now"})
    hook, out = capture(tmp_path, "notify", halt)
    declared = declare_hook("claude", "Notification", None, hook)
    declared = replace(declared, row=declared.row.model_copy(update={"idle_after_s": 0.2}))
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register(declared)
        agent = await host.create_agent(script=["first", Reply(calls=(call("bash", command="touch later"),)),
                                                "done"])
        await agent.run_turn("hi")
        with anyio.fail_after(30):
            while not payloads(out):
                await anyio.sleep(0.05)
        result = await agent.run_turn("again")
        await host.settle()
        audit = [(a.honoured, a.note) for a in adapter.audit if a.event == "Notification"]
    assert payloads(out)[0]["notification_type"] == "idle_prompt"
    assert (result.reason, result.steps) == ("completed", 2) and (tmp_path / "later").exists()
    assert audit and audit[0] == (False, "observe-only: the blocking answer was ignored")
    assert any("continue:false" in t for t in sentence("claude", "Notification",
                                                       DegradationCode.OUTPUT_FIELD_IGNORED))


async def test_workbuddy_cwd_changed_continue_false_is_ignored_and_listed(tmp_path: Path) -> None:
    """CodeBuddy documents continue for every hook; on CwdChanged (at session creation here) the
    answer is audited and ignored, and the turn runs in full."""
    hook, out = capture(tmp_path, "cwd", json.dumps({"continue": False, "stopReason": "stop now"}))
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("workbuddy", "CwdChanged", None, hook)
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="touch later"),)), "done"])
        result = await agent.run_turn("go")
        await host.settle()
        audit = [(a.honoured, a.note) for a in adapter.audit if a.event == "CwdChanged"]
    assert payloads(out) and (result.reason, result.steps) == ("completed", 2) and (tmp_path / "later").exists()
    assert audit == [(False, "observe-only: the blocking answer was ignored")]
    assert any("continue:false" in t for t in sentence("workbuddy", "CwdChanged",
                                                       DegradationCode.OUTPUT_FIELD_IGNORED))


# ── the environment every hook gets ────────────────────────────────────────────────────────────

async def test_secret_like_variables_never_reach_a_hook(tmp_path: Path, monkeypatch) -> None:
    assert sentence("claude", "SessionEnd", DegradationCode.ENV_DIFFERS)
    monkeypatch.setenv("ACME_API_TOKEN", "t0ken")
    monkeypatch.setenv("ACME_PLAIN_SETTING", "visible")
    seen = tmp_path / "env.txt"
    hook = str(write_script(tmp_path / "env.sh", f"cat >/dev/null\nenv > '{seen}'\n"))
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("claude", "SessionEnd", None, hook)
        agent = await host.create_agent(script=["done"])
        await agent.run_turn("hi")
        await agent.dispose()
        await host.settle()
    env = seen.read_text()
    assert "ACME_PLAIN_SETTING=visible" in env
    assert "ACME_API_TOKEN" not in env
    assert "CLAUDE_PROJECT_DIR=" in env

