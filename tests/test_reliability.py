"""Reliability under hostile hooks and load, with real processes on the embedded host.

A hook that ignores SIGTERM and leaves children behind, a hook that floods its output, fifty
sessions served at once by two adapters, a bridge mount or config write failing halfway through a
re-mount, and a refused rules file. No timing assertions: waits are bounded only so that a broken
build fails instead of hanging.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import textwrap
import tracemalloc
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import write_script

from compat_adapter import CompatAdapter, MemoryHost, MountFailed, RulesTooLarge
from compat_adapter.host.protocol import BridgeMount
from compat_adapter.host.script import Reply, call
from compat_adapter.rules import RULES_SOURCE_KIND


def _results(agent: Any) -> list[dict[str, Any]]:
    return [dict(e.data) for e in agent.session.events if e.type == "tool/result"]


def _alive(pid: int) -> bool:
    """True when `pid` still runs. A zombie has stopped running; only its parent's reaping is
    left, and in a container without an init that reaps, that may never come."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # recycled into someone else's process: ours is gone
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def _survivors(pids: list[int], limit_s: float = 10.0) -> list[int]:
    with anyio.move_on_after(limit_s):
        while any(_alive(p) for p in pids):
            await anyio.sleep(0.05)
    return [p for p in pids if _alive(p)]


# ── a hook that ignores SIGTERM and forks ───────────────────────────────────────────────────────

async def test_sigterm_ignoring_hook_is_killed_with_its_group_and_the_next_event_is_served(
        tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    hook = write_script(tmp_path / "stubborn.sh", textwrap.dedent(f"""\
        payload=$(cat)
        case "$payload" in
          *HANG-HERE*)
            trap '' TERM
            echo $$ >> {pids}
            # A child shell that also ignores TERM, and its own child (the hook's grandchild).
            sh -c 'trap "" TERM; echo $$ >> {pids}; sleep 60 & echo $! >> {pids}; wait' &
            sleep 60 &
            echo $! >> {pids}
            wait
            ;;
          *)
            echo '{{"permissionDecision": "allow"}}'
            ;;
        esac
    """))
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("copilot", "preToolUse", "bash",
                                    {"bash": str(hook), "timeoutSec": 1})
        agent = await host.create_agent(script=[
            Reply(calls=(call("bash", command="echo HANG-HERE > first.txt"),)),
            Reply(calls=(call("bash", command="echo fine > second.txt"),)),
            "done",
        ])
        with anyio.fail_after(60):
            result = await agent.run_turn("go")
        assert result.reason == "completed"

        recorded = [int(line) for line in pids.read_text().split()]
        assert len(recorded) == 4, recorded  # the hook, its child shell, two sleeps
        assert await _survivors(recorded) == []

        first, second = adapter.audit
        assert first.cause == "timeout" and first.exit_code is None
        # Copilot fails open on a timed-out hook, preToolUse included: no decision, the call runs.
        assert first.decision == "none"
        results = _results(agent)
        assert [r["isError"] for r in results] == [False, False]
        assert (tmp_path / "first.txt").read_text() == "HANG-HERE\n"
        # The next event is served by the same hook, normally.
        assert second.cause is None and second.exit_code == 0 and second.decision == "allow"
        assert (tmp_path / "second.txt").read_text() == "fine\n"


# ── a hook that floods its output ───────────────────────────────────────────────────────────────

FLOOD = "head -c 100000000 /dev/zero | tr '\\0' x"


@pytest.mark.parametrize(("vendor", "event", "matcher"), [
    ("copilot", "postToolUse", "bash"),
    ("claude", "PostToolUseFailure", "Bash"),
])
async def test_a_100_mb_hook_output_is_capped_flagged_and_never_held(
        tmp_path: Path, vendor: str, event: str, matcher: str) -> None:
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook(vendor, event, matcher, {"type": "command", "command": FLOOD})
        # PostToolUseFailure fires on a failed call only; postToolUse on a successful one.
        command = "exit 3" if event == "PostToolUseFailure" else "echo ok"
        agent = await host.create_agent(script=[
            Reply(calls=(call("bash", command=command),)), "done"])
        tracemalloc.start()
        try:
            with anyio.fail_after(120):
                await agent.run_turn("go")
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 25_000_000, f"peak {peak / 1e6:.1f} MB while a hook wrote 100 MB"
        assert len(adapter.audit) == 1
        record = adapter.audit[-1]
        assert record.truncated is True
        assert record.exit_code == 0 and record.cause is None
        # Capped output is no vendor answer: nothing is decided, the call's result stands.
        assert record.decision == "none"
        assert len(_results(agent)) == 1


# ── fifty sessions, two adapters ────────────────────────────────────────────────────────────────

_DENIER = textwrap.dedent("""\
    import json, sys
    tag, fmt = sys.argv[1], sys.argv[2]
    payload = json.load(sys.stdin)
    if fmt == "copilot":
        command = payload["toolArgs"]["command"]
    else:
        command = payload["tool_input"]["command"]
    if tag + "-" not in command:
        sys.exit(0)
    reason = f"{tag} refuses [{command}]"
    if fmt == "copilot":
        print(json.dumps({"permissionDecision": "deny", "permissionDecisionReason": reason}))
    else:
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                                 "permissionDecision": "deny",
                                                 "permissionDecisionReason": reason}}))
""")


@pytest.mark.parametrize("b_vendor", ["copilot", "claude"])
async def test_fifty_concurrent_sessions_on_two_adapters_lose_and_cross_no_verdict(
        tmp_path: Path, b_vendor: str) -> None:
    denier = tmp_path / "denier.py"
    denier.write_text(_DENIER)
    py = sys.executable
    work = tmp_path / "work"
    work.mkdir()
    async with MemoryHost(work) as host, \
            CompatAdapter(host, state_dir=str(tmp_path / "state-a")) as a, \
            CompatAdapter(host, state_dir=str(tmp_path / "state-b")) as b:
        await a.register_hook("copilot", "preToolUse", "bash", f"{py} {denier} A copilot")
        if b_vendor == "copilot":
            await b.register_hook("copilot", "preToolUse", "bash", f"{py} {denier} B copilot")
        else:
            await b.register_hook("claude", "PreToolUse", "Bash",
                                  {"type": "command", "command": f"{py} {denier} B claude"})
        commands = []
        for i in range(50):
            tag = ("A-", "B-", "ok-")[i % 3]
            commands.append(f"echo {tag}{i} > out-{i}.txt")
        agents = [await host.create_agent(script=[Reply(calls=(call("bash", command=c),)), "done"])
                  for c in commands]
        with anyio.fail_after(180):
            async with anyio.create_task_group() as tg:
                for agent in agents:
                    tg.start_soon(agent.run_turn, "go")

        for i, (agent, command) in enumerate(zip(agents, commands, strict=True)):
            results = _results(agent)
            assert len(results) == 1, (i, results)
            result = results[0]
            out = work / f"out-{i}.txt"
            if "A-" in command:
                assert result == {**result, "isError": True,
                                  "text": f"Denied by preToolUse hook: A refuses [{command}]"}, i
                assert not out.exists()
            elif "B-" in command:
                # Each vendor's own deny text: Claude's on its native route, Copilot's on its bridge.
                label = "PreToolUse:Bash hook error: " if b_vendor == "claude" else "Denied by preToolUse hook: "
                assert result == {**result, "isError": True,
                                  "text": f"{label}B refuses [{command}]"}, i
                assert not out.exists()
            else:
                assert result["isError"] is False, (i, result)
                assert out.read_text() == f"ok-{i}\n"

        a_denies = sum("A-" in c for c in commands)
        assert len(a.audit) == 50
        assert sum(r.decision == "deny" for r in a.audit) == a_denies
        if b_vendor == "copilot":
            # A vetoes the rest of the waterfall: B sees only what A let through.
            assert len(b.audit) == 50 - a_denies
            assert sum(r.decision == "deny" for r in b.audit) == sum("B-" in c for c in commands)


# ── mount failures in the middle of a re-mount ──────────────────────────────────────────────────

class FlakyMountHost(MemoryHost):
    """The embedded host, refusing its second bridge mount."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.mount_calls = 0

    async def mount_bridge(self, package: str, config_path: Path, *, user: str | None = None) -> BridgeMount:
        self.mount_calls += 1
        if self.mount_calls == 2:
            raise RuntimeError("bridge refused to mount (injected)")
        return await super().mount_bridge(package, config_path, user=user)


def _claude_deny(tmp_path: Path, name: str, reason: str) -> str:
    body = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                              "permissionDecision": "deny",
                                              "permissionDecisionReason": reason}})
    return str(write_script(tmp_path / name, f"cat >/dev/null\necho '{body}'\n"))


async def _bash_result(host: MemoryHost, command: str) -> dict[str, Any]:
    agent = await host.create_agent(script=[Reply(calls=(call("bash", command=command),)), "done"])
    with anyio.fail_after(60):
        await agent.run_turn("go")
    (result,) = _results(agent)
    return result


async def test_a_failed_remount_keeps_the_earlier_hooks_firing(tmp_path: Path) -> None:
    first = _claude_deny(tmp_path, "first.sh", "first says no")
    second = _claude_deny(tmp_path, "second.sh", "second says no")
    work = tmp_path / "work"
    work.mkdir()
    async with FlakyMountHost(work) as host, \
            CompatAdapter(host, state_dir=str(tmp_path / "state"), prefer="official") as adapter:
        await adapter.register_hook("claude", "PreToolUse", "Bash", first, id="first")
        with pytest.raises(MountFailed) as caught:
            await adapter.register_hook("claude", "PreToolUse", "Write|Bash", second, id="second")
        assert caught.value.code == "MOUNT_FAILED"
        assert host.mount_calls == 2

        result = await _bash_result(host, "touch made.txt")
        assert result["isError"] is True and result["text"] == "Error: first says no"
        assert not (work / "made.txt").exists()

        hooks = {h.id: h for h in adapter.status().hooks}
        assert set(hooks) == {"first"}
        assert hooks["first"].running is True


async def test_a_failed_config_write_raises_mount_failed_and_keeps_the_earlier_hooks(
        tmp_path: Path) -> None:
    first = _claude_deny(tmp_path, "first.sh", "first says no")
    second = _claude_deny(tmp_path, "second.sh", "second says no")
    work = tmp_path / "work"
    work.mkdir()
    state = tmp_path / "state"
    async with MemoryHost(work) as host:
        adapter = CompatAdapter(host, state_dir=str(state), prefer="official")
        adapter.start()
        await adapter.register_hook("claude", "PreToolUse", "Bash", first, id="first")
        # The state directory becomes a file: no new config can be written there.
        shutil.rmtree(state)
        state.write_text("not a directory\n")
        with pytest.raises(MountFailed) as caught:
            await adapter.register_hook("claude", "PreToolUse", "Write|Bash", second, id="second")
        assert caught.value.code == "MOUNT_FAILED"

        result = await _bash_result(host, "touch made.txt")
        assert result["isError"] is True and result["text"] == "Error: first says no"
        assert not (work / "made.txt").exists()
        hooks = {h.id: h for h in adapter.status().hooks}
        assert set(hooks) == {"first"}
        assert hooks["first"].running is True


async def test_dispose_after_the_state_dir_was_replaced_unmounts_without_raising(
        tmp_path: Path) -> None:
    first = _claude_deny(tmp_path, "first.sh", "first says no")
    work = tmp_path / "work"
    work.mkdir()
    state = tmp_path / "state"
    async with MemoryHost(work) as host:
        adapter = CompatAdapter(host, state_dir=str(state), prefer="official")
        adapter.start()
        await adapter.register_hook("claude", "PreToolUse", "Bash", first, id="first")
        shutil.rmtree(state)
        state.write_text("not a directory\n")
        # The config file is gone with its directory; unmounting must not trip over that.
        await adapter.dispose()
        assert adapter.status().disposed is True
        assert adapter.status().bridges == {"@deepseek-ai/dsh-hooks-claude-code": None}
        result = await _bash_result(host, "touch made.txt")
        assert result["isError"] is False
        assert (work / "made.txt").exists()


# ── a refused rules registration ────────────────────────────────────────────────────────────────

async def test_a_refused_rules_registration_injects_nothing(tmp_path: Path) -> None:
    good = tmp_path / "GOOD.md"
    good.write_text("Kept rule: be kind.\n")
    small = tmp_path / "SMALL.md"
    small.write_text("Dropped rule: from a refused registration.\n")
    big = tmp_path / "BIG.md"
    big.write_text("Oversized rule.\n" + "x" * 5000)
    work = tmp_path / "work"
    work.mkdir()
    async with MemoryHost(work) as host, CompatAdapter(host, max_rule_bytes=1000) as adapter:
        await adapter.register_rules("claude", str(good), id="good")
        with pytest.raises(RulesTooLarge):
            await adapter.register_rules("claude", [str(small), str(big)], id="refused")
        assert [r.id for r in adapter.status().rules] == ["good"]

        agent = await host.create_agent(script=["done"])
        with anyio.fail_after(60):
            await agent.run_turn("go")
        carried = [e.data["text"] for e in agent.session.events
                   if e.type == "user/message" and e.data["source"]["kind"] == RULES_SOURCE_KIND]
        assert len(carried) == 1
        assert "Kept rule: be kind." in carried[0]
        assert "Dropped rule" not in carried[0] and "Oversized rule" not in carried[0]


# ── a hook whose output breaks the JSON parser ──────────────────────────────────────────────────

async def test_a_failing_copilot_pre_tool_hook_with_unparsable_deep_json_still_denies(
        tmp_path: Path) -> None:
    # Copilot's preToolUse is fail-closed: a hook exiting 1 denies, whatever it printed. Output
    # nested deeper than Python's JSON parser allows must not turn that into an allow.
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    hook = write_script(tmp_path / "deep.sh", f"cat >/dev/null\ncat {deep}\nexit 1\n")
    work = tmp_path / "work"
    work.mkdir()
    async with MemoryHost(work) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("copilot", "preToolUse", "bash", str(hook))
        result = await _bash_result(host, "touch made.txt")
        assert not (work / "made.txt").exists()
        assert result["isError"] is True
        # Copilot CLI 1.0.102 names the hook (its file; here its id) and says it errored (vendor lane).
        assert result["text"].startswith("Denied by preToolUse hook from \"") and result["text"].endswith(
            "\" (hook errored)"), result["text"]
        assert [r.decision for r in adapter.audit] == ["deny"]


async def test_a_bridge_hook_with_unparsable_deep_json_does_not_cancel_a_sibling_deny(
        tmp_path: Path) -> None:
    # Two Claude PreToolUse hooks on the official bridge: the first prints JSON nested deeper than
    # Python's parser allows (Claude reads unparsable stdout as plain text: no decision), the
    # second blocks with exit 2. The block must stand.
    deep = tmp_path / "deep.json"
    deep.write_text('{"a":' * 100_000 + "1" + "}" * 100_000 + "\n")
    noisy = write_script(tmp_path / "noisy.sh", f"cat >/dev/null\ncat {deep}\n")
    blocker = write_script(tmp_path / "blocker.sh",
                           "cat >/dev/null\necho 'blocker says no' >&2\nexit 2\n")
    work = tmp_path / "work"
    work.mkdir()
    async with MemoryHost(work) as host, \
            CompatAdapter(host, state_dir=str(tmp_path / "state")) as adapter:
        async with adapter.batch():
            await adapter.register_hook("claude", "PreToolUse", "Bash", str(noisy))
            await adapter.register_hook("claude", "PreToolUse", "Bash", str(blocker))
        result = await _bash_result(host, "touch made.txt")
        assert not (work / "made.txt").exists()
        assert result["isError"] is True and "blocker says no" in result["text"]


# ── the DSH lane runner printing a line over the limit ──────────────────────────────────────────

async def test_an_over_long_runner_line_is_refused_and_the_next_lines_still_read() -> None:
    from anyio.streams.buffered import BufferedByteReceiveStream

    from compat_adapter.errors import InputTooLarge
    from compat_adapter.host.dsh.lane import next_line

    # A real process, as Node's console would: a short line, one far over the limit written in
    # many pieces, then two more lines, the first right behind the long one's newline.
    writer = ("import sys, os\n"
              "os.write(1, b'first\\n')\n"
              "for _ in range(40): os.write(1, b'x' * 4096)\n"
              "os.write(1, b'x' * 100 + b'\\nsecond\\n')\n"
              "os.write(1, b'third\\n')\n")
    async with await anyio.open_process([sys.executable, "-c", writer]) as proc:
        assert proc.stdout is not None
        reader = BufferedByteReceiveStream(proc.stdout)
        lines: list[bytes | str] = []
        with anyio.fail_after(30):
            while True:
                try:
                    line = await next_line(reader, limit=65536)
                except InputTooLarge:
                    lines.append("too long")
                    continue
                lines.append(line)
                if not line:
                    break
    assert lines == [b"first\n", "too long", b"second\n", b"third\n", b""]
