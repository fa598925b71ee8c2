"""The serve protocol, driven by a minimal second client written here from the spec alone.

The client is deliberately not :class:`compat_adapter.host.dsh.channel.Channel`: it speaks raw JSON lines to
a real ``python -m compat_adapter.cli serve --stdio`` process, answers the service's own requests
(``next``) and records its notifications, the way any host author's client would.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream
from conftest import write_script

#: A surface a small host might publish: two waterfalls, a serial and an emit seam, a shell.
SURFACE = {
    "host": "mini",
    "version": "1.0",
    "seams": {"tools/pre-execute": "waterfall", "agent/turn-stopping": "serial",
              "agent/created": "emit"},
    "services": ["shell", "agents"],
    "bridge_packages": [],
}


def serve_command() -> list[str]:
    """``compat-adapter serve --stdio`` through the CLI once it is wired there, else the module."""
    from compat_adapter import cli

    cli._parser()
    if "serve" in cli._COMMANDS:
        return [sys.executable, "-m", "compat_adapter.cli", "serve", "--stdio"]
    return [sys.executable, "-m", "compat_adapter.serve", "--stdio"]


def test_the_serve_subcommand_parses_and_refuses_without_stdio() -> None:
    import argparse

    from compat_adapter.cli.serve import add_commands
    from compat_adapter.errors import CompatError

    parser = argparse.ArgumentParser()
    handlers = add_commands(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["serve", "--state-dir", "/nowhere"])
    assert set(handlers) == {"serve"} and args.state_dir == "/nowhere" and not args.stdio
    with pytest.raises(CompatError, match="--stdio"):
        handlers["serve"](args)


class MiniClient:
    """Raw JSON lines: send requests, collect replies by id, answer `next`, keep notifications."""

    def __init__(self, process: Any) -> None:
        self.process = process
        self._reader = BufferedByteReceiveStream(process.stdout)
        self._ids = 0
        self.replies: dict[Any, dict[str, Any]] = {}
        self.order: list[Any] = []
        self.notifications: list[dict[str, Any]] = []
        self.service_requests: list[dict[str, Any]] = []
        self.answer_next: Callable[[dict[str, Any]], Any] = lambda params: {"kind": "allow"}
        self._arrived = anyio.Event()
        self.eof = anyio.Event()

    async def send_raw(self, data: bytes) -> None:
        await self.process.stdin.send(data)

    async def send(self, method: str, params: dict[str, Any] | None = None) -> int:
        self._ids += 1
        await self.send_raw(json.dumps({"id": self._ids, "method": method,
                                        "params": params or {}}).encode() + b"\n")
        return self._ids

    async def notify(self, method: str, params: dict[str, Any]) -> None:
        await self.send_raw(json.dumps({"method": method, "params": params}).encode() + b"\n")

    async def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        rid = await self.send(method, params)
        return await self.reply(rid)

    async def reply(self, rid: Any) -> dict[str, Any]:
        with anyio.fail_after(30):
            while rid not in self.replies:
                self._arrived = anyio.Event()
                await self._arrived.wait()
        return self.replies[rid]

    async def pump(self) -> None:
        while True:
            try:
                line = await self._reader.receive_until(b"\n", 1 << 24)
            except (anyio.IncompleteRead, anyio.EndOfStream):
                self.eof.set()
                self._arrived.set()
                return
            message = json.loads(line)
            if "method" in message and "id" in message:
                self.service_requests.append(message)
                result = self.answer_next(message["params"]) if message["method"] == "next" else {}
                await self.send_raw(json.dumps({"id": message["id"], "result": result}).encode() + b"\n")
            elif "method" in message:
                self.notifications.append(message)
            else:
                self.replies[message["id"]] = message
                self.order.append(message["id"])
            self._arrived.set()

    def notes(self, method: str) -> list[dict[str, Any]]:
        return [n["params"] for n in self.notifications if n["method"] == method]


@pytest.fixture
async def client(tmp_path: Path):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    process = await anyio.open_process(serve_command(), cwd=str(tmp_path), env=env)
    c = MiniClient(process)
    async with anyio.create_task_group() as tg:
        tg.start_soon(c.pump)
        try:
            yield c
        finally:
            with anyio.CancelScope(shield=True):
                if process.returncode is None:
                    await process.stdin.aclose()
                    with anyio.move_on_after(10):
                        await process.wait()
                    if process.returncode is None:
                        process.kill()
                        await process.wait()
            tg.cancel_scope.cancel()


async def hello(client: MiniClient, tmp_path: Path) -> dict[str, Any]:
    reply = await client.call("hello", {"protocol": 1, "surface": SURFACE, "cwd": str(tmp_path)})
    assert "result" in reply, reply
    return reply["result"]


def agent_json(tmp_path: Path, aid: str = "agent-1") -> dict[str, Any]:
    return {"id": aid, "session": {"id": aid, "cwd": str(tmp_path), "transcript_path": None}}


def hook(tmp_path: Path, name: str, output: dict[str, Any] | None, *, before: str = "") -> str:
    body = before + (f"cat > {tmp_path / (name + '.stdin')}\n")
    if output is not None:
        body += f"printf '%s' '{json.dumps(output)}'\n"
    return str(write_script(tmp_path / f"{name}.sh", body))


async def test_hello_returns_version_and_the_surface_it_will_grade_against(client: MiniClient,
                                                                          tmp_path: Path) -> None:
    result = await hello(client, tmp_path)
    assert result["protocol"] == 1 and result["service"] == "compat-adapter"
    assert isinstance(result["version"], str) and result["version"]
    assert result["surface"]["host"] == "mini"
    assert result["surface"]["seams"]["tools/pre-execute"] == "waterfall"
    again = await client.call("hello", {"protocol": 1, "surface": SURFACE})
    assert again["error"]["code"] == "PROTOCOL_ERROR"


async def test_nothing_registers_before_hello(client: MiniClient) -> None:
    reply = await client.call("register_hook", {"vendor": "copilot", "event": "preToolUse",
                                                "handler": "true"})
    assert reply["error"]["code"] == "PROTOCOL_ERROR"
    assert "hello" in reply["error"]["message"]


async def test_malformed_lines_get_protocol_errors_and_the_service_keeps_going(
        client: MiniClient, tmp_path: Path) -> None:
    for bad in (b"this is not json\n", b"[1, 2, 3]\n", b'{"id": 7}\n', b'{"id": 8, "method": 5}\n',
                b'{"id": 9, "method": "status", "params": []}\n', b'{"id": true, "method": "status"}\n'):
        before = len(client.order)
        await client.send_raw(bad)
        with anyio.fail_after(10):
            while len(client.order) == before:
                await anyio.sleep(0.01)
        reply = client.replies[client.order[-1]]
        assert reply["error"]["code"] == "PROTOCOL_ERROR", (bad, reply)
    unknown = await client.call("no-such-method")
    assert unknown["error"]["code"] == "PROTOCOL_ERROR"
    assert (await hello(client, tmp_path))["service"] == "compat-adapter"


async def test_registration_errors_carry_the_library_codes(client: MiniClient, tmp_path: Path) -> None:
    await hello(client, tmp_path)
    unknown = await client.call("register_hook", {"vendor": "nobody", "event": "x", "handler": "true"})
    assert unknown["error"]["code"] == "UNKNOWN_VENDOR"
    bad = await client.call("register_hook", {"vendor": "claude", "event": "PreToolUse",
                                              "matcher": "(", "handler": "true"})
    assert bad["error"]["code"] == "INVALID_MATCHER"


async def test_grading_follows_the_peer_surface(client: MiniClient, tmp_path: Path) -> None:
    await hello(client, tmp_path)
    # Natively translated by default: the peer's missing Claude bridge is named as the alternative.
    claude = (await client.call("register_hook", {"vendor": "claude", "event": "PreToolUse",
                                                  "matcher": "Bash", "handler": "true"}))["result"]
    assert (claude["capability"], claude["route"]) == ("ADAPTED", "native-translate")
    assert "@deepseek-ai/dsh-hooks-claude-code" in claude["alternative"]
    bridged = (await client.call("register_hook", {"vendor": "claude", "event": "PreToolUse", "matcher": "Bash",
                                                   "handler": "true", "prefer": "official"}))["result"]
    assert bridged["capability"] == "UNSUPPORTED"
    assert "@deepseek-ai/dsh-hooks-claude-code" in bridged["reason"]
    post = (await client.call("register_hook", {"vendor": "copilot", "event": "postToolUse",
                                                "handler": "true"}))["result"]
    assert post["capability"] == "UNSUPPORTED" and "tools/post-execute" in post["reason"]


async def test_a_copilot_deny_comes_back_as_the_verdict_with_its_hook_records(
        client: MiniClient, tmp_path: Path) -> None:
    await hello(client, tmp_path)
    script = hook(tmp_path, "deny", {"permissionDecision": "deny",
                                     "permissionDecisionReason": "no rm here"})
    result = (await client.call("register_hook", {"vendor": "copilot", "event": "preToolUse",
                                                  "matcher": "bash", "handler": script}))["result"]
    assert result["capability"] == "ADAPTED" and result["route"] == "builtin-bridge"
    assert {"seam": "tools/pre-execute"} in client.notes("subscribe")
    # The mirror learns of the open turn from the session feed, as from a real host.
    await client.notify("session/event", {"session": agent_json(tmp_path)["session"],
                                          "event": {"seq": 0, "type": "turn/start",
                                                    "data": {"turn": 1}, "time": 0}})
    reply = await client.call("dispatch", {
        "seam": "tools/pre-execute", "dispatch": "d1",
        "event": {"call_id": "c1", "name": "bash", "arguments": {"command": "rm -rf build"},
                  "agent": agent_json(tmp_path)}})
    # Copilot's words; this peer offers no post-execute, so the host's "Error: " stays in front.
    assert reply["result"]["verdict"] == {"kind": "deny", "reason": "Denied by preToolUse hook: no rm here"}
    assert not client.service_requests, "a deny vetoes the rest of the chain: no next()"
    payload = json.loads((tmp_path / "deny.stdin").read_text())
    assert payload["toolName"] == "bash" and payload["toolArgs"] == {"command": "rm -rf build"}
    appended = client.notes("session/append")
    assert [a["type"] for a in appended] == ["hook/invoked", "hook/result"]
    assert appended[1]["data"]["decision"] == "deny" and appended[0]["data"]["turn"] == 1


async def test_an_allowing_hook_calls_next_back_on_the_peer(client: MiniClient, tmp_path: Path) -> None:
    await hello(client, tmp_path)
    script = hook(tmp_path, "allow", {"permissionDecision": "allow"})
    await client.call("register_hook", {"vendor": "copilot", "event": "preToolUse",
                                        "handler": script})
    client.answer_next = lambda params: {"kind": "ask", "reason": f"downstream of {params['dispatch']}"}
    reply = await client.call("dispatch", {"seam": "tools/pre-execute", "dispatch": "d9",
                                           "event": {"call_id": "c1", "name": "bash",
                                                     "arguments": {"command": "ls"},
                                                     "agent": agent_json(tmp_path)}})
    assert [r["method"] for r in client.service_requests] == ["next"]
    assert client.service_requests[0]["params"] == {"dispatch": "d9"}
    # allow does not pre-approve: the downstream verdict stands.
    assert reply["result"]["verdict"] == {"kind": "ask", "reason": "downstream of d9"}


async def test_replies_come_back_out_of_order(client: MiniClient, tmp_path: Path) -> None:
    await hello(client, tmp_path)
    gate = tmp_path / "gate"
    slow = hook(tmp_path, "slow", {"permissionDecision": "deny", "permissionDecisionReason": "slow"},
                before=f'case "$(cat)" in *slow*) while [ ! -e {gate} ]; do sleep 0.05; done;; esac\n')
    await client.call("register_hook", {"vendor": "copilot", "event": "preToolUse",
                                        "handler": slow})

    def event(command: str) -> dict[str, Any]:
        return {"call_id": command, "name": "bash", "arguments": {"command": command},
                "agent": agent_json(tmp_path)}
    first = await client.send("dispatch", {"seam": "tools/pre-execute", "dispatch": "a",
                                           "event": event("slow one")})
    second = await client.send("dispatch", {"seam": "tools/pre-execute", "dispatch": "b",
                                            "event": event("fast one")})
    await client.reply(second)
    assert first not in client.replies, "the slow dispatch is still waiting for its gate"
    gate.write_text("open")
    await client.reply(first)
    assert client.order.index(second) < client.order.index(first)


async def test_a_stop_block_comes_back_as_a_steer_effect(client: MiniClient, tmp_path: Path) -> None:
    await hello(client, tmp_path)
    script = hook(tmp_path, "stop", {"decision": "block", "reason": "run the tests first"})
    await client.call("register_hook", {"vendor": "copilot", "event": "agentStop", "handler": script})
    assert {"seam": "agent/turn-stopping"} in client.notes("subscribe")
    reply = await client.call("dispatch", {"seam": "agent/turn-stopping", "dispatch": "s1",
                                           "event": {"agent": agent_json(tmp_path), "turn": 1,
                                                     "last_assistant_message": "done"}})
    result = reply["result"]
    assert result["verdict"] is None
    [effect] = result["effects"]
    assert effect["op"] == "steer" and effect["agent"] == "agent-1"
    assert effect["message"]["text"] == "run the tests first"
    assert effect["message"]["source"]["kind"] == "compat-adapter-hook"


async def test_rules_ride_back_as_inject_effects_on_agent_created(client: MiniClient,
                                                                  tmp_path: Path) -> None:
    await hello(client, tmp_path)
    (tmp_path / "AGENTS.md").write_text("Always run the linter.\n")
    rules = (await client.call("register_rules", {"vendor": "codex", "source": "AGENTS.md",
                                                  "base_dir": str(tmp_path)}))["result"]
    assert rules["capability"] == "CARRY"
    reply = await client.call("dispatch", {"seam": "agent/created", "dispatch": "c1",
                                           "event": {"agent": agent_json(tmp_path), "source": "startup"}})
    [effect] = reply["result"]["effects"]
    assert effect["op"] == "inject" and "Always run the linter." in effect["message"]["text"]
    status = (await client.call("status"))["result"]
    assert status["host"] == "mini" and status["rules"][0]["capability"] == "CARRY"


async def test_dispose_answers_then_ends_the_service(client: MiniClient, tmp_path: Path) -> None:
    await hello(client, tmp_path)
    await client.call("register_hook", {"vendor": "copilot", "event": "preToolUse", "handler": "true"})
    status = (await client.call("status"))["result"]
    assert [h["running"] for h in status["hooks"]] == [True]
    assert (await client.call("dispose"))["result"] == {"disposed": True}
    with anyio.fail_after(20):
        await client.eof.wait()
        assert await client.process.wait() == 0


async def test_a_dead_peer_ends_the_service_cleanly(client: MiniClient, tmp_path: Path) -> None:
    await hello(client, tmp_path)
    await client.process.stdin.aclose()
    with anyio.fail_after(20):
        assert await client.process.wait() == 0
    await client.eof.wait()
