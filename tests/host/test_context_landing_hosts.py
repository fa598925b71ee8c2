"""Where hook context lands, on both hosts (the embedded one and the real DSH agent loop): appended
to the tool's result where Copilot and CodeBuddy append it, inside the user's prompt message where
CodeBuddy adds it; and, pinned on the real DSH packages, why Claude's system message and Codex's
developer message stay user messages (the listed ``message-provenance`` loss)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from test_contract import LANE_DIR, Lane, bash, dsh_lane, lane, printing

from compat_adapter.catalog import resolve_vendor
from compat_adapter.host.dsh.lane import lane as dsh_folder
from compat_adapter.host.script import Reply
from compat_adapter.model import DegradationCode

__all__ = ("dsh_lane", "lane")  # the fixtures, shared with the contract suite


def _ctx(event: str, text: str) -> dict:
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


async def test_post_tool_context_is_appended_to_the_result_and_prompt_context_rides_in_the_prompt(
        lane: Lane, tmp_path: Path) -> None:
    async with lane.adapter(tmp_path) as adapter:
        await adapter.register_hook("workbuddy", "UserPromptSubmit", None,
                                    printing(tmp_path, "u", _ctx("UserPromptSubmit", "WB-PROMPT")))
        await adapter.register_hook("workbuddy", "PostToolUse", "Bash",
                                    printing(tmp_path, "p", _ctx("PostToolUse", "WB-POST")))
        await adapter.register_hook("copilot", "postToolUse", "bash",
                                    printing(tmp_path, "c", {"additionalContext": "CP-POST"}))
        agent = await lane.agent([Reply(None, (bash("echo hello-from-tool"),)), "done"])
        reason, _ = await lane.run(agent, "go on")
        log = await lane.log(agent)
    assert reason == "completed"
    [(is_error, text)] = Lane.tool_results(log)
    assert not is_error and "hello-from-tool" in text
    # In registration order, each in its vendor's words, after the tool's own output.
    assert text.endswith('\n<system-reminder data-role="tool-hint">WB-POST</system-reminder>'
                         '\n\nTool "bash" succeeded. Additional guidance from postToolUse hooks:\nCP-POST')
    prompts = [m for m, kind, _ in Lane.messages(log) if kind == "user"]
    assert prompts == ['<system-reminder data-role="hook">WB-PROMPT</system-reminder>\n\ngo on']
    assert not [m for m, _, _ in Lane.messages(log) if "WB-POST" in m or "CP-POST" in m]


def test_a_plugin_cannot_give_the_model_a_system_or_developer_message_on_dsh(dsh_lane: Path) -> None:
    """The pin of Claude's and Codex's ``message-provenance`` loss, on the installed DSH packages.

    Claude Code sends hook context as a ``system`` message after the tool result, Codex as a
    ``developer`` message. On DSH every message of the history comes from the session log, whose
    ``user/message`` records must hold role ``user`` (a session holding another role is refused when
    it is loaded again); ``agent/request`` returns an ``LlmCallConfig``, which has no messages; and
    the request ``llm/stream`` sees is frozen. So the context stays a user message, and says so."""
    modules = dsh_folder(LANE_DIR).modules / "@deepseek-ai"
    script = """
const { snapshotSessionEvent } = await import(process.argv[1])
const event = (role) => ({ type: 'user/message', seq: 0, time: 0,
  data: { id: 'm1', role, content: [{ type: 'text', text: 'hook context' }], source: { kind: 'plugin', plugin: 'compat-adapter' } } })
const out = {}
for (const role of ['user', 'system']) {
  try { snapshotSessionEvent(event(role)); out[role] = 'kept' } catch (e) { out[role] = String(e.message) }
}
console.log(JSON.stringify(out))
"""
    done = subprocess.run([str(dsh_folder(LANE_DIR).node), "--input-type=module", "-e", script,
                           (modules / "dsh-session" / "lib" / "index.js").as_uri()],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["user"] == "kept"
    assert 'must have role "user"' in seen["system"]
    config = (modules / "dsh-llm" / "lib" / "types" / "call-config.d.ts").read_text(encoding="utf-8")
    body = config.split("export interface LlmCallConfig {", 1)[1].split("}", 1)[0]
    assert "messages" not in body and "system" not in body
    # ... and the rows say what the model reads instead.
    for vendor, event, role in (("claude", "PostToolUse", "system message"), ("claude", "PreToolUse", "system"),
                                ("codex", "PostToolUse", "developer message"),
                                ("codex", "PreToolUse", "developer message")):
        spec = resolve_vendor(vendor)
        row = spec.row(event)
        assert row is not None
        texts = [d.text for d in spec.losses_for(row) if d.code is DegradationCode.MESSAGE_PROVENANCE]
        assert any(role in t and "user message" in t for t in texts), (vendor, event, texts)
