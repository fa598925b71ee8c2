"""Copilot's own hook entries beyond a bash command, end to end: ``http`` against a real loopback
server, ``exec``/``args`` as a real process started without a shell, and the empty ``bash: ""``
placeholder (microsoft/vscode's .github/hooks/hooks.json), each decoded by the copilot dialect and
graded; plus the entries Copilot itself refuses, each one row saying why."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from loopback import Reply, http_server

from compat_adapter.declare import declare_hook
from compat_adapter.dialects.base import Moment
from compat_adapter.grading import grade
from compat_adapter.host.surfaces import EMBEDDED_SURFACE
from compat_adapter.importers import import_files
from compat_adapter.model import Capability, HttpHandler
from compat_adapter.routing.dispatch import HookEntry, make_entry, run_selected

CORPUS = Path(__file__).parent / "fixtures" / "real-configs" / "copilot"


def entry(handler: dict[str, Any], event: str = "preToolUse", matcher: str | None = None,
          *, remote: bool = False) -> HookEntry:
    """``remote``: the loopback test server stands for a policy server elsewhere, which Copilot
    would reach (it refuses loopback addresses: tested below), as with COPILOT_HOOK_ALLOW_LOCALHOST=1."""
    declared = declare_hook("copilot", event, matcher, handler)
    if remote:
        assert isinstance(declared.handler, HttpHandler) and declared.handler.refused_networks
        declared = replace(declared, handler=declared.handler.model_copy(update={"refused_networks": ()}))
    return make_entry("c1", declared)


def tool_moment(cwd: Path, event: str = "preToolUse", **arguments: Any) -> Moment:
    fields: dict[str, Any] = {"tool_name": "bash", "tool_input": arguments, "tool_use_id": "call-1"}
    if event == "postToolUse":
        fields["tool_response"] = "hello"
    return Moment(event=event, session_id="sess-1", cwd=str(cwd), transcript_path=None, turn=1, fields=fields)


def write_hooks(path: Path, hooks: dict[str, Any]) -> Path:
    path.write_text(json.dumps({"version": 1, "hooks": hooks}))
    return path


# ── http ───────────────────────────────────────────────────────────────────────────────────────

async def test_copilot_http_hook_posts_the_camel_case_payload_and_its_context_lands(tmp_path: Path) -> None:
    answer = json.dumps({"additionalContext": "remote policy: keep builds green"})
    with http_server(Reply(200, answer)) as server:
        e = entry({"type": "http", "url": f"{server.url}/post", "timeoutSec": 5}, "postToolUse", "bash", remote=True)
        result = await run_selected([e], tool_moment(tmp_path, "postToolUse", command="make"))
    assert result.merged.additional_context == ("remote policy: keep builds green",)
    [request] = server.requests
    sent = request.json()
    # Copilot's camelCase payload (toolArgs an object, as Copilot CLI 1.0.102 sends it), not Claude's.
    assert sent["toolName"] == "bash" and sent["toolArgs"] == {"command": "make"}
    assert "tool_name" not in sent and isinstance(sent["timestamp"], int)


async def test_copilot_http_pre_tool_without_an_answer_denies_and_a_timeout_lets_it_through(tmp_path: Path) -> None:
    # Copilot CLI 1.0.102, measured where its docs say fail-open: an http preToolUse whose server
    # answers non-2xx, or that reaches no server, denies the call as "hook errored", as a command's
    # exit 1 does; one that times out lets the call run (as a command's timeout does).
    deny = json.dumps({"permissionDecision": "deny", "permissionDecisionReason": "no"})
    with http_server(Reply(500, deny)) as server:
        http = await run_selected([entry({"type": "http", "url": server.url}, remote=True)],
                                  tool_moment(tmp_path, command="ls"))
    assert (http.merged.decision, http.merged.reason) == ("deny", "hook errored")
    assert "HTTP 500" in (http.merged.failed or "")
    with http_server(Reply(200, deny)) as server:
        answered = await run_selected([entry({"type": "http", "url": server.url}, remote=True)],
                                      tool_moment(tmp_path, command="ls"))
    assert (answered.merged.decision, answered.merged.reason) == ("deny", "no")
    with http_server(Reply(200, deny, delay_s=3.0)) as server:
        late = await run_selected([entry({"type": "http", "url": server.url, "timeoutSec": 1}, remote=True)],
                                  tool_moment(tmp_path, command="ls"))
    assert late.merged.decision == "none" and late.merged.failed
    gone = await run_selected([entry({"type": "http", "url": "https://127.0.0.1:9/"}, remote=True)],
                              tool_moment(tmp_path))
    assert (gone.merged.decision, gone.merged.reason) == ("deny", "hook errored")
    assert "ConnectError" in (gone.merged.failed or "")
    # A post-tool http hook without an answer fails open: only preToolUse fails closed.
    with http_server(Reply(500, "")) as server:
        post = await run_selected([entry({"type": "http", "url": server.url}, "postToolUse", "bash", remote=True)],
                                  tool_moment(tmp_path, "postToolUse", command="ls"))
    assert post.merged.decision == "none" and "HTTP 500" in (post.merged.failed or "")


async def test_copilot_never_sends_an_http_hook_to_a_loopback_or_private_address(tmp_path: Path) -> None:
    # Copilot CLI 1.0.102 refuses the URL before connecting ("resolves to blocked address …"): a
    # guard there denies every call, any other hook never answers (vendor lane post_http_loopback).
    allow = json.dumps({"permissionDecision": "allow", "additionalContext": "remote says hi"})
    with http_server(Reply(200, allow)) as server:
        port = server.url.rsplit(":", 1)[1]
        pre = await run_selected([entry({"type": "http", "url": f"https://localhost:{port}/"})],
                                 tool_moment(tmp_path, command="ls"))
        post = await run_selected([entry({"type": "http", "url": f"{server.url}/post"}, "postToolUse", "bash")],
                                  tool_moment(tmp_path, "postToolUse", command="ls"))
        mapped = await run_selected([entry({"type": "http", "url": f"http://[::ffff:127.0.0.1]:{port}/"},
                                           "postToolUse", "bash")],
                                    tool_moment(tmp_path, "postToolUse", command="ls"))
        assert server.requests == []
    assert (pre.merged.decision, pre.merged.reason) == ("deny", "hook errored")
    assert any(f"blocked address {a}" in (pre.merged.failed or "") for a in ("127.0.0.1", "::1"))
    assert post.merged.additional_context == () and "blocked address 127.0.0.1" in (post.merged.failed or "")
    assert "blocked address ::ffff:127.0.0.1" in (mapped.merged.failed or "")
    # Each range Copilot was measured to refuse, and two it was measured to reach.
    for url, refused in (("http://10.1.2.3/", True), ("http://172.20.0.1/", True), ("http://192.168.1.1/", True),
                         ("http://100.64.1.1/", True), ("http://169.254.1.1/", True), ("http://198.18.0.1/", True),
                         ("http://0.0.0.0/", True), ("http://[fd00::1]/", True), ("http://[fe80::1]/", True),
                         ("http://192.0.2.1:9/", False), ("http://224.0.0.1:9/", False)):
        e = entry({"type": "http", "url": url, "timeoutSec": 1}, "postToolUse", "bash")
        result = await run_selected([e], tool_moment(tmp_path, "postToolUse", command="ls"))
        assert ("blocked address" in (result.merged.failed or "")) is refused, (url, result.merged.failed)
    command = await run_selected([entry({"bash": "exit 1"})], tool_moment(tmp_path, command="ls"))
    assert command.merged.decision == "deny"


def test_copilot_http_entries_copilot_refuses_are_one_row_each(tmp_path: Path) -> None:
    path = write_hooks(tmp_path / "hooks.json", {
        "preToolUse": [{"type": "http", "url": "http://127.0.0.1:8080/pre"},
                       {"type": "http", "url": "https://policy.example.com/pre"}],
        "postToolUse": [{"type": "http", "url": "http://policy.example.com/post",
                         "headers": {"Authorization": "Bearer ${TOKEN}"}, "allowedEnvVars": ["TOKEN"]},
                        {"type": "http", "url": "http://127.0.0.1:8080/post"}],
        "sessionStart": [{"type": "prompt", "prompt": "/context"}, {"type": "prompt", "prompt": "Say hi"}],
    })
    result = import_files("copilot", [path], trust_all=True)
    assert [h.origin.split(":", 1)[1] for h in result.hooks] == ["hooks.preToolUse[1]", "hooks.postToolUse[1]"]
    rows = {r.origin.split(":", 1)[1]: r for r in result.refused}
    assert rows["hooks.preToolUse[0]"].code == "SKIPPED_BY_VENDOR"
    assert "https:// for preToolUse" in rows["hooks.preToolUse[0]"].reason
    assert "allowedEnvVars" in rows["hooks.postToolUse[0]"].reason
    assert "'/context' is a Copilot CLI slash command" in rows["hooks.sessionStart[0]"].reason
    assert "never submits a prompt on the user's behalf" in rows["hooks.sessionStart[1]"].reason
    graded = [grade(h.declared, EMBEDDED_SURFACE) for h in result.hooks]
    assert [g.capability for g in graded] == [Capability.ADAPTED] * 2
    # Claude's settings-level http policies are no loss for Copilot, which has none.
    assert not any("allowedHttpHookUrls" in d.text for g in graded for d in g.degradations)


# ── exec form ──────────────────────────────────────────────────────────────────────────────────

async def test_copilot_exec_form_runs_the_program_without_a_shell_and_its_deny_blocks(tmp_path: Path) -> None:
    out = tmp_path / "seen.json"
    script = ("import json, sys; data = json.load(sys.stdin); open(sys.argv[1], 'w').write(json.dumps("
              "{'argv': sys.argv[2:], 'tool': data['toolName']})); print(json.dumps({'permissionDecision': "
              "'deny', 'permissionDecisionReason': 'exec says no'}))")
    e = entry({"type": "command", "exec": sys.executable, "args": ["-c", script, str(out), "a b", "$HOME"]})
    result = await run_selected([e], tool_moment(tmp_path, command="rm -rf build"))
    assert (result.merged.decision, result.merged.reason) == ("deny", "exec says no")
    assert json.loads(out.read_text()) == {"argv": ["a b", "$HOME"], "tool": "bash"}
    graded = grade(e.declared, EMBEDDED_SURFACE)
    assert graded.capability is Capability.ADAPTED


def test_copilot_exec_and_a_shell_command_together_is_an_entry_copilot_drops(tmp_path: Path) -> None:
    path = write_hooks(tmp_path / "hooks.json", {"postToolUse": [
        {"exec": "node", "args": ["x.js"], "bash": "node x.js"}, {"exec": "node", "args": ["y.js"]}]})
    result = import_files("copilot", [path], trust_all=True)
    assert [r.code for r in result.refused] == ["INVALID_ENTRY"] and "not both" in result.refused[0].reason
    assert [h.origin.split(":", 1)[1] for h in result.hooks] == ["hooks.postToolUse[1]"]


# ── the empty bash placeholder ──────────────────────────────────────────────────────────────────

async def test_copilot_empty_bash_runs_and_does_nothing_as_copilot_does(tmp_path: Path) -> None:
    # Copilot CLI 1.0.102 (vendor lane, 2026-11-30): a preToolUse `bash: ""` let the call run; the
    # same entry with a missing cwd denied it, so the empty command is started, not skipped.
    result = import_files("copilot", [CORPUS / "vscode-hooks.json"], trust_all=True)
    assert not result.refused and len(result.hooks) == 6
    assert all(grade(h.declared, EMBEDDED_SURFACE).capability is Capability.ADAPTED for h in result.hooks)
    [pre] = [h for h in result.hooks if h.event == "preToolUse"]
    ran = await run_selected([make_entry("p", pre.declared)], tool_moment(tmp_path, command="ls"))
    assert ran.merged.decision == "none" and ran.outcomes[0].exit_code == 0
    lost = entry({"type": "command", "bash": "", "cwd": "no-such-dir"})
    denied = await run_selected([lost], tool_moment(tmp_path, command="ls"))
    assert denied.merged.decision == "deny"
