"""A real DeepSeek Harness 0.2.1 booted as its users boot it, for tests, the live checks and the CLI.

``scripts/dsh_lane.sh`` installs the PyPI release users install (``deepseek-harness-sdk==0.2.1rc2``:
the official Python SDK and the one ``dsh`` executable) into the project's environment, and pnpm
(which ``dsh plugin`` needs) into ``.cache/dsh/``. :func:`prepare_home` adds the bundle to a DSH
home's profiles with ``dsh plugin --profile <p> add file:<bundle>``, exactly as the README says.

:func:`launch` then starts the runtime through the official SDK (``deepseek_harness.DeepSeekHarness``,
profile ``sdk``) against a scripted Anthropic-shaped model on loopback (``DEEPSEEK_BASE_URL``). The
bundle's plugin is told (``COMPAT_ADAPTER_CONNECT``) to connect to a socket this process listens on
instead of spawning ``compat-adapter serve --stdio``, so a :class:`~compat_adapter.host.dsh.host.DshHost`
in this process is the service side: tests hold the host the adapter runs on. Everything between
the model and the hook is DSH's own.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from anyio.abc import SocketStream
from anyio.streams.buffered import BufferedByteReceiveStream

from compat_adapter.errors import HostSurfaceMismatch, InputTooLarge, ProtocolError
from compat_adapter.host.dsh.bundle import BUNDLE_DIR
from compat_adapter.host.dsh.host import DshAgent, DshHost
from compat_adapter.host.script import normalize_script, script_to_json
from compat_adapter.host.wire.channel import MAX_LINE, PROTOCOL_VERSION, Channel, version

__all__ = ("PROFILES", "DshLane", "Runner", "TurnOutcome", "lane", "launch", "next_line", "prepare_home",
           "turns_of")

#: The profiles the bundle is added to (the ones a user of the SDK, of ``dsh headless`` and of the
#: web app boots).
PROFILES = ("sdk", "headless", "web")
#: The key the scripted model is reached with (DSH sends it; the scripted model reads none).
SCRIPTED_KEY = "sk-scripted"


@dataclass(frozen=True, slots=True)
class DshLane:
    """Where ``scripts/dsh_lane.sh`` put pnpm, and the DSH runtime the environment has."""

    root: Path

    @property
    def pnpm_bin(self) -> Path:
        return self.root / "pnpm" / "node_modules" / ".bin"

    def runtime(self) -> tuple[str, ...]:
        """The argv that runs ``dsh`` (the SDK's own resolution of its bundled executable)."""
        try:
            from deepseek_harness_runtime import resolve_bundled_launch_args
        except ImportError:
            raise HostSurfaceMismatch(
                "the DSH lane is not installed (no deepseek-harness-runtime-bin in this environment); "
                "run `bash scripts/dsh_lane.sh`", lane=str(self.root)) from None
        return tuple(resolve_bundled_launch_args())

    def check(self) -> None:
        self.runtime()
        if not (self.pnpm_bin / "pnpm").exists():
            raise HostSurfaceMismatch(f"the DSH lane has no pnpm in {self.root}; run `bash scripts/dsh_lane.sh` "
                                      "(or set COMPAT_ADAPTER_DSH_DIR to where it is)", lane=str(self.root))

    def env(self, home: Path) -> dict[str, str]:
        """The environment ``dsh`` runs in: the home, pnpm on PATH, and this environment's
        ``compat-adapter`` first on PATH."""
        path = os.pathsep.join([str(Path(sys.executable).parent), str(self.pnpm_bin), os.environ.get("PATH", "")])
        return {**os.environ, "DSH_HOME": str(home), "PATH": path}


def lane(root: Path | None = None) -> DshLane:
    """The lane folder: ``root``, else ``$COMPAT_ADAPTER_DSH_DIR``, else ``./.cache/dsh``."""
    if root is not None:
        return DshLane(Path(root))
    env = os.environ.get("COMPAT_ADAPTER_DSH_DIR")
    return DshLane(Path(env) if env else Path.cwd() / ".cache" / "dsh")


def _bundle_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in BUNDLE_DIR.iterdir() if p.suffix in (".mjs", ".json", ".yml")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def prepare_home(home: Path, *, where: DshLane | None = None, profiles: Sequence[str] = PROFILES) -> Path:
    """A DSH home whose ``profiles`` have the bundle, added with ``dsh plugin --profile <p> add
    file:<bundle>``; a home already prepared with this bundle is left as it is."""
    where = where or lane()
    where.check()
    home.mkdir(parents=True, exist_ok=True)
    stamp = home / ".compat-adapter-bundle"
    want = f"{_bundle_digest()} {' '.join(profiles)}"
    if stamp.is_file() and stamp.read_text() == want:
        return home
    for profile in profiles:
        done = subprocess.run([*where.runtime(), "plugin", "--profile", profile, "add", f"file:{BUNDLE_DIR}"],
                              capture_output=True, text=True, env=where.env(home), timeout=300,
                              stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            raise HostSurfaceMismatch(f"dsh plugin --profile {profile} add failed: {done.stdout[-1500:]}"
                                      f"{done.stderr[-1500:]}", profile=profile)
    stamp.write_text(want)
    return home


def turns_of(script: Sequence[Any]) -> list[Any]:
    """A scripted agent's items as the scripted model's turns (text and tool calls per answer)."""
    from compat_adapter.testing.models.base import ModelCall, ModelTurn

    turns = []
    for step in script_to_json(normalize_script(script)):
        unknown = set(step) - {"text", "tools"}
        if unknown:
            raise ProtocolError(f"the DSH lane's model answers with text and tool calls only, not {sorted(unknown)}")
        calls = tuple(ModelCall(str(t["name"]), dict(t.get("arguments") or {})) for t in step.get("tools") or ())
        turns.append(ModelTurn(step.get("text"), calls))
    return turns


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    """How one turn on the real agent loop ended, read from its ``turn/end`` record."""

    turn: int | None
    reason: str | None
    steps: int


@dataclass(slots=True)
class LaneSession:
    """One SDK session: its id (DSH's session and agent id) and the records DSH sent for it."""

    id: str
    handle: Any
    events: list[dict[str, Any]] = field(default_factory=list)


class Runner:
    """The driver: sessions through the official SDK, each on its own scripted model turns."""

    def __init__(self, host: DshHost, harness: Any, model: Any) -> None:
        self.host = host
        self.harness = harness
        #: The scripted model (every request DSH made is in ``model.requests``).
        self.model = model
        self._sessions: dict[str, LaneSession] = {}

    async def create_agent(self, script: Sequence[Any] = ()) -> LaneSession:
        """A new SDK session whose model answers from ``script``; DSH creates its agent (and runs
        ``agent/created``) on its first prompt."""
        self.model.load(turns_of(script))
        handle = await anyio.to_thread.run_sync(self.harness.start_session)
        session = LaneSession(handle.id, handle)
        self._sessions[session.id] = session
        return session

    def agent(self, session: LaneSession) -> DshAgent | None:
        """The host's handle on the session's agent (known once DSH created it)."""
        return self.host.get_agent(session.id)

    async def run_turn(self, session: LaneSession, prompt: str) -> TurnOutcome:
        """One prompt through the SDK, until DSH says the session is idle again."""
        result = await anyio.to_thread.run_sync(session.handle.run, prompt)
        await self.host.settle()
        events = list(result.events)
        session.events.extend(events)
        ends = [e for e in events if e.get("type") == "turn/end"]
        reason = (ends[-1].get("data") or {}).get("reason", {}).get("kind") if ends else None
        turn = (ends[-1].get("data") or {}).get("turn") if ends else None
        return TurnOutcome(turn, reason, sum(1 for e in events if e.get("type") == "step/start"))

    async def events(self, session: LaneSession) -> list[dict[str, Any]]:
        """The real session log DSH sent the SDK for this session (not the host's mirror)."""
        return list(session.events)


#: Enough for any chunk a socket gives at once, so a read never leaves part of it buffered.
_WHOLE_CHUNK = 1 << 30


async def next_line(reader: BufferedByteReceiveStream, limit: int = MAX_LINE) -> bytes:
    """The peer's next line with its ``\\n``; ``b""`` at the end of its output.

    A line longer than `limit` is dropped up to its newline, never held whole, and raises
    `InputTooLarge` (the channel answers that and reads on), as on the serve channel.
    """
    try:
        return await reader.receive_until(b"\n", limit) + b"\n"
    except (anyio.IncompleteRead, anyio.EndOfStream):
        return b""
    except anyio.DelimiterNotFound:
        pass
    await reader.receive(len(reader.buffer))
    while True:
        try:
            chunk = await reader.receive(_WHOLE_CHUNK)
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            break
        end = chunk.find(b"\n")
        if end >= 0:
            reader.feed_data(chunk[end + 1:])
            break
    raise InputTooLarge(f"a line of the DSH peer is longer than {limit} bytes; it was skipped", limit=limit)


def _close(harness: Any) -> None:
    """Close the SDK's runtime, and the pipes its ``close`` leaves open (0.2.1rc2 reaps the process
    but never closes its stdout and stderr, which Python reports as unclosed files)."""
    proc = getattr(harness.client, "_proc", None)
    harness.close()
    for pipe in (getattr(proc, "stdout", None), getattr(proc, "stderr", None)):
        if pipe is not None:
            try:
                pipe.close()
            except (OSError, ValueError):  # a reader thread of the SDK may still hold it: it ends with it
                pass


@asynccontextmanager
async def launch(cwd: Path, *, home: Path | None = None, lane_root: Path | None = None,
                 answer_timeout_ms: int | None = None, hello_timeout_s: float = 60.0) -> AsyncIterator[Runner]:
    """Boot a real DSH 0.2.1 ``sdk`` profile with the bundle, through the official SDK, and yield
    its driver once the bundle said hello to this process's :class:`DshHost`."""
    from deepseek_harness import DeepSeekHarness

    from compat_adapter.testing.models.anthropic import AnthropicServer

    where = lane(lane_root)
    where.check()
    home = prepare_home(home or where.root / "home", where=where)
    with tempfile.TemporaryDirectory(prefix="ca-dsh-") as tmp:
        socket_path = Path(tmp) / "service.sock"
        listener = await anyio.create_unix_listener(socket_path)
        model = AnthropicServer(())
        model.start()
        env = where.env(home)
        env.update({"COMPAT_ADAPTER_CONNECT": str(socket_path), "DEEPSEEK_BASE_URL": model.base_url,
                    "DEEPSEEK_API_KEY": SCRIPTED_KEY})
        if answer_timeout_ms is not None:
            env["COMPAT_ADAPTER_ANSWER_TIMEOUT_MS"] = str(answer_timeout_ms)
        harness = DeepSeekHarness(cwd=str(cwd), dsh_home=str(home), env=env, shutdown_timeout_seconds=5.0)
        try:
            async with listener, anyio.create_task_group() as tg:
                starting = tg.start_soon(anyio.to_thread.run_sync, harness.start)
                del starting
                with anyio.fail_after(hello_timeout_s):
                    stream: SocketStream = await listener.accept()
                async with stream:
                    reader = BufferedByteReceiveStream(stream)

                    async def read_line() -> bytes:
                        return await next_line(reader)

                    async def write(data: bytes) -> None:
                        await stream.send(data)

                    channel = Channel(read_line, write, name="dsh bundle")
                    hello = anyio.Event()
                    host = DshHost(channel, cwd=cwd, tg=tg)
                    host.attach()

                    async def on_hello(params: dict[str, Any]) -> dict[str, Any]:
                        surface = host.welcome(params)
                        hello.set()
                        return {"protocol": PROTOCOL_VERSION, "service": "compat-adapter",
                                "version": version(), "surface": surface.model_dump(mode="json")}

                    async def on_import(params: dict[str, Any]) -> dict[str, Any]:
                        # The test holds the adapter and registers what it means to: nothing is
                        # imported behind its back (serve imports the session folder's files).
                        return {"root": params.get("root"), "registered": [], "refused": [], "again": False}

                    channel.on_request("hello", on_hello)
                    channel.on_request("import_workspace", on_import)
                    tg.start_soon(channel.run)
                    with anyio.fail_after(hello_timeout_s):
                        await hello.wait()
                    runner = Runner(host, harness, model)
                    try:
                        yield runner
                        await host.settle()
                    finally:
                        with anyio.CancelScope(shield=True):
                            await anyio.to_thread.run_sync(_close, harness)
                            channel.finish("closed by the host")
                            tg.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(_close, harness)
                model.close()
