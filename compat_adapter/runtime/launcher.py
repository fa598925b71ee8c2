"""The hook launcher: a small process between the host and a hook that owns every descendant.

This file runs as a script (standard library and its neighbours `proctree` and `cgroupfs` only),
as one long-lived **launch server** per host process (``python -I -S launcher.py serve <fd>
[<cgroup>]``, started and spoken to by `compat_adapter.runtime.spawner`, which describes the
protocol). For each hook run the host hands it the run's pipes and a socket; a **launcher** forked
from the server runs the hook's shell (an interpreter per hook cost 10 ms of CPU idle; the
launcher's own code is `compat_adapter.runtime.hooklauncher`). The next run's launcher is forked
ahead (the **spare**), and the server hands the run to it in one message: no fork of a Python
process lies between the host's message and the shell. A spare whose run is over, with nothing of
the hook left, says so (``R`` on its channel) and becomes the spare again: a session of hook runs
one after another forks no launcher at all.

Why a launcher between the host and the shell:

- it makes itself a *child subreaper* (``PR_SET_CHILD_SUBREAPER``): a descendant whose parent exits,
  including one that called ``setsid``, is re-parented to the launcher instead of to init, so it
  can still be found and killed. In the host this would be process-wide: every orphan of every
  library would become the host's zombie, which anyio's child watchers never reap;
- where the host may create cgroups, the hook's shell starts inside a fresh one; nothing it starts
  can leave it without root, and ``cgroup.kill`` ends all of it at once;
- the server starts with an empty environment, which its forked launchers show in ``/proc``: a hook
  reading ``/proc/$PPID/environ`` (else the host's: ``sh -c`` execs its last command) finds nothing.

The shell starts by ``posix_spawn`` (a vfork: nothing copied). A launcher joins its cgroup
before its first run comes (the write to ``cgroup.procs`` waits for an RCU grace period, up to
10 ms loaded), so its shell is born there: a spare while it waits, one forked for a run (hooks
started at once, more than spares wait) as soon as it is forked. That wait costs less than forking
the shell into the cgroup (``clone3``, ``CLONE_INTO_CGROUP``), which copies the launcher's memory.
Only where the write is refused does it fork into the cgroup; where ``clone3`` is refused too, the
shell writes itself into ``cgroup.procs`` before ``exec``. Up to `KEPT` launchers wait for runs;
all but one go after `IDLE_S` without one.

When the shell has exited (or was killed), whatever it left behind is killed and reaped, then the
launcher says how the shell ended (``X``) and either waits for its next run or, where it cannot be
kept, ends the way the shell did: the same exit code, or the same signal. The server ends when the
host closes its control socket (the host exited), killing every launcher still running; each
launcher also dies with the server (``PR_SET_PDEATHSIG``), killing its descendants.
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
    from compat_adapter.runtime.hooklauncher import (INLINE_MAX, KILL_NOW, ORDERS, READY, SPARE_NAME, Launcher,
                                                     launch, received_fds, standby)
    from compat_adapter.runtime.proctree import kill_quietly, prctl
else:  # the server's script (-I -S): no package to import from, only this file's directory
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import cgroupfs  # type: ignore[import-not-found,no-redef]
    from hooklauncher import (INLINE_MAX, KILL_NOW, ORDERS, READY,  # type: ignore[import-not-found,no-redef]
                              SPARE_NAME, Launcher, launch, received_fds, standby)
    from proctree import kill_quietly, prctl  # type: ignore[import-not-found,no-redef]

__all__ = ("INLINE_MAX", "KILL_NOW", "SPARE_NAME", "Launcher", "Run", "Server")

PR_SET_DUMPABLE = 4
PR_SET_NAME = 15
#: How many launchers wait for runs at most: hooks started at once (a vendor runs a point's hooks
#: in parallel) each find one, once a burst as large has come.
KEPT = 8
#: How long a spare beyond the first waits for a run before it is let go (seconds).
IDLE_S = 2.0


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
        #: The spares waiting for a run, oldest first: pid, our end of its channel, since when.
        self.idle: list[tuple[int, socket.socket, float]] = []
        #: The channels of spares that took a run, by pid: each says READY when its run is over.
        self.busy: dict[int, socket.socket] = {}

    def serve(self) -> None:
        prctl(PR_SET_DUMPABLE, 0)  # loads ctypes once, before any fork
        import json  # noqa: F401 - loaded here: every launcher parses its request, none imports

        self.stand_by()
        while True:
            for key, _ in self.selector.select(self.trim()):
                if not self.handle(key):
                    self.stop()
                    return

    def handle(self, key: selectors.SelectorKey) -> bool:
        """One ready descriptor of a batch; False when the host has gone."""
        if key.fileobj is self.control:
            return self.accept()
        if key.fileobj is self.wake:
            self.reap()
        elif isinstance(key.data, int):
            if self.busy.get(key.data) is key.fileobj:  # not reaped earlier in this batch
                self.ready(key.data)
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
        fds = received_fds(ancillary)
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
            self.fork(run, inline, inline=True)
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
                self.fork(run, request, inline=False)
                data = orders
            else:
                return
        for byte in data:
            if byte in ORDERS and run.pid:
                kill_quietly(run.pid, ORDERS[byte])

    def stand_by(self) -> None:
        """Fork the spare for the next run (when none runs: a fork takes a CPU from a starting hook)."""
        if not self.idle:
            pid, channel = self.spawn(SPARE_NAME)
            self.idle.append((pid, channel, time.monotonic()))

    def spawn(self, name: bytes) -> tuple[int, socket.socket]:
        """Fork a launcher that waits for its runs on a channel; `name` is its process name until
        its first run comes. Its pid and our end of the channel."""
        ours, theirs = self.socket.socketpair(self.socket.AF_UNIX, self.socket.SOCK_SEQPACKET)
        cname, cgroup = self.cgroups.make()
        # Named before the fork, so that a spare is told from a launcher from its first instant
        # (spawner.standing_pids); the server's own name comes back at once.
        prctl(PR_SET_NAME, name)
        try:
            pid = os.fork()
            if pid == 0:
                standby(self.me, theirs.fileno(), self.name, cgroup)
        finally:
            prctl(PR_SET_NAME, self.name)
        theirs.close()
        self.cgroups.belongs(pid, cname)
        return pid, ours

    def fork(self, run: Run, request: bytes, inline: bool) -> None:
        """Start the run: in a spare if one waits, else in one forked for it now, which is kept for
        the runs after it as a spare is. A request that followed on the run's socket (too large for
        a message) gets a launcher of its own, forked with the run's descriptors."""
        pid = 0
        if inline:
            fds = [run.sock.fileno(), *(fd for fd in run.stdio if fd >= 0)]
            rights = [(self.socket.SOL_SOCKET, self.socket.SCM_RIGHTS,
                       b"".join(fd.to_bytes(4, sys.byteorder) for fd in fds))]
            while not pid:
                fresh = not self.idle
                # The last to have run is taken first: its pages are the warmest.
                spare, channel = self.spawn(self.name) if fresh else self.idle.pop()[:2]
                try:
                    channel.sendmsg([request], rights)
                    pid = spare
                    self.busy[pid] = channel
                    self.selector.register(channel, 1, pid)  # EVENT_READ; the key's data is its pid
                except OSError:
                    kill_quietly(spare, signal.SIGKILL)  # it is gone or going: another one
                    channel.close()
                    if fresh:
                        break
        if not pid:
            name = self.cgroups.name()
            pid = os.fork()
            if pid == 0:
                launch(self.me, run.sock.fileno(), run.stdio, request, name=name)
            self.cgroups.belongs(pid, name)
        run.release()  # the launcher holds them now; the host sees EOF when the hook is done
        run.pid = pid
        self.launched[pid] = run

    def ready(self, pid: int) -> None:
        """A launcher kept for the next run says READY: the run is over, and nothing of it is left.
        It waits among the spares (up to `KEPT` of them; one more is let go: closing its channel
        ends it)."""
        channel = self.busy[pid]
        try:
            data = channel.recv(16)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        self.selector.unregister(channel)
        del self.busy[pid]
        if data != READY:  # it died: its run is told when it is reaped
            channel.close()
            return
        run = self.launched.pop(pid, None)
        if run is not None and not run.ended:
            self.drop(run)  # out of `launched` first: no order of that run reaches it any more
        if len(self.idle) < KEPT:
            self.idle.append((pid, channel, time.monotonic()))
        else:
            channel.close()

    def trim(self) -> float | None:
        """Let go of spares idle for `IDLE_S` but one; how long until the next would be."""
        now = time.monotonic()
        while len(self.idle) > 1 and self.idle[0][2] + IDLE_S <= now:
            self.idle.pop(0)[1].close()
        return self.idle[0][2] + IDLE_S - now if len(self.idle) > 1 else None

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
            waiting = [entry for entry in self.idle if entry[0] == pid]
            if waiting:  # died waiting: the next run takes another one
                self.idle.remove(waiting[0])
                waiting[0][1].close()
            elif pid in self.busy:
                channel = self.busy.pop(pid)
                self.selector.unregister(channel)
                channel.close()
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
        for pid, _, _ in self.idle:
            kill_quietly(pid, signal.SIGKILL)  # it has started nothing
        for channel in self.busy.values():
            channel.close()  # a spare that took a run is not kept: it ends with it
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
