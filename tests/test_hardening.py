"""Issue 17, with real processes: no lost hook under concurrent registration, no file deleted or
exposed through the state folder, a serve that survives any bad line, and bounded run history.
"""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import write_script
from test_serve import SURFACE, MiniClient, agent_json, serve_command

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.errors import UnsafeStateDir
from compat_adapter.host.wire.channel import MAX_LINE
from compat_adapter.host.script import Reply, call
from compat_adapter.routing.bridgefiles import MARKER, config_dir, prune_orphans
from compat_adapter.service import AdapterConfig

N = 20
CLAUDE_BRIDGE = "@deepseek-ai/dsh-hooks-claude-code"
#: Claude rows go through the official bridge: by default today, with prefer="official" once the
#: fidelity-first policy is in (the option exists exactly then).
OFFICIAL = {"prefer": "official"} if "prefer" in AdapterConfig.model_fields else {}


async def _one_bash_call(host: MemoryHost) -> None:
    agent = await host.create_agent(script=[Reply(calls=(call("bash", command="true"),)), "done"])
    with anyio.fail_after(120):
        await agent.run_turn("go")


def _appender(tmp_path: Path, fired: Path, i: int) -> str:
    return str(write_script(tmp_path / f"h{i}.sh", f"cat >/dev/null\necho h{i} >> {fired}\n"))


# ── 1. lost hooks ───────────────────────────────────────────────────────────────────────────────

@pytest.mark.parametrize(("vendor", "event", "matcher", "options"), [
    ("claude", "PreToolUse", "Bash", OFFICIAL),      # the official bridge: one config per re-mount
    ("copilot", "preToolUse", "bash", {}),           # the built-in bridge on the seam listeners
])
async def test_concurrent_registrations_all_fire(tmp_path: Path, vendor: str, event: str, matcher: str,
                                                 options: dict[str, Any]) -> None:
    fired = tmp_path / "fired"
    work = tmp_path / "work"
    work.mkdir()
    async with MemoryHost(work) as host, CompatAdapter(host, state_dir=str(tmp_path / "state"),
                                                       **options) as adapter:
        results: list[Any] = []

        async def register(i: int) -> None:
            results.append(await adapter.register_hook(vendor, event, matcher, _appender(tmp_path, fired, i)))

        async with anyio.create_task_group() as tg:
            for i in range(N):
                tg.start_soon(register, i)
        assert len(results) == N
        if vendor == "claude":
            assert {str(r.route) for r in results} == {"official-bridge"}
        status = adapter.status()
        assert sum(h.running for h in status.hooks) == N
        await _one_bash_call(host)
    assert sorted(fired.read_text().split()) == sorted(f"h{i}" for i in range(N))


async def test_pipelined_serve_registrations_all_fire(tmp_path: Path) -> None:
    fired = tmp_path / "fired"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    process = await anyio.open_process(serve_command(), cwd=str(tmp_path), env=env)
    client = MiniClient(process)
    async with anyio.create_task_group() as tg:
        tg.start_soon(client.pump)
        hello = await client.call("hello", {"protocol": 1, "surface": SURFACE, "cwd": str(tmp_path)})
        assert "result" in hello, hello
        # All N requests in one write: the service reads them back to back and runs them at once.
        lines = b"".join(json.dumps({"id": 100 + i, "method": "register_hook", "params": {
            "vendor": "copilot", "event": "preToolUse", "matcher": "bash",
            "handler": _appender(tmp_path, fired, i)}}).encode() + b"\n" for i in range(N))
        await client.send_raw(lines)
        replies = [await client.reply(100 + i) for i in range(N)]
        assert all(r["result"]["capability"] == "ADAPTED" for r in replies), replies
        status = (await client.call("status"))["result"]
        assert sum(h["running"] for h in status["hooks"]) == N
        reply = await client.call("dispatch", {"seam": "tools/pre-execute", "dispatch": "d1", "event": {
            "call_id": "c1", "name": "bash", "arguments": {"command": "true"}, "agent": agent_json(tmp_path)}})
        assert "result" in reply, reply
        assert sorted(fired.read_text().split()) == sorted(f"h{i}" for i in range(N))
        await process.stdin.aclose()
        with anyio.fail_after(30):
            await process.wait()
        tg.cancel_scope.cancel()


# ── 2. the state folder ─────────────────────────────────────────────────────────────────────────

def _age(path: Path, days: float = 2) -> None:
    old = time.time() - days * 86400
    os.utime(path, (old, old))


async def test_pruning_deletes_only_old_configs_this_package_wrote(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir(mode=0o700)
    own_old = project / "dsh-hooks-claude-code-a1-1-0123abcd.json"
    own_old.write_text(json.dumps({MARKER: {"owner": "a1"}, "hooks": {}}))
    own_new = project / "dsh-hooks-claude-code-a1-2-0123abce.json"
    own_new.write_text(json.dumps({MARKER: {"owner": "a1"}, "hooks": {}}))
    lookalike = project / "dsh-hooks-claude-code-a1-3-0123abcf.json"  # the name, but no marker
    lookalike.write_text(json.dumps({"hooks": {}}))
    package = project / "package.json"  # a user's file
    package.write_text('{"name": "mine"}')
    target = tmp_path / "elsewhere.json"
    target.write_text(json.dumps({MARKER: {}}))
    link = project / "dsh-hooks-claude-code-a1-4-0123abd0.json"
    link.symlink_to(target)
    for path in (own_old, lookalike, package, target):
        _age(path)
    os.utime(link, (time.time() - 3 * 86400,) * 2, follow_symlinks=False)

    work = tmp_path / "work"
    work.mkdir()
    # A host pointing the state folder at a project: start prunes, and only our own orphan goes.
    async with MemoryHost(work) as host, CompatAdapter(host, state_dir=str(project)):
        pass
    assert not own_old.exists()
    assert own_new.exists() and lookalike.exists() and package.exists() and target.exists()
    assert link.is_symlink()
    assert prune_orphans(project) == []


async def test_generated_configs_are_private_and_marked(tmp_path: Path, trust_home: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    hook = write_script(tmp_path / "h.sh", "cat >/dev/null\n")
    async with MemoryHost(work) as host, CompatAdapter(host, **OFFICIAL) as adapter:
        await adapter.register_hook("claude", "PreToolUse", "Bash", f"{hook} --token=s3cret")
        path = Path(adapter.status().bridges[CLAUDE_BRIDGE] or "")
        # The default folder: bridges in the user's private state folder, 0700, never the temp dir.
        assert path.parent == trust_home / "bridges"
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        config = json.loads(path.read_text())
        assert MARKER in config and "s3cret" in json.dumps(config["hooks"])


def test_a_symlinked_or_shared_config_folder_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(UnsafeStateDir):
        config_dir(link)
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(UnsafeStateDir):
        config_dir(shared)
    made = config_dir(tmp_path / "fresh")
    assert stat.S_IMODE(made.stat().st_mode) == 0o700


def test_a_symlink_pre_created_at_the_default_folder_is_refused(tmp_path: Path, trust_home: Path) -> None:
    # Another account (or a hostile script) points the folder name at a place of its choosing.
    chosen = tmp_path / "attacker"
    chosen.mkdir()
    (trust_home / "bridges").symlink_to(chosen)
    with pytest.raises(UnsafeStateDir):
        config_dir()
    assert list(chosen.iterdir()) == []


# ── 3. serve: bad lines ─────────────────────────────────────────────────────────────────────────

async def test_serve_answers_every_bad_line_and_keeps_reading(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    process = await anyio.open_process(serve_command(), cwd=str(tmp_path), env=env)
    client = MiniClient(process)
    async with anyio.create_task_group() as tg:
        tg.start_soon(client.pump)

        async def error_after(data: bytes) -> dict[str, Any]:
            before = len(client.order)
            await client.send_raw(data)
            with anyio.fail_after(60):
                while len(client.order) == before:
                    await anyio.sleep(0.01)
            reply = client.replies[client.order[-1]]
            assert "error" in reply, reply
            return reply

        deep = b'{"id": 1001, "method": "status", "params": {"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}\n"
        reply = await error_after(deep)
        # Answered to its own id: a peer waiting on that request hears at once.
        assert reply["id"] == 1001 and reply["error"]["code"] == "NESTING_TOO_DEEP", reply
        notice = b'{"method": "log", "params": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"
        assert (await error_after(notice))["id"] is None
        huge = b'{"id": 1002, "method": "status", "params": {"a": "' + b"x" * (MAX_LINE + (4 << 20)) + b'"}}\n'
        assert (await error_after(huge))["error"]["code"] == "INPUT_TOO_LARGE"
        assert (await error_after(b"not json at all\n"))["error"]["code"] == "PROTOCOL_ERROR"
        for bad_id in (b"NaN", b"Infinity", b"-Infinity", b"1e400", b"9007199254740993"):
            raw = b'{"id": ' + bad_id + b', "method": "status"}\n'
            reply = await error_after(raw)
            assert reply["id"] is None and reply["error"]["code"] == "PROTOCOL_ERROR", (bad_id, reply)
        # Every reply so far was strict JSON (the pump parsed it with json.loads: check no NaN text).
        assert all(not isinstance(i, float) for i in client.order if i is not None)
        # Still reading, and still serving.
        hello = await client.call("hello", {"protocol": 1, "surface": SURFACE, "cwd": str(tmp_path)})
        assert hello["result"]["service"] == "compat-adapter"
        ok = await client.call("status")
        assert "result" in ok
        await process.stdin.aclose()
        with anyio.fail_after(30):
            await process.wait()
        assert process.returncode == 0
        tg.cancel_scope.cancel()


# ── 3b. hook output nested deeper than the limit ───────────────────────────────────────────────

DEEP = "[" * 100_000 + "]" * 100_000
#: Deep, yet under the DSH bridge's 64 000-byte output cap (past it DSH reads no JSON at all).
DEEP_20K = "[" * 20_000 + "]" * 20_000


def _deep_deny(tmp_path: Path, vendor: str) -> str:
    if vendor == "copilot":
        body = ('{"permissionDecision": "deny", "permissionDecisionReason": "deep says no", '
                f'"modifiedArgs": {{"command": {DEEP_20K}}}}}')
    else:
        body = ('{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", '
                f'"permissionDecisionReason": "deep says no", "updatedInput": {{"command": {DEEP_20K}}}}}}}')
    out = tmp_path / f"{vendor}.json"
    out.write_text(body + "\n")
    return str(write_script(tmp_path / f"{vendor}.sh", f"cat >/dev/null\ncat {out}\n"))


@pytest.mark.parametrize(("vendor", "event", "matcher", "options"), [
    ("copilot", "preToolUse", "bash", {}),
    ("claude", "PreToolUse", "Bash", {}),
    ("claude", "PreToolUse", "Bash", OFFICIAL),
])
async def test_a_deny_with_a_20k_deep_rewrite_still_denies(tmp_path: Path, vendor: str, event: str,
                                                            matcher: str, options: dict[str, Any]) -> None:
    # The vendors are JavaScript: JSON.parse reads any depth, so the deny stands there. Here the
    # part deeper than 200 levels is cut (it is a rewrite no route applies); the deny must stand.
    work = tmp_path / "work"
    work.mkdir()
    async with MemoryHost(work) as host, CompatAdapter(host, state_dir=str(tmp_path / "state"),
                                                       **options) as adapter:
        await adapter.register_hook(vendor, event, matcher, _deep_deny(tmp_path, vendor))
        agent = await host.create_agent(script=[
            Reply(calls=(call("bash", command=f"touch {work}/ran"),)), "done"])
        with anyio.fail_after(120):
            await agent.run_turn("go")
        results = [dict(e.data) for e in agent.session.events if e.type == "tool/result"]
    assert not (work / "ran").exists()
    assert results[0]["isError"] is True and "deep says no" in results[0]["text"]


def test_the_vendor_readers_keep_the_vendor_rule_and_bound_the_rest() -> None:
    from compat_adapter.jsonlimits import CLIPPED, MAX_DEPTH, check_depth
    from compat_adapter.jsontext import JsonTextError, js_read, rust_read

    value = js_read('{"decision": "block", "x": ' + DEEP + "}")
    assert value["decision"] == "block"
    check_depth(value)  # bounded for everything downstream
    inner = value["x"]
    depth = 1
    while isinstance(inner, list):
        inner, depth = inner[0], depth + 1
    assert (inner, depth) == (CLIPPED, MAX_DEPTH)
    shallow = '{"a": ' + "[" * 150 + "]" * 150 + "}"
    assert js_read(shallow) == json.loads(shallow)  # within the limit: nothing changes
    with pytest.raises(JsonTextError, match="recursion limit"):  # serde's own rule: 128 levels
        rust_read("[" * 129 + "]" * 129)


# ── 4. bounded memory ───────────────────────────────────────────────────────────────────────────

async def test_run_history_is_a_ring_and_status_does_not_grow_with_runs(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    hook = write_script(tmp_path / "allow.sh", "cat >/dev/null\necho '{\"permissionDecision\": \"allow\"}'\n")
    async with MemoryHost(work) as host, CompatAdapter(host, max_audit=5) as adapter:
        await adapter.register_hook("copilot", "preToolUse", "bash", str(hook))
        sizes = []
        for _ in range(3):
            for _ in range(4):
                await _one_bash_call(host)
            sizes.append(len(adapter.status().model_dump_json()))
        assert len(adapter.audit) == 5  # 12 runs, the newest 5 kept
        assert sizes[0] == sizes[1] == sizes[2]


async def test_serve_status_sends_the_newest_runs_only(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    process = await anyio.open_process(serve_command(), cwd=str(tmp_path), env=env)
    client = MiniClient(process)
    hook = write_script(tmp_path / "allow.sh", "cat >/dev/null\necho '{\"permissionDecision\": \"allow\"}'\n")
    async with anyio.create_task_group() as tg:
        tg.start_soon(client.pump)
        await client.call("hello", {"protocol": 1, "surface": SURFACE, "cwd": str(tmp_path),
                                    "adapter": {"max_audit": 4}})
        reg = await client.call("register_hook", {"vendor": "copilot", "event": "preToolUse",
                                                  "matcher": "bash", "handler": str(hook)})
        assert reg["result"]["capability"] == "ADAPTED", reg
        sizes = []
        for n in range(6):
            await client.call("dispatch", {"seam": "tools/pre-execute", "dispatch": f"d{n}", "event": {
                "call_id": f"c{n}", "name": "bash", "arguments": {"command": "true"},
                "agent": agent_json(tmp_path)}})
            status = (await client.call("status"))["result"]
            for record in status["audit"]:
                record["duration_ms"] = 0  # wall clock: the only field whose width may vary
            sizes.append(len(json.dumps(status)))
            assert len(status["audit"]) == min(n + 1, 4)
        assert sizes[3] == sizes[4] == sizes[5]
        assert (await client.call("status", {"audit": 1}))["result"]["audit"][-1]["decision"] == "allow"
        assert len((await client.call("status", {"audit": 0}))["result"]["audit"]) == 0
        await process.stdin.aclose()
        with anyio.fail_after(30):
            await process.wait()
        tg.cancel_scope.cancel()
