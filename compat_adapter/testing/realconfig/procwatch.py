"""Which hook processes ran, and what they wrote, seen from outside every process.

Both sides of a real-config case run under ``strace`` (Debian's; ptrace from the parent, nothing
injected into the vendor's or our process): every successful ``execve``, every fork, and every
write to a descriptor. The same observer is put in front of the real vendor CLI and in front of the
embedded side's process, so the two records have one shape, whoever started the hooks and however.

A *hook run* is the topmost process whose command line carries one of the configuration's hook
commands (a ``sh -c <command>`` argument, or the words of a command started without a shell), with
the processes it started. Its *text* is what those processes wrote to a pipe or socket on their
standard output or error: what its vendor reads back from the hook. A write to a file, a terminal,
``/dev/null`` or a pipe the hook's own processes made (``$(…)``, ``| grep``) is no text the vendor
reads.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ("HookProc", "Trace", "command_pattern", "hook_runs", "parse", "traced")

#: What strace records: only successful calls (``-z``: no failed PATH look-ups, and each line is
#: whole), forks so the tree is known, descriptors with what they point at (``-y``), every string
#: in hex (``-xx``: one unambiguous decoding), long enough for a hook's whole answer.
_SYSCALLS = "execve,execveat,clone,clone3,fork,vfork,pipe,pipe2,socketpair,dup2,dup3,write,writev"
_ARGS = ("-f", "-qq", "-z", "-y", "-xx", "-s", "1048576", "-e", f"trace={_SYSCALLS}", "-e", "signal=none")
_LINE = re.compile(r"^(\d+) +(\w+)\((.*)\) += (-?\d+)")
_STRING = re.compile(r'"((?:\\x[0-9a-f]{2})*)"')
_FD = re.compile(r"^(\d+)<((?:\\x[0-9a-f]{2})*)>")
_TARGET = re.compile(r"\d+<((?:\\x[0-9a-f]{2})*)>")
#: ``$NAME``, ``${NAME}``, ``${NAME:-default}``: a vendor may expand these itself before it starts
#: the shell (Claude Code's ``${CLAUDE_PLUGIN_ROOT}``), so they match any text.
_VARIABLE = re.compile(r"\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*")


def traced(argv: Sequence[str], log: Path) -> list[str]:
    """``argv`` under the observer, writing its record to ``log``; ``argv`` itself when strace is
    not installed (then nothing is observed, and :func:`parse` of the missing log says so)."""
    strace = shutil.which("strace")
    if strace is None:
        return list(argv)
    return [strace, *_ARGS, "--seccomp-bpf", "-o", str(log), "--", *argv]


def _hex(text: str) -> bytes:
    return bytes.fromhex(text.replace("\\x", ""))


@dataclass(frozen=True, slots=True)
class Trace:
    """One observed process tree: each exec, who started whom, and each write to a pipe or socket."""

    execs: tuple[tuple[int, tuple[str, ...]], ...] = ()
    """(pid, argv) of every successful exec, in order."""
    parent: Mapping[int, int] = field(default_factory=dict)
    writes: tuple[tuple[int, int, str, str], ...] = ()
    """(pid, fd, what it points at, text) of every write to a pipe or socket on fd 1 or 2, in order."""
    made: Mapping[str, int] = field(default_factory=dict)
    """Each pipe or socket pair end (``pipe:[inode]``) → the process that made it."""
    streams: Mapping[str, int] = field(default_factory=dict)
    """What each pipe or socket was first made a standard stream as (1 or 2, by ``dup2``): the
    vendor's child sets a hook's output and error streams so before it starts the hook, and a later
    ``>&2`` in the hook's shell writes its error stream through descriptor 1."""


def parse(text: str) -> Trace:
    """The record :func:`traced` wrote."""
    execs: list[tuple[int, tuple[str, ...]]] = []
    parent: dict[int, int] = {}
    writes: list[tuple[int, int, str, str]] = []
    made: dict[str, int] = {}
    streams: dict[str, int] = {}
    for line in text.splitlines():
        m = _LINE.match(line)
        if m is None:
            continue
        pid, call, args, result = int(m[1]), m[2], m[3], int(m[4])
        if call in ("execve", "execveat"):
            strings = [_hex(s).decode("utf-8", "replace") for s in _STRING.findall(args)]
            execs.append((pid, tuple(strings[1:])))  # the path, then argv (the environment is not shown)
        elif call in ("clone", "clone3", "fork", "vfork") and result > 0:
            parent[result] = pid
        elif call in ("pipe", "pipe2", "socketpair"):
            made.update((_hex(t).decode("utf-8", "replace"), pid) for t in _TARGET.findall(args))
        elif call in ("dup2", "dup3"):
            ends = _TARGET.findall(args)
            newfd = re.match(r"^\d+<(?:\\x[0-9a-f]{2})*>, (\d+)<", args)
            if ends and newfd and int(newfd[1]) in (1, 2):
                streams.setdefault(_hex(ends[0]).decode("utf-8", "replace"), int(newfd[1]))
        elif call in ("write", "writev"):
            fd = _FD.match(args)
            if fd is None or int(fd[1]) not in (1, 2):
                continue
            target = _hex(fd[2]).decode("utf-8", "replace")
            if not target.startswith(("pipe:", "socket:", "UNIX")):
                continue
            data = b"".join(_hex(s) for s in _STRING.findall(args[fd.end():]))
            writes.append((pid, int(fd[1]), target, data.decode("utf-8", "replace")))
    return Trace(tuple(execs), parent, tuple(writes), made, streams)


def command_pattern(command: str) -> re.Pattern[str]:
    """A hook command as it may appear in a started process's command line: its text, where each
    variable reference may already be expanded."""
    parts = _VARIABLE.split(command)
    return re.compile(".*?".join(re.escape(p) for p in parts), re.DOTALL)


@dataclass(frozen=True, slots=True)
class HookProc:
    """One hook run: the command it is, and what its processes started and wrote."""

    command: str
    argv: tuple[str, ...]
    programs: tuple[tuple[str, ...], ...] = ()
    """The argv of every exec in its tree (its own first)."""
    stdout: str = ""
    stderr: str = ""


def _matches(argv: tuple[str, ...], pattern: re.Pattern[str], words: re.Pattern[str]) -> bool:
    if any(pattern.fullmatch(a) for a in argv) or pattern.fullmatch(" ".join(argv)):
        return True
    # A plain command started without its shell (compat-adapter's hosts do so where the shell would
    # only find and start the program: runtime/shellexec.py) is its words after quote removal, its
    # program named by the path found on PATH where the shell would have passed the bare word.
    if argv and (words.fullmatch(" ".join(argv)) or words.fullmatch(" ".join((os.path.basename(argv[0]), *argv[1:])))):
        return True
    # A vendor that adds to the line (a ``cd <dir> &&`` before it, a login shell's ``-lc``) still
    # passes the whole command in one argument.
    return any(len(a) > 2 and pattern.search(a) for a in argv[1:])


def hook_runs(trace: Trace, commands: Iterable[str]) -> list[HookProc]:
    """Every hook run of ``commands`` in ``trace``, in the order they started."""
    both = {c: (command_pattern(c), command_pattern(c.replace('"', ""))) for c in commands if c.strip()}
    patterns = sorted(both.items(), key=lambda kv: -len(kv[0]))
    roots: dict[int, tuple[str, tuple[str, ...]]] = {}

    def root_of(pid: int) -> int | None:
        seen = set()
        while pid not in roots:
            if pid in seen or pid not in trace.parent:
                return None
            seen.add(pid)
            pid = trace.parent[pid]
        return pid

    programs: dict[int, list[tuple[str, ...]]] = {}
    # The observed program itself (the vendor CLI, the embedded side) is never one of its hooks,
    # whatever its command line holds.
    observed = trace.execs[0][0] if trace.execs else None
    for pid, argv in trace.execs:
        root = root_of(pid)
        if root is None and pid != observed:
            hit = next((c for c, (p, w) in patterns if _matches(argv, p, w)), None)
            if hit is None:
                continue
            roots[pid] = (hit, argv)
            root = pid
        if root is not None:
            programs.setdefault(root, []).append(argv)
    out_text: dict[int, list[str]] = {}
    err_text: dict[int, list[str]] = {}
    for pid, fd, target, text in trace.writes:
        root = root_of(pid)
        # A pipe the hook's own processes made (a ``$(…)``, a ``| grep``) carries nothing to its vendor.
        maker = trace.made.get(target)
        if root is not None and (maker is None or root_of(maker) != root):
            (out_text if trace.streams.get(target, fd) == 1 else err_text).setdefault(root, []).append(text)
    return [HookProc(command, argv, tuple(programs.get(pid, ())), "".join(out_text.get(pid, ())),
                     "".join(err_text.get(pid, ()))) for pid, (command, argv) in roots.items()]
