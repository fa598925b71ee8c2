"""Reading a file someone else put in the project: regular files only, size checked on the open
descriptor, symlinks kept inside the project.

A repository is hostile input. Its ``CLAUDE.md`` can be a FIFO (a plain ``open`` waits forever for a
writer), a symlink to ``/dev/zero`` (a plain read never ends), or a symlink to ``/proc/self/environ``
(a regular file of size 0 according to ``stat``, whose content is the reader's environment, API
keys included). `read_regular` refuses all three before reading a byte:

1. the path is resolved (every symlink followed) and the result must not be under ``/proc``,
   ``/sys`` or ``/dev``, and must stay inside ``root`` when the named path is inside it — or inside
   the named file's own folder otherwise — unless ``allow_outside``;
2. the resolved path is opened with ``O_NOFOLLOW | O_NONBLOCK`` (a FIFO opens at once, and a symlink
   swapped in after step 1 fails), then the *descriptor* is checked: a regular file, not on a
   pseudo filesystem (procfs, sysfs, cgroup, debugfs …, found by device number in
   ``/proc/self/mountinfo``), and the path the kernel gives for it is the one checked in step 1;
3. the size comes from ``fstat`` on that descriptor, and the read stops at ``max_bytes + 1``
   whatever the size said, so a file that grows, or a pseudo file that reports 0, is still capped.

Refusals raise `InputRefused` (``INPUT_REFUSED``) and sizes `InputTooLarge`; a missing or
unreadable file raises the usual `OSError` (a directory `IsADirectoryError`) for the caller to
word. Hard links are not detected (the kernel's ``protected_hardlinks`` keeps other users' files out).
"""

from __future__ import annotations

import errno
import io
import os
import stat
from pathlib import Path

from compat_adapter.errors import InputRefused, InputTooLarge

__all__ = ("MAX_CONFIG_BYTES", "PSEUDO_FILESYSTEMS", "open_regular", "read_regular")

#: The size limit for a vendor config file that is imported or graded.
MAX_CONFIG_BYTES = 8 * 1024 * 1024

#: Filesystems whose files are views of the kernel or of processes, never project content.
PSEUDO_FILESYSTEMS = frozenset({
    "proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "debugfs", "tracefs", "securityfs",
    "configfs", "bpf", "efivarfs", "pstore", "fusectl", "mqueue", "binfmt_misc", "autofs",
    "hugetlbfs", "rpc_pipefs", "nsfs", "selinuxfs",
})
_PSEUDO_ROOTS = (Path("/proc"), Path("/sys"), Path("/dev"))
_READ_CHUNK = 1 << 16


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _pseudo_devices() -> set[tuple[int, int]]:
    """(major, minor) of every mounted pseudo filesystem. Read per call: mounts change."""
    found: set[tuple[int, int]] = set()
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return found  # no /proc: the path checks still hold
    for line in lines:
        head, sep, tail = line.partition(" - ")
        fields = head.split()
        if sep and len(fields) > 2 and tail.split(" ", 1)[0] in PSEUDO_FILESYSTEMS:
            major, _, minor = fields[2].partition(":")
            if major.isdigit() and minor.isdigit():
                found.add((int(major), int(minor)))
    return found


def _refuse(path: Path, why: str, **context: object) -> InputRefused:
    return InputRefused(f"{path}: {why}; nothing was read", path=path, **context)


def _check_path(named: Path, resolved: Path, root: Path | None, allow_outside: bool) -> None:
    for pseudo in _PSEUDO_ROOTS:
        if _inside(resolved, pseudo):
            raise _refuse(named, f"resolves to {resolved}, a file of the system, not of the project")
    if allow_outside:
        return
    if root is not None and _inside(named, root):
        bound = Path(os.path.realpath(root))
    else:
        bound = Path(os.path.realpath(named.parent))
    if not _inside(resolved, bound):
        raise _refuse(named, f"is a symlink to {resolved}, outside {bound}", target=resolved)


def _check_descriptor(fd: int, named: Path, resolved: Path) -> os.stat_result:
    info = os.fstat(fd)
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(21, "Is a directory", str(named))
    if not stat.S_ISREG(info.st_mode):
        kind = ("a FIFO" if stat.S_ISFIFO(info.st_mode) else "a device"
                if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else
                "a socket" if stat.S_ISSOCK(info.st_mode) else "not a regular file")
        raise _refuse(named, f"is {kind}, not a regular file")
    if (os.major(info.st_dev), os.minor(info.st_dev)) in _pseudo_devices():
        raise _refuse(named, "lives on a pseudo filesystem (/proc, /sys …), not in the project")
    try:
        opened = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return info  # no /proc: the O_NOFOLLOW open is the remaining guard
    if opened != str(resolved):
        raise _refuse(named, f"changed while it was opened (now {opened})")
    return info


def _open_checked(path: str | Path, root: str | Path | None, allow_outside: bool
                  ) -> tuple[int, Path, os.stat_result]:
    named = Path(os.path.abspath(path))
    resolved = Path(os.path.realpath(named))
    _check_path(named, resolved, Path(os.path.abspath(root)) if root is not None else None,
                allow_outside)
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(resolved, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # a symlink appeared after the path was resolved
            raise _refuse(named, "changed into a symlink while it was opened") from exc
        raise
    try:
        return fd, named, _check_descriptor(fd, named, resolved)
    except BaseException:
        os.close(fd)
        raise


def open_regular(path: str | Path, *, root: str | Path | None = None, allow_outside: bool = False
                 ) -> io.BufferedReader:
    """The checks of `read_regular` without the size limit: an open binary file (for hashing a
    file of any size in chunks). The caller closes it."""
    fd, _, _ = _open_checked(path, root, allow_outside)
    return os.fdopen(fd, "rb")


def read_regular(path: str | Path, *, max_bytes: int, root: str | Path | None = None,
                 allow_outside: bool = False) -> bytes:
    """The bytes of a regular file inside the project; see the module docstring."""
    fd, named, info = _open_checked(path, root, allow_outside)
    try:
        if info.st_size > max_bytes:
            raise InputTooLarge(f"{named} is {info.st_size} bytes, over the {max_bytes}-byte limit",
                                path=named, size=info.st_size, limit=max_bytes)
        chunks: list[bytes] = []
        total = 0
        while total <= max_bytes:
            chunk = os.read(fd, min(_READ_CHUNK, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > max_bytes:  # grew after fstat
            raise InputTooLarge(f"{named} is over the {max_bytes}-byte limit (it grew while read)",
                                path=named, limit=max_bytes)
        return b"".join(chunks)
    finally:
        os.close(fd)
