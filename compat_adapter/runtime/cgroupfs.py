"""A run's cgroup v2 directory as the hook launcher handles it: made, joined, forked into, killed.

Standard library only, and no import from the package: the launch server runs
`compat_adapter.runtime.launcher` as a script (``python -I -S``), which imports this file beside it.
The host's side of the same directory (removal after the run) is `compat_adapter.runtime.cgroup`.

Every call here answers failure with a value, never an exception: a machine that offers no
writable cgroup (no delegation, a read-only ``/sys/fs/cgroup``) runs its hooks under the
launcher's subreaper alone.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # `typing` alone would double the server's start-up
if TYPE_CHECKING:
    import signal
else:
    import _signal as signal  # the C module: `signal` would import enum

if __package__:
    from compat_adapter.runtime.proctree import libc
else:  # imported by the launcher's script: this file's directory is on sys.path
    from proctree import libc  # type: ignore[import-not-found,no-redef]

__all__ = ("Made", "for_run", "fork_into", "join", "kill", "make", "name_for", "remove")

SYS_CLONE3 = 435  # the same number on every architecture that has it
CLONE_INTO_CGROUP = 0x200000000
#: Without CLONE_VM (the child has a copy of memory): we sleep until the shell has called exec.
CLONE_VFORK = 0x4000


def name_for(host: int, serial: int) -> str:
    """The directory name of a host's run: the host's pid, so that what a host left is told apart."""
    return f"compat-adapter-{host}-{serial}"


class Made:
    """The directories a launch server names under the host's cgroup `parent` (None: none), by
    the pid of the launcher each is for. The host removes a run's directory after the run; the
    server removes it too once it has reaped the launcher, so that a directory outlives neither
    a host killed outright nor a spare that never took a run (whichever comes second finds it gone)."""

    __slots__ = ("parent", "host", "serial", "by_pid")

    def __init__(self, parent: str | None, host: int) -> None:
        self.parent, self.host = parent, host
        self.serial = 0
        self.by_pid: dict[int, str] = {}

    def name(self) -> str:
        """A name never given before by this server (asked before a fork, never in the child)."""
        self.serial += 1
        return name_for(self.host, self.serial)

    def make(self) -> tuple[str, str | None]:
        """A name, and the directory made under it now (None where none could be)."""
        name = self.name()
        if self.parent is None:
            return name, None
        while os.path.lexists(os.path.join(self.parent, name)):
            name = self.name()  # left by a server of this host that was killed: its names again
        return name, make(self.parent, name)

    def belongs(self, pid: int, name: str) -> None:
        if self.parent is not None:
            self.by_pid[pid] = os.path.join(self.parent, name)

    def reaped(self, pid: int) -> None:
        path = self.by_pid.pop(pid, None)
        if path is not None:
            remove(path)  # busy when something escaped its launcher: the host's removal kills it


def make(parent: str, name: str) -> str | None:
    """Create ``parent/name``; its path, or None where this process may not create or fill one."""
    path = os.path.join(parent, name)
    try:
        os.mkdir(path, 0o755)
    except OSError:
        return None
    # Whoever joins it writes its own pid: that file must be ours to write.
    if not os.access(os.path.join(path, "cgroup.procs"), os.W_OK):
        remove(path)
        return None
    return path


def for_run(parent: str | None, made: str | None, joined: bool, name: str) -> tuple[str | None, bool]:
    """A run's cgroup and whether the launcher is in it already. `parent` is the host's own (None:
    the run wants none), `made` the directory a spare was given (`joined`: it is in it), `name`
    the one to make now where there is none."""
    if made is not None:
        if parent is not None:
            return made, joined
        # Cgroups were turned off since the spare was made: back where it came from, and the
        # spare's directory goes, empty.
        if joined:
            join(os.path.dirname(made))
        remove(made)
        return None, False
    return (make(parent, name) if parent is not None else None), False


def join(path: str) -> bool:
    """Move this process into `path`. The write waits for an RCU grace period (0.3 ms typical,
    10 ms and more on a loaded machine), which is why a launcher joins before its run comes."""
    # By descriptor, not a file object: a spare does this after its fork, and every Python
    # object it touches costs it a copied page.
    try:
        fd = os.open(os.path.join(path, "cgroup.procs"), os.O_WRONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        os.write(fd, b"0")  # "0" is the writer itself
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def remove(path: str) -> None:
    try:
        os.rmdir(path)
    except OSError:
        pass  # gone already, or still busy: the host's removal kills and retries


def kill(path: str) -> None:
    try:
        with open(os.path.join(path, "cgroup.kill"), "w") as f:
            f.write("1")
    except OSError:
        pass  # older kernel (no cgroup.kill) or removed: the subreaper loop still works


def fork_into(path: str) -> int:
    """Fork with the child already in `path` (``clone3``, ``CLONE_INTO_CGROUP``): the child's
    pid, 0 in the child, -1 where it cannot be done (the caller forks and joins by a write). The
    child returns here without CPython's after-fork bookkeeping: sound only because the caller
    has one thread and the child only resets signals and execs. It costs a copy of the caller's
    memory (4 ms measured for a spare launcher, whose pages its server shares), which a launcher
    that joined its cgroup by a write does not pay (every one, where the write is allowed): it
    starts the shell by ``posix_spawn``."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return -1
    try:
        # struct clone_args (u64 each): flags, pidfd, child_tid, parent_tid, exit_signal, stack,
        # stack_size, tls, set_tid, set_tid_size, cgroup.
        fields = (CLONE_INTO_CGROUP | CLONE_VFORK, 0, 0, 0, signal.SIGCHLD, 0, 0, 0, 0, 0, fd)
        args = b"".join(v.to_bytes(8, sys.byteorder) for v in fields)
        pid = libc().syscall(SYS_CLONE3, args, len(args))
        return pid if pid >= 0 else -1
    finally:
        os.close(fd)  # parent and child alike: the child is in the cgroup already
