"""The host's side of the launch server: hook runs started by a forking server, not by ``exec``.

One server per host process (`compat_adapter.runtime.launcher`, run as ``python -I -S launcher.py
serve``), started on the first hook run and again whenever it is found gone. A run costs the host
three pipes, one socket pair and one message (descriptors and request); the server hands it to
a spare launcher (forked ahead, or kept from an earlier run) or forks one for it, and the launcher
reports the end of the run itself.

Protocol of one run (the host never signals a process it did not start):

- host → server, on the control socket: one message with the run's descriptors (its own socket,
  stdin or none, stdout, stderr) and, after the tag byte, the JSON request (``argv``, ``env``,
  ``cwd``, and ``cgroup``: the host's own cgroup directory, under which the run gets one of its
  own, or none), so the run starts on the message that announces it. A request too large for one
  message follows on the run's socket instead: an 8-byte big-endian length, then the JSON;
- host → server, on the run's socket: single bytes: ``T`` — the hook timed out: every descendant
  gets SIGTERM once, the launcher keeps waiting for the shell; ``K`` — stop now: every descendant
  gets SIGKILL. The host closing the socket (it was cancelled, or died) counts as ``K``;
- launcher → host: first ``G <directory>`` when the run has a cgroup (a spare's is made and joined
  before its run comes), which the host removes after the run; then ``P <pid> <launcher pid>``
  once the hook's shell has started in its working directory (the shell's pid is also the hook's
  process group and session; the launcher's, where no shell could start), or ``E <message>``
  when the run cannot start (the working directory went away); ``X <wait status>`` (the shell's)
  once everything the hook started is gone, ``X <wait status> kept`` when the launcher outlives
  the run, as the spare for the next (its cgroup is then its own, not the host's to remove). The
  server sends ``X`` with the launcher's own status when it reaps a launcher that could not
  (killed); the host takes the first ``X``.

`launch` returns a `Launched`: the same surface `runtime.process` uses of an anyio process (pid,
streams, ``wait``, ``send_signal``, ``aclose``), with the launcher's exit status read from the run's
socket, since the launcher is the server's child, not ours.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from contextlib import suppress
from pathlib import Path

import anyio
import anyio.lowlevel
from anyio.abc import ByteReceiveStream, ByteSendStream

from compat_adapter.runtime.cgroup import cgroup_parent
from compat_adapter.runtime.hooklauncher import INLINE_MAX, KILL_NOW, SPARE_NAME

__all__ = ("LaunchRefused", "Launched", "launch", "server_pid", "standing_pids")

_SCRIPT = Path(__file__).with_name("launcher.py")
_ORDERS: dict[int, bytes] = {signal.SIGTERM: b"T", KILL_NOW: b"K"}
_CHUNK = 65536
_START_LIMIT_S = 60.0
#: How long a launcher that has said X may take to exit (it exits at once; the host kills it after).
_EXIT_LIMIT_S = 5.0


class LaunchRefused(Exception):
    """The server could not start the run (its message says why); the hook never ran."""


class _Server:
    """The running server and the host's end of its control socket; restarted when gone."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.proc: subprocess.Popen[bytes] | None = None
        self.control: socket.socket | None = None

    def _retire(self) -> None:
        """Let go of the current server: one that refused a message may still be exiting, so it
        is killed (its launchers die with it) and reaped rather than left to ``Popen.__del__``."""
        if self.control is not None:
            self.control.close()
            self.control = None
        if self.proc is not None:
            if self.proc.poll() is None:
                with suppress(OSError):
                    self.proc.kill()
                self.proc.wait()
            self.proc = None

    def _start(self, python: str) -> socket.socket:
        self._retire()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            # An empty environment: a launcher shows its server's initial environment in /proc.
            # Its own session: a Ctrl-C meant for the host's terminal group is not for it.
            # The host's cgroup, where it may create them: each spare gets a directory of its own.
            cgroups = cgroup_parent()
            self.proc = subprocess.Popen(
                [python, "-I", "-S", str(_SCRIPT), "serve", str(theirs.fileno()),
                 *([str(cgroups)] if cgroups is not None else [])],
                pass_fds=(theirs.fileno(),), env={}, cwd="/", stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, start_new_session=True)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self.control = ours
        return ours

    def submit(self, python: str, fds: Sequence[int], with_stdin: bool, request: bytes = b"") -> None:
        """Hand one run's descriptors, and its request when given, to the server in one message
        (starting the server if needed)."""
        message = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, b"".join(fd.to_bytes(4, sys.byteorder) for fd in fds))]
        tag = (b"I" if with_stdin else b"N") + request
        with self.lock:
            for attempt in (1, 2):
                control = self.control
                if control is None or (self.proc is not None and self.proc.poll() is not None):
                    control = self._start(python)
                try:
                    # Blocking, but a few bytes into a socket buffer: it returns at once unless
                    # the server has stopped reading, which a dead server reports as EPIPE.
                    control.sendmsg([tag], message)
                    return
                except (BrokenPipeError, ConnectionError):
                    self._retire()  # gone: the next attempt starts another one
                    if attempt == 2:
                        raise

    def forget(self) -> None:
        """In a forked child: the server belongs to the parent; start our own when needed."""
        self.lock = threading.Lock()
        self.proc = None
        self.control = None

    def stop(self) -> None:
        """At exit: closing the control socket ends the server (and any launcher left)."""
        if self.control is not None:
            self.control.close()
            self.control = None
        if self.proc is not None:
            with suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=2.0)
            self.proc = None


_SERVER = _Server()
os.register_at_fork(after_in_child=_SERVER.forget)
atexit.register(_SERVER.stop)


def server_pid() -> int | None:
    """The running launch server's pid, if one is running."""
    proc = _SERVER.proc
    return proc.pid if proc is not None and proc.poll() is None else None


def standing_pids() -> set[int]:
    """The processes the launcher keeps while this host lives, whatever its hooks do: the launch
    server and its spare launchers (forked ahead or kept from a run that is over, each waits for
    the next with nothing of a hook left, and is told by its process name). Empty when no server
    runs."""
    server = server_pid()
    if server is None:
        return set()
    found = {server}
    for name in os.listdir("/proc"):
        if name.isdigit():
            with suppress(OSError, ValueError, IndexError):
                with open(f"/proc/{name}/stat", "rb") as f:
                    stat = f.read()
                comm, _, rest = stat.partition(b" (")[2].rpartition(b") ")
                if int(rest.split()[1]) == server and comm == SPARE_NAME:
                    found.add(int(name))
    return found


def _check(argv: Sequence[str], env: Mapping[str, str]) -> None:
    """What ``subprocess`` refuses before starting anything, refused the same way here."""
    try:
        # Every run passes: one scan of all the strings at once, and the item-by-item walk below
        # (which says what is wrong) only when this finds something or a value is not a string.
        names = "".join(env)
        if "\0" not in "".join((*argv, names, *env.values())) and "=" not in names and all(env):
            return
    except TypeError:
        pass
    for arg in argv:
        if not isinstance(arg, str):
            raise TypeError(f"expected str, bytes or os.PathLike object, not {type(arg).__name__}")
        if "\0" in arg:
            raise ValueError("embedded null byte")
    for name, value in env.items():
        if not isinstance(name, str) or not isinstance(value, str):
            raise TypeError("environment can only contain strings")
        if "\0" in name or "\0" in value:
            raise ValueError("embedded null byte")
        if "=" in name or not name:
            raise ValueError("illegal environment variable name")


class _PipeReader(ByteReceiveStream):
    """Our end of a hook's stdout or stderr pipe, read without a thread."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        #: The last chunk came without waiting: yield before the next read, so that a hook that
        #: floods its pipe does not starve the loop (a read that waited has yielded already).
        self.owed = False

    async def receive(self, max_bytes: int = _CHUNK) -> bytes:
        if self.owed:
            await anyio.lowlevel.checkpoint()
        self.owed = True
        while True:
            if self.fd < 0:
                raise anyio.ClosedResourceError
            try:
                data = os.read(self.fd, max_bytes)
            except BlockingIOError:
                await anyio.wait_readable(self.fd)
                self.owed = False
                continue
            if not data:
                raise anyio.EndOfStream
            return data

    async def aclose(self) -> None:
        _close(self)


class _PipeWriter(ByteSendStream):
    """Our end of a hook's stdin pipe."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send_nowait(self, item: bytes) -> int:
        """Write what the pipe takes now (a payload within its buffer: all of it); how much."""
        try:
            return os.write(self.fd, item) if item and self.fd >= 0 else 0
        except BlockingIOError:
            return 0
        except BrokenPipeError as exc:
            raise anyio.BrokenResourceError from exc

    async def send(self, item: bytes) -> None:
        view = memoryview(item)
        while view:
            if self.fd < 0:
                raise anyio.ClosedResourceError
            try:
                view = view[os.write(self.fd, view):]
            except BlockingIOError:
                await anyio.wait_writable(self.fd)
            except BrokenPipeError as exc:
                raise anyio.BrokenResourceError from exc

    async def aclose(self) -> None:
        _close(self)


def _close(end: _PipeReader | _PipeWriter) -> None:
    if end.fd >= 0:
        fd, end.fd = end.fd, -1
        anyio.notify_closing(fd)
        os.close(fd)


class Launched:
    """A hook run started by the server: its launcher's pid, our ends of its pipes, its status."""

    def __init__(self, sock: socket.socket, stdin: int | None, stdout: int, stderr: int) -> None:
        self.sock = sock
        #: The hook's process group (its shell's pid), once started.
        self.pid = 0
        self.launcher = 0
        self.returncode: int | None = None
        self.refused: str | None = None
        #: The run's cgroup directory, as its launcher made it (``G``): the host removes it.
        self.cgroup: str | None = None
        self.stdin = _PipeWriter(stdin) if stdin is not None else None
        self.stdout = _PipeReader(stdout)
        self.stderr = _PipeReader(stderr)
        self._lines = b""
        self._reading = anyio.Lock()
        self._exited = False

    async def _next(self) -> None:
        """Read the server's next reports (``G``, ``P``, ``E``, ``X``: every whole line come so far);
        its going away ends the run."""
        async with self._reading:
            while b"\n" not in self._lines:
                try:
                    data = self.sock.recv(256)
                except BlockingIOError:
                    await anyio.wait_readable(self.sock)
                    continue
                except OSError:
                    data = b""
                if not data:
                    # The server went away before telling: its launchers die with it (PDEATHSIG),
                    # so the run is over; report it as killed.
                    # Without a pid it never started: refused, and over (as a launcher's exit 127).
                    lost = (b"X %d\n" % signal.SIGKILL if self.pid else
                            b"E cannot run hook: the launcher stopped\nX %d\n" % (127 << 8))
                    self._lines += lost
                    break
                self._lines += data
            lines, _, self._lines = self._lines.rpartition(b"\n")
        for line in lines.split(b"\n"):
            self._report(os.fsdecode(line))

    def _report(self, line: str) -> None:
        kind, _, value = line.partition(" ")
        if kind == "G":
            self.cgroup = value
        elif kind == "P":
            group, _, launcher = value.partition(" ")
            self.pid, self.launcher = int(group), int(launcher or group)
        elif kind == "E" and self.refused is None:
            self.refused = value
        elif kind == "X" and self.returncode is None:  # the first: the launcher's, else the server's
            status, _, kept = value.partition(" ")
            self.returncode = os.waitstatus_to_exitcode(int(status))
            if kept:  # the launcher stays, the only member of its cgroup, which is not ours to remove
                self.cgroup = None
                self._exited = True

    async def started(self) -> None:
        while not self.pid and self.refused is None:
            await self._next()
            if self.returncode is not None and not self.pid and self.refused is None:
                self.refused = f"cannot run hook: the launcher ended before starting it (status {self.returncode})"
        if self.refused is not None:
            raise LaunchRefused(self.refused)

    async def wait(self) -> int:
        while self.returncode is None:
            await self._next()
        if self.launcher and not self._exited:
            await self._exit_of_launcher()
        return self.returncode

    async def _exit_of_launcher(self) -> None:
        """The launcher says ``X`` just before it exits: wait (bounded) until it has, so that when
        a run is over no process of it is still running, the launcher included."""
        self._exited = True
        try:
            fd = os.pidfd_open(self.launcher)
        except OSError:
            return  # gone and reaped already (the server's X), or no pidfd on this kernel
        try:
            with anyio.move_on_after(_EXIT_LIMIT_S):
                await anyio.wait_readable(fd)  # readable once the process has terminated
        finally:
            anyio.notify_closing(fd)
            os.close(fd)

    def send_signal(self, sig: int) -> None:
        """SIGTERM and KILL_NOW, relayed by the server (which owns the pid until it reaps it)."""
        with suppress(OSError):
            self.sock.send(_ORDERS[sig])

    async def aclose(self) -> None:
        for end in (self.stdin, self.stdout, self.stderr):
            if end is not None:
                _close(end)
        if self.sock.fileno() >= 0:
            anyio.notify_closing(self.sock)
            self.sock.close()  # the server kills the launcher if it is still running


async def launch(argv: Sequence[str], *, python: str, env: Mapping[str, str], cwd: Path,
                 cgroup: str | None, with_stdin: bool, wait_started: bool = True) -> Launched:
    """Start `argv` under a launcher; raises OSError, ValueError, TypeError as ``subprocess``
    would, and `LaunchRefused` when the launcher could not start it.

    ``wait_started=False`` returns as soon as the run is handed over, so that the caller feeds
    stdin while the launcher forks: `Launched.wait` then reads the start (``P``) or the refusal
    (``E``, kept in `Launched.refused`) on the way to the end."""
    _check(argv, env)
    request = json.dumps({"argv": list(argv), "env": dict(env), "cwd": str(cwd), "cgroup": cgroup}).encode()
    theirs: list[int] = []
    ours: list[int] = []
    sock = None
    try:
        sock, their_sock = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        theirs.append(their_sock.detach())
        sock.setblocking(False)
        if with_stdin:
            r, w = os.pipe()
            theirs.append(r)
            ours.append(w)
        for _ in range(2):
            r, w = os.pipe()
            ours.append(r)
            theirs.append(w)
        for fd in ours:
            os.set_blocking(fd, False)
        # One message: the server forks on it. Only a request too large for one follows apart.
        inline = len(request) <= INLINE_MAX
        _SERVER.submit(python, theirs, with_stdin, request if inline else b"")
    except BaseException:
        for fd in theirs + ours:
            os.close(fd)
        if sock is not None:
            sock.close()
        raise
    for fd in theirs:  # the server has its own copies now
        os.close(fd)
    run = Launched(sock, ours[0] if with_stdin else None, ours[-2], ours[-1])
    if inline and not wait_started:
        return run  # handed over whole: nothing to send or wait for
    try:
        # Bounded: the caller shields this from cancellation, and a server that stopped answering
        # must become a spawn failure, not a hang (closing the socket then stops the launcher).
        with anyio.fail_after(_START_LIMIT_S):
            view = memoryview(b"" if inline else len(request).to_bytes(8, "big") + request)
            while view:
                try:
                    view = view[sock.send(view):]
                except BlockingIOError:
                    await anyio.wait_writable(sock)
            if wait_started:
                await run.started()
    except BaseException:
        await run.aclose()
        raise
    return run
