"""Where hook context lands, per vendor, as the vendor lane saw it (vendor-lane README §2): a message
of its own, a part of the user's prompt message, or text appended to the tool's result. Real hook
processes on the embedded host; each remaining difference is a listed loss, pinned here too."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import write_script

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.catalog import resolve_vendor
from compat_adapter.host.script import Reply, call
from compat_adapter.model import DegradationCode
from vendors import shared

BASH_THEN_DONE = [Reply(calls=(call("bash", command="echo hello-from-tool"),)), "done"]


def hook(tmp: Path, name: str, answer: object) -> str:
    """A hook that drains stdin and prints `answer` as JSON; returns its command line."""
    body = f"cat >/dev/null\nprintf '%s\\n' '{json.dumps(answer)}'\n"
    return str(write_script(tmp / f"{name}.sh", body))


def records(agent, kind: str) -> list[dict]:
    return [dict(e.data) for e in agent.session.of_type(kind)]


def hook_messages(agent) -> list[str]:
    """Hook context the model reads in its own message: a user message, or (Claude, Codex) the
    system or developer message the vendor puts it in (a ``developer/message`` record)."""
    messages = [*records(agent, "user/message"), *records(agent, "developer/message")]
    return [m["text"] for m in messages if m["source"]["kind"] == "compat-adapter-hook"]


def prompt_messages(agent) -> list[str]:
    return [m["text"] for m in records(agent, "user/message") if m["source"]["kind"] == "user"]


def losses(vendor: str, event: str, code: DegradationCode) -> list[str]:
    spec = resolve_vendor(vendor)
    row = spec.row(event)
    assert row is not None
    return [d.text for d in spec.losses_for(row) if d.code is code]


async def test_copilot_context_lands_where_copilot_puts_it(tmp_path: Path) -> None:
    """preToolUse: a labelled user message after the result; postToolUse: appended to the result
    under a line naming the tool; userPromptSubmitted: a <system_reminder> after the prompt, in the
    prompt's own message; sessionStart: a bare message of its own."""
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("copilot", "sessionStart", None, hook(tmp_path, "s", {"additionalContext": "C-S"}))
        await adapter.register_hook("copilot", "userPromptSubmitted", None,
                                    hook(tmp_path, "u", {"additionalContext": "C-U"}))
        await adapter.register_hook("copilot", "preToolUse", "bash", hook(tmp_path, "pre", {"additionalContext": "C-PRE"}))
        await adapter.register_hook("copilot", "postToolUse", "bash",
                                    hook(tmp_path, "post", {"additionalContext": "C-POST"}))
        agent = await host.create_agent(script=BASH_THEN_DONE)
        await agent.run_turn("go")
    [result] = records(agent, "tool/result")
    assert result["text"].startswith("hello-from-tool")
    assert result["text"].endswith(
        '\n\nTool "bash" succeeded. Additional guidance from postToolUse hooks:\nC-POST') and not result["isError"]
    assert prompt_messages(agent) == ["go\n\n<system_reminder>\nC-U\n</system_reminder>"]
    assert hook_messages(agent) == ["C-S", "Additional context from preToolUse hook:\nC-PRE"]
    steps = {m["text"]: m["step"] for m in records(agent, "user/message")}
    assert steps["Additional context from preToolUse hook:\nC-PRE"] == 2  # after the result
    # Nothing about these placements is listed as a loss any more (the one provenance loss left on
    # preToolUse is about a rewritten call's history, not about where context lands).
    for event in ("preToolUse", "postToolUse", "userPromptSubmitted", "sessionStart"):
        left = losses("copilot", event, DegradationCode.MESSAGE_PROVENANCE)
        assert left == ([shared.REWRITE_IN_HISTORY.text] if event == "preToolUse" else []), event


async def test_copilot_failure_context_is_a_message_in_copilots_words(tmp_path: Path) -> None:
    """Measured on Copilot CLI 1.0.102 (conformance copilot-020): a failing tool's postToolUseFailure
    context is a user message of its own, 'Tool "<tool>" failed. Additional guidance from …'. The
    failing call is one that cannot run: a bash command that exits non-zero is a success to Copilot
    (lane copilot:post_exit_nonzero)."""
    failing = [Reply(calls=(call("bash", command="touch never", timeout=-1),)), "done"]
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("copilot", "postToolUseFailure", None,
                                    hook(tmp_path, "f", {"additionalContext": "C-FAIL"}))
        agent = await host.create_agent(script=failing)
        await agent.run_turn("go")
    [result] = records(agent, "tool/result")
    assert result["isError"] and "C-FAIL" not in result["text"]
    assert hook_messages(agent) == ['Tool "bash" failed. Additional guidance from postToolUseFailure hooks:\nC-FAIL']


async def test_codebuddy_context_rides_in_the_prompt_and_the_tool_result(tmp_path: Path) -> None:
    """SessionStart and UserPromptSubmit context: a <system-reminder data-role="hook"> before the
    prompt in the user's own message (session-start context waits for the first prompt); PostToolUse
    context: appended to the tool result as <system-reminder data-role="tool-hint">."""
    def ctx(event: str, text: str) -> dict:
        return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}

    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("workbuddy", "SessionStart", None, hook(tmp_path, "s", ctx("SessionStart", "W-S")))
        await adapter.register_hook("workbuddy", "UserPromptSubmit", None,
                                    hook(tmp_path, "u", ctx("UserPromptSubmit", "W-U")))
        await adapter.register_hook("workbuddy", "PostToolUse", "Bash", hook(tmp_path, "p", ctx("PostToolUse", "W-P")))
        agent = await host.create_agent(script=[*BASH_THEN_DONE, "again"])
        await agent.run_turn("go")
        await agent.run_turn("second")
    assert prompt_messages(agent) == [
        '<system-reminder data-role="hook">W-S</system-reminder>\n\n'
        '<system-reminder data-role="hook">W-U</system-reminder>\n\ngo',
        # The session's context came once, with the first prompt; the prompt hook runs again.
        '<system-reminder data-role="hook">W-U</system-reminder>\n\nsecond',
    ]
    [result] = records(agent, "tool/result")
    assert result["text"].startswith("hello-from-tool")
    assert result["text"].endswith('\n<system-reminder data-role="tool-hint">W-P</system-reminder>')
    assert hook_messages(agent) == []
    assert not losses("workbuddy", "PostToolUse", DegradationCode.MESSAGE_PROVENANCE)
    # What stays different is listed: the host's messages are text, so the part is a paragraph.
    for event in ("SessionStart", "UserPromptSubmit"):
        assert any("paragraph" in t for t in losses("workbuddy", event, DegradationCode.MESSAGE_PROVENANCE))


async def test_codex_gives_pre_tool_context_bare_and_lists_the_developer_role(tmp_path: Path) -> None:
    """Codex 0.171.0 shows PreToolUse additionalContext as a developer message (vendor lane); the host
    has no developer role, so it is a user message, and the row says so."""
    pre = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "X-PRE"}}
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("codex", "PreToolUse", "Bash", hook(tmp_path, "pre", pre))
        agent = await host.create_agent(script=BASH_THEN_DONE)
        await agent.run_turn("go")
    assert hook_messages(agent) == ["X-PRE"]
    assert any("developer" in t for t in losses("codex", "PreToolUse", DegradationCode.MESSAGE_PROVENANCE))
