"""Trust: a repository's hooks run only after the user reviewed them, as every vendor requires.

A hook in a cloned repository is code that runs on the user's machine. Claude Code asks to trust
the workspace, Copilot CLI loads repository hooks only in a trusted folder, Codex asks per project
and per hook. Here the importers hand every file they read to a gate: hooks of a file the user
has not trusted, or that changed since, become ``Refused`` entries with code ``UNTRUSTED`` and the
command that trusts them, so nothing from the file is registered, mounted or started. Rules files
are context, not code: they are still carried, and say whether their file was trusted.

The trust store keeps, per project and per hook source file, the sha256 of what was reviewed, when,
by which command, the hooks as they were shown (so a change can be shown as a diff), and the sha256
of each project file those hooks run (an edited ``.claude/hooks/guard.sh`` needs review too, even
when the settings file that names it did not change). Declaring itself safe grants a file nothing;
only the user's own store does. Presets installed as Python packages register hooks directly and are
not gated: they are code the user installed. A preset that imports a project's files goes through
the importers, so those files follow the project's trust. The importers' side is
:mod:`compat_adapter.importers.gate`.

The opt-out for automation, ``trust_all`` (``--trust-all``), is named as dangerous and prints a
warning line for every file it lets through, every time.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import shlex
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from compat_adapter.errors import InputRefused
from compat_adapter.hookcommand import HookView, command_view, expand_word, vendor_values
from compat_adapter.safefile import open_regular
from compat_adapter.statedir import private_dir, read_private, write_private

__all__ = (
    "TRUST_COMMAND",
    "UNTRUSTED",
    "HookView",
    "TrustRecord",
    "TrustStore",
    "Verdict",
    "command_view",
    "expand_word",
    "vendor_values",
    "file_digest",
    "plugin_untrusted",
    "project_root",
    "trust_all_enabled",
    "trusting_all",
    "warn_trust_all",
    "untrusted_reason",
)

_log = logging.getLogger("compat_adapter")

#: The command a user runs to review and trust a file; every untrusted reason names it.
TRUST_COMMAND = "compat-adapter trust"
#: The ``Refused.code`` of a hook held back because its file is not trusted.
UNTRUSTED = "UNTRUSTED"

_STORE_VERSION = 1
#: Folders a vendor keeps its project files in; a file under one belongs to the folder above it.
_VENDOR_FOLDERS = (".claude", ".codex", ".codebuddy", ".opencode", ".github")

_TRUST_ALL: ContextVar[bool] = ContextVar("compat_adapter_trust_all", default=False)


# ── projects and digests ───────────────────────────────────────────────────────────────────────

def project_root(path: Path, *, follow: bool = True) -> Path:
    """The project a file belongs to: the nearest folder holding ``.git``, else the folder above a
    vendor folder (``.claude`` …) the file lives in, else the file's own folder.

    ``follow=False`` reads the path as named, symlinks not followed: the project a symlink sits
    in, which bounds where it may point (a symlink's target must not choose its own bound)."""
    full = Path(os.path.realpath(path) if follow else os.path.abspath(path))
    for folder in full.parents:
        if (folder / ".git").exists():
            return folder
    for folder in full.parents:
        if folder.name in _VENDOR_FOLDERS:
            return folder.parent
    return full.parent


def file_digest(path: Path) -> str | None:
    """The sha256 of a file's bytes, or None when there is no such file."""
    try:
        # A FIFO, a device or a /proc file is refused (INPUT_REFUSED) instead of read forever.
        with open_regular(path, allow_outside=True) as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


# ── the store ──────────────────────────────────────────────────────────────────────────────────

@dataclass(frozen=True, slots=True)
class TrustRecord:
    project: str
    """The project root (real path)."""
    file: str
    """The file, relative to the project root."""
    sha256: str
    trusted_at: str
    """UTC, ISO 8601."""
    command: str
    """What recorded it (``compat-adapter trust …``, or the API caller's own words)."""
    hooks: tuple[str, ...]
    """The hooks as they were reviewed, one line each (``HookView.line``)."""
    programs: Mapping[str, str | None]
    """Project file the hooks run → its sha256 when trusted (None: it did not exist)."""

    def as_json(self) -> dict[str, Any]:
        return {"sha256": self.sha256, "trusted_at": self.trusted_at, "command": self.command,
                "hooks": list(self.hooks), "programs": dict(self.programs)}


Trust = Literal["trusted", "untrusted", "changed"]


@dataclass(frozen=True, slots=True)
class Verdict:
    state: Trust
    why: str
    """Empty when trusted; else the stable ``untrusted: …`` sentence naming the command."""
    record: TrustRecord | None = None

    @property
    def trusted(self) -> bool:
        return self.state == "trusted"


def untrusted_reason(shown: str, record: TrustRecord | None, change: str = "") -> str:
    """The stable wording of an untrusted hook: starts with ``untrusted:``, names the command."""
    command = f"`{TRUST_COMMAND} {shlex.quote(shown)}`"
    if record is None:
        return f"untrusted: {shown} has not been reviewed; run {command} to review and trust its hooks"
    return (f"untrusted: {change or shown + ' changed'} since it was trusted on {record.trusted_at}; "
            f"run {command} to review the change")


class TrustStore:
    """The user's trust records, in ``<state home>/trust/trust.json`` (0600, in a 0700 folder)."""

    def __init__(self, home: Path | None = None) -> None:
        self._home = home

    @property
    def folder(self) -> Path:
        folder = private_dir("trust", self._home)
        assert folder is not None  # created
        return folder

    def _read(self) -> dict[str, dict[str, dict[str, Any]]]:
        """The records as they are; no lock: writers replace the file atomically."""
        folder = private_dir("trust", self._home, create=False)
        return {} if folder is None else self._load(folder / "trust.json")

    @contextlib.contextmanager
    def _locked(self) -> Iterator[Path]:
        """Writers take turns: a read-modify-write never loses another process's record."""
        folder = self.folder
        fd = os.open(folder / "trust.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield folder / "trust.json"
        finally:
            os.close(fd)

    @staticmethod
    def _load(file: Path) -> dict[str, dict[str, dict[str, Any]]]:
        raw = read_private(file)
        if raw is None:
            return {}
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            # A damaged store grants nothing; the next trust rewrites it.
            _log.warning("compat-adapter: the trust store %s does not parse; nothing is trusted", file)
            return {}
        projects = data.get("projects") if isinstance(data, dict) else None
        return projects if isinstance(projects, dict) else {}

    @staticmethod
    def _save(file: Path, projects: Mapping[str, Any]) -> None:
        text = json.dumps({"version": _STORE_VERSION, "projects": projects}, indent=1, sort_keys=True)
        write_private(file, text.encode("utf-8"))

    @staticmethod
    def _key(path: Path, root: Path | None) -> tuple[str, str]:
        base = Path(os.path.realpath(root)) if root is not None else project_root(path)
        full = Path(os.path.realpath(path))
        try:
            return str(base), full.relative_to(base).as_posix()
        except ValueError:
            return str(full.parent), full.name

    def get(self, path: Path, root: Path | None = None) -> TrustRecord | None:
        project, name = self._key(path, root)
        entry = self._read().get(project, {}).get(name)
        return _record(project, name, entry) if isinstance(entry, dict) else None

    def check(self, path: Path, views: Sequence[HookView], root: Path | None = None,
              shown: str | None = None) -> Verdict:
        """Is ``path`` trusted as it is now, with the project files its hooks run?"""
        shown = shown or str(path)
        record = self.get(path, root)
        if record is None:
            return Verdict("untrusted", untrusted_reason(shown, None))
        if file_digest(path) != record.sha256:
            return Verdict("changed", untrusted_reason(shown, record), record)
        base = Path(record.project)
        for name in sorted({f for v in views for f in v.files} | set(record.programs)):
            try:
                now = file_digest(base / name)
            except InputRefused:
                # A script turned into a FIFO or a /dev link: held back, not an error for the import.
                return Verdict("changed", untrusted_reason(shown, record, f"{name}, which its hooks run, "
                                                                          "stopped being a regular file"),
                               record)
            if now != record.programs.get(name):
                return Verdict("changed", untrusted_reason(shown, record, f"{name}, which its hooks run, "
                                                                          "changed"), record)
        return Verdict("trusted", "", record)

    def check_read(self, path: Path, read_sha: str | None, views: Sequence[HookView],
                   root: Path | None = None, shown: str | None = None) -> Verdict:
        """:meth:`check`, and the bytes that were parsed (``read_sha``, taken before the read) are
        the trusted ones too: a file swapped while it was read is not trusted."""
        verdict = self.check(path, views, root, shown)
        if verdict.trusted and verdict.record is not None and read_sha != verdict.record.sha256:
            shown = shown or str(path)
            return Verdict("changed", untrusted_reason(shown, verdict.record, f"{shown} changed while it "
                                                                              "was read"), verdict.record)
        return verdict

    def record(self, path: Path, views: Sequence[HookView], command: str, root: Path | None = None,
               *, sha256: str | None = None, programs: Mapping[str, str | None] | None = None) -> TrustRecord:
        """Trust ``path`` and the project files its hooks run: as they were reviewed when ``sha256``
        and ``programs`` are given (what the user saw, not what is there a moment later), else as
        they are now."""
        project, name = self._key(path, root)
        sha = sha256 or file_digest(path)
        if sha is None:
            raise FileNotFoundError(path)
        base = Path(project)
        if programs is None:
            programs = {f: file_digest(base / f) for v in views for f in v.files}
        entry = {"sha256": sha, "trusted_at": datetime.now(UTC).isoformat(timespec="seconds"),
                 "command": command, "hooks": [v.line() for v in views], "programs": dict(programs)}
        with self._locked() as file:
            projects = self._load(file)
            projects.setdefault(project, {})[name] = entry
            self._save(file, projects)
        return _record(project, name, entry)

    def revoke(self, path: Path, root: Path | None = None) -> bool:
        """Forget ``path`` (a file) or every file of a project (a folder); True if anything was."""
        full = Path(os.path.realpath(path))
        with self._locked() as file:
            projects = self._load(file)
            if full.is_dir():
                removed = projects.pop(str(full), None) is not None
                prefix = str(full) + os.sep
                for project in [p for p in projects if p.startswith(prefix)]:
                    removed = projects.pop(project, None) is not None or removed
            else:
                project, name = self._key(path, root)
                removed = projects.get(project, {}).pop(name, None) is not None
                if project in projects and not projects[project]:
                    del projects[project]
            if removed:
                self._save(file, projects)
        return removed

    def records(self) -> tuple[TrustRecord, ...]:
        projects = self._read()
        return tuple(_record(p, n, e) for p, files in sorted(projects.items())
                     for n, e in sorted(files.items()) if isinstance(e, dict))


def _record(project: str, name: str, entry: Mapping[str, Any]) -> TrustRecord:
    programs = entry.get("programs")
    return TrustRecord(project=project, file=name, sha256=str(entry.get("sha256", "")),
                       trusted_at=str(entry.get("trusted_at", "")), command=str(entry.get("command", "")),
                       hooks=tuple(str(h) for h in entry.get("hooks") or ()),
                       programs=MappingProxyType(dict(programs) if isinstance(programs, dict) else {}))


# ── the gate the importers call ────────────────────────────────────────────────────────────────

@contextlib.contextmanager
def trusting_all() -> Iterator[None]:
    """DANGEROUS: inside this block, imports run hooks from files nobody trusted (``--trust-all``).

    Every file it lets through prints a warning line on stderr, every time.
    """
    token = _TRUST_ALL.set(True)
    try:
        yield
    finally:
        _TRUST_ALL.reset(token)


def trust_all_enabled() -> bool:
    return _TRUST_ALL.get()


def warn_trust_all(shown: str, verdict: Verdict) -> None:
    """The loud line ``trust_all`` prints for every untrusted file it lets through."""
    state = {"untrusted": "never reviewed", "changed": "changed since reviewed"}.get(verdict.state, "")
    line = (f"compat-adapter: WARNING: --trust-all is on (dangerous): the hooks of {shown} "
            f"({state}) run without review")
    print(line, file=sys.stderr, flush=True)
    if _log.hasHandlers():  # without one, logging's last resort would print the same line again
        _log.warning(line)


def plugin_untrusted(root: Path, kind: str, path: str | None, origin: str) -> str | None:
    """Why a project's OpenCode plugin may not load (None: it may). Loading a plugin runs its code,
    so a plugin file must be trusted itself, and an npm plugin follows the config file naming it.
    Inside :func:`trusting_all` every plugin loads, with the warning line."""
    file = Path(path) if kind == "file" and path else root / origin.split(":", 1)[0]
    shown = os.path.relpath(file, root) if file.is_relative_to(root) else str(file)
    verdict = TrustStore().check(file, (), root=project_root(file), shown=shown)
    if verdict.trusted:
        return None
    if trust_all_enabled():
        warn_trust_all(shown, verdict)
        return None
    return verdict.why

