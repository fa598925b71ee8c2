"""Decisions honoured where the vendor documents them and the host has a seam for them: continue:false
on the events that carry it, the approval seam firing exactly when the host asks (Copilot's
permission hooks asking for the call itself). Real hook
processes on the embedded host.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import write_script

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.host.protocol import ApprovalOutcome, PreToolDecision
from compat_adapter.host.script import Reply, call

HALT = json.dumps({"continue": False, "stopReason": "enough for today"})


def _hook(tmp: Path, name: str, answer: str) -> str:
    """A hook that counts its runs in ``<name>.runs`` and prints `answer`."""
    return str(write_script(tmp / f"{name}.sh", f"cat >/dev/null\necho run >> '{tmp}/{name}.runs'\n"
                                                 f"printf '%s\\n' '{answer}'\n"))


def _runs(tmp: Path, name: str) -> int:
    path = tmp / f"{name}.runs"
    return len(path.read_text().split()) if path.exists() else 0


BASH_TWICE = [Reply(calls=(call("bash", command="touch first"),)),
              Reply(calls=(call("bash", command="touch second"),)), "done"]


async def test_continue_false_on_session_start_stops_the_agent_before_its_first_step(tmp_path: Path) -> None:
    # Codex honours SessionStart's continue:false: no model call at all (measured, lane case
    # codex:session_halt).
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("codex", "SessionStart", None, _hook(tmp_path, "start", HALT))
        agent = await host.create_agent(script=BASH_TWICE)
        result = await agent.run_turn("go")
        assert _runs(tmp_path, "start") == 1
        assert (result.reason, result.steps) == ("blocked", 0)
        assert not (tmp_path / "first").exists()
        # The halt belonged to the start it answered: the next turn runs.
        assert (await agent.run_turn("again")).reason == "completed"
        assert adapter.audit[0].note == "no context; continue:false: the next turn ends"


async def test_continue_false_on_session_start_is_ignored_where_the_vendor_ignores_it(tmp_path: Path) -> None:
    # Claude Code 2.1.332 and CodeBuddy 2.163.0 run the whole turn after a SessionStart hook's
    # continue:false (measured, lane cases claude:session_halt and workbuddy:session_halt).
    for vendor in ("claude", "workbuddy"):
        where = tmp_path / vendor
        where.mkdir()
        async with MemoryHost(where) as host, CompatAdapter(host) as adapter:
            await adapter.register_hook(vendor, "SessionStart", None, _hook(where, "start", HALT))
            agent = await host.create_agent(script=BASH_TWICE)
            result = await agent.run_turn("go")
            notes = [r.note for r in adapter.audit if r.event == "SessionStart"]
        assert _runs(where, "start") == 1, vendor
        assert (result.reason, result.steps) == ("completed", 3), vendor
        assert (where / "first").exists() and (where / "second").exists(), vendor
        # The dialect reads it as an ignored field, so no halt reaches the host; CodeBuddy shows
        # the JSON as printed as the session's context (lane case workbuddy:session_halt's request).
        assert notes == ["context" if vendor == "workbuddy" else "no context"], vendor


async def test_session_start_without_continue_false_lets_the_turn_run(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("claude", "SessionStart", None, _hook(tmp_path, "start", json.dumps({})))
        agent = await host.create_agent(script=BASH_TWICE)
        result = await agent.run_turn("go")
    assert (result.reason, _runs(tmp_path, "start")) == ("completed", 1)
    assert (tmp_path / "first").exists() and (tmp_path / "second").exists()


def _ask() -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                                              "permissionDecisionReason": "needs a look"}})


async def test_continue_false_on_permission_request_is_ignored_as_claude_ignores_it(tmp_path: Path) -> None:
    # Claude Code 2.1.332 goes on after a PermissionRequest hook's continue:false (measured in -p):
    # the permission flow decides (here the host's approver allows) and the turn runs on.
    async with MemoryHost(tmp_path, approver=lambda _r: ApprovalOutcome.ALLOWED_ONCE) as host, \
            CompatAdapter(host) as adapter:
        await adapter.register_hook("claude", "PreToolUse", "Bash", _hook(tmp_path, "ask", _ask()))
        await adapter.register_hook("claude", "PermissionRequest", "Bash", _hook(tmp_path, "perm", HALT))
        agent = await host.create_agent(script=BASH_TWICE)
        result = await agent.run_turn("go")
    assert _runs(tmp_path, "perm") == 2
    assert result.reason == "completed" and result.steps == 3
    assert (tmp_path / "first").exists() and (tmp_path / "second").exists()


async def test_permission_request_fires_only_when_the_host_asks(tmp_path: Path) -> None:
    """Pinned loss (timing-differs): the host asks only when a pre-tool answer is ask. Claude's own
    permission rules (output redirection, commands not allowed up front) are not the host's, so a
    call they would send for approval runs here without the hook."""
    allow = json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                               "decision": {"behavior": "allow"}}})
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("claude", "PermissionRequest", "Bash", _hook(tmp_path, "perm", allow))
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="echo x > redirected"),)),
                                                "done"])
        await agent.run_turn("go")
        assert _runs(tmp_path, "perm") == 0 and (tmp_path / "redirected").exists()
        # Once something asks (a PreToolUse ask here), the hook answers the approval: no approver is
        # configured, yet its allow lets the call run.
        await adapter.register_hook("claude", "PreToolUse", "Bash", _hook(tmp_path, "ask", _ask()))
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="touch asked"),)), "done"])
        await agent.run_turn("go")
    assert _runs(tmp_path, "perm") == 1 and (tmp_path / "asked").exists()


async def test_codex_permission_request_never_sees_an_escalation_the_host_cannot_ask_for(tmp_path: Path) -> None:
    """Pinned loss (timing-differs; vendor lane codex:permission_deny): Codex runs PermissionRequest
    for a call that asks to leave its sandbox, and its deny refuses the call. The host has no
    sandbox: the same call, escalation fields and all, runs without the hook. Once the host asks
    (its own policy), the hook answers and its deny refuses."""
    deny = json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                              "decision": {"behavior": "deny", "message": "no"}}})
    escalate = {"sandbox_permissions": "require_escalated", "justification": "lane step"}
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("codex", "PermissionRequest", None, _hook(tmp_path, "perm", deny))
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="touch escalated", **escalate),)),
                                                "done"])
        await agent.run_turn("go")
        assert _runs(tmp_path, "perm") == 0 and (tmp_path / "escalated").exists()
        host.on("tools/pre-execute", _host_asks)
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="touch asked"),)), "done"])
        await agent.run_turn("go")
    assert _runs(tmp_path, "perm") == 1 and not (tmp_path / "asked").exists()


async def _host_asks(execution: object, next_: object) -> PreToolDecision:
    """The host's own policy: every call asks for approval."""
    return PreToolDecision("ask", "the host asks")


async def test_a_deny_that_interrupts_ends_the_turn_claude_and_copilot(tmp_path: Path) -> None:
    # Claude: decision.interrupt with deny stops Claude; Copilot: interrupt with deny stops the agent.
    answers = {
        ("claude", "PermissionRequest", "Bash"): json.dumps({"hookSpecificOutput": {
            "hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "no", "interrupt": True}}}),
        ("copilot", "permissionRequest", "bash"): json.dumps({"behavior": "deny", "message": "no", "interrupt": True}),
    }
    # Claude asks its permission hooks when something asks (a PreToolUse ask here); Copilot asks
    # them for the call itself (vendor lane, copilot:permission_interrupt).
    asks = {"claude": ("PreToolUse", "Bash", _ask())}
    for (vendor, event, matcher), answer in answers.items():
        where = tmp_path / vendor
        where.mkdir()
        async with MemoryHost(where) as host, CompatAdapter(host) as adapter:
            if vendor in asks:
                ask_event, ask_matcher, ask_answer = asks[vendor]
                await adapter.register_hook(vendor, ask_event, ask_matcher, _hook(where, "ask", ask_answer))
            await adapter.register_hook(vendor, event, matcher, _hook(where, "perm", answer))
            agent = await host.create_agent(script=BASH_TWICE)
            result = await agent.run_turn("go")
        assert _runs(where, "perm") == 1, vendor
        assert (result.reason, result.steps) == ("blocked", 1), vendor
        assert not (where / "first").exists() and not (where / "second").exists(), vendor


async def test_copilot_permission_request_asks_for_the_call_itself(tmp_path: Path) -> None:
    """Copilot CLI 1.0.102 runs permissionRequest for a shell call or a file write even under
    --allow-all-tools, after preToolUse left the call undecided (vendor lane, copilot:permission_*):
    its deny refuses the call in Copilot's words; a read asks nothing; a preToolUse allow or ask
    leaves it out (an ask nobody can answer is refused in preToolUse's words)."""
    deny = json.dumps({"behavior": "deny", "message": "not here"})
    (tmp_path / "README.md").write_text("hi\n")
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("copilot", "permissionRequest", None, _hook(tmp_path, "perm", deny))
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="touch plain"),)),
                                                Reply(calls=(call("read", path="README.md"),)), "done"])
        await agent.run_turn("go")
        results = [e.data["text"] for e in agent.session.events if e.type == "tool/result"]
    assert _runs(tmp_path, "perm") == 1 and not (tmp_path / "plain").exists()
    assert results == ["Permission denied by a PermissionRequest hook: not here", "hi\n"]
    for decision, runs in (("allow", True), ("ask", False)):
        async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
            await adapter.register_hook("copilot", "preToolUse", "bash",
                                        _hook(tmp_path, decision, json.dumps({"permissionDecision": decision})))
            await adapter.register_hook("copilot", "permissionRequest", None, _hook(tmp_path, "perm", deny))
            agent = await host.create_agent(script=[Reply(calls=(call("bash", command=f"touch {decision}"),)),
                                                    "done"])
            await agent.run_turn("go")
        assert _runs(tmp_path, decision) == 1 and _runs(tmp_path, "perm") == 1, decision
        assert (tmp_path / decision).exists() is runs, decision


async def test_notification_fires_once_per_idle_as_idle_prompt_never_on_running(tmp_path: Path) -> None:
    """CodeBuddy and Copilot notify when the agent waits for the user; the host's equivalent is the
    agent turning idle. Its turning busy is no notification (CodeBuddy fired once in the lane where
    this fired twice). A matcher on another kind selects nothing. (Claude's waits 60 s first:
    tests/test_idle_wait.py.)"""
    rows = (("workbuddy", "Notification"), ("copilot", "notification"))
    for vendor, event in rows:
        where = tmp_path / vendor
        where.mkdir()
        log = where / "payloads"
        log.mkdir()
        # One file per run: the two idles' hooks may run at once, and appends would interleave.
        idle = str(write_script(where / "idle.sh", f"cat > '{log}'/$$.json\n"))
        other = _hook(where, "other", "")
        async with MemoryHost(where) as host, CompatAdapter(host) as adapter:
            await adapter.register_hook(vendor, event, "idle_prompt", idle)
            await adapter.register_hook(vendor, event, "permission_prompt", other)
            agent = await host.create_agent(script=["one", "two"])
            await agent.run_turn("first")
            await agent.run_turn("second")
            await host.settle()
        payloads = [json.loads(f.read_text()) for f in sorted(log.iterdir())]
        assert [p["notification_type"] for p in payloads] == ["idle_prompt", "idle_prompt"], vendor
        assert _runs(where, "other") == 0, vendor
