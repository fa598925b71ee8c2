"""Fidelity first: on the native route each vendor's decisions reach the model as the vendor's own
text, at the nearest host seam (vendor-lane README §2), with real hook processes on the embedded
host. Each remaining difference is a listed loss; the tests below pin both halves."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import write_script

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.catalog import resolve_vendor
from compat_adapter.host.protocol import PostToolDecision, new_message
from compat_adapter.host.script import Reply, call
from compat_adapter.importers import import_files, register_import
from compat_adapter.model import DegradationCode, Route
from compat_adapter.presets import apply_preset
from vendors.claude.voice import hook_text

#: The words of the notice an early model of DSH's bridges put in front of hook context; neither
#: the published bridges nor any route of ours may make a hook's words non-binding.
UNTRUSTED_HOOK_CONTEXT_NOTICE = "carries no instructions you are bound to follow"


def hook(tmp: Path, name: str, stdout: str = "", *, stderr: str = "", code: int = 0) -> str:
    """A hook script that drains stdin, prints the answer, exits with `code`; returns its command."""
    body = "cat >/dev/null\n"
    if stdout:
        body += f"printf '%s\\n' '{stdout}'\n"
    if stderr:
        body += f"printf '%s\\n' '{stderr}' >&2\n"
    body += f"exit {code}\n"
    return str(write_script(tmp / f"{name}.sh", body))


def tool_texts(agent) -> list[str]:
    return [e.data["text"] for e in agent.session.of_type("tool/result")]


def hook_messages(agent) -> list[str]:
    """Hook context in a message of its own: a user message, or the system/developer message
    Claude and Codex put it in (a ``developer/message`` record with that role)."""
    return [e.data["text"] for e in agent.session.of_type("user/message", "developer/message")
            if e.data["source"]["kind"] == "compat-adapter-hook"]


def losses(vendor: str, event: str, code: DegradationCode) -> list[str]:
    spec = resolve_vendor(vendor)
    row = spec.row(event)
    assert row is not None
    return [d.text for d in spec.losses_for(row) if d.code is code]


BASH_THEN_DONE = [Reply(calls=(call("bash", command="echo ran > ran.txt"),)), "done"]


def deny_json(vendor: str, reason: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                              "permissionDecisionReason": reason}})


# ── deny texts ──────────────────────────────────────────────────────────────────────────────────

async def test_each_vendor_denies_in_its_own_words(tmp_path: Path) -> None:
    """Claude: `PreToolUse:Bash hook error: …` (command quoted on exit 2); Codex: `Command blocked by
    PreToolUse hook: … Command: …`; Copilot: `Denied by preToolUse hook: …` (exit 2: the exit code,
    stderr dropped); CodeBuddy: `Error: …`. Exactly those words: the host's own `Error: ` envelope
    is put right on post-execute, after the host's real deny."""
    copilot_deny = json.dumps({"permissionDecision": "deny", "permissionDecisionReason": "no copilot"})
    cases = [
        ("claude", "PreToolUse", "Bash", hook(tmp_path, "c1", deny_json("claude", "no json")),
         "PreToolUse:Bash hook error: no json"),
        ("claude", "PreToolUse", "Bash", hook(tmp_path, "c2", stderr="no exit2", code=2), None),
        ("codex", "PreToolUse", "Bash", hook(tmp_path, "x1", deny_json("codex", "no codex")),
         "Command blocked by PreToolUse hook: no codex. Command: echo ran > ran.txt"),
        ("workbuddy", "PreToolUse", "Bash", hook(tmp_path, "w1", deny_json("workbuddy", "no buddy")),
         "Error: no buddy"),
        ("copilot", "preToolUse", "bash", hook(tmp_path, "p1", copilot_deny), "Denied by preToolUse hook: no copilot"),
        ("copilot", "preToolUse", "bash", hook(tmp_path, "p2", stderr="no exit2", code=2),
         "Denied by preToolUse hook: hook exited with code 2"),
    ]
    for vendor, event, matcher, command, expected in cases:
        async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
            await adapter.register_hook(vendor, event, matcher, command)
            agent = await host.create_agent(script=BASH_THEN_DONE)
            await agent.run_turn("go")
            audit = [(a.decision, a.honoured) for a in adapter.audit]
        if expected is None:  # Claude quotes the command line of an exit-2 hook
            expected = f"PreToolUse:Bash hook error: [{command}]: no exit2\n"  # stderr's newline kept
        assert tool_texts(agent) == [expected], vendor
        assert not (tmp_path / "ran.txt").exists()
        # A real host deny: the hook pair says deny, and no post-tool run follows it.
        assert [e.data["decision"] for e in agent.session.of_type("hook/result")] == ["deny"], vendor
        assert audit == [("deny", True)], vendor
    # Nothing is listed for it any more.
    for vendor in ("claude", "codex"):
        assert not any("Error: " in t for t in losses(vendor, "PreToolUse", DegradationCode.TEXT_DIFFERS))


async def test_a_deny_reworded_on_post_execute_keeps_a_later_listeners_change(tmp_path: Path) -> None:
    """Only the host's own wording of our deny is put right; a post-execute listener further in
    that blocks with its own feedback keeps it, and one that only adds context keeps the context."""
    async def other(event, next):
        down = await next()
        return PostToolDecision("accept", None, (*down.additional_contexts,
                                                  new_message("OTHER-CTX", "user", "other")))

    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("codex", "PreToolUse", "Bash", hook(tmp_path, "x", deny_json("codex", "nope")))
        off = host.on("tools/post-execute", other)
        agent = await host.create_agent(script=BASH_THEN_DONE)
        await agent.run_turn("go")
        off()
    assert tool_texts(agent) == ["Command blocked by PreToolUse hook: nope. Command: echo ran > ran.txt"]
    assert any(e.data["text"] == "OTHER-CTX" for e in agent.session.of_type("user/message"))

    async def blocker(event, next):
        await next()
        return PostToolDecision("block", "a later listener's own words")

    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        off = host.on("tools/post-execute", blocker)  # registered first: outermost
        await adapter.register_hook("codex", "PreToolUse", "Bash", hook(tmp_path, "y", deny_json("codex", "nope")))
        agent = await host.create_agent(script=BASH_THEN_DONE)
        await agent.run_turn("go")
        off()
    assert tool_texts(agent) == ["a later listener's own words"]


async def test_exit_1_with_a_json_deny_denies_on_the_native_claude_route(tmp_path: Path) -> None:
    """Claude lets schema-valid JSON decide on any exit but 2; the bridge dropped it (fail open)."""
    command = hook(tmp_path, "deny1", deny_json("claude", "exit one"), code=1)
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("claude", "PreToolUse", "Bash", command)
        agent = await host.create_agent(script=BASH_THEN_DONE)
        await agent.run_turn("go")
    assert tool_texts(agent) == ["PreToolUse:Bash hook error: exit one"]


class NoApprovalHost(MemoryHost):
    """A composition without an approval service (a headless host)."""

    @property
    def surface(self):  # type: ignore[override]
        return super().surface.without(services=["approval"])


async def test_ask_without_an_approval_channel_denies_with_the_hooks_reason(tmp_path: Path) -> None:
    answer = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                                                "permissionDecisionReason": "check with a human"}})
    async with NoApprovalHost(tmp_path) as host, CompatAdapter(host) as adapter:
        assert "approval" not in host.surface.services
        await adapter.register_hook("claude", "PreToolUse", "Bash", hook(tmp_path, "ask", answer))
        agent = await host.create_agent(script=BASH_THEN_DONE)
        await agent.run_turn("go")
    # Claude in -p cannot ask either: it denies, and the model reads the hook's reason alone.
    assert tool_texts(agent) == ["check with a human"]
    assert not (tmp_path / "ran.txt").exists()


async def test_an_ask_nobody_can_answer_reads_in_the_vendors_words_and_a_refusal_in_the_hosts(
        tmp_path: Path) -> None:
    """The host has an approval service but no channel answers (unavailable): Claude shows the
    hook's reason, Copilot says it could not ask. A user's refusal keeps the host's own words."""
    claude = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                                                "permissionDecisionReason": "check first"}})
    copilot = json.dumps({"permissionDecision": "ask", "permissionDecisionReason": "check first"})
    cases = [("claude", "PreToolUse", "Bash", claude, "check first"),
             ("copilot", "preToolUse", "bash", copilot,
              "Denied by preToolUse hook (unable to ask user for confirmation): check first")]
    for vendor, event, matcher, answer, expected in cases:
        async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
            assert "approval" in host.surface.services
            await adapter.register_hook(vendor, event, matcher, hook(tmp_path, f"ask-{vendor}", answer))
            agent = await host.create_agent(script=BASH_THEN_DONE)
            await agent.run_turn("go")
        assert [e.data["outcome"] for e in agent.session.of_type("approval/decided")] == ["unavailable"]
        assert tool_texts(agent) == [expected], vendor
        assert not (tmp_path / "ran.txt").exists()
    async with MemoryHost(tmp_path, approver=lambda request: "rejected") as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("copilot", "preToolUse", "bash", hook(tmp_path, "ask-rejected", copilot))
        agent = await host.create_agent(script=BASH_THEN_DONE)
        await agent.run_turn("go")
    assert tool_texts(agent) == ['Error: the user rejected tool "bash"']


REWRITTEN = "echo rewritten > ran.txt; echo rewritten-out"


async def test_each_vendor_runs_the_rewritten_input_once_hooked(tmp_path: Path) -> None:
    """updatedInput / modifiedArgs run, as in each vendor: a nested call with the new input; the
    pre-tool hook runs once and a post-tool hook once, on the model's own call."""
    claude_like = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                                     "updatedInput": {"command": REWRITTEN}}})
    cases = [("claude", "PreToolUse", "PostToolUse", "Bash", claude_like),
             ("codex", "PreToolUse", "PostToolUse", "Bash", claude_like),
             ("workbuddy", "PreToolUse", "PostToolUse", "Bash", claude_like),
             ("copilot", "preToolUse", "postToolUse", "bash",
              json.dumps({"permissionDecision": "allow", "modifiedArgs": {"command": REWRITTEN}}))]
    for vendor, pre, post, matcher, answer in cases:
        (tmp_path / "ran.txt").unlink(missing_ok=True)
        seen = tmp_path / f"post-{vendor}.jsonl"
        post_hook = str(write_script(tmp_path / f"post-{vendor}.sh", f"cat >> {seen}\necho >> {seen}\n"))
        async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
            await adapter.register_hook(vendor, pre, matcher, hook(tmp_path, f"rw-{vendor}", answer))
            await adapter.register_hook(vendor, post, matcher, post_hook)
            agent = await host.create_agent(script=BASH_THEN_DONE)
            await agent.run_turn("go")
            audit = [(a.event, a.note) for a in adapter.audit]
        assert (tmp_path / "ran.txt").read_text() == "rewritten\n", vendor
        assert tool_texts(agent) == ["rewritten-out"], vendor
        [call_record] = agent.session.of_type("tool/call")
        assert "echo ran > ran.txt" in call_record.data["arguments"], vendor  # the model's own call
        assert [e for e, _ in audit] == [pre, post], vendor
        assert "input rewritten" in audit[0][1], vendor
        assert len([ln for ln in seen.read_text().splitlines() if ln.strip()]) == 1, vendor


# ── where context lands ─────────────────────────────────────────────────────────────────────────

async def test_claude_pre_and_post_tool_context_follow_the_result_in_claudes_words(tmp_path: Path) -> None:
    pre = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "CTX-PRE"}})
    post = json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "CTX-POST"}})
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("claude", "PreToolUse", "Bash", hook(tmp_path, "pre", pre))
        await adapter.register_hook("claude", "PostToolUse", "Bash", hook(tmp_path, "post", post))
        agent = await host.create_agent(script=BASH_THEN_DONE)
        await agent.run_turn("go")
    messages = hook_messages(agent)
    assert "PreToolUse:Bash hook additional context: CTX-PRE" in messages
    assert "PostToolUse:Bash hook additional context: CTX-POST" in messages
    assert not any(UNTRUSTED_HOOK_CONTEXT_NOTICE in m for m in messages)
    # Both land after the tool result, before the next model call (step 2).
    steps = {e.data["text"]: (e.data["step"], e.data["role"])
             for e in agent.session.of_type("user/message", "developer/message")}
    assert steps["PreToolUse:Bash hook additional context: CTX-PRE"] == (2, "system")
    assert losses("claude", "PreToolUse", DegradationCode.MESSAGE_PROVENANCE)


async def test_codex_gives_pre_and_post_tool_context_bare(tmp_path: Path) -> None:
    """Codex 0.171.0 shows both (vendor lane: developer messages); the pre-tool one comes first."""
    pre = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "CTX-PRE"}})
    post = json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "CTX-POST"}})
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("codex", "PreToolUse", "Bash", hook(tmp_path, "pre", pre))
        await adapter.register_hook("codex", "PostToolUse", "Bash", hook(tmp_path, "post", post))
        agent = await host.create_agent(script=BASH_THEN_DONE)
        await agent.run_turn("go")
    assert hook_messages(agent) == ["CTX-PRE", "CTX-POST"]


async def test_codebuddy_context_wears_its_system_reminder(tmp_path: Path) -> None:
    start = json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "CTX-S"}})
    post = json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "CTX-P"}})
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("workbuddy", "SessionStart", None, hook(tmp_path, "s", start))
        await adapter.register_hook("workbuddy", "PostToolUse", "Bash", hook(tmp_path, "p", post))
        agent = await host.create_agent(script=BASH_THEN_DONE)
        await agent.run_turn("go")
    # Where each lands (the prompt's message, the tool result): tests/test_context_landing.py.
    texts = [e.data["text"] for e in agent.session.of_type("user/message", "tool/result")]
    assert any(t.startswith('<system-reminder data-role="hook">CTX-S</system-reminder>') for t in texts)
    assert any(t.endswith('<system-reminder data-role="tool-hint">CTX-P</system-reminder>') for t in texts)


# ── post-tool blocks ────────────────────────────────────────────────────────────────────────────

async def test_post_tool_block_as_each_vendor_does_it(tmp_path: Path) -> None:
    block = json.dumps({"decision": "block", "reason": "POST-BLOCK"})
    seen = {}
    for vendor in ("claude", "codex", "workbuddy"):
        command = hook(tmp_path, f"pb-{vendor}", block)
        async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
            await adapter.register_hook(vendor, "PostToolUse", "Bash", command)
            agent = await host.create_agent(script=[Reply(calls=(call("bash", command="echo tool-out"),)), "done"])
            await agent.run_turn("go")
        seen[vendor] = (tool_texts(agent), hook_messages(agent), command)
    # Claude: the output stands; the block's feedback follows it, naming the command.
    texts, messages, command = seen["claude"]
    assert "tool-out" in texts[0]
    assert messages == [f'PostToolUse:Bash hook blocking error from command: "{command}": POST-BLOCK']
    # Codex: the tool output is replaced by the reason.
    texts, messages, _ = seen["codex"]
    assert texts == ["POST-BLOCK"] and messages == []
    # CodeBuddy ignores a post-tool block.
    texts, messages, _ = seen["workbuddy"]
    assert "tool-out" in texts[0] and messages == []


# ── Stop continuations ──────────────────────────────────────────────────────────────────────────

def once(tmp: Path, name: str, stdout: str = "", *, stderr: str = "", code: int = 0) -> str:
    """A Stop hook that answers only the first time (then lets the turn end)."""
    marker = tmp / f"{name}.once"
    body = f"cat >/dev/null\nif [ -f '{marker}' ]; then exit 0; fi\n: > '{marker}'\n"
    if stdout:
        body += f"printf '%s\\n' '{stdout}'\n"
    if stderr:
        body += f"printf '%s\\n' '{stderr}' >&2\n"
    body += f"exit {code}\n"
    return str(write_script(tmp / f"{name}.sh", body))


async def test_stop_blocks_continue_in_each_vendors_words_never_marked_non_binding(tmp_path: Path) -> None:
    block = json.dumps({"decision": "block", "reason": "run the tests"})
    cases = [
        # Claude Code 2.1.332 wraps the feedback in a <system-reminder> after its lead (vendor lane).
        ("claude", once(tmp_path, "c-json", block), lambda c: hook_text("Stop hook feedback:\nrun the tests")),
        ("claude", once(tmp_path, "c-exit2", stderr="run the tests", code=2),
         lambda c: hook_text(f"Stop hook feedback:\n[{c}]: run the tests\n")),
        ("workbuddy", once(tmp_path, "w-json", block),
         lambda c: f"<user_query>Stop hook feedback:\n[{c}]: run the tests</user_query>"),
    ]
    for vendor, command, expected in cases:
        async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
            await adapter.register_hook(vendor, "Stop", None, command)
            agent = await host.create_agent(script=["first", "second"])
            result = await agent.run_turn("go")
        assert result.steps == 2, vendor
        assert hook_messages(agent) == [expected(command)], vendor
        assert not any(UNTRUSTED_HOOK_CONTEXT_NOTICE in m for m in hook_messages(agent))


async def test_codex_stop_block_is_a_hook_prompt_naming_its_file(tmp_path: Path, monkeypatch) -> None:
    from conftest import trust

    command = once(tmp_path, "x-stop", json.dumps({"decision": "block", "reason": "keep going"}))
    config = tmp_path / "hooks.json"
    config.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": command}]}]}}))
    trust("codex", config)
    imported = import_files("codex", [config])
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await register_import(adapter, imported)
        agent = await host.create_agent(script=["first", "second"])
        result = await agent.run_turn("go")
    assert result.steps == 2
    [message] = hook_messages(agent)
    assert message.startswith('<hook_prompt hook_run_id="stop:0:') and message.endswith('">keep going</hook_prompt>')
    assert "hooks.json" in message


# ── continue:false halts ────────────────────────────────────────────────────────────────────────

async def test_continue_false_on_post_tool_use_ends_the_turn(tmp_path: Path) -> None:
    """Claude: continue:false stops the agent after the hooks run, PostToolUse included (measured,
    lane case claude:post_halt)."""
    halt = json.dumps({"continue": False, "stopReason": "enough"})
    for vendor in ("claude",):
        async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
            await adapter.register_hook(vendor, "PostToolUse", "Bash", hook(tmp_path, f"halt-{vendor}", halt))
            agent = await host.create_agent(script=[Reply(calls=(call("bash", command="echo x"),)),
                                                    Reply(calls=(call("bash", command="touch later"),)), "done"])
            result = await agent.run_turn("go")
        assert result.reason == "blocked" and result.steps == 1, vendor
        assert not (tmp_path / "later").exists()
        # The next turn runs normally: the halt belonged to the turn that asked for it.
        async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
            agent = await host.create_agent(script=["fine"])
            assert (await agent.run_turn("again")).reason == "completed"


async def test_continue_false_after_a_tool_goes_on_where_the_vendor_ignores_it(tmp_path: Path) -> None:
    """Measured with the lane: Codex 0.171.0 ignores PostToolUse's continue:false (codex:post_halt),
    Claude Code 2.1.332 PostToolUseFailure's (claude:post_failure_halt): the turn goes on."""
    halt = json.dumps({"continue": False, "stopReason": "enough"})
    cases = {("codex", "PostToolUse"): "echo x", ("claude", "PostToolUseFailure"): "exit 3"}
    for (vendor, event), command in cases.items():
        where = tmp_path / vendor
        where.mkdir()
        async with MemoryHost(where) as host, CompatAdapter(host) as adapter:
            await adapter.register_hook(vendor, event, "Bash", hook(where, "halt", halt))
            agent = await host.create_agent(script=[Reply(calls=(call("bash", command=command),)),
                                                    Reply(calls=(call("bash", command="touch later"),)), "done"])
            result = await agent.run_turn("go")
            notes = {r.note for r in adapter.audit if r.event == event}
        assert result.reason == "completed" and result.steps == 3, vendor
        assert (where / "later").exists(), vendor
        assert notes and not any("continue:false" in n for n in notes), notes


async def test_continue_false_on_pre_tool_use_ends_the_turn_after_or_instead_of_the_call(tmp_path: Path) -> None:
    """Measured (lane cases claude:pre_halt, workbuddy:pre_halt): Claude Code runs the call, then stops
    before the model is called again; CodeBuddy stops without running it."""
    halt = json.dumps({"continue": False, "stopReason": "halt now"})
    expected = {"claude": (True, ["ran"]), "workbuddy": (False, ["Error: halt now"])}
    for vendor, (runs, texts) in expected.items():
        where = tmp_path / vendor
        where.mkdir()
        async with MemoryHost(where) as host, CompatAdapter(host) as adapter:
            await adapter.register_hook(vendor, "PreToolUse", "Bash", hook(where, "halt", halt))
            await adapter.register_hook(vendor, "Stop", None, hook(where, "stop", "{}"))
            agent = await host.create_agent(script=[Reply(calls=(call("bash", command="echo ran > ran.txt; echo ran"),)),
                                                    "never", "fine"])
            result = await agent.run_turn("go")
            assert result.reason == "blocked" and result.steps == 1, vendor
            assert (where / "ran.txt").exists() is runs, vendor
            assert [t.strip() for t in tool_texts(agent)] == texts, vendor
            # Claude runs no Stop hook after the halt; CodeBuddy does, and here none runs (a listed
            # loss of its PreToolUse row, measured in a lane run with a Stop hook added).
            assert not [a for a in adapter.audit if a.event == "Stop"], vendor
            assert (await agent.run_turn("next")).reason == "completed", vendor
            assert [a for a in adapter.audit if a.event == "Stop"], vendor  # a turn that ends runs them


async def test_codex_continue_false_beats_a_stop_block_natively(tmp_path: Path) -> None:
    answer = json.dumps({"decision": "block", "reason": "one more", "continue": False})
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("codex", "Stop", None, once(tmp_path, "stop", answer))
        agent = await host.create_agent(script=["first", "second"])
        result = await agent.run_turn("hi")
    assert result.steps == 1 and hook_messages(agent) == []


# ── parallel runs and de-duplication ────────────────────────────────────────────────────────────

async def test_claude_runs_matching_hooks_at_once_and_codex_too(tmp_path: Path) -> None:
    """Four hooks that each wait for the others: they can only all finish if they run together."""
    for vendor in ("claude", "codex"):
        gate = tmp_path / f"gate-{vendor}"
        gate.mkdir()
        async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
            for i in range(4):
                # Each hook marks its arrival, then waits (up to 5 s) until all four have arrived.
                body = (f"cat >/dev/null\n: > '{gate}/{i}'\nn=0\n"
                        f"while [ $(ls '{gate}' | wc -l) -lt 4 ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n+1)); done\n"
                        f"[ $(ls '{gate}' | wc -l) -ge 4 ] && echo ok >> '{gate}.done'\n")
                await adapter.register_hook(vendor, "PreToolUse", "Bash", str(write_script(tmp_path / f"{vendor}{i}.sh", body)))
            agent = await host.create_agent(script=BASH_THEN_DONE)
            await agent.run_turn("go")
        assert (tmp_path / f"gate-{vendor}.done").read_text().split() == ["ok"] * 4, vendor


async def test_claude_runs_an_identical_command_once_codex_twice(tmp_path: Path) -> None:
    for vendor, runs in (("claude", 1), ("workbuddy", 1), ("codex", 2)):
        count = tmp_path / f"count-{vendor}"
        command = str(write_script(tmp_path / f"dup-{vendor}.sh", f"cat >/dev/null\necho x >> '{count}'\n"))
        async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
            await adapter.register_hook(vendor, "PreToolUse", "Bash", command)
            await adapter.register_hook(vendor, "PreToolUse", None, command)
            agent = await host.create_agent(script=BASH_THEN_DONE)
            await agent.run_turn("go")
        assert len(count.read_text().split()) == runs, vendor


# ── the policy: fidelity by default, the official bridge on request ─────────────────────────────

class _Preset:
    def __init__(self, command: str) -> None:
        self.command = command

    async def apply(self, adapter: CompatAdapter) -> None:
        await adapter.register_hook("claude", "PreToolUse", "Bash", self.command)


async def test_prefer_official_keeps_the_bridge_everywhere_it_is_asked_for(tmp_path: Path) -> None:
    command = hook(tmp_path, "deny", deny_json("claude", "bridged no"))
    async with MemoryHost(tmp_path) as host:
        async with CompatAdapter(host, prefer="official") as adapter:
            assert (await adapter.register_hook("claude", "PreToolUse", "Bash", command)).route is Route.OFFICIAL_BRIDGE
        async with CompatAdapter(host) as adapter:
            official = await adapter.register_hook("claude", "PreToolUse", "Bash", command, prefer="official")
            native = await adapter.register_hook("claude", "PreToolUse", "Bash", command)
            assert (official.route, native.route) == (Route.OFFICIAL_BRIDGE, Route.NATIVE_TRANSLATE)
            assert native.alternative and native.alternative.startswith("official-bridge would lose more")
            assert official.alternative and official.alternative.startswith("native-translate would lose more")
        async with CompatAdapter(host) as adapter:
            await apply_preset(adapter, _Preset(command), prefer="official")
            [status] = adapter.status().hooks
            assert status.route is Route.OFFICIAL_BRIDGE and status.running
        async with CompatAdapter(host, prefer="official") as adapter:
            agent = await host.create_agent(script=BASH_THEN_DONE)
            await adapter.register_hook("claude", "PreToolUse", "Bash", command)
            await agent.run_turn("go")
    # The bridge shows the bare reason with the host's prefix (the seed's behaviour).
    assert tool_texts(agent) == ["Error: bridged no"]


async def test_claude_lets_the_turn_end_after_eight_stop_continuations(tmp_path: Path) -> None:
    """Claude Code overrides an always-blocking Stop hook after 8 consecutive continuations."""
    command = hook(tmp_path, "always", json.dumps({"decision": "block", "reason": "again"}))
    async with MemoryHost(tmp_path, max_steps_per_turn=20) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("claude", "Stop", None, command)
        agent = await host.create_agent(script=[f"answer {i}" for i in range(20)])
        result = await agent.run_turn("never stop")
    assert result.reason == "completed" and result.steps == 9
    assert hook_messages(agent) == [hook_text("Stop hook feedback:\nagain")] * 8
    assert not losses("claude", "Stop", DegradationCode.NO_LOOP_GUARD)


async def test_claude_prompt_context_from_plain_stdout_and_a_block(tmp_path: Path) -> None:
    """Plain stdout on UserPromptSubmit is context in Claude (the bridge dropped it), worded as
    Claude Code 2.1.332 words plain output (lane case claude:prompt_context_plain); a block
    rejects the prompt before any model call."""
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("claude", "UserPromptSubmit", None, hook(tmp_path, "ctx", "PLAIN-CTX"))
        agent = await host.create_agent(script=["done"])
        assert (await agent.run_turn("hello")).reason == "completed"
    assert hook_messages(agent) == ["UserPromptSubmit hook success: PLAIN-CTX"]
    block = json.dumps({"decision": "block", "reason": "not today"})
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("claude", "UserPromptSubmit", None, hook(tmp_path, "block", block))
        agent = await host.create_agent(script=["never"])
        result = await agent.run_turn("hello")
        assert result.reason == "blocked" and result.steps == 0
        [record] = [r for r in adapter.audit if r.event == "UserPromptSubmit"]
        assert record.decision == "block" and record.honoured
    # What stays different is listed: the reject's words reach the person as the host's notice
    # (on DSH, a row of the web UI's chat among its other places), not as Claude's transcript line.
    assert any("reaches the person as the host's notice" in t and "web UI" in t
               for t in losses("claude", "UserPromptSubmit", DegradationCode.OUTPUT_FIELD_IGNORED))
