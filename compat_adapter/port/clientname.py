"""The compiled shim client under a name a committed file can carry: ``compat-adapter-shim``.

:func:`compat_adapter.port.fastclient.build_client` builds the client into a hash-keyed file of the
state folder (the cache: one build per source and install). That path is this machine's, so a file
whose entries name it fails, or ``port --check`` differs, on every other machine. Here the build is
also placed under the stable name in the install's scripts folder (where pip put the
``compat-adapter`` entry point), so the entries can name ``compat-adapter-shim`` by bare name, as
``--python-client`` entries name ``compat-adapter``: the same bytes on every machine.

The bare name is written only where it is this install's client that the ``PATH`` finds; else the
entries keep the absolute path and :class:`ClientChoice` says why. The copy is placed by an atomic
rename, so a call starting at that moment runs the old client or the new one, never half of one.
"""

from __future__ import annotations

import filecmp
import os
import shutil
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from compat_adapter.port.fastclient import CLIENT_NAME

__all__ = ("CLIENT_MISSING", "ClientChoice", "choose_client", "scripts_folder")

#: The stable code of a project whose entries name a client this machine lacks (or holds stale); the
#: preflight finding of ``doctor`` and ``grade`` has the same kind.
CLIENT_MISSING = "client-missing"


@dataclass(frozen=True, slots=True)
class ClientChoice:
    """The command the entries start, and what the person should know of it."""

    launcher: tuple[str, ...]
    #: True when the entries name the client by bare name (the file is the same on every machine).
    portable: bool
    #: Why the entries name this machine's path instead ("" when portable).
    why_not: str = ""
    #: Set when the bare-named client is absent or not this install's build (``port --check``,
    #: which installs nothing): what fails, and how to fix it.
    missing: str = ""


def scripts_folder() -> Path:
    """The install's scripts folder: where pip put the ``compat-adapter`` entry point."""
    return Path(sysconfig.get_path("scripts"))


def _first_on_path(scripts: Path, path: str) -> Path | None:
    """The first ``PATH`` folder that is ``scripts`` or holds an executable client: the folder
    whose ``compat-adapter-shim`` a target's shell would start (``None``: neither is on PATH)."""
    for part in path.split(os.pathsep):
        if not part:
            continue
        folder = Path(part)
        try:
            if folder.is_dir() and scripts.is_dir() and folder.samefile(scripts):
                return scripts
        except OSError:
            continue
        candidate = folder / CLIENT_NAME
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return folder
    return None


def _install(built: Path, stable: Path) -> None:
    """``stable`` becomes a copy of ``built``: written beside it under a private name, then renamed
    over it (a call running the old one keeps its open file)."""
    partial = stable.with_name(f".{stable.name}.{os.getpid()}.part")
    try:
        shutil.copyfile(built, partial)
        partial.chmod(0o755)
        os.replace(partial, stable)
    finally:
        partial.unlink(missing_ok=True)


def choose_client(built: Path, *, install: bool, scripts: Path | None = None, path: str | None = None) -> ClientChoice:
    """The bare name when this install's ``built`` client is (or, with ``install``, is now) the
    ``compat-adapter-shim`` the ``PATH`` finds; else the absolute path of ``built`` and why."""
    scripts = scripts_folder() if scripts is None else scripts
    path = os.environ.get("PATH", "") if path is None else path
    stable = scripts / CLIENT_NAME
    absolute = (str(built),)
    first = _first_on_path(scripts, path)
    if first is None:
        return ClientChoice(absolute, False, f"the install's scripts folder {scripts} is not on PATH")
    if first != scripts:
        return ClientChoice(absolute, False, f"another {CLIENT_NAME} comes first on PATH ({first / CLIENT_NAME}), "
                                             "not the one this install builds")
    current = stable.is_file() and filecmp.cmp(built, stable, shallow=False)
    if current:
        return ClientChoice((CLIENT_NAME,), True)
    if not install:
        state = "is not there" if not stable.exists() else "is not this install's build (an older one)"
        return ClientChoice((CLIENT_NAME,), True, missing=(
            f"{CLIENT_MISSING}: the entries start {CLIENT_NAME}, which {state} ({stable}): run "
            "`compat-adapter port --install-client` (or port again) on this machine"))
    try:
        _install(built, stable)
    except OSError as exc:  # the folder is read-only (or immutable, which even root cannot write)
        return ClientChoice(absolute, False, f"the install's scripts folder {scripts} is not writable "
                                             f"({exc.strerror or exc}), so {CLIENT_NAME} cannot be placed there")
    return ClientChoice((CLIENT_NAME,), True)


def missing_client_effect(target: str, events: list[str]) -> str:
    """What the target does with an entry whose client is missing (a clone where nobody ported or
    ran ``--install-client``): the shell exits 127, read by the target's own dialect. A guard the
    target then lets through fails open: said, with the events, since nothing else would say it."""
    from compat_adapter.dialects import dialect_for
    from compat_adapter.port.shim import event_row
    from compat_adapter.runtime.outcome import ProcessOutcome

    failed = ProcessOutcome(exit_code=127, stdout="", stderr=f"sh: 1: {CLIENT_NAME}: not found\n", timed_out=False,
                            truncated=False, cause=None, duration_ms=0.0)
    dialect = dialect_for(target)
    guards = sorted({e for e in events if event_row(target, e, plugin=False).blocking == "verdict"})
    if not guards:
        return ""
    denied = [e for e in guards if dialect.decode(e, failed).decision in ("deny", "block")]
    opened = [e for e in guards if e not in denied]
    said = []
    if opened:
        said.append(f"{target} reads exit 127 on {', '.join(opened)} as a non-blocking error, so those guards let "
                    "every call through (fails open)")
    if denied:
        said.append(f"{target} reads it on {', '.join(denied)} as a refusal, so every call there is denied "
                    "(fails closed)")
    return (f"where {CLIENT_NAME} is missing (a machine that never ported or ran `compat-adapter port "
            f"--install-client`), the shell exits 127: " + "; ".join(said) + ". `compat-adapter port --check` "
            f"and `doctor` there say {CLIENT_MISSING}")
