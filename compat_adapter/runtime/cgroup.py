"""A cgroup v2 directory per hook run, where the machine lets this process create one.

Each run's launcher (`compat_adapter.runtime.launcher`) makes the directory, as a child of the
host's own cgroup named ``compat-adapter-<host pid>-<n>`` (`compat_adapter.runtime.cgroupfs`), and
the hook's shell is born inside it: a spare launcher joins its directory while it waits for a run.
From then on every process the hook starts is inside it, ``setsid`` or double fork or not, and
cannot leave it without write access to another cgroup's ``cgroup.procs`` (root, or a delegated
subtree). ``cgroup.kill`` (Linux 5.14) ends all of them at once, even if the launcher itself was
killed. The launcher says which directory it made; the host removes it after the run
(`HookCgroup`).

Where it works: the host runs as root, or inside a cgroup subtree delegated to its user (a systemd
user service or scope). Elsewhere (no cgroup2 mount, a read-only ``/sys/fs/cgroup`` in a container,
no delegation) the directory cannot be made and the launcher's subreaper is the only tracking.
``COMPAT_ADAPTER_HOOK_CGROUP=off`` in the host's environment turns the cgroup off on purpose.
"""

from __future__ import annotations

import os
from pathlib import Path

import anyio

from compat_adapter.runtime.callenv import environ

__all__ = ("HookCgroup", "cgroup_parent")

#: This process's own cgroup directory by pid, found once (a forked child looks again).
_found: dict[int, Path | None] = {}
_REMOVE_LIMIT_S = 2.0


def _mount_point() -> tuple[Path, str] | None:
    """The cgroup2 mount and the cgroup path it shows as its root."""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        head, sep, tail = line.partition(" - ")
        if sep and tail.split(" ", 1)[0] == "cgroup2":
            fields = head.split()
            return Path(fields[4]), fields[3]
    return None


def cgroup_parent() -> Path | None:
    """The host process's own cgroup v2 directory, or None when there is none to use."""
    if environ().get("COMPAT_ADAPTER_HOOK_CGROUP", "auto").lower() in ("off", "0", "no", "false"):
        return None
    # Read once per process: two /proc files parsed per hook run cost half a millisecond on a
    # loaded machine, and neither the mount nor the cgroup a host runs in moves under it.
    pid = os.getpid()
    if pid not in _found:
        _found.clear()
        _found[pid] = _own_cgroup()
    return _found[pid]


def _own_cgroup() -> Path | None:
    mount = _mount_point()
    if mount is None:
        return None
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    own = next((line[3:] for line in lines if line.startswith("0::")), None)
    if own is None:
        return None
    where, root = mount
    relative = os.path.relpath(own, root) if root != "/" else own.lstrip("/")
    if relative.startswith(".."):
        return None  # our cgroup is outside what the mount shows
    return where / relative if relative != "." else where


class HookCgroup:
    """One run's cgroup directory, as its launcher made it: killed and removed after the run."""

    __slots__ = ("path",)

    def __init__(self, path: Path) -> None:
        self.path = path

    def kill(self) -> None:
        try:
            (self.path / "cgroup.kill").write_text("1")
        except OSError:
            # No cgroup.kill before Linux 5.14: SIGKILL each member instead (a member cannot
            # leave, so the list only shrinks).
            for pid in self.members():
                try:
                    os.kill(pid, 9)
                except OSError:
                    pass

    def members(self) -> list[int]:
        try:
            return [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def clear(self) -> bool:
        """Remove the directory if nothing is left in it, else kill what is; True once removed.

        ``rmdir`` succeeds only on a cgroup with no process in it, so a run that left nothing costs
        one system call here instead of three writes to ``cgroup.kill`` (each takes the kernel's
        cgroup lock; 25 to 200 µs apiece measured here, on the path of every hook)."""
        try:
            self.path.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError:
            self.kill()
            return False

    async def remove(self) -> None:
        """Kill what is left and remove the directory (it stays busy until the kill lands)."""
        with anyio.move_on_after(_REMOVE_LIMIT_S, shield=True):
            while not self.clear():
                await anyio.sleep(0.005)
