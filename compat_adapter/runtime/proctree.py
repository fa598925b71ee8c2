"""The process tree as ``/proc`` shows it, for the hook launcher: who is below whom, signalling a
member that may be gone, ending the way another process ended, and ``prctl`` (our own place in
the tree: subreaper, parent-death signal).

Standard library only, and no import from the package: the launch server runs
`compat_adapter.runtime.launcher` as a script (``python -I -S``), which imports this file beside it.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # `typing` alone would double the server's start-up
if TYPE_CHECKING:
    import ctypes
    import signal
else:
    import _signal as signal  # the C module: `signal` would import enum

__all__ = ("children", "descendants", "end_like", "kill_quietly", "libc", "parents", "prctl")

_LIBC = None


def libc() -> ctypes.CDLL:
    global _LIBC
    if _LIBC is None:
        import ctypes

        _LIBC = ctypes.CDLL(None, use_errno=True)
    return _LIBC


def prctl(option: int, value: int | bytes) -> bool:
    return libc().prctl(option, value, 0, 0, 0) == 0


def children(me: int) -> list[int]:
    """Direct children of `me` (a /proc scan: kernels without CONFIG_PROC_CHILDREN are common)."""
    return [pid for pid, parent in parents().items() if parent == me]


def parents() -> dict[int, int]:
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


def descendants(me: int) -> list[int]:
    below: dict[int, list[int]] = {}
    for pid, parent in parents().items():
        below.setdefault(parent, []).append(pid)
    found: list[int] = []
    pending = list(below.get(me, ()))
    while pending:
        pid = pending.pop()
        found.append(pid)
        pending.extend(below.get(pid, ()))
    return found


def kill_quietly(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def end_like(status: int) -> None:
    """Leave with the shell's exit code, or die of the signal that killed it."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig not in (signal.SIGKILL, signal.SIGSTOP):  # neither can be caught nor reset
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, ())
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)  # only for a signal whose default is to continue
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)
