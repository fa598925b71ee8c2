"""The launcher of hook runs: the process between the host and a hook's shell that owns every
descendant (why one is there at all: `compat_adapter.runtime.launcher`, whose server forks it).

Standard library and its neighbours `proctree` and `cgroupfs` only: the launch server runs
`compat_adapter.runtime.launcher` as a script, which imports this file beside it.

A launcher forked ahead of its run (the **spare**, :func:`standby`) takes its runs one after
another: once a run is over, and nothing the hook started is left (it is the subreaper of all of
it, and the only member of its cgroup), it tells the server it is ready, and waits for the next
run under the spare's name. Taking a run costs it no fork and no exit of a Python process, each
about a millisecond of CPU in page faults alone. Each run's shell starts in a session (and process
group) of its own, the pid ``P`` reports: the host's group kill ends the hook, never the launcher.
A launcher forked for one run (hooks started at once find one spare) ends with its run.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False  # `typing` alone would double the server's start-up
if TYPE_CHECKING:
    import signal
else:
    import _signal as signal  # the C module: `signal` would import enum

if __package__:
    from compat_adapter.runtime import cgroupfs
    from compat_adapter.runtime.proctree import children, descendants, end_like, kill_quietly, prctl
else:  # the server's script (-I -S): no package to import from, only this file's directory
    import cgroupfs  # type: ignore[import-not-found,no-redef]
    from proctree import children, descendants, end_like, kill_quietly, prctl  # type: ignore[import-not-found,no-redef]

__all__ = ("INLINE_MAX", "KILL_NOW", "ORDERS", "READY", "SPARE_NAME", "Launcher", "launch", "received_fds",
           "standby")

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
#: Where a launcher forked for one run keeps its run's socket once it has closed everything else.
_REPORT = 3
#: The bytes the host sends on a run's socket, and the signal each one becomes.
ORDERS = {ord("T"): signal.SIGTERM, ord("K"): KILL_NOW}
#: What a spare says to its server once a run is over and it waits for the next.
READY = b"R"


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

    def start(self, argv: list[str], env: dict[str, str]) -> int:
        """Start the shell in a session of its own; its pid, or -1 (said on stderr) where it cannot."""
        signal.pthread_sigmask(signal.SIG_BLOCK, _WATCHED)
        if self.cgroup is None or self.inside:
            try:  # Python ignores SIGPIPE and SIGXFSZ, and SIG_IGN would survive exec
                self.shell_pid = os.posix_spawn(argv[0], argv, env, setsid=True, setsigmask=(),
                                                setsigdef=(signal.SIGPIPE, signal.SIGXFSZ))
            except OSError as exc:
                _cannot_run(exc)
                self.shell_status = 127 << 8  # the wait status of exit code 127, as of a shell that cannot exec
                return -1
        else:
            joined = cgroupfs.fork_into(self.cgroup)
            self.shell_pid = joined if joined >= 0 else os.fork()
            if self.shell_pid == 0:
                _exec_shell(self.cgroup if joined < 0 else None, argv, env)
        return self.shell_pid

    def finish(self) -> int:
        """Wait for the shell, obeying the host's orders meanwhile, then end what it left; its status."""
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

    def run(self, argv: list[str], env: dict[str, str]) -> int:
        self.start(argv, env)
        return self.finish()


def _exec_shell(cgroup: str | None, argv: list[str], env: dict[str, str]) -> None:
    try:
        os.setsid()  # the hook's own session and group, as a spawned shell has
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


class _Run:
    """One run's descriptors as a launcher received them: the run's socket (for the reports) and
    the hook's stdin (-1: none), stdout and stderr; and whether the launcher outlives the run."""

    __slots__ = ("report", "stdio", "kept")

    def __init__(self, report: int, stdio: list[int], kept: bool) -> None:
        self.report, self.stdio, self.kept = report, stdio, kept

    def take_stdio(self) -> None:
        stdin = self.stdio[0] if self.stdio[0] >= 0 else os.open(os.devnull, os.O_RDONLY)
        for target, fd in enumerate((stdin, self.stdio[1], self.stdio[2])):
            os.dup2(fd, target)  # dup2 leaves the copy inheritable, as the shell needs
        if not self.kept:
            # The run's socket stays (as fd 3, closed on exec) for our ``X``; the rest goes.
            if self.report != _REPORT:
                os.dup2(self.report, _REPORT, inheritable=False)
            self.report = _REPORT
            os.closerange(_REPORT + 1, os.sysconf("SC_OPEN_MAX"))
            return
        os.set_inheritable(self.report, False)
        for fd in {stdin, *self.stdio} - {-1, 0, 1, 2}:
            os.close(fd)

    def give_back(self, stderr: int) -> None:
        """A kept launcher lets go of the hook's pipes (the host reads them to their end) and of
        its working directory; `stderr` is its own, the server's."""
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0, inheritable=False)
        os.dup2(null, 1, inheritable=False)
        os.close(null)
        os.dup2(stderr, 2, inheritable=False)
        os.chdir("/")


def _serve(run: _Run, raw: bytes, subreaper: bool, made: str | None, joined: bool,
           name: str) -> int:
    """One run, up to the ``X`` that tells its end; the shell's wait status. A run `run.kept` for
    the next is given back kept only where it leaves the launcher as it found it (a subreaper, in
    the spare's own cgroup or in none); it is not kept when this says otherwise."""
    import json  # loaded by the server already

    request = json.loads(raw)
    cgroup, inside = cgroupfs.for_run(request.get("cgroup"), made, joined, name)
    if cgroup is not None and not inside:  # forked for this run: joins as a spare does
        inside = cgroupfs.join(cgroup)
    # Kept only as it was made: a spare with no cgroup where the host asks for one is not.
    wanted = request.get("cgroup") is not None
    run.kept = run.kept and subreaper and cgroup == made and (cgroup is not None) == wanted and (not wanted or inside)
    # The host removes the run's cgroup when the run is over, whatever became of us (but for a
    # launcher kept for the next run, which is the cgroup's only member then).
    told = b"" if cgroup is None else b"G " + os.fsencode(cgroup) + b"\n"
    run.take_stdio()
    try:
        os.chdir(request["cwd"])
    except OSError as exc:
        message = f"cannot run hook: working directory {request['cwd']!r}: {exc.strerror}"
        os.write(run.report, told + b"E " + message.encode(errors="replace").replace(b"\n", b" ") + b"\n")
        os._exit(127)
    if not subreaper:
        os.write(2, b"compat-adapter launcher: PR_SET_CHILD_SUBREAPER refused\n")
    launcher = Launcher(cgroup, subreaper, inside)
    shell = launcher.start(request["argv"], request["env"])
    me = os.getpid()
    run.kept = run.kept and shell > 0
    # Started: the host may signal the hook's group now (the shell's, ours where none started).
    os.write(run.report, told + f"P {shell if shell > 0 else me} {me}\n".encode())
    return launcher.finish()


def launch(server: int, report: int, stdio: list[int], raw: bytes, name: str = "") -> None:
    """The launcher forked for one run: never returns. `report` is the run's socket (for ``E``),
    `stdio` the hook's stdin (-1: none), stdout and stderr, `raw` the JSON request, `name` the
    cgroup to make for it."""
    try:
        subreaper = _prepare(server, KILL_NOW)
        run = _Run(report, stdio, False)
        status = _serve(run, raw, subreaper, None, False, name)
        _tell(run.report, status, False)
    except BaseException as exc:  # noqa: BLE001 - a forked child must never return into the server
        _died(exc)
    end_like(status)


def _tell(report: int, status: int, kept: bool) -> None:
    # All the hook started is gone: the host goes on now, not when the server reaps us.
    try:
        os.write(report, f"X {status}{' kept' if kept else ''}\n".encode())
    except OSError:
        pass  # the host hung up: nobody to tell


def _flush() -> None:
    """Forget the orders (and SIGCHLD) left pending by the last run: the server may have relayed
    one after it was over, before it knew; it relays none for a run once we said READY."""
    while signal.sigtimedwait(_WATCHED, 0) is not None:
        pass


def standby(server: int, channel: int, name: bytes, cgroup: str | None) -> None:
    """The spare: a launcher forked before its run, which comes on `channel` in one message (the
    run's socket, stdin or none, stdout, stderr, and the request); `name` is a launcher's process
    name, taken when a run comes; `cgroup` the directory its server made for it. Runs one after
    another, as long as each leaves it kept; never returns."""
    try:
        # Nothing started yet, nor while we wait: the channel's end tells us the server is gone.
        subreaper = _prepare(server, 0)
        os.closerange(3, channel)  # what the server held: other runs' sockets must close with them
        os.closerange(channel + 1, os.sysconf("SC_OPEN_MAX"))
        # Joined now, while no run waits: the write takes an RCU grace period, and a shell born
        # in our own cgroup starts by posix_spawn, where forking into it copies our memory.
        joined = cgroup is not None and cgroupfs.join(cgroup)
        import socket  # already loaded by the server

        line = socket.socket(fileno=channel)
        stderr = os.dup(2)  # the server's: ours again between runs
        while True:
            try:
                data, ancillary, _, _ = line.recvmsg(INLINE_MAX + 1, socket.CMSG_SPACE(4 * 4))
            except ConnectionResetError:
                # The server closed the channel with our READY unread (the host left while we
                # were finishing a run): it is gone, as an empty read says; nothing to report.
                data, ancillary = b"", []
            if not data:
                # Still named a spare while it leaves: a spare let go is no launcher, and is
                # standing (spawner.standing_pids) until it is gone.
                _leave(cgroup if joined else None)  # the server let us go, or is gone
            prctl(PR_SET_NAME, name)  # a launcher now, as one the server forks for a run
            fds = received_fds(ancillary)
            _watch(server, KILL_NOW)  # from now on the server's death must end what we start
            _flush()
            run = _Run(fds[0], fds[1:] if len(fds) == 4 else [-1, *fds[1:]], True)
            status = _serve(run, data, subreaper, cgroup, joined, "")
            if not run.kept or os.getppid() != server:  # the hook's pipes go with us
                _tell(run.report, status, False)
                end_like(status)
            run.give_back(stderr)
            prctl(PR_SET_NAME, SPARE_NAME)
            prctl(PR_SET_PDEATHSIG, 0)
            _tell(run.report, status, True)
            os.close(run.report)
            try:
                line.send(READY)
            except OSError:
                _leave(cgroup if joined else None)  # the server stopped: nothing more to run
    except BaseException as exc:  # noqa: BLE001 - a forked child must never return into the server
        _died(exc)


def _leave(cgroup: str | None) -> None:
    """End a launcher that waits for no run: out of its cgroup, which goes with it (a server
    killed outright cannot remove it)."""
    if cgroup is not None:
        cgroupfs.join(os.path.dirname(cgroup))
        cgroupfs.remove(cgroup)
    os._exit(0)


def received_fds(ancillary: list[tuple[int, int, bytes]]) -> list[int]:
    """The descriptors an ``SCM_RIGHTS`` message brought."""
    import socket  # already loaded by the server

    return [int.from_bytes(data[i:i + 4], sys.byteorder) for level, kind, data in ancillary
            if (level, kind) == (socket.SOL_SOCKET, socket.SCM_RIGHTS) for i in range(0, len(data), 4)]


def _died(exc: BaseException) -> None:
    try:
        os.write(2, f"compat-adapter launcher: {type(exc).__name__}: {exc}\n".encode(errors="replace"))
    finally:
        os._exit(126)
