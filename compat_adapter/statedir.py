"""The user's private state folder: what compat-adapter remembers between runs (the trust store).

It lives where the platform keeps per-user state (``platformdirs``), or under
``$COMPAT_ADAPTER_STATE_HOME`` when that is set (tests, sandboxes). Whatever is kept there can grant
a repository's code the right to run, so the folder must be the user's alone: a real directory (never
a symlink, which another user could point elsewhere), owned by the user, mode 0700; files in it are
0600 and replaced atomically, so a reader never sees half a write.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from compat_adapter.errors import UnsafeStateDir
from compat_adapter.runtime.callenv import environ

__all__ = ("STATE_HOME_ENV", "private_dir", "read_private", "state_home", "write_private")

#: Point the state folder elsewhere (an absolute path); unset: the platform's user state folder.
STATE_HOME_ENV = "COMPAT_ADAPTER_STATE_HOME"


def state_home() -> Path:
    """The base folder, not yet checked or created."""
    given = environ().get(STATE_HOME_ENV)
    if given:
        return Path(os.path.abspath(given))
    from platformdirs import user_state_dir

    return Path(user_state_dir("compat-adapter", appauthor=False))


def _own(path: Path) -> None:
    """Refuse anything but a real directory of this user; tighten its mode to 0700."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise UnsafeStateDir(f"{path} vanished while it was being made private", path=str(path)) from None
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeStateDir(f"{path} is a symlink; the state folder must be a real directory", path=str(path))
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafeStateDir(f"{path} is not a directory", path=str(path))
    if info.st_uid != os.getuid():
        raise UnsafeStateDir(f"{path} belongs to uid {info.st_uid}, not to this user ({os.getuid()})",
                             path=str(path))
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(path, 0o700)


def private_dir(name: str, home: Path | None = None, *, create: bool = True) -> Path | None:
    """``<home>/<name>``, both checked as the user's own, mode 0700. Created if needed; with
    ``create`` False a missing folder is None (a reader needs nothing made to learn it is empty)."""
    base = home if home is not None else state_home()
    folder = base / name
    for path in (base, folder):
        if not create and not os.path.lexists(path):
            return None
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
        except FileExistsError:  # something that is not a directory has the name: _own says so
            pass
        except OSError as exc:
            raise UnsafeStateDir(f"cannot create the state folder {path}: {exc.strerror or exc}",
                                 path=str(path)) from exc
        _own(path)
    return folder


def read_private(path: Path) -> bytes | None:
    """The bytes of a private file, or None when there is none; refuses a symlink, a file of
    another user, or one others may write (anyone who can write it could grant trust)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UnsafeStateDir(f"{path}: cannot open ({exc.strerror}); a symlink is refused",
                             path=str(path)) from exc
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeStateDir(f"{path} is not a regular file", path=str(path))
        if info.st_uid != os.getuid() or info.st_mode & 0o022:
            raise UnsafeStateDir(f"{path} is writable by someone else or not this user's own",
                                 path=str(path))
        return f.read()


def write_private(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically; the file is 0600 from its first byte."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
