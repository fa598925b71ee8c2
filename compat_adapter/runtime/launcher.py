"""The hook launcher: a small process between the host and a hook that owns every descendant.

This file runs as a script (standard library and its neighbours `proctree` and `cgroupfs` only),
as one long-lived **launch server** per host process (``python -I -S launcher.py serve <fd>
[<cgroup>]``, started and spoken to by `compat_adapter.runtime.spawner`, which describes the
protocol). For each hook run the host hands it the run's pipes and a socket; a **launcher** forked
from the server runs the hook's shell (an interpreter per hook cost 10 ms of CPU idle). The next
run's launcher is forked ahead, once a run has ended (the **spare**, :func:`standby`), and the
server hands the run to it in one message: no fork of a Python process lies between the host's
message and the shell.

Why a launcher between the host and the shell:

- it makes itself a *child subreaper* (``PR_SET_CHILD_SUBREAPER``): a descendant whose parent exits,
  including one that called ``setsid``, is re-parented to the launcher instead of to init, so it
  can still be found and killed. In the host this would be process-wide: every orphan of every
  library would become the host's zombie, which anyio's child watchers never reap;
- where the host may create cgroups, the hook's shell starts inside a fresh one; nothing it starts
  can leave it without root, and ``cgroup.kill`` ends all of it at once;
- the server starts with an empty environment, which its forked launchers show in ``/proc``: a hook
  reading ``/proc/$PPID/environ`` (else the host's: ``sh -c`` execs its last command) finds nothing.

The shell starts by ``posix_spawn`` (a vfork: nothing copied). A spare joins its run's cgroup
while it waits (the write to ``cgroup.procs`` waits for an RCU grace period, up to 10 ms loaded),
so its shell is born there. A launcher forked for its run (hooks started at once find one spare)
joins its cgroup the same way when the run comes: that wait costs less than forking the shell into
the cgroup (``clone3``, ``CLONE_INTO_CGROUP``), which copies the launcher's memory (four hooks at
once: a sixth less CPU in all). Only where the write is refused does it fork into the cgroup; where
``clone3`` is refused too, the shell writes itself into ``cgroup.procs`` before ``exec``.

When the shell has exited (or was killed), whatever it left behind is killed and reaped, then the
launcher ends the way the shell did: the same exit code, or the same signal, so the host reads
the shell's status from the launcher's. The server ends when the host closes its control socket
(the host exited), killing every launcher still running; each launcher also dies with the server
(``PR_SET_PDEATHSIG``), killing its descendants.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False  # `typing` alone would double the server's start-up
if TYPE_CHECKING:
    import selectors
    import signal
    import socket
else:
    import _signal as signal  # the C module: `signal` would import enum

if __package__:
    from compat_adapter.runtime import cgroupfs
    from compat_adapter.runtime.proctree import children, descendants, end_like, kill_quietly, prctl
else:  # the server's script (-I -S): no package to import from, only this file's directory
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import cgroupfs  # type: ignore[import-not-found,no-redef]
    from proctree import children, descendants, end_like, kill_quietly, prctl  # type: ignore[import-not-found,no-redef]

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NAME = 15
#: A spare's process name (``/proc/<pid>/comm``) while it waits: how the host tells it from a launcher.
SPARE_NAME = b"hook-spare"
PR_SET_CHILD_SUBREAPER = 36
#: Largest request sent inline with the run's descriptors (a SEQPACKET message must fit the socket
#: buffer, ~200 KiB by default); a larger one follows on the run's socket, and forgoes the spare.
INLINE_MAX = 65536
#: The signal that means "kill everything now" to a launcher.
KILL_NOW = signal.SIGUSR1
_WATCHED = {signal.SIGCHLD, signal.SIGTERM, KILL_NOW}
#: Where a launcher keeps its run's socket once it has closed everything else.
_REPORT = 3
#: The bytes the host sends on a run's socket, and the signal each one becomes.
ORDERS = {ord("T"): signal.SIGTERM, ord("K"): KILL_NOW}


class Launcher:
    def __init__(self, cgroup: str | None, subreaper: bool = False, inside: bool = False) -> None:
        self.me = os.getpid()
        self.cgroup = cgroup
        #: We joined `cgroup` ourselves, before the run (a spare): the shell is born in it, and
        #: ``cgroup.kill`` would kill us too, so the subreaper's walk alone ends what is left.
        self.inside = inside
        #: Every orphan of the hook comes to us: no child left means nothing of the hook is left.
        self.subreaper = subreaper
        self.shell_pid = 0
        self.shell_status: int | None = None
        self.terminated = False

    def reap(self, block: bool) -> bool:
        """Reap what has exited; False once no child is left at all."""
        flags = 0 if block else os.WNOHANG
        while True:
            try:
                pid, status = os.waitpid(-1, flags)
            except ChildProcessError:
                return False
            if pid == 0:
                return True
            if pid == self.shell_pid:
                self.shell_status = status
            if block:
                return True

    def terminate(self) -> None:
        # Once: a hook that traps TERM gets one chance to clean up, then the host asks for KILL. A
        # pid read from /proc could be recycled meanwhile (microseconds, only TERM); kill_all's can't.
        if not self.terminated:
            self.terminated = True
            for pid in descendants(self.me):
                kill_quietly(pid, signal.SIGTERM)

    def kill_all(self) -> None:
        """SIGKILL every descendant and reap them all. Only direct children are signalled (an
        unreaped child's pid cannot be recycled); killing one re-parents its children to us, the
        subreaper, so the next round finds them; a process that forks meanwhile loses the same way."""
        if self.cgroup is not None and not self.inside:
            cgroupfs.kill(self.cgroup)
        while self.reap(block=False):
            kids = children(self.me)
            for pid in kids:
                kill_quietly(pid, signal.SIGKILL)
            if kids:
                self.reap(block=True)
            else:
                # A live child the scan cannot see (no /proc): poll rather than block on it; the
                # host's own group kill ends it and us.
                time.sleep(0.01)

    def run(self, argv: list[str], env: dict[str, str]) -> int:
        signal.pthread_sigmask(signal.SIG_BLOCK, _WATCHED)
        if self.cgroup is None or self.inside:
            try:  # Python ignores SIGPIPE and SIGXFSZ, and SIG_IGN would survive exec
                self.shell_pid = os.posix_spawn(argv[0], argv, env, setsigmask=(),
                                                setsigdef=(signal.SIGPIPE, signal.SIGXFSZ))
            except OSError as exc:
                _cannot_run(exc)
                return 127 << 8  # the wait status of exit code 127, as of a shell that cannot exec
        else:
            joined = cgroupfs.fork_into(self.cgroup)
            self.shell_pid = joined if joined >= 0 else os.fork()
            if self.shell_pid == 0:
                _exec_shell(self.cgroup if joined < 0 else None, argv, env)
        while self.shell_status is None:
            sig = signal.sigwait(_WATCHED)
            if sig == signal.SIGTERM:
                self.terminate()
            elif sig == KILL_NOW:
                self.kill_all()
            self.reap(block=False)
        # As subreaper, no child left means nothing of the hook is left, in the cgroup or anywhere.
        if not self.subreaper or self.reap(block=False):
            self.kill_all()
        return self.shell_status


def _exec_shell(cgroup: str | None, argv: list[str], env: dict[str, str]) -> None:
    try:
        if cgroup is not None:
            cgroupfs.join(cgroup)  # when refused, the subreaper still tracks the hook
        # What a fresh process would have: Python ignores these two, and SIG_IGN survives exec.
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, ())
        os.execve(argv[0], argv, env)
    except BaseException as exc:  # noqa: BLE001 - a forked child must never return into our loop
        try:
            _cannot_run(exc)
        finally:
            os._exit(127)


def _cannot_run(exc: BaseException) -> None:
    os.write(2, f"cannot run hook: {type(exc).__name__}: {exc}\n".encode(errors="replace"))


def _prepare(server: int, deathsig: int) -> bool:
    """What a launcher does before its run; True when it is the subreaper of all it will start."""
    signal.pthread_sigmask(signal.SIG_BLOCK, _WATCHED)  # the host may signal us at once
    signal.set_wakeup_fd(-1)  # the server's: a SIGCHLD of ours must not wake it
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # the server ignores it; SIG_IGN survives exec
    os.setsid()  # our own session and process group, as the host's group kill expects
    prctl(PR_SET_DUMPABLE, 0)  # no core file when we re-raise a core-dumping signal of the shell
    subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1)
    _watch(server, deathsig)
    return subreaper


def _watch(server: int, deathsig: int) -> None:
    prctl(PR_SET_PDEATHSIG, deathsig)
    if os.getppid() != server:
        os._exit(125)  # the server died before we could watch it: start nothing


def launch(server: int, report: int, stdio: list[int], raw: bytes, subreaper: bool | None = None,
           made: str | None = None, joined: bool = False, name: str = "") -> None:
    """The launcher of one run: never returns. `report` is the run's socket (for ``E``), `stdio`
    the hook's stdin (-1: none), stdout and stderr, `raw` the JSON request. A spare has prepared
    itself before (`subreaper` says how that went) and was given the cgroup `made` (`joined`: it
    is in it); a launcher forked for its run names its cgroup `name`."""
    try:
        if subreaper is None:
            subreaper = _prepare(server, KILL_NOW)
        import json

        request = json.loads(raw)
        cgroup, inside = cgroupfs.for_run(request.get("cgroup"), made, joined, name)
        if cgroup is not None and not inside:  # forked for this run: joins as a spare does
            inside = cgroupfs.join(cgroup)
        # The host removes the run's cgroup when the run is over, whatever became of us.
        told = b"" if cgroup is None else b"G " + os.fsencode(cgroup) + b"\n"
        stdin = stdio[0] if stdio[0] >= 0 else os.open(os.devnull, os.O_RDONLY)
        for target, fd in enumerate((stdin, stdio[1], stdio[2])):
            os.dup2(fd, target)  # dup2 leaves the copy inheritable, as the shell needs
        try:
            os.chdir(request["cwd"])
        except OSError as exc:
            message = f"cannot run hook: working directory {request['cwd']!r}: {exc.strerror}"
            os.write(report, told + b"E " + message.encode(errors="replace").replace(b"\n", b" ") + b"\n")
            os._exit(127)
        os.write(report, told + f"P {os.getpid()}\n".encode())  # started: the host may signal us now
        # The run's socket stays (as fd 3, closed on exec) for our ``X``; the rest goes.
        if report != _REPORT:
            os.dup2(report, _REPORT, inheritable=False)
        os.closerange(_REPORT + 1, os.sysconf("SC_OPEN_MAX"))
        if not subreaper:
            os.write(2, b"compat-adapter launcher: PR_SET_CHILD_SUBREAPER refused\n")
        status = Launcher(cgroup, subreaper, inside).run(request["argv"], request["env"])
        # All the hook started is gone: the host goes on now, not when the server reaps us.
        try:
            os.write(_REPORT, f"X {status}\n".encode())
        except OSError:
            pass  # the host hung up: nobody to tell
    except BaseException as exc:  # noqa: BLE001 - a forked child must never return into the server
        _died(exc)
    end_like(status)


def standby(server: int, channel: int, name: bytes, cgroup: str | None) -> None:
    """The spare: a launcher forked before its run, which comes on `channel` in one message (the
    run's socket, stdin or none, stdout, stderr, and the request); `name` is a launcher's process
    name, taken when the run comes; `cgroup` the directory its server made for its run. Never
    returns."""
    try:
        subreaper = _prepare(server, signal.SIGKILL)  # nothing started yet: just die with the server
        os.closerange(3, channel)  # what the server held: other runs' sockets must close with them
        os.closerange(channel + 1, os.sysconf("SC_OPEN_MAX"))
        # Joined now, while no run waits: the write takes an RCU grace period, and a shell born
        # in our own cgroup starts by posix_spawn, where forking into it copies our memory.
        joined = cgroup is not None and cgroupfs.join(cgroup)
        import socket  # already loaded by the server

        data, ancillary, _, _ = socket.socket(fileno=channel).recvmsg(INLINE_MAX + 1, socket.CMSG_SPACE(4 * 4))
        prctl(PR_SET_NAME, name)  # a launcher now, as one the server forks for a run
        if not data:
            os._exit(0)  # the server let us go
        fds = _fds(ancillary)
        _watch(server, KILL_NOW)  # from now on the server's death must end what we start
        launch(server, fds[0], fds[1:] if len(fds) == 4 else [-1, *fds[1:]], data, subreaper, cgroup, joined)
    except BaseException as exc:  # noqa: BLE001 - a forked child must never return into the server
        _died(exc)


def _fds(ancillary: list[tuple[int, int, bytes]]) -> list[int]:
    import socket  # already loaded by the server

    return [int.from_bytes(data[i:i + 4], sys.byteorder) for level, kind, data in ancillary
            if (level, kind) == (socket.SOL_SOCKET, socket.SCM_RIGHTS) for i in range(0, len(data), 4)]


def _died(exc: BaseException) -> None:
    try:
        os.write(2, f"compat-adapter launcher: {type(exc).__name__}: {exc}\n".encode(errors="replace"))
    finally:
        os._exit(126)


class Run:
    """One run as the server sees it: its socket, its pipes until the fork, then its launcher."""

    __slots__ = ("sock", "stdio", "pending", "pid", "ended")

    def __init__(self, sock: socket.socket, stdio: list[int]) -> None:
        self.sock = sock
        self.stdio = stdio
        self.pending = b""
        self.pid = 0
        self.ended = False  # the host closed its end

    def release(self) -> None:
        for fd in self.stdio:
            if fd >= 0:
                os.close(fd)
        self.stdio = []


class Server:
    """The launch server's loop: runs arrive on the control socket, launchers leave by SIGCHLD."""

    def __init__(self, control_fd: int, cgroups: str | None = None) -> None:
        import selectors
        import socket

        self.socket = socket
        self.me = os.getpid()
        #: Under the host's own cgroup each spare gets a directory ahead of its run (None: cgroups
        #: are off or not offered; a run that asks for one then makes it itself).
        self.cgroups = cgroupfs.Made(cgroups, os.getppid())
        with open("/proc/self/comm", "rb") as f:
            self.name = f.read().rstrip(b"\n")  # a launcher's name: the server's
        self.control = socket.socket(fileno=control_fd)
        self.wake, wake_in = socket.socketpair()
        self.wake.setblocking(False)
        wake_in.setblocking(False)
        self.wake_in = wake_in  # kept open: the wake-up fd writes into it
        signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so the wake-up fd is written
        signal.set_wakeup_fd(wake_in.fileno())
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the host's terminal is not ours to obey
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.control, selectors.EVENT_READ)
        self.selector.register(self.wake, selectors.EVENT_READ)
        self.launched: dict[int, Run] = {}  # by launcher pid
        self.spare = 0  # the pid of the spare launcher, if one waits
        self.channel: socket.socket | None = None  # and our end of its socket

    def serve(self) -> None:
        prctl(PR_SET_DUMPABLE, 0)  # loads ctypes once, before any fork
        import json  # noqa: F401 - loaded here: every launcher parses its request, none imports

        self.stand_by()
        while True:
            for key, _ in self.selector.select():
                if not self.handle(key):
                    self.stop()
                    return

    def handle(self, key: selectors.SelectorKey) -> bool:
        """One ready descriptor of a batch; False when the host has gone."""
        if key.fileobj is self.control:
            return self.accept()
        if key.fileobj is self.wake:
            self.reap()
        elif not key.data.ended:
            # An ended run is skipped: one batch can reap a run, then still report its socket.
            self.order(key.data)
        return True

    def accept(self) -> bool:
        """Take one run's descriptors: its socket, stdin (or none), stdout, stderr."""
        socket = self.socket
        try:
            data, ancillary, flags, _ = self.control.recvmsg(INLINE_MAX + 1, socket.CMSG_SPACE(4 * 4))
        except InterruptedError:
            return True
        fds = _fds(ancillary)
        if not data:
            return False  # the host is gone
        tag, inline = data[:1], data[1:]
        if len(fds) != 3 + (tag == b"I") or flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
            for fd in fds:  # not a run we can start: its socket closes, the host reads why
                os.close(fd)
            return True
        sock = socket.socket(fileno=fds[0])
        sock.setblocking(False)
        stdio = fds[1:] if tag == b"I" else [-1, *fds[1:]]
        run = Run(sock, stdio)
        self.selector.register(sock, 1, run)  # EVENT_READ; the key's data is the run
        if inline:
            self.fork(run, inline)
        return True

    def order(self, run: Run) -> None:
        try:
            data = run.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self.drop(run)
            return
        if not run.pid:
            run.pending += data
            size = int.from_bytes(run.pending[:8], "big") if len(run.pending) >= 8 else -1
            if size >= 0 and len(run.pending) >= 8 + size:
                request = run.pending[8:8 + size]
                orders, run.pending = run.pending[8 + size:], b""
                self.fork(run, request)
                data = orders
            else:
                return
        for byte in data:
            if byte in ORDERS and run.pid:
                kill_quietly(run.pid, ORDERS[byte])

    def stand_by(self) -> None:
        """Fork the spare for the next run (when none runs: a fork takes a CPU from a starting hook)."""
        if self.spare:
            return
        ours, theirs = self.socket.socketpair(self.socket.AF_UNIX, self.socket.SOCK_SEQPACKET)
        name, cgroup = self.cgroups.make()
        # Named before the fork, so that the spare is told from a launcher from its first instant
        # (spawner.standing_pids); the server's own name comes back at once.
        prctl(PR_SET_NAME, SPARE_NAME)
        try:
            pid = os.fork()
            if pid == 0:
                standby(self.me, theirs.fileno(), self.name, cgroup)
        finally:
            prctl(PR_SET_NAME, self.name)
        theirs.close()
        self.spare, self.channel = pid, ours
        self.cgroups.belongs(pid, name)

    def fork(self, run: Run, request: bytes) -> None:
        """Start the run: in the spare if one waits (and the request fits a message), else forked."""
        pid = 0
        if self.channel is not None and len(request) <= INLINE_MAX:
            fds = [run.sock.fileno(), *(fd for fd in run.stdio if fd >= 0)]
            try:
                self.channel.sendmsg([request], [(self.socket.SOL_SOCKET, self.socket.SCM_RIGHTS,
                                               b"".join(fd.to_bytes(4, sys.byteorder) for fd in fds))])
                pid = self.spare
            except OSError:
                kill_quietly(self.spare, signal.SIGKILL)  # it is gone or going: fork instead
            self.channel.close()
            self.spare, self.channel = 0, None
        if not pid:
            name = self.cgroups.name()
            pid = os.fork()
            if pid == 0:
                launch(self.me, run.sock.fileno(), run.stdio, request, name=name)
            self.cgroups.belongs(pid, name)
        run.release()  # the launcher holds them now; the host sees EOF when the hook is done
        run.pid = pid
        self.launched[pid] = run

    def drop(self, run: Run) -> None:
        """The host closed the run: stop its launcher now and forget the socket."""
        if run.pid and run.pid in self.launched:
            kill_quietly(run.pid, KILL_NOW)
        run.ended = True
        run.release()
        self.selector.unregister(run.sock)
        run.sock.close()

    def reap(self) -> None:
        try:
            while self.wake.recv(4096):
                pass
        except (BlockingIOError, InterruptedError):
            pass
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.spare and self.channel is not None:  # died waiting: fork for the next
                self.channel.close()
                self.spare, self.channel = 0, None
            self.cgroups.reaped(pid)
            run = self.launched.pop(pid, None)
            if run is not None and not run.ended:
                try:
                    run.sock.send(f"X {status}\n".encode())
                except OSError:
                    pass  # the host stopped listening: nothing to tell
                self.drop(run)
            if run is not None and not self.launched:
                self.stand_by()

    def stop(self) -> None:
        signal.set_wakeup_fd(-1)  # the launchers' SIGCHLDs may come after our sockets are gone
        if self.spare:
            kill_quietly(self.spare, signal.SIGKILL)  # it has started nothing
        for pid in self.launched:
            kill_quietly(pid, KILL_NOW)  # each kills its own descendants, then dies
        # A cgroup empties as its launcher exits: each is removed once reaped (for two seconds at
        # most), the runs' too, for a host that was killed outright cannot remove them.
        deadline = time.monotonic() + 2.0
        while self.cgroups.by_pid and time.monotonic() < deadline:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid:
                self.cgroups.reaped(pid)
            else:
                time.sleep(0.005)


if __name__ == "__main__":
    if sys.argv[1:2] != ["serve"] or len(sys.argv) not in (3, 4):
        sys.exit("usage: launcher.py serve <control fd> [<the host's cgroup directory>]")
    Server(int(sys.argv[2]), sys.argv[3] if len(sys.argv) == 4 else None).serve()
