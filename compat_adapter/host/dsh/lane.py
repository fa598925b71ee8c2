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

import fcntl
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
from pydantic import BaseModel, ConfigDict

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
        return DshLane(Path(root).resolve())
    env = os.environ.get("COMPAT_ADAPTER_DSH_DIR")
    return DshLane((Path(env) if env else Path.cwd() / ".cache" / "dsh").resolve())


def _bundle_digest(*folders: Path) -> str:
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted(p for p in folder.iterdir() if p.suffix in (".mjs", ".json", ".yml")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _add(where: DshLane, home: Path, profile: str, folder: Path) -> None:
    done = subprocess.run([*where.runtime(), "plugin", "--profile", profile, "add", f"file:{folder}"],
                          capture_output=True, text=True, env=where.env(home), timeout=300,
                          stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise HostSurfaceMismatch(f"dsh plugin --profile {profile} add failed: {done.stdout[-1500:]}"
                                  f"{done.stderr[-1500:]}", profile=profile)


def prepare_home(home: Path, *, where: DshLane | None = None, profiles: Sequence[str] = PROFILES,
                 controls: bool = False) -> Path:
    """A DSH home whose ``profiles`` have the bundle, added with ``dsh plugin --profile <p> add
    file:<bundle>``; with ``controls``, the lane's control plugin too (``sdk`` profile only: a
    test home, never a user's). A home already prepared so is left as it is."""
    from compat_adapter.testing.dsh_controls import CONTROLS_DIR

    where = where or lane()
    where.check()
    home.mkdir(parents=True, exist_ok=True)
    stamp = home / ".compat-adapter-bundle"
    folders = (BUNDLE_DIR, CONTROLS_DIR) if controls else (BUNDLE_DIR,)
    want = f"{_bundle_digest(*folders)} {' '.join(profiles)}"
    # Runtimes booted side by side share a home: one of them adds the bundles, the others wait.
    with open(home / ".compat-adapter-lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.is_file() and stamp.read_text() == want:
            return home
        for profile in profiles:
            _add(where, home, profile, BUNDLE_DIR)
        if controls:
            _add(where, home, "sdk", CONTROLS_DIR)
        stamp.write_text(want)
    return home


def turns_of(script: Sequence[Any], routes: dict[str, list[Any]] | None = None) -> list[Any]:
    """A scripted agent's items as the scripted model's turns.

    Text and tool calls are one answer each; an ``Error`` is a request the model API refuses; a
    ``Subagent`` is a call of DSH's own ``subagent`` tool (its required ``description`` and
    ``prompt``), and the child's answers go to ``routes`` under that prompt (DSH runs the child
    beside its parent: see :mod:`compat_adapter.testing.models.routed`). Directives the SDK cannot
    perform (a model switch, a compaction or a command inside a script) are refused, never skipped.
    """
    from compat_adapter.testing.models.base import ModelCall, ModelTurn

    turns: list[Any] = []
    for step in script_to_json(normalize_script(script)):
        if "error" in step:
            turns.append(ModelTurn(error=str(step["error"])))
            continue
        if "subagent" in step:
            spec = step["subagent"]
            prompt = str(spec.get("prompt") or "do the delegated task")
            turns.append(ModelTurn(step.get("text"), (ModelCall("subagent", {
                "description": "delegated task", "prompt": prompt}),)))
            if routes is not None:
                routes[prompt] = turns_of(_items(spec.get("script") or ()), routes)
            continue
        unknown = set(step) - {"text", "tools"}
        if unknown:
            raise ProtocolError(f"the DSH lane's model answers with text, tool calls, errors and subagents, "
                                f"not {sorted(unknown)}")
        calls = tuple(ModelCall(str(t["name"]), dict(t.get("arguments") or {})) for t in step.get("tools") or ())
        turns.append(ModelTurn(step.get("text"), calls))
    return turns


def _items(json_script: Sequence[Any]) -> Sequence[Any]:
    from compat_adapter.host.script import script_from_json

    return script_from_json(list(json_script))


class _Reply(BaseModel):
    """Any JSON object the SDK runtime answers (the SDK validates replies with a model)."""

    model_config = ConfigDict(extra="allow")


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
    #: The sessions of the subagents DSH ran for this one (their events come with its own).
    children: list[str] = field(default_factory=list)


class Runner:
    """The driver: sessions through the official SDK, each on its own scripted model turns."""

    def __init__(self, runtime: DshRuntime) -> None:
        self.runtime = runtime
        self.host = runtime.host
        self.harness = runtime.harness
        #: The scripted model (every request DSH made is in ``model.requests``).
        self.model = runtime.model
        self._sessions: dict[str, LaneSession] = {}

    async def create_agent(self, script: Sequence[Any] = ()) -> LaneSession:
        """A new SDK session whose model answers from ``script``; DSH creates its agent (and runs
        ``agent/created``) on its first prompt."""
        routes: dict[str, list[Any]] = {}
        self.model.load(turns_of(script, routes))
        self.model.route(routes)
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
        # DSH runs subagents beside their parent and wakes the parent with each child's answer:
        # the turn is over once the root and every child it started are idle (the SDK's own wait).
        await anyio.to_thread.run_sync(lambda: self.harness.client.request(
            "session/wait", {"sessionId": session.id}, response_model=_Reply))
        await self.runtime.settle()
        events = list(result.events)
        session.events.extend(events)
        for note in result.notifications:
            sid = note.payload.get("sessionId") if note.method == "session.event" else None
            if isinstance(sid, str) and sid != session.id and sid not in session.children:
                session.children.append(sid)
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


@dataclass(slots=True)
class DshRuntime:
    """One booted runtime: the SDK's harness, the scripted model it asks, the host the bundle
    said hello to and the channel between them. :meth:`control` asks the lane's control plugin
    (``testing/dsh_controls``, in the lane's own home only) to do what a user does in a UI."""

    cwd: Path
    harness: Any
    model: Any
    host: DshHost
    channel: Channel
    closed: bool = False

    @property
    def healthy(self) -> bool:
        """The runtime is up and its channel open (a row that broke either gets a fresh one)."""
        proc = getattr(self.harness.client, "_proc", None)
        return (not self.closed and not self.channel.closed.is_set()
                and proc is not None and proc.poll() is None)

    async def control(self, method: str, params: dict[str, Any] | None = None, *,
                      timeout_s: float = 120.0) -> Any:
        with anyio.fail_after(timeout_s):
            return await self.channel.request(f"lane.{method}", params or {})

    async def settle(self) -> None:
        """Every event the bundle forwarded so far is answered, and the host's own work is done."""
        if not self.channel.closed.is_set():
            try:
                await self.channel.request("settle", {})
            except ProtocolError:  # the channel closed meanwhile: nothing more can arrive
                pass
        await self.host.settle()

    async def close(self) -> None:
        """Shut the runtime down through the SDK (its agents are disposed, their ``agent/disposed``
        still reaches the host), then stop reading."""
        if self.closed:
            return
        self.closed = True
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(_close, self.harness)


@asynccontextmanager
async def _plain_errors() -> AsyncIterator[None]:
    """The one error of a task group as itself (the block's own exception, not a group of one)."""
    try:
        yield
    except BaseExceptionGroup as group:
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise


@asynccontextmanager
async def boot(cwd: Path, *, home: Path | None = None, lane_root: Path | None = None,
               answer_timeout_ms: int | None = None, hello_timeout_s: float = 60.0,
               controls: bool = True) -> AsyncIterator[DshRuntime]:
    """Boot a real DSH 0.2.1 ``sdk`` profile with the bundle (and, by default, the lane's control
    plugin), through the official SDK, and yield it once the SDK's ``initialize`` returned and the
    bundle said hello to this process's :class:`DshHost`."""
    from deepseek_harness import DeepSeekHarness

    from compat_adapter.testing.models.routed import RoutedAnthropicServer

    where = lane(lane_root)
    where.check()
    # One home per checkout of the bundle: the lane folder may be shared by several checkouts, and
    # a home shows one bundle folder to every runtime booted from it.
    checkout = hashlib.sha256(str(BUNDLE_DIR).encode()).hexdigest()[:12]
    chosen = home or where.root / f"{'home-lane' if controls else 'home'}-{checkout}"
    home = await anyio.to_thread.run_sync(lambda: prepare_home(chosen, where=where, controls=controls))
    with tempfile.TemporaryDirectory(prefix="ca-dsh-") as tmp:
        socket_path = Path(tmp) / "service.sock"
        listener = await anyio.create_unix_listener(socket_path)
        model = RoutedAnthropicServer(())
        model.start()
        env = where.env(home)
        env.update({"COMPAT_ADAPTER_CONNECT": str(socket_path), "DEEPSEEK_BASE_URL": model.base_url,
                    "DEEPSEEK_API_KEY": SCRIPTED_KEY})
        if answer_timeout_ms is not None:
            env["COMPAT_ADAPTER_ANSWER_TIMEOUT_MS"] = str(answer_timeout_ms)
        # A loaded machine boots the runtime slowly: the SDK's own 30 s default is too short for CI.
        harness = DeepSeekHarness(cwd=str(cwd), dsh_home=str(home), env=env, shutdown_timeout_seconds=5.0,
                                  initialize_timeout_seconds=hello_timeout_s + 60)
        runtime: DshRuntime | None = None
        try:
            async with _plain_errors(), listener, anyio.create_task_group() as tg:
                ready: dict[str, Any] = {}
                hello = anyio.Event()

                async def serve(*, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
                    task_status.started()
                    stream: SocketStream = await listener.accept()
                    async with stream:
                        reader = BufferedByteReceiveStream(stream)

                        async def read_line() -> bytes:
                            return await next_line(reader)

                        channel = Channel(read_line, stream.send, name="dsh bundle")
                        host = DshHost(channel, cwd=cwd, tg=tg)
                        host.attach()

                        async def on_hello(params: dict[str, Any]) -> dict[str, Any]:
                            surface = host.welcome(params)
                            hello.set()
                            return {"protocol": PROTOCOL_VERSION, "service": "compat-adapter",
                                    "version": version(), "surface": surface.model_dump(mode="json")}

                        async def on_import(params: dict[str, Any]) -> dict[str, Any]:
                            # The test holds the adapter and registers what it means to: nothing
                            # is imported behind its back (serve imports the session folder's files).
                            return {"root": params.get("root"), "registered": [], "refused": [], "again": False}

                        channel.on_request("hello", on_hello)
                        channel.on_request("import_workspace", on_import)
                        ready.update(channel=channel, host=host)
                        await channel.run()

                await tg.start(serve)
                # The hello comes while the runtime boots, before `initialize` answers: the channel
                # is served beside the start, and the start is waited for here (a runtime torn
                # down while its initialize is still running fails that call, and loses the error
                # that brought the teardown about).
                with anyio.fail_after(hello_timeout_s + 60):
                    await anyio.to_thread.run_sync(harness.start)
                with anyio.fail_after(hello_timeout_s):
                    await hello.wait()
                runtime = DshRuntime(cwd, harness, model, ready["host"], ready["channel"])
                try:
                    yield runtime
                    await runtime.host.settle()
                finally:
                    with anyio.CancelScope(shield=True):
                        await runtime.close()
                        runtime.channel.finish("closed by the host")
                        tg.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                if runtime is None:
                    await anyio.to_thread.run_sync(_close, harness)
                model.close()


@asynccontextmanager
async def launch(cwd: Path, *, home: Path | None = None, lane_root: Path | None = None,
                 answer_timeout_ms: int | None = None, hello_timeout_s: float = 60.0) -> AsyncIterator[Runner]:
    """Boot a real DSH 0.2.1 ``sdk`` profile with the bundle, through the official SDK, and yield
    its driver (see :func:`boot`)."""
    async with boot(cwd, home=home, lane_root=lane_root, answer_timeout_ms=answer_timeout_ms,
                    hello_timeout_s=hello_timeout_s) as runtime:
        yield Runner(runtime)
