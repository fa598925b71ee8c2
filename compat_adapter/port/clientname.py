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

A machine that has the committed file but never ported has no client: the shell exits 127. Where
the target would read that as a non-blocking error on a guard (Codex, Claude, CodeBuddy, Qwen), the
entry first tests for the client and refuses with the reason (:func:`guard_absent_client`); what is
left open, target by target, is said where the file is written.
"""

from __future__ import annotations

import filecmp
import os
import shlex
import shutil
import sysconfig
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from compat_adapter.hostproto import EntrySpec
from compat_adapter.port.fastclient import CLIENT_NAME

__all__ = ("ABSENT_TEXT", "CLIENT_MISSING", "ClientChoice", "choose_client", "guard_absent_client", "scripts_folder")

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


def _linked_folder(scripts: Path, path: str) -> Path:
    """Where the stable name goes: the scripts folder, or, where that is not on PATH but a link to
    this install's ``compat-adapter`` is (pipx and ``uv tool`` link entry points into
    ``~/.local/bin``), the folder of that link: beside the ``compat-adapter`` a target's shell finds."""
    if _first_on_path(scripts, path) is not None:
        return scripts
    found = shutil.which("compat-adapter", path=path)
    own = scripts / "compat-adapter"
    if found is not None and own.exists() and os.path.realpath(found) == os.path.realpath(own):
        return Path(found).parent
    return scripts


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
    scripts = _linked_folder(scripts, path)
    stable = scripts / CLIENT_NAME
    absolute = (str(built),)
    first = _first_on_path(scripts, path)
    if first is None:
        return ClientChoice(absolute, False, f"the install's scripts folder {scripts} is not on PATH, nor a link "
                                             "to its compat-adapter")
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


#: What a guard entry says, and exits 2 with, when its machine lacks the client: the target then
#: refuses the call and the model and the person read why, instead of a silent pass.
ABSENT_TEXT = (f"{CLIENT_NAME} is not installed on this machine, so this ported guard refuses: run "
               f"`compat-adapter port --install-client` ({CLIENT_MISSING})")


def _refusing(command: str) -> str:
    """``command`` preceded by a test for the client: where it is missing, exit 2 with the reason
    (``command -v`` is the shell's own: no program started per call). The client then replaces the
    shell (``exec``): dash runs a list's last command in a child of its own and waits, one process
    more per call (0.13 to 0.18 ms, measured), and the target's signal to its hook would reach the
    waiting shell rather than the client that ends the hook's processes."""
    return (f"command -v {CLIENT_NAME} >/dev/null || {{ echo {shlex.quote(ABSENT_TEXT)} >&2; exit 2; }}; exec "
            + command)


def guard_absent_client(target: str, entries: Sequence[EntrySpec]) -> tuple[tuple[EntrySpec, ...], str]:
    """The entries, each guard (a verdict event) the target would let through when the client is
    missing rewritten to refuse instead, and what a machine without the client gets, event by event.

    Without the client the shell exits 127: each target's own dialect reads that status, and, for
    the wrapped entries, the exit 2 with the reason. A guard neither makes refuse (Claude's
    PermissionRequest ignores exit 2) is said to fail open."""
    from compat_adapter.dialects import dialect_for
    from compat_adapter.port.shim import event_row
    from compat_adapter.runtime.outcome import ProcessOutcome

    def refuses(event: str, code: int, stderr: str) -> bool:
        failed = ProcessOutcome(exit_code=code, stdout="", stderr=stderr, timed_out=False, truncated=False,
                                cause=None, duration_ms=0.0)
        return dialect_for(target).decode(event, failed).decision in ("deny", "block")

    out: list[EntrySpec] = []
    said: dict[str, list[str]] = {"closed": [], "refuses": [], "open": []}
    for entry in entries:
        if event_row(target, entry.event, plugin=False).blocking != "verdict":
            out.append(entry)
            continue
        if refuses(entry.event, 127, f"sh: 1: {CLIENT_NAME}: not found\n"):
            said["closed"].append(entry.event)
            out.append(entry)
        elif refuses(entry.event, 2, ABSENT_TEXT + "\n"):
            said["refuses"].append(entry.event)
            out.append(replace(entry, command=_refusing(entry.command)))
        else:
            said["open"].append(entry.event)
            out.append(entry)
    parts = []
    if said["closed"]:
        parts.append(f"{target} reads the shell's exit 127 on {_events(said['closed'])} as a refusal (every call "
                     "there is denied)")
    if said["refuses"]:
        parts.append(f"on {_events(said['refuses'])}, where {target} would read exit 127 as a non-blocking error "
                     "and let every call through, the entry exits 2 with the reason, and the call is refused")
    if said["open"]:
        parts.append(f"{target} lets every call through on {_events(said['open'])} (fails open: it reads neither "
                     "exit 127 nor exit 2 there as a refusal)")
    effect = "" if not parts else (
        f"where {CLIENT_NAME} is missing (a machine that never ported or ran `compat-adapter port "
        f"--install-client`): " + "; ".join(parts) + f". `compat-adapter port --check`, `doctor` and `grade` there "
        f"say {CLIENT_MISSING}")
    return tuple(out), effect


def _events(events: list[str]) -> str:
    return ", ".join(sorted(set(events)))
