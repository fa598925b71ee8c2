"""The hook launcher: a small process between the host and a hook that owns every descendant.

This file runs as a script, with the standard library only, as one long-lived **launch server**
per host process (``python -I -S launcher.py serve <fd>``, started by
`compat_adapter.runtime.spawner`). For each hook run the host hands it the run's pipes and a
socket of its own; the server forks a **launcher** for the run, which forks the hook's shell.
Forking an interpreter that is already running costs a fraction of a millisecond; starting one per
hook cost 10 ms of CPU on an idle machine and ten times that in wall time on a loaded one, which is
what kept hooks that the vendor starts at once from finishing together.

Why a launcher between the host and the shell:

- it makes itself a *child subreaper* (``PR_SET_CHILD_SUBREAPER``): a descendant whose parent exits,
  including one that called ``setsid`` to leave the process group, is re-parented to the launcher
  instead of to init, so it can still be found and killed. Doing this in the host would be
  process-wide: every orphan of every library would become the host's zombie, which anyio's child
  watchers (they wait for the pids they started) never reap;
- when a cgroup directory is given, the hook's shell moves itself into it before ``exec``; nothing
  it starts can leave that cgroup without root, and ``cgroup.kill`` ends all of it at once;
- the server starts with an empty environment, and a forked launcher shows the environment its
  server was started with, so a hook reading ``/proc/$PPID/environ`` (``sh -c 'cmd'`` execs the
  last command, so ``$PPID`` would otherwise be the host) or its grandparent's finds nothing there.

Protocol of one run (the host never signals a process it did not start):

- host → server, on the control socket: one message with the run's descriptors (its own socket,
  stdin or none, stdout, stderr) and, after the tag byte, the JSON request (``argv``, ``env``,
  ``cwd``, ``cgroup``), so the server forks on the message that announces the run. A request too
  large for one message follows on the run's socket instead: an 8-byte big-endian length, then the
  JSON;
- host → server, on the run's socket: single bytes: ``T`` — the hook timed out: every descendant
  gets SIGTERM once, the launcher keeps waiting for the shell; ``K`` — stop now: every descendant
  gets SIGKILL. The host closing the socket (it was cancelled, or died) counts as ``K``;
- launcher → host: ``P <pid>`` once it is in the hook's working directory (its pid is also its
  process group and session), or ``E <message>`` when the run cannot start (the working directory
  went away); ``X <wait status>`` (the shell's) once everything the hook started is gone. The server
  sends ``X`` with the launcher's own status when it reaps a launcher that could not (killed); the
  host takes the first ``X``.

The shell joins the run's cgroup as it is forked (``clone3`` with ``CLONE_INTO_CGROUP``, Linux
5.7): a write to ``cgroup.procs`` waits for the kernel's cgroup lock, an RCU grace period that
costs milliseconds on a loaded machine. Where the kernel or a seccomp filter refuses ``clone3``
the shell is forked and writes itself into ``cgroup.procs`` before ``exec``, as before.

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
    import ctypes
    import selectors
    import signal
    import socket
else:
    import _signal as signal  # the C module: `signal` would import enum

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
SYS_CLONE3 = 435  # the same number on every architecture that has it
CLONE_INTO_CGROUP = 0x200000000
#: With it (and without CLONE_VM: the child has its own copy of memory, as after fork) we sleep
#: until the shell has called exec, so the shell starts at once instead of waiting for a CPU.
CLONE_VFORK = 0x4000
#: Largest request sent inline with the run's descriptors (a SEQPACKET message must fit the
#: socket buffer, about 200 KiB by default); a larger one follows on the run's socket.
INLINE_MAX = 65536
#: The signal that means "kill everything now" to a launcher.
KILL_NOW = signal.SIGUSR1
_WATCHED = {signal.SIGCHLD, signal.SIGTERM, KILL_NOW}
#: Where a launcher keeps its run's socket once it has closed everything else.
_REPORT = 3
#: The bytes the host sends on a run's socket, and the signal each one becomes.
ORDERS = {ord("T"): signal.SIGTERM, ord("K"): KILL_NOW}
_LIBC = None


def _libc() -> ctypes.CDLL:
    global _LIBC
    if _LIBC is None:
        import ctypes

        _LIBC = ctypes.CDLL(None, use_errno=True)
    return _LIBC


def _prctl(option: int, value: int) -> bool:
    return _libc().prctl(option, value, 0, 0, 0) == 0


def _children(me: int) -> list[int]:
    """Direct children of `me` (a /proc scan: kernels without CONFIG_PROC_CHILDREN are common)."""
    return [pid for pid, parent in _parents().items() if parent == me]


def _parents() -> dict[int, int]:
    out: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue  # exited meanwhile
        # The command name is parenthesised and may contain anything: split after the last ')'.
        fields = stat.rpartition(b")")[2].split()
        if len(fields) > 1:
            out[int(name)] = int(fields[1])
    return out


def _descendants(me: int) -> list[int]:
    parents = _parents()
    below: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        below.setdefault(parent, []).append(pid)
    found: list[int] = []
    pending = list(below.get(me, ()))
    while pending:
        pid = pending.pop()
        found.append(pid)
        pending.extend(below.get(pid, ()))
    return found


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _cgroup_kill(cgroup: str | None) -> None:
    if cgroup is None:
        return
    try:
        with open(os.path.join(cgroup, "cgroup.kill"), "w") as f:
            f.write("1")
    except OSError:
        pass  # older kernel (no cgroup.kill) or removed: the subreaper loop below still works


class Launcher:
    def __init__(self, cgroup: str | None, subreaper: bool = False) -> None:
        self.me = os.getpid()
        self.cgroup = cgroup
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
        # Once: a hook that traps TERM gets one chance to clean up, then the host asks for KILL.
        # Grandchildren are signalled by a pid read from /proc; one that exits and is reaped by its
        # own parent in between could in principle be recycled. The window is microseconds and the
        # signal is TERM; the KILL pass (kill_all) signals only pids that cannot be recycled.
        if not self.terminated:
            self.terminated = True
            for pid in _descendants(self.me):
                _signal(pid, signal.SIGTERM)

    def kill_all(self) -> None:
        """SIGKILL every descendant and reap them all.

        Only direct children are signalled by pid: an unreaped child's pid cannot be recycled, so
        the pid always names the right process. Killing one re-parents its children to us (we are
        their subreaper), so the next round finds them; a process that forks meanwhile loses the
        race the same way.
        """
        _cgroup_kill(self.cgroup)
        while self.reap(block=False):
            children = _children(self.me)
            for pid in children:
                _signal(pid, signal.SIGKILL)
            if children:
                self.reap(block=True)
            else:
                # A live child the scan cannot see (no /proc): poll rather than block on it; the
                # host's own group kill ends it and us.
                time.sleep(0.01)

    def run(self, argv: list[str], env: dict[str, str]) -> int:
        signal.pthread_sigmask(signal.SIG_BLOCK, _WATCHED)
        joined = _fork_into(self.cgroup) if self.cgroup is not None else -1
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
        # The shell is gone. As subreaper, having no child means the hook left nothing running,
        # and the cgroup is empty: its kill (the kernel's cgroup lock, on every hook's path) and
        # the /proc scan are only for what is still there.
        if not self.subreaper or self.reap(block=False):
            self.kill_all()
        return self.shell_status


def _fork_into(cgroup: str) -> int:
    """Fork with the child already in ``cgroup`` (``clone3``, ``CLONE_INTO_CGROUP``): the child's
    pid, 0 in the child, -1 where it cannot be done (the caller forks and joins by a write).

    The child returns here without CPython's after-fork bookkeeping. That is sound only because
    this process has a single thread and the child does nothing but reset signals and ``exec``
    (:func:`_exec_shell`), as a child of ``posix_spawn`` would."""
    try:
        fd = os.open(cgroup, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return -1
    try:
        # struct clone_args: flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size,
        # tls, set_tid, set_tid_size, cgroup (u64 each).
        fields = (CLONE_INTO_CGROUP | CLONE_VFORK, 0, 0, 0, signal.SIGCHLD, 0, 0, 0, 0, 0, fd)
        args = b"".join(v.to_bytes(8, sys.byteorder) for v in fields)
        pid = _libc().syscall(SYS_CLONE3, args, len(args))
        return pid if pid >= 0 else -1
    finally:
        os.close(fd)  # parent and child alike: the child is in the cgroup already


def _exec_shell(cgroup: str | None, argv: list[str], env: dict[str, str]) -> None:
    try:
        if cgroup is not None:
            try:
                with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
                    f.write("0")  # "0" is the writer itself
            except OSError:
                pass  # the subreaper still tracks the hook; the host knows the cgroup is optional
        # What a fresh process would have: Python ignores these two, and SIG_IGN survives exec.
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, ())
        os.execve(argv[0], argv, env)
    except BaseException as exc:  # noqa: BLE001 - a forked child must never return into our loop
        try:
            os.write(2, f"cannot run hook: {type(exc).__name__}: {exc}\n".encode(errors="replace"))
        finally:
            os._exit(127)


def _end_like(status: int) -> None:
    """Leave with the shell's exit code, or die of the signal that killed it."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig not in (signal.SIGKILL, signal.SIGSTOP):  # neither can be caught nor reset
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, ())
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)  # only for a signal whose default is to continue
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def launch(server: int, report: int, stdio: list[int], request: dict) -> None:
    """The forked launcher of one run: never returns.

    `report` is the run's socket (for ``E``), `stdio` the hook's stdin (-1: none), stdout and
    stderr descriptors, `server` the pid of the server that forked us.
    """
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, _WATCHED)  # the host may signal us at once
        signal.set_wakeup_fd(-1)  # the server's: a SIGCHLD of ours must not wake it
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # the server ignores it; SIG_IGN survives exec
        os.setsid()  # our own session and process group, as the host's group kill expects
        stdin = stdio[0] if stdio[0] >= 0 else os.open(os.devnull, os.O_RDONLY)
        for target, fd in enumerate((stdin, stdio[1], stdio[2])):
            os.dup2(fd, target)  # dup2 leaves the copy inheritable, as the shell needs
        try:
            os.chdir(request["cwd"])
        except OSError as exc:
            message = f"cannot run hook: working directory {request['cwd']!r}: {exc.strerror}"
            os.write(report, b"E " + message.encode(errors="replace").replace(b"\n", b" ") + b"\n")
            os._exit(127)
        os.write(report, f"P {os.getpid()}\n".encode())  # started: the host may signal us now
        # The run's socket stays (as fd 3, closed on exec: the hook never holds it) for our ``X``;
        # everything else goes: the server's sockets, other runs' pipes.
        if report != _REPORT:
            os.dup2(report, _REPORT, inheritable=False)
        os.closerange(_REPORT + 1, os.sysconf("SC_OPEN_MAX"))
        # Non-dumpable: no core file when we re-raise a core-dumping signal of the shell.
        _prctl(PR_SET_DUMPABLE, 0)
        subreaper = _prctl(PR_SET_CHILD_SUBREAPER, 1)
        _prctl(PR_SET_PDEATHSIG, KILL_NOW)
        if os.getppid() != server:
            os._exit(125)  # the server died before we could watch it: start nothing
        if not subreaper:
            os.write(2, b"compat-adapter launcher: PR_SET_CHILD_SUBREAPER refused\n")
        status = Launcher(request.get("cgroup"), subreaper).run(request["argv"], request["env"])
        # Everything the hook started is gone: the host may go on now, without waiting for the
        # server to reap us (it still does, and its own ``X`` comes second).
        try:
            os.write(_REPORT, f"X {status}\n".encode())
        except OSError:
            pass  # the host hung up: nobody to tell
    except BaseException as exc:  # noqa: BLE001 - a forked child must never return into the server
        try:
            os.write(2, f"compat-adapter launcher: {type(exc).__name__}: {exc}\n".encode(errors="replace"))
        finally:
            os._exit(126)
    _end_like(status)


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

    def __init__(self, control_fd: int) -> None:
        import selectors
        import socket

        self.socket = socket
        self.me = os.getpid()
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

    def serve(self) -> None:
        _prctl(PR_SET_DUMPABLE, 0)  # loads ctypes once, before any fork
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
        size = socket.CMSG_SPACE(4 * 4)
        try:
            data, ancillary, flags, _ = self.control.recvmsg(INLINE_MAX + 1, size)
        except InterruptedError:
            return True
        fds: list[int] = []
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.extend(int.from_bytes(payload[i:i + 4], sys.byteorder) for i in range(0, len(payload), 4))
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
            import json

            self.fork(run, json.loads(inline))
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
                import json

                request = json.loads(run.pending[8:8 + size])
                orders, run.pending = run.pending[8 + size:], b""
                self.fork(run, request)
                data = orders
            else:
                return
        for byte in data:
            if byte in ORDERS and run.pid:
                _signal(run.pid, ORDERS[byte])

    def fork(self, run: Run, request: dict) -> None:
        pid = os.fork()
        if pid == 0:
            launch(self.me, run.sock.fileno(), run.stdio, request)
        run.release()  # the launcher holds them now; the host sees EOF when the hook is done
        run.pid = pid
        self.launched[pid] = run

    def tell(self, run: Run, line: str) -> None:
        try:
            run.sock.send(line.encode())
        except OSError:
            pass  # the host stopped listening: nothing to tell

    def drop(self, run: Run) -> None:
        """The host closed the run: stop its launcher now and forget the socket."""
        if run.pid and run.pid in self.launched:
            _signal(run.pid, KILL_NOW)
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
            run = self.launched.pop(pid, None)
            if run is not None and not run.ended:
                self.tell(run, f"X {status}\n")
                self.drop(run)

    def stop(self) -> None:
        for pid in self.launched:
            _signal(pid, KILL_NOW)  # each kills its own descendants, then dies


if __name__ == "__main__":
    if sys.argv[1:2] != ["serve"] or len(sys.argv) != 3:
        sys.exit("usage: launcher.py serve <control fd>")
    Server(int(sys.argv[2])).serve()
