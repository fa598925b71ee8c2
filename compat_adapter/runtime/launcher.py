"""The hook launcher: a small process between the host and a hook that owns every descendant.

`run_command` starts ``python -I -S launcher.py <parent-pid> <cgroup|-> <shell> -c <command>``
instead of the shell itself. This file is run as a script and uses the standard library only
(``-S`` keeps site-packages out, which saves most of the interpreter's start-up).

Why a separate process:

- it makes itself a *child subreaper* (``PR_SET_CHILD_SUBREAPER``): a descendant whose parent exits,
  including one that called ``setsid`` to leave the process group, is re-parented to the launcher
  instead of to init, so it can still be found and killed. Doing this in the host would be
  process-wide: every orphan of every library would become the host's zombie, which anyio's child
  watchers (they wait for the pids they started) never reap;
- when a cgroup directory is given, the hook's shell moves itself into it before ``exec``; nothing
  it starts can leave that cgroup without root, and ``cgroup.kill`` ends all of it at once;
- its own environment is the hook's scrubbed environment, so a hook reading
  ``/proc/$PPID/environ`` (``sh -c 'cmd'`` execs the last command, so ``$PPID`` would otherwise be
  the host) finds no secret there.

Protocol with the host (signals, because the host already owns the process and its pipes):

- SIGTERM: the hook timed out. Every descendant gets SIGTERM once; the launcher keeps waiting
  for the shell.
- SIGUSR1: stop now. Every descendant gets SIGKILL.
- parent death (``PR_SET_PDEATHSIG``) counts as SIGUSR1.

When the shell has exited (or was killed), whatever it left behind is killed and reaped, then the
launcher ends the way the shell did: the same exit code, or the same signal, so the host reads
the shell's status from the launcher's.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import signal
else:
    import _signal as signal  # the C module: `signal` would import enum, a third of our start-up

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
#: The signal the host sends for "kill everything now".
KILL_NOW = signal.SIGUSR1
_WATCHED = {signal.SIGCHLD, signal.SIGTERM, KILL_NOW}


def _prctl(option: int, value: int) -> bool:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(option, value, 0, 0, 0) == 0


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
    def __init__(self, cgroup: str | None) -> None:
        self.me = os.getpid()
        self.cgroup = cgroup
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

    def run(self, argv: list[str]) -> int:
        signal.pthread_sigmask(signal.SIG_BLOCK, _WATCHED)
        self.shell_pid = os.fork()
        if self.shell_pid == 0:
            _exec_shell(self.cgroup, argv)
        while self.shell_status is None:
            sig = signal.sigwait(_WATCHED)
            if sig == signal.SIGTERM:
                self.terminate()
            elif sig == KILL_NOW:
                self.kill_all()
            self.reap(block=False)
        self.kill_all()
        return self.shell_status


def _exec_shell(cgroup: str | None, argv: list[str]) -> None:
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
        os.execv(argv[0], argv)
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


def main(args: list[str]) -> None:
    parent, cgroup, shell_argv = int(args[0]), (None if args[1] == "-" else args[1]), args[2:]
    # Non-dumpable: no core file when we re-raise a core-dumping signal of the shell.
    _prctl(PR_SET_DUMPABLE, 0)
    subreaper = _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_PDEATHSIG, KILL_NOW)
    if os.getppid() != parent:
        os._exit(125)  # the host died before we could watch it: start nothing
    if not subreaper:
        os.write(2, b"compat-adapter launcher: PR_SET_CHILD_SUBREAPER refused\n")
    _end_like(Launcher(cgroup).run(shell_argv))


if __name__ == "__main__":
    main(sys.argv[1:])
