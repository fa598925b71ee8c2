"""The Python side of the plugin host: one Bun sidecar process and its JSON-lines channel.

The sidecar (``sidecar.js``, package data) runs in its own session, so it and everything its plugins
start (Bun's ``$`` commands) share one process group that :meth:`Sidecar.close` kills. Requests go
to its stdin; replies and notifications come back on a pipe whose descriptor number it is told, so
that what plugins print never reaches the channel: stdout and stderr go to a temporary file whose
tail explains a sidecar that died.

Wire (one JSON object per line):

* ``load {directory, worktree, project, sources:[{id, kind: file|npm, path|spec, options}],
  searchDirs, timeoutMs}`` → ``{plugins:[{source, error?, missing?, exports:[{id, name, keys,
  error?}]}]}``;
* ``call {plugins:[id…], key, input, output}`` → ``{output, error?: {plugin, message}}``: the hooks
  of one key run in load order on one shared output, the first throw stops them;
* ``ping``, ``dispose``; notifications ``ready``, ``log``, ``missing`` (a client part a plugin used
  that this host cannot serve).

A call that does not answer in time fails (:class:`CallTimeout`). A callback that awaits forever
holds up nothing else, since every request runs on its own in the sidecar; one that blocks the JS
thread (a busy loop) makes the sidecar deaf: the next ping fails, the process group is killed, and
the next call starts a fresh sidecar that loads the same plugins again.
"""

from __future__ import annotations

import json
import os
import signal
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from subprocess import PIPE
from typing import Any

import anyio
from anyio.abc import Process

from compat_adapter.vendor import ProtocolError, environ, hook_environment
from vendors.opencode.plugin_host.lane import PluginLane, sidecar_script

__all__ = ("CallResult", "CallTimeout", "Sidecar", "SidecarDied")

#: Longest reply line accepted from the sidecar.
MAX_LINE = 16 * 1024 * 1024
#: Bytes of the sidecar's output kept for messages.
_STDERR_TAIL = 64 * 1024
_PING_S = 2.0
_FD_ENV = "COMPAT_ADAPTER_PLUGIN_CHANNEL_FD"
_READY_S = 30.0


class CallTimeout(ProtocolError):
    """A request to the sidecar did not answer in time."""


class SidecarDied(ProtocolError):
    """The sidecar process ended (or was killed) before it answered."""


@dataclass(frozen=True, slots=True)
class CallResult:
    """What the hooks of one key did: the output after every mutation, and the first throw."""

    output: Any
    error: str | None = None
    plugin: str | None = None
    """The plugin id whose hook threw (or timed out)."""
    duration_ms: float = 0.0


@dataclass(slots=True)
class _Pending:
    done: anyio.Event = field(default_factory=anyio.Event)
    reply: dict[str, Any] | None = None


class Sidecar:
    """One Bun process running one adapter's OpenCode plugins."""

    def __init__(self, lane: PluginLane, cwd: Path, *,
                 on_notice: Callable[[str, Mapping[str, Any]], None] | None = None) -> None:
        self.lane = lane
        self.cwd = cwd
        self._on_notice = on_notice
        self._process: Process | None = None
        self._read_fd: int | None = None
        self._pending: dict[int, _Pending] = {}
        self._ids = 0
        self._buffer = b""
        self._log: Any = None
        self._tail = ""
        self._read_lock = anyio.Lock()
        self._started = False
        self._ready = anyio.Event()
        self._lock = anyio.Lock()
        self._closed = False
        self._load_params: dict[str, Any] | None = None
        #: Restarts after a deaf or dead sidecar; each reloads the plugins from scratch.
        self.restarts = 0
        #: Seconds from spawn to the sidecar's ``ready``, for the last start.
        self.startup_s: float | None = None

    # ── process ──
    @property
    def running(self) -> bool:
        return self._process is not None and self._process.returncode is None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def stderr_tail(self) -> str:
        """The end of what the sidecar and its plugins printed."""
        log = self._log
        if log is None:
            return self._tail
        with suppress(OSError):
            size = log.seek(0, os.SEEK_END)
            log.seek(max(0, size - _STDERR_TAIL))
            return log.read().decode("utf-8", "replace")
        return ""

    async def start(self) -> None:
        """Spawn the sidecar and wait for its ``ready``."""
        self.lane.check()
        self._started = True
        await self._spawn()

    async def _spawn(self) -> None:
        read_fd, write_fd = os.pipe()
        os.set_blocking(read_fd, False)
        command = [str(self.lane.bun), "--no-install", f"--tsconfig-override={self.lane.tsconfig()}",
                   str(sidecar_script())]
        started = time.perf_counter()
        self._ready = anyio.Event()
        self._buffer = b""
        # What plugins print goes to a file, never a pipe: nobody has to drain it, and its tail
        # explains a sidecar that died.
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in _kill
        # The channel's descriptor keeps its number in the child; the sidecar is told which it is.
        env = hook_environment(environ(), add={"NO_COLOR": "1", _FD_ENV: str(write_fd)})
        try:
            process = await anyio.open_process(
                command, stdin=PIPE, stdout=self._log, stderr=self._log, cwd=str(self.cwd), env=env,
                start_new_session=True, pass_fds=(write_fd,))
        finally:
            os.close(write_fd)
        self._process, self._read_fd = process, read_fd
        with anyio.move_on_after(_READY_S):
            while not self._ready.is_set() and self._read_fd is not None:
                await self._read_once()
        if not self._ready.is_set():
            await self._kill()
            raise SidecarDied(f"the plugin host did not start: {self.stderr_tail()[-500:]}")
        self.startup_s = time.perf_counter() - started

    async def _read_once(self) -> None:
        """Read what the sidecar has sent and dispatch every whole line (the caller holds no lock;
        :meth:`_wait` makes sure one reader at a time)."""
        fd = self._read_fd
        if fd is None:
            return
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            with suppress(anyio.ClosedResourceError):
                await anyio.wait_readable(fd)
            return
        except OSError:
            chunk = b""
        if not chunk or len(self._buffer) > MAX_LINE:
            self._gone(fd)
            return
        self._buffer += chunk
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            self._handle(line)

    def _gone(self, fd: int) -> None:
        # Wake a reader waiting on the descriptor first: closing it under a waiting selector
        # would leave that reader waiting for ever.
        anyio.notify_closing(fd)
        with suppress(OSError):
            os.close(fd)
        self._read_fd = None
        # Everything still waiting fails now: the process is gone or deaf.
        for pending in self._pending.values():
            pending.done.set()

    async def _wait(self, pending: _Pending) -> None:
        # No background reader (the host's settle() would wait for it for ever): whoever waits
        # reads, one at a time, and a reply read for another request wakes that request.
        while not pending.done.is_set():
            async with self._read_lock:
                if pending.done.is_set() or self._read_fd is None:
                    return
                await self._read_once()

    def _handle(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            return
        if not isinstance(message, dict):
            return
        method = message.get("method")
        if method is not None and "id" not in message:
            params = given if isinstance(given := message.get("params"), dict) else {}
            if method == "ready":
                self._ready.set()
            elif self._on_notice is not None:
                self._on_notice(str(method), params)
            return
        # Any JSON value may stand as the id: one that names no request of ours finds nothing.
        pending = self._pending.get(message.get("id"))  # type: ignore[arg-type]
        if pending is not None:
            pending.reply = message
            pending.done.set()

    async def _kill(self) -> None:
        process = self._process
        if process is None:
            return
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with anyio.move_on_after(10), suppress(Exception):
            await process.wait()
        with suppress(Exception):
            await process.aclose()
        if self._read_fd is not None:
            self._gone(self._read_fd)
        if self._log is not None:
            self._tail = self.stderr_tail()
            self._log.close()
            self._log = None

    # ── requests ──
    async def request(self, method: str, params: Mapping[str, Any], *, timeout_s: float) -> Any:
        """Send one request and wait for its reply; raises CallTimeout or SidecarDied."""
        process = self._process
        if process is None or process.returncode is not None or self._closed:
            raise SidecarDied(f"the plugin host is not running ({self.stderr_tail()[-300:]})")
        self._ids += 1
        rid = self._ids
        pending = self._pending[rid] = _Pending()
        line = json.dumps({"id": rid, "method": method, "params": dict(params)}, ensure_ascii=False,
                          default=str).encode("utf-8") + b"\n"
        try:
            assert process.stdin is not None
            async with self._lock:
                await process.stdin.send(line)
            with anyio.move_on_after(timeout_s):
                await self._wait(pending)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as exc:
            raise SidecarDied(f"the plugin host stopped reading: {exc}") from None
        finally:
            self._pending.pop(rid, None)
        reply = pending.reply
        if reply is None:
            if pending.done.is_set():
                raise SidecarDied(f"the plugin host ended before it answered {method} "
                                  f"({self.stderr_tail()[-300:]})")
            raise CallTimeout(f"the plugin host did not answer {method} within {timeout_s:g} s",
                              method=method)
        if "error" in reply:
            error = reply["error"] if isinstance(reply["error"], dict) else {}
            raise ProtocolError(str(error.get("message", "error")), method=method)
        return reply.get("result")

    async def load(self, params: Mapping[str, Any], *, timeout_s: float) -> Mapping[str, Any]:
        """Load plugins; remembered, so that a restarted sidecar loads the same ones again."""
        self._load_params = dict(params)
        result = await self.request("load", params, timeout_s=timeout_s)
        return result if isinstance(result, dict) else {"plugins": []}

    async def call(self, plugins: Sequence[str], key: str, input: Any, output: Any, *,
                   timeout_s: float) -> CallResult:
        """Run the hooks of ``key`` of ``plugins`` in order; a timeout is a failure of the first one.

        Never raises for a plugin's own failure: a throw, a timeout or a dead sidecar is a
        :class:`CallResult` with an ``error``.
        """
        await self._revive()
        try:
            reply = await self.request("call", {"plugins": list(plugins), "key": key, "input": input,
                                                "output": output}, timeout_s=timeout_s)
        except CallTimeout as exc:
            await self._check_alive()
            return CallResult(output, f"{key} did not finish within {timeout_s:g} s ({exc.message})",
                              plugins[0] if plugins else None)
        except ProtocolError as exc:
            return CallResult(output, exc.message, plugins[0] if plugins else None)
        if not isinstance(reply, dict):
            return CallResult(output, "the plugin host sent no result")
        error = reply.get("error") if isinstance(reply.get("error"), dict) else None
        return CallResult(reply.get("output", output),
                          None if error is None else str(error.get("message", "")),
                          None if error is None else str(error.get("plugin", "")))

    async def _check_alive(self) -> None:
        """After a timeout: a sidecar that cannot answer a ping is blocked; kill its group."""
        try:
            await self.request("ping", {}, timeout_s=_PING_S)
        except ProtocolError:
            await self._kill()

    async def _revive(self) -> None:
        if self._closed or self.running or not self._started:
            return
        self.restarts += 1
        await self._spawn()
        if self._load_params is not None:
            timeout = float(self._load_params.get("timeoutMs", 10_000)) / 1000 + 5
            await self.request("load", self._load_params, timeout_s=timeout)

    async def close(self) -> None:
        """Let plugins dispose (bounded), then kill the whole process group."""
        if self._closed:
            return
        if self.running:
            with suppress(ProtocolError):
                await self.request("dispose", {}, timeout_s=3.0)
        self._closed = True
        await self._kill()


def pid_alive(pid: int) -> bool:
    """Whether a process id still names a live process (tests check the group is gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
