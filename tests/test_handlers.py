"""Every handler kind and field, end to end: real hook processes, a real HTTP server, a real stdio MCP
server built with the `mcp` SDK and a scripted model server, all on loopback; the vendor's dialect
decodes what each returns, and grading lists what each loses."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from loopback import Reply, http_server, model_server

from compat_adapter.declare import declare_hook
from compat_adapter.errors import InvalidHandler
from compat_adapter.grading import grade
from compat_adapter.handlers.model import ModelEndpoint
from compat_adapter.handlers.rules import parse_rule, rule_matches, subcommands
from compat_adapter.host.embedded.memory import MemoryHost
from compat_adapter.host.protocol import PreToolDecision
from compat_adapter.host.surfaces import EMBEDDED_SURFACE
from compat_adapter.model import Capability, DegradationCode
from compat_adapter.routing import points, verdicts
from compat_adapter.routing.dispatch import AuditRecord, HookEntry, Runner, make_entry, run_selected
from compat_adapter.routing.state import RunnerState

MCP_SERVER = Path(__file__).parent / "fixtures" / "handlers" / "mcp_guard_server.py"
NATIVE = EMBEDDED_SURFACE  # the embedded host's surface (shell, no model unless configured)


def entry(handler: object, event: str = "PreToolUse", vendor: str = "claude", matcher: str | None = None,
          id: str = "h1") -> HookEntry:
    return make_entry(id, declare_hook(vendor, event, matcher, handler))


def tool_moment(cwd: Path, tool: str = "bash", event: str = "PreToolUse", **arguments: Any) -> Any:
    from compat_adapter.dialects.base import Moment

    return Moment(event=event, session_id="sess-1", cwd=str(cwd), transcript_path=None, turn=1,
                  fields={"tool_name": tool, "tool_input": arguments, "tool_use_id": "call-1"})


def stop_moment(cwd: Path) -> Any:
    from compat_adapter.dialects.base import Moment

    return Moment(event="Stop", session_id="sess-1", cwd=str(cwd), transcript_path=None, turn=1,
                  fields={"last_assistant_message": "all done"})


def losses(result: Any) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for d in result.degradations:
        out.setdefault(str(d.code), []).append(d.text)
    return out


# ── http ───────────────────────────────────────────────────────────────────────────────────────

async def test_http_hook_posts_the_payload_and_its_deny_blocks(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOK_TOKEN", "t0ken")
    monkeypatch.setenv("OTHER_SECRET", "never-sent")
    deny = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": "remote policy says no"}}
    with http_server(Reply(200, json.dumps(deny))) as server:
        e = entry({"type": "http", "url": f"{server.url}/hook",
                   "headers": {"Authorization": "Bearer $HOOK_TOKEN", "X-Other": "${OTHER_SECRET}!"},
                   "allowedEnvVars": ["HOOK_TOKEN"]})
        result = await run_selected([e], tool_moment(tmp_path, command="rm -rf /"))
    assert (result.merged.decision, result.merged.reason) == ("deny", "remote policy says no")
    [request] = server.requests
    assert request.path == "/hook"
    sent = request.json()
    assert (sent["hook_event_name"], sent["tool_name"], sent["tool_input"]) == ("PreToolUse", "Bash",
                                                                              {"command": "rm -rf /"})
    assert request.headers["content-type"] == "application/json"
    # Only allow-listed variables are filled in; any other reference becomes empty, as in Claude.
    assert request.headers["authorization"] == "Bearer t0ken"
    assert request.headers["x-other"] == "!"


async def test_http_failures_never_block(tmp_path: Path) -> None:
    deny = json.dumps({"decision": "block", "reason": "no"})
    with http_server(Reply(500, deny), Reply(200, deny, delay_s=3.0)) as server:
        e = entry({"type": "http", "url": server.url, "timeout": 1})
        failed = await run_selected([e], tool_moment(tmp_path, command="ls"))
        slow = await run_selected([e], tool_moment(tmp_path, command="ls"))
    # A non-2xx status is a non-blocking error: the body is not read, the call goes ahead.
    assert failed.merged.decision == "none" and failed.outcomes[0].exit_code == 1
    assert "HTTP 500" in failed.outcomes[0].stderr
    assert slow.merged.decision == "none" and slow.outcomes[0].timed_out
    # Nothing listens on the discard port: a connection failure is non-blocking too.
    gone = await run_selected([entry({"type": "http", "url": "http://127.0.0.1:9/"})], tool_moment(tmp_path))
    assert gone.merged.decision == "none" and gone.outcomes[0].exit_code == 1


async def test_claude_never_sends_an_http_hook_to_a_link_local_address(tmp_path: Path) -> None:
    # Claude Code 2.1.332 refuses a link-local URL before connecting ("HTTP hook blocked: … is a
    # link-local, cloud metadata or reserved address"); it reaches loopback and private ones (each
    # measured in the lane's sandbox with a server on the address). The failure is non-blocking.
    context = json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "hi"}})
    with http_server(Reply(200, context)) as server:
        local = await run_selected([entry({"type": "http", "url": f"{server.url}/post"}, "PostToolUse")],
                                   tool_moment(tmp_path, event="PostToolUse", command="ls"))
        assert len(server.requests) == 1 and local.merged.additional_context == ("hi",)
    for url in ("http://169.254.169.254/latest/meta-data", "http://[fe80::1]/", "http://[::ffff:169.254.1.1]/"):
        refused = await run_selected([entry({"type": "http", "url": url, "timeout": 1}, "PostToolUse")],
                                     tool_moment(tmp_path, event="PostToolUse", command="ls"))
        assert refused.merged.decision == "none" and "blocked address" in refused.outcomes[0].stderr, url


async def test_the_address_check_of_an_http_hook_counts_in_its_timeout(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # A resolver that never answers (injected: the host's own is not ours to stall) is the hook's
    # timeout, not a wait of the resolver's own on top of it.
    async def silent(*args: Any, **kwargs: Any) -> Any:
        await anyio.sleep_forever()

    import compat_adapter.handlers.http as http

    monkeypatch.setattr(http.anyio, "getaddrinfo", silent)
    with anyio.fail_after(10):
        late = await run_selected([entry({"type": "http", "url": "http://policy.invalid/", "timeout": 1},
                                         "PostToolUse", "qwen")],
                                  tool_moment(tmp_path, event="PostToolUse", command="ls"))
    assert late.outcomes[0].timed_out and late.merged.decision == "none"


async def test_qwen_never_sends_an_http_hook_to_a_private_or_link_local_address(tmp_path: Path) -> None:
    # Qwen Code 0.24.4 (its ssrfGuard, read in the package; 10.9.9.9 and 169.254.1.1 measured refused,
    # 127.0.0.1 reached): loopback is allowed, private and link-local ranges and a few names are not.
    context = json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "hi"}})
    with http_server(Reply(200, context)) as server:
        local = await run_selected([entry({"type": "http", "url": f"{server.url}/post"}, "PostToolUse", "qwen")],
                                   tool_moment(tmp_path, event="PostToolUse", command="ls"))
        port = server.url.rsplit(":", 1)[1]
        named = await run_selected([entry({"type": "http", "url": f"http://localhost.localdomain:{port}/"},
                                          "PostToolUse", "qwen")],
                                   tool_moment(tmp_path, event="PostToolUse", command="ls"))
        assert len(server.requests) == 1 and local.merged.additional_context == ("hi",)
    assert "blocked address localhost.localdomain" in named.outcomes[0].stderr
    for url in ("http://10.9.9.9/", "http://192.168.0.1/", "http://[fd00::1]/", "http://0.0.0.0/"):
        refused = await run_selected([entry({"type": "http", "url": url, "timeout": 1}, "PostToolUse", "qwen")],
                                     tool_moment(tmp_path, event="PostToolUse", command="ls"))
        assert "blocked address" in refused.outcomes[0].stderr, url


def test_http_hook_is_graded_with_its_loss() -> None:
    decl = declare_hook("claude", "PostToolUseFailure", "Bash", {"type": "http", "url": "http://127.0.0.1:1/"})
    result = grade(decl, NATIVE)
    assert result.capability is Capability.ADAPTED
    assert any("allowedHttpHookUrls" in t for t in losses(result)["scope-differs"])
    with pytest.raises(InvalidHandler, match="http:// or https://"):
        declare_hook("claude", "Stop", None, {"type": "http", "url": "ftp://x"})


# ── mcp_tool ───────────────────────────────────────────────────────────────────────────────────

def write_mcp_config(project: Path, log: Path) -> None:
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"guard": {
        "command": sys.executable, "args": [str(MCP_SERVER)], "env": {"GUARD_LOG": "${LOG_FILE:-" + str(log) + "}"},
    }}}))


async def test_mcp_tool_hook_calls_the_named_server_tool(tmp_path: Path) -> None:
    log = tmp_path / "guard.log"
    write_mcp_config(tmp_path, log)
    e = entry({"type": "mcp_tool", "server": "guard", "tool": "check_path",
               "input": {"path": "${tool_input.file_path}"}, "timeout": 60})
    secret = str(tmp_path / "secrets" / "key.pem")
    denied = await run_selected([e], tool_moment(tmp_path, tool="write", path=secret, content="x"))
    allowed = await run_selected([e], tool_moment(tmp_path, tool="write", path=str(tmp_path / "a.py"), content="x"))
    assert (denied.merged.decision, denied.merged.reason) == ("deny", f"mcp guard: {secret} is secret")
    assert allowed.merged.decision == "none" and allowed.outcomes[0].exit_code == 0
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    # The placeholder was filled from the hook input; the server ran in the project directory.
    assert calls == [{"path": secret, "cwd": str(tmp_path)}, {"path": str(tmp_path / "a.py"), "cwd": str(tmp_path)}]


async def test_mcp_tool_failures_never_block(tmp_path: Path) -> None:
    write_mcp_config(tmp_path, tmp_path / "guard.log")
    exploding = await run_selected([entry({"type": "mcp_tool", "server": "guard", "tool": "explode"})],
                                   tool_moment(tmp_path))
    assert exploding.merged.decision == "none" and exploding.outcomes[0].exit_code == 1
    assert "Error executing tool explode" in exploding.outcomes[0].stderr
    missing = await run_selected([entry({"type": "mcp_tool", "server": "nope", "tool": "x"})], tool_moment(tmp_path))
    assert missing.outcomes[0].exit_code == 1 and "'nope' is not configured" in missing.outcomes[0].stderr


def test_mcp_tool_is_graded_with_its_loss() -> None:
    decl = declare_hook("claude", "Notification", None, {"type": "mcp_tool", "server": "s", "tool": "t"})
    result = grade(decl, NATIVE)
    assert result.capability is Capability.ADAPTED
    assert any("started over stdio for each call" in t for t in losses(result)["timing-differs"])


# ── prompt and agent ───────────────────────────────────────────────────────────────────────────

@pytest.mark.parametrize("api", ["anthropic", "chat"])
async def test_prompt_hook_asks_the_host_model_and_ok_false_denies(tmp_path: Path, api: str) -> None:
    with model_server('{"ok": false, "reason": "not on a Friday"}', '{"ok": true}') as server:
        endpoint = ModelEndpoint(api=api, base_url=server.url, model="scripted")  # type: ignore[arg-type]
        async with MemoryHost(tmp_path, model=endpoint) as host:
            assert "model" in host.surface.services
            audit: list[AuditRecord] = []
            runner = Runner(host, audit)
            e = entry({"type": "prompt", "prompt": "Is this call safe? $ARGUMENTS", "model": "claude-haiku"})
            graded = grade(declare_hook("claude", "PostToolUseFailure", None, e.handler), host.surface)
            assert graded.capability is Capability.ADAPTED
            assert any("claude-haiku" in t for t in losses(graded)["model-differs"])
            point = dataclasses.replace(points.PRE_EXECUTE, name=e.row.point)
            runner.add(e, verdicts.pre_tool)
            fields = {"tool_name": "bash", "tool_input": {"command": "deploy"}, "tool_use_id": "c1"}
            first = await runner.run(point, fields, session=None)
            second = await runner.run(point, fields, session=None)
    # Claude's own deny text on the native route.
    assert first[-1][1].verdict == PreToolDecision("deny", "PreToolUse:Bash hook error: not on a Friday")
    assert second[-1][1].verdict is None
    asked = server.requests[0].json()
    text = json.dumps(asked)
    # $ARGUMENTS became the hook input; the vendor's model name is not what answers.
    assert '\\"tool_name\\": \\"Bash\\"' in text and "Is this call safe?" in text
    assert asked["model"] == "scripted"
    assert [a.decision for a in audit] == ["deny", "none"]


async def test_agent_hook_on_stop_blocks_and_bad_replies_do_not(tmp_path: Path) -> None:
    with model_server('{"ok": false, "reason": "tests were not run"}', "I think it is fine") as server:
        endpoint = ModelEndpoint(api="anthropic", base_url=server.url, model="scripted")
        async with MemoryHost(tmp_path, model=endpoint) as host:
            e = entry({"type": "agent", "prompt": "Verify the tests ran."}, event="Stop")
            blocked = await run_selected([e], stop_moment(tmp_path), host.complete)
            unreadable = await run_selected([e], stop_moment(tmp_path), host.complete)
    assert (blocked.merged.decision, blocked.merged.reason) == ("block", "tests were not run")
    assert "Verify the tests ran." in server.requests[0].json()["messages"][0]["content"]
    assert unreadable.merged.decision == "none" and "not {\"ok\"" in unreadable.outcomes[0].stderr


async def test_prompt_hook_without_a_model_is_unsupported_with_that_reason(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COMPAT_ADAPTER_MODEL_URL", raising=False)
    async with MemoryHost(tmp_path) as host:
        surface = host.surface
    decl = declare_hook("claude", "PostToolUseFailure", None, {"type": "prompt", "prompt": "done?"})
    result = grade(decl, surface)
    assert result.capability is Capability.UNSUPPORTED and "no model" in (result.reason or "")
    agent = grade(declare_hook("claude", "PostToolUseFailure", None, {"type": "agent", "prompt": "done?"}),
                  surface.model_copy(update={"services": surface.services | {"model"}}))
    assert agent.capability is Capability.ADAPTED
    assert set(losses(agent)) >= {"model-differs", "scope-differs"}
    # Claude runs prompt hooks only on some events; a SessionStart prompt never runs there.
    start = grade(declare_hook("claude", "SessionStart", None, {"type": "prompt", "prompt": "x"}), surface)
    assert start.capability is Capability.UNSUPPORTED and "SessionStart" in (start.reason or "")


# ── if ─────────────────────────────────────────────────────────────────────────────────────────

def marker_hook(path: Path, rule: str) -> dict[str, Any]:
    return {"type": "command", "command": f"echo ran >> {path}", "if": rule}


async def test_if_rule_decides_whether_the_process_starts(tmp_path: Path) -> None:
    ran = tmp_path / "ran.txt"
    push = entry(marker_hook(ran, "Bash(git push:*)"))
    for command, expected in [("git push origin main", 1), ("ls && git push", 2), ("git status", 2),
                              ("GIT_TRACE=1 git push", 3), ("echo 'git push'", 3)]:
        await run_selected(*_admitted([push], tool_moment(tmp_path, command=command)))
        assert (ran.read_text().count("ran") if ran.exists() else 0) == expected, command
    edits = entry(marker_hook(tmp_path / "edits.txt", "Edit(src/**)"))
    await run_selected(*_admitted([edits], tool_moment(tmp_path, tool="edit", path=str(tmp_path / "src/a/b.py"),
                                                       old="a", new="b")))
    await run_selected(*_admitted([edits], tool_moment(tmp_path, tool="edit", path=str(tmp_path / "lib/c.py"),
                                                       old="a", new="b")))
    assert (tmp_path / "edits.txt").read_text() == "ran\n"


def _admitted(chosen: list[HookEntry], moment: Any, state: Any = None) -> tuple[list[HookEntry], Any]:
    from compat_adapter.routing.dispatch import admit

    now, later = admit(chosen, moment, RunnerState() if state is None else state)
    assert later == []
    return now, moment


@pytest.mark.parametrize(("rule", "command", "hit"), [
    ("Bash(git commit:*)", "git commit -m 'x'", True),
    ("Bash(git commit:*)", "git commitx", False),
    ("Bash(git commit:*)", "GIT COMMIT", True),  # Claude folds case
    ("Bash(*git*commit*)", "cd repo && git  commit -a", True),
    ("Bash(*gh*pr*merge*)", "gh pr create", False),
    ("Bash(git *)", "git", True),  # a single trailing ` *` also matches nothing
    ("Bash(rm *)", "rm -rf build", True),
    ("Bash(rm *)", "echo rm", False),
    ("Bash", "anything at all", True),
    ("Bash(npm test)", "npm test | tee log", True),
    ("Bash(git push:*)", "echo 'unclosed", True),  # unreadable: Claude matches every rule
    ("Write", "x", False),
])
def test_bash_rules_match_as_claude_does(rule: str, command: str, hit: bool) -> None:
    parsed = parse_rule(rule)
    assert parsed is not None
    assert rule_matches(parsed, "Bash", {"command": command}, "/p") is hit


def test_file_rules_are_gitignore_patterns_from_the_project() -> None:
    def hit(rule: str, path: str) -> bool:
        parsed = parse_rule(rule)
        assert parsed is not None
        return rule_matches(parsed, "Edit", {"file_path": path}, "/p")

    assert hit("Edit(src/**)", "/p/src/deep/a.ts") and not hit("Edit(src/**)", "/p/lib/a.ts")
    assert hit("Edit(*.ts)", "/p/src/a.ts") and not hit("Edit(*.ts)", "/p/src/a.tsx")
    assert hit("Edit(//etc/hosts)", "/etc/hosts")
    # A leading / anchors at the project; a pattern without a star is also compared with the whole
    # absolute path (Claude's fallback), so /etc/hosts still names that file.
    assert hit("Edit(/src/*.ts)", "/p/src/a.ts") and not hit("Edit(/src/*.ts)", "/p/lib/src/a.ts")
    assert hit("Edit(/etc/hosts)", "/etc/hosts")
    assert subcommands("A=1 B=2 make test; echo ok") == ["make test", "echo ok"]
    fetch = parse_rule("WebFetch(domain:example.com)")
    assert fetch is not None and not rule_matches(fetch, "WebFetch", {"url": "https://example.com/"}, "/p")
    graded = grade(declare_hook("claude", "PostToolUseFailure", None, {
        "type": "command", "command": "true", "if": "WebFetch(domain:example.com)"}), NATIVE)
    assert any("never runs on WebFetch" in t for t in losses(graded)["matcher-narrowed"])


async def test_if_never_runs_off_tool_events_and_is_graded(tmp_path: Path) -> None:
    ran = tmp_path / "ran.txt"
    e = entry(marker_hook(ran, "Bash(*)"), event="Stop")
    now, _ = _admitted([e], stop_moment(tmp_path))
    assert now == []
    assert grade(e.declared, NATIVE).capability is Capability.UNSUPPORTED
    bash_if = grade(declare_hook("claude", "PostToolUseFailure", "Bash", marker_hook(ran, "Bash(git *)")), NATIVE)
    assert bash_if.capability is Capability.ADAPTED
    assert any("POSIX tokenizer" in t for t in losses(bash_if)["matcher-narrowed"])


# ── args (exec form), shell ────────────────────────────────────────────────────────────────────

async def test_exec_form_passes_each_argument_untouched_without_a_shell(tmp_path: Path) -> None:
    out = tmp_path / "argv.json"
    script = "import json, sys; open(sys.argv[1], 'w').write(json.dumps(sys.argv[2:]))"
    e = entry({"type": "command", "command": Path(sys.executable).name,
               "args": ["-c", script, str(out), "a b", "$HOME", "`id`", "${CLAUDE_PROJECT_DIR}/x"]})
    assert e.handler.args is not None  # type: ignore[union-attr]
    ran = await run_selected([e], tool_moment(tmp_path, command="ls"))
    assert ran.outcomes[0].exit_code == 0, ran.outcomes[0].stderr
    # No shell: spaces, $HOME and backquotes reach the program as written; the vendor's own
    # placeholder is filled in as a plain string.
    assert json.loads(out.read_text()) == ["a b", "$HOME", "`id`", f"{tmp_path}/x"]
    missing = entry({"type": "command", "command": "no-such-program-here", "args": []})
    gone = await run_selected([missing], tool_moment(tmp_path))
    assert gone.outcomes[0].cause == "spawn-failed" and gone.merged.decision == "none"


async def test_shell_field(tmp_path: Path) -> None:
    e = entry({"type": "command", "command": "echo $0 > shell.txt", "shell": "bash"})
    await run_selected([e], tool_moment(tmp_path))
    assert (tmp_path / "shell.txt").read_text().strip()  # ran under $SHELL (bash here)
    ps = declare_hook("claude", "PostToolUseFailure", None, {"type": "command", "command": "Write-Output hi",
                                                             "shell": "powershell"})
    result = grade(ps, NATIVE)
    if shutil.which("pwsh") is None:
        assert result.capability is Capability.UNSUPPORTED and "no pwsh" in (result.reason or "")
    else:
        assert result.capability is Capability.ADAPTED


# ── async, asyncRewake, once, statusMessage, unknown fields ────────────────────────────────────

async def test_async_hook_runs_in_the_background_and_cannot_block(tmp_path: Path) -> None:
    done = tmp_path / "done.txt"
    slow_deny = (f"sleep 0.5; echo finished > {done}; echo 'async says no' >&2; exit 2")
    async with MemoryHost(tmp_path) as host:
        audit: list[AuditRecord] = []
        runner = Runner(host, audit)
        e = entry({"type": "command", "command": slow_deny, "asyncRewake": True, "statusMessage": "Scanning…"})
        point = dataclasses.replace(points.PRE_EXECUTE, name=e.row.point)
        runner.add(e, verdicts.pre_tool)
        with anyio.fail_after(30):
            applied = await runner.run(point, {"tool_name": "bash", "tool_input": {"command": "ls"},
                                               "tool_use_id": "c1"}, session=None)
        assert applied == [] and not done.exists()  # no answer awaited: the call went ahead
        await host.settle()
        assert done.read_text() == "finished\n"
        [record] = audit
        assert (record.decision, record.honoured, record.exit_code) == ("deny", False, 2)
        assert "no agent to wake" in record.note  # this dispatch carried no agent
        assert any("Scanning…" in r.message for r in host.records)
        assert any(r.fields.get("output") == "async says no" for r in host.records)
    graded = grade(declare_hook("claude", "PostToolUseFailure", None, e.handler), NATIVE)
    assert graded.capability is Capability.ADAPTED
    texts = [d.text for d in graded.degradations]
    assert any("audited and dropped" in t for t in texts) and any("wakes the agent" in t for t in texts)
    assert any("statusMessage goes to the host's operator log" in t for t in texts)


async def test_once_runs_once_per_session(tmp_path: Path) -> None:
    ran = tmp_path / "ran.txt"
    e = entry({"type": "command", "command": f"echo x >> {ran}", "once": True})
    state = RunnerState()  # one adapter's runner: it remembers which session a once hook ran in
    for _ in range(3):
        await run_selected(*_admitted([e], tool_moment(tmp_path), state))
    other = dataclasses.replace(tool_moment(tmp_path), session_id="sess-2")
    await run_selected(*_admitted([e], other, state))
    assert ran.read_text() == "x\nx\n"
    # The session's agent is gone: what the runner kept for the session goes with it.
    state.forget_agent("agent-1", "sess-2")
    assert set(state.spent) == {tool_moment(tmp_path).session_id}


def test_unknown_and_unhonoured_fields_are_graded_never_silent() -> None:
    decl = declare_hook("claude", "PostToolUseFailure", None, {
        "type": "command", "command": "true", "blocking": True, "onFailure": "block", "rewakeSummary": "s",
        "onFailure_typo": 1})
    assert decl.handler.ignored == ("blocking", "onFailure", "rewakeSummary", "onFailure_typo")  # type: ignore[union-attr]
    texts = losses(grade(decl, NATIVE))[str(DegradationCode.FIELD_IGNORED)]
    assert len(texts) == 4
    assert any("`blocking` is not a claude handler field" in t for t in texts)
    assert any("onFailure" in t and "block" in t for t in texts)
    plain = declare_hook("claude", "PostToolUseFailure", None, {"type": "command", "command": "true",
                                                                "onFailure": "continue"})
    assert plain.handler.ignored == ()  # type: ignore[union-attr]


async def test_async_rewake_exit_2_wakes_the_agent_with_its_output(tmp_path: Path) -> None:
    e = entry({"type": "command", "command": "sleep 0.2; echo 'review: secret in commit' >&2; exit 2",
               "asyncRewake": True, "rewakeMessage": "Background security review:"}, event="PostToolUse")
    quiet = entry({"type": "command", "command": "exit 0", "asyncRewake": True}, event="PostToolUse", id="h2")
    async with MemoryHost(tmp_path) as host:
        audit: list[AuditRecord] = []
        runner = Runner(host, audit)
        point = dataclasses.replace(points.POST_EXECUTE, name=e.row.point)
        runner.add(e, verdicts.post_tool)
        runner.add(quiet, verdicts.post_tool)
        agent = await host.create_agent(script=["noted"])
        fields = {"tool_name": "bash", "tool_input": {"command": "git commit -m x"}, "tool_use_id": "c1",
                  "tool_response": "ok", "is_error": False, "error": None}
        await runner.run(point, fields, session=agent.session, scene={"agent": agent})
        await host.settle()
        with anyio.fail_after(30):
            while agent.status != "idle" or not agent.session.of_type("turn/end"):
                await anyio.sleep(0.05)
        woke = [m.data["text"] for m in agent.session.of_type("user/message")]
    # The hook's exit 2 started a turn whose message is the prefix and the hook's output.
    assert woke == ["Background security review:\nreview: secret in commit"]
    assert sorted(a.note for a in audit) == ["async: ran in the background; its answer decides nothing",
                                             "asyncRewake: exit 2 woke the agent with the hook's output"]
