"""What a hook tells the person, on the embedded host: a ``notice`` session record in the vendor's
words, never a message the model reads, and a row of ``compat-adapter run``'s timeline; a held-back
hook file is announced when the session starts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import trust_project, write_script
from test_team_cli import cli

from compat_adapter.host.embedded.memory import MemoryHost
from compat_adapter.host.script import Reply, call
from compat_adapter.service import CompatAdapter


def _project(root: Path, event: str, answer: dict[str, Any], matcher: str | None = None) -> Path:
    (root / ".claude").mkdir(parents=True)
    hook = write_script(root / ".claude" / "hook.sh", f"cat > /dev/null\nprintf '%s' '{json.dumps(answer)}'\n")
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": str(hook)}]}
    if matcher:
        group["matcher"] = matcher
    (root / ".claude" / "settings.json").write_text(json.dumps({"hooks": {event: [group]}}))
    return root


def _run(project: Path, script: Path) -> dict[str, Any]:
    done = cli("run", ".", "--script", str(script), "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _notices(timeline: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(r["answer"], r["verdict"]) for r in timeline if r["seam"] == "notice"]


def test_run_shows_a_blocked_prompt_in_claudes_words(tmp_path: Path) -> None:
    project = _project(tmp_path / "p", "UserPromptSubmit", {"decision": "block", "reason": "NOT-TODAY"})
    trust_project("claude", project)
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"prompts": ["ship it"], "script": ["never"]}))
    data = _run(project, script)
    assert data["turns"] == ["blocked"]
    # The timeline flattens the text to one line, as it does every cell.
    assert _notices(data["timeline"]) == [
        ("blocked", "UserPromptSubmit operation blocked by hook: NOT-TODAY Original prompt: ship it")]


def test_run_announces_an_untrusted_file_at_the_session_start(tmp_path: Path) -> None:
    project = _project(tmp_path / "p", "UserPromptSubmit", {"decision": "block", "reason": "never runs"})
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"prompts": ["go"], "script": ["done"]}))
    data = _run(project, script)
    assert data["turns"] == ["completed"]
    [(kind, text)] = _notices(data["timeline"])
    assert kind == "held" and "compat-adapter trust" in text and ".claude/settings.json" in text


async def test_a_system_message_and_a_stop_reason_are_session_notices_not_messages(tmp_path: Path) -> None:
    hook = write_script(tmp_path / "halt.sh", "cat > /dev/null\nprintf '%s' '" + json.dumps(
        {"continue": False, "stopReason": "REVIEW-FIRST", "systemMessage": "HEADS-UP"}) + "'\n")
    async with MemoryHost(tmp_path) as host:
        async with CompatAdapter(host) as adapter:
            await adapter.register_hook("claude", "PreToolUse", "Bash", str(hook))
            agent = await host.create_agent(script=[Reply(None, (call("bash", command="true"),)), "never"])
            result = await agent.run_turn("go")
            await host.settle()
    notices = [(e.data["kind"], e.data["text"], e.data["endsTurn"]) for e in agent.session.events if e.type == "notice"]
    # Both notices are worded as Claude Code 2.1.332's terminal UI draws them (read under tmux since
    # the shown merge; ClaudeVoice): a systemMessage as "<Event>:<Tool> says: …" (lane case
    # system_message), a stopReason under "<Event>:<Tool> hook stopped Claude" (lane case pre_halt).
    assert notices == [("message", "PreToolUse:Bash says: HEADS-UP", False),
                       ("stopped", "PreToolUse:Bash hook stopped Claude\nREVIEW-FIRST", True)]
    said = " ".join(str(e.data.get("text")) for e in agent.session.events
                    if e.type in ("user/message", "developer/message", "tool/result"))
    assert "HEADS-UP" not in said and "REVIEW-FIRST" not in said
    assert result.steps == 1  # the call ran (Claude runs it, then stops): no step after it


async def test_codebuddy_stops_on_a_pre_tool_halt_and_shows_nothing_of_it(tmp_path: Path) -> None:
    # CodeBuddy Code 2.163.0 stops the agent before the call runs and says nothing of the stopReason
    # to the person (lane case workbuddy:pre_halt): the host stops the same way and shows no notice.
    hook = write_script(tmp_path / "halt.sh", "cat > /dev/null\nprintf '%s' '" + json.dumps(
        {"continue": False, "stopReason": "REVIEW-FIRST"}) + "'\n")
    async with MemoryHost(tmp_path) as host:
        async with CompatAdapter(host) as adapter:
            await adapter.register_hook("workbuddy", "PreToolUse", "Bash", str(hook))
            agent = await host.create_agent(script=[Reply(None, (call("bash", command="touch ran.txt"),)), "never"])
            result = await agent.run_turn("go")
            await host.settle()
    assert [e.data for e in agent.session.events if e.type == "notice"] == []
    assert not (tmp_path / "ran.txt").exists() and result.steps == 1
