"""Where generated bridge configs live, how they are written, and which ones may ever be deleted.

A generated config holds hook commands, sometimes with inline tokens, and the host's bridge runs
whatever it says: whoever can rewrite it between our write and the bridge's read runs code as the
user. So the folder is private and the files are ours alone:

* the folder is ``bridges`` in the user's private state folder (:mod:`compat_adapter.statedir`:
  a real directory of this user, mode 0700, never a symlink), or the folder a host names
  (``state_dir``), which must be a real directory of this user that nobody else can write (one
  that does not exist is made 0700);
* each config is written 0600 from its first byte, under a fresh name, through a temporary file
  opened with ``O_EXCL | O_NOFOLLOW`` and renamed into place;
* pruning at start deletes only what this package wrote: a regular file of this user whose name
  has the generated pattern *and* whose JSON carries the marker, older than a day. A host may
  point ``state_dir`` at a folder that holds other files (a project); they are never touched.
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
from pathlib import Path
from typing import Any

from compat_adapter.errors import UnsafeStateDir
from compat_adapter.jsonlimits import loads_json
from compat_adapter.statedir import private_dir, write_private

__all__ = ("MARKER", "ORPHAN_AGE_S", "config_dir", "is_generated_name", "prune_orphans", "write_config")

#: Generated configs older than this were left by a process that died; nothing reads them.
ORPHAN_AGE_S = 24 * 3600
#: The top-level key every generated config carries (the bridges read only ``hooks``).
MARKER = "compatAdapterGenerated"
#: ``<package slug>-<adapter id>-<counter>-<8 hex>.json``, the only names `write_config` is given.
_NAME = re.compile(r"^[A-Za-z0-9._-]+-a[0-9]+-[0-9]+-[0-9a-f]{8}\.json$")
#: A generated config is small; anything bigger under a matching name is not ours.
_MAX_GENERATED_BYTES = 16 * 1024 * 1024


def is_generated_name(name: str) -> bool:
    return bool(_NAME.match(name))


def config_dir(base: Path | None = None) -> Path:
    """The folder generated configs go to (see the module docstring); raises UNSAFE_STATE_DIR."""
    if base is None:
        folder = private_dir("bridges")
        assert folder is not None  # created when missing
        return folder
    folder = Path(os.path.abspath(base))
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except FileExistsError:
        pass  # not a directory: said below
    except OSError as exc:
        raise UnsafeStateDir(f"cannot create the bridge config folder {folder}: {exc.strerror or exc}",
                             path=str(folder)) from exc
    info = os.lstat(folder)
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeStateDir(f"{folder} is a symlink; generated bridge configs need a real directory",
                             path=str(folder))
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafeStateDir(f"{folder} is not a directory", path=str(folder))
    if info.st_uid != os.getuid():
        raise UnsafeStateDir(f"{folder} belongs to uid {info.st_uid}, not to this user ({os.getuid()})",
                             path=str(folder))
    if info.st_mode & 0o022:
        # Another account could swap a config between our write and the bridge's read.
        raise UnsafeStateDir(f"{folder} is writable by others; generated bridge configs need a folder "
                             "only you can write", path=str(folder))
    return folder


def write_config(path: Path, config: dict[str, Any], owner: str) -> None:
    """Write one generated config at ``path`` (a fresh name), 0600, with the marker inside."""
    if not is_generated_name(path.name):
        raise ValueError(f"{path.name} is not a generated config name")
    data = json.dumps({MARKER: {"owner": owner, "pid": os.getpid()}, **config}, indent=2).encode()
    write_private(path, data)


def _ours(directory: Path, name: str, now: float) -> bool:
    """True for an orphan this package wrote: pattern, owner, regular file, marker, age."""
    if not is_generated_name(name):
        return False
    try:
        fd = os.open(directory / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:  # gone, a symlink, unreadable: not ours to delete
        return False
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if (not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid()
                or info.st_size > _MAX_GENERATED_BYTES or now - info.st_mtime <= ORPHAN_AGE_S):
            return False
        try:
            data = loads_json(f.read(_MAX_GENERATED_BYTES + 1), where=str(directory / name))
        except Exception:  # noqa: BLE001 - not JSON, too deep, not UTF-8: not ours
            return False
    return isinstance(data, dict) and isinstance(data.get(MARKER), dict)


def prune_orphans(directory: Path, *, now: float | None = None) -> list[Path]:
    """Delete the generated configs older than a day that this package wrote; nothing else."""
    now = time.time() if now is None else now
    removed: list[Path] = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        if _ours(directory, name, now):
            try:
                os.unlink(directory / name)
            except OSError:
                continue
            removed.append(directory / name)
    return removed
