"""Running a plain hook command without its shell, where the shell would only find and start it.

A hook such as ``./guard.sh``, ``/abs/hook.py --flag x`` or Claude's usual
``"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh`` runs as ``<shell> -c <command>``; the shell parses
one simple command, finds the program, and starts it: about 0.5 ms of every run (`run_command`
of a 4-line sh guard, median of 40 in-process runs: 2.9-3.0 ms through dash, 2.1-2.5 direct).
Words may hold double-quoted text and variables (taken verbatim from the environment, printable
ASCII, never one the shell defines itself such as ``$PWD``); anything else (``$X`` unquoted,
``~``, globs, operators, builtins) is the shell's.

`direct_exec` says which program the shell would have started, with the argv and the environment
it would have handed it, or None whenever the shell would do anything more. None is always correct;
every check below answers None when in doubt.

Only dash and bash, whose behaviour was measured (``env -i`` runs of both, dash 0.5.12 and bash
5.2, pinned by ``tests/test_shellexec.py`` against the real shells):

- both export ``PWD``: an inherited one is kept when it is absolute and names the working directory
  (``/a/./b``-style spellings are handled differently by each: None), else the physical directory;
- dash drops inherited variables whose names are not shell names (``A-B=1``) and resets ``IFS``,
  ``OPTIND`` and ``PPID`` (None when present);
- bash execs a lone simple command after lowering the ``SHLVL`` it raised (so an absent one becomes
  ``0``), sets ``_`` to the path it executes, drops an ``OLDPWD`` that is not a directory, and
  rewrites or acts on its own variables (``SHELLOPTS``, ``BASH_ENV``, functions, …: None);
- dash forks before the exec: a program killed by signal N is its exit status 128+N, with the
  signal's name on stderr (not for SIGINT and SIGPIPE), as `DirectExec.seen_by_shell` gives back. dash
  also adds " (core dumped)" when the kernel wrote a core, which the runner cannot see: dash is
  only bypassed where no core can be written (``RLIMIT_CORE`` 0 and no piped ``core_pattern``).

What stays different, by construction: the order of the environment's entries, and the process
tree (no shell process between the launcher and the program, so ``$PPID`` differs under dash).

The warm server (`compat_adapter.port.server`) asks this for every hook call, so what depends only
on files is remembered by the files' identity (device, inode, size, mode, owner, group, mtime and
ctime to the nanosecond), checked at every use with one ``stat`` per file: a program's type, mode
and first bytes, its ``#!`` interpreter's, and the shell's kind (``lstat`` and ``stat`` of its path).
An edited script, a ``chmod``, a re-pointed ``/bin/sh`` or a replaced interpreter is seen on the
next call. A file changed less than `_SETTLE_NS` before it is read is not remembered (git's "racily
clean" rule: a rewrite of the same size within one timestamp tick keeps every field of its
identity). What a command's text alone decides (its words after quote removal), and what an
environment's names alone decide, are remembered by that text and those names.
"""

from __future__ import annotations

import os
import re
import resource
import signal
import stat
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import NamedTuple, TypeAlias, TypeVar

from compat_adapter.runtime.outcome import ProcessOutcome

__all__ = ("DirectExec", "direct_exec")

# Words made of these characters, and of double-quoted runs of them, spaces and variables
# ("$CLAUDE_PROJECT_DIR"/hooks/x.sh), are only quote removal and a verbatim value in either shell:
# no field splitting, no globbing, no other expansion.
_PLAIN = r"[A-Za-z0-9_./,:@%+=-]"
_VARIABLE = r"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})"
_QUOTED = rf'"(?:[A-Za-z0-9_./,:@%+=\- ]|{_VARIABLE})*"'
_TOKEN = re.compile(rf"(?:{_PLAIN}|{_QUOTED})+")
# Blanks required between words: one way to match only, so a long refused command cannot backtrack
# exponentially (`(word blank*)+` did, on "cat /long/path; ...").
_COMMAND = re.compile(rf"[ \t]*{_TOKEN.pattern}(?:[ \t]+{_TOKEN.pattern})*[ \t]*")
_IN_QUOTES_VARIABLE = re.compile(_VARIABLE)
# What either shell defines itself (bash's `compgen -v` and dash's `set` under `env -i`): a
# "$NAME" among them may not hold what the environment says.
_SHELL_SET = frozenset(
    "BASH BASHOPTS BASHPID BASH_ALIASES BASH_ARGC BASH_ARGV BASH_ARGV0 BASH_CMDS BASH_COMMAND"
    " BASH_EXECUTION_STRING BASH_LINENO BASH_LOADABLES_PATH BASH_SOURCE BASH_SUBSHELL BASH_VERSINFO"
    " BASH_VERSION COMP_WORDBREAKS DIRSTACK EPOCHREALTIME EPOCHSECONDS EUID GROUPS HISTCMD HISTFILE"
    " HOSTNAME HOSTTYPE IFS LINENO MACHTYPE MAILCHECK OLDPWD OPTERR OPTIND OSTYPE PATH PPID PS1 PS2"
    " PS4 PWD RANDOM SECONDS SHELL SHELLOPTS SHLVL SRANDOM TERM UID _".split())
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# bash 5.2's `compgen -b -k` and dash 0.5.12's builtins (checked with `type`), as one set: a first
# word found here is never a program either shell would search for.
_NOT_PROGRAMS = frozenset(
    ". : [ [[ ]] { } ! alias bg bind break builtin caller case cd chdir command compgen complete compopt"
    " continue coproc declare dirs disown do done echo elif else enable esac eval exec exit export false"
    " fc fg fi for function getopts hash help history if in jobs kill let local logout mapfile popd"
    " printf pushd pwd read readarray readonly return select set shift shopt source suspend test then"
    " time times trap true type typeset ulimit umask unalias unset until wait while".split())
# Variables the shell resets, rewrites or acts upon when inherited (found by setting each of bash's
# and dash's variables in turn under `env -i` and comparing what the program received).
_DASH_OWN = frozenset({"IFS", "OPTIND", "PPID"})
_BASH_OWN = frozenset({
    "BASH", "BASHOPTS", "BASHPID", "BASH_ARGV0", "BASH_COMMAND", "BASH_COMPAT", "BASH_ENV",
    "BASH_EXECUTION_STRING", "BASH_SUBSHELL", "BASH_VERSINFO", "BASH_VERSION", "BASH_XTRACEFD",
    "COMP_WORDBREAKS", "EPOCHREALTIME", "EPOCHSECONDS", "EXECIGNORE", "HISTCMD", "IFS",
    "LC_ALL",  # an unknown locale makes bash warn on stderr
    "LINENO", "OPTERR", "OPTIND", "POSIXLY_CORRECT", "PPID", "PS1", "PS2", "PS4", "RANDOM",
    "SHELLOPTS", "SRANDOM"})
_ELF, _SHEBANG = b"\x7fELF", b"#!"
_SHEBANG_MAX = 256  # the kernel's limit on a #! line (BINPRM_BUF_SIZE)
_LEVEL = re.compile(r"0|[1-9][0-9]{0,2}")
# A file whose ctime is at least this old (by our clock, read before its stat) is "settled": any
# later change gets a later ctime, whatever the filesystem's timestamp granularity (a jiffy on ext4
# or tmpfs, a second on ext3, two on FAT). Residual: our clock stepped back by more than this, or a
# network filesystem whose server's clock lags ours, and a same-size rewrite within one tick.
_SETTLE_NS = 2_000_000_000
_MEMO_MAX = 256
_K = TypeVar("_K")
_V = TypeVar("_V")


@dataclass(frozen=True, slots=True)
class DirectExec:
    """The program the shell would have executed: ``argv[0]`` is the path it would ``execve``."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    forks: bool
    """The shell forks and waits (dash): a signal death reaches the caller as an exit status."""

    def seen_by_shell(self, outcome: ProcessOutcome) -> ProcessOutcome:
        """A finished run's outcome as the shell would have reported it (our timeout stays one): under
        a forking shell, a death by signal N is exit 128+N, with the signal's name on stderr."""
        died_by = outcome.signal
        if outcome.timed_out or died_by is None or not self.forks:
            return outcome
        said = "" if died_by in (signal.SIGINT, signal.SIGPIPE) else \
            f"{signal.strsignal(died_by) or f'Unknown signal {died_by}'}\n"
        return replace(outcome, exit_code=128 + died_by, signal=None, cause=None, stderr=outcome.stderr + said)


def direct_exec(shell: str, command: str, cwd: Path, env: Mapping[str, str]) -> DirectExec | None:
    """What ``<shell> -c <command>`` would ``execve`` in `cwd` with `env`, or None."""
    template = _templates.get(command)  # a plain command seen before
    if template is None:
        if not _COMMAND.fullmatch(command):
            return None  # first: the cheap refusal of most shell commands (not remembered)
        template = _remember(_templates, command, _template(command))
    if not os.path.isabs(cwd):
        return None
    words = _words(template, env)
    if words is None:
        return None
    try:
        kind = _kind(shell)
        if kind == "bash" and os.path.basename(shell) != "bash":
            return None  # bash started as `sh` is in POSIX mode: not measured
        if kind not in ("dash", "bash") or (kind == "dash" and _cores_possible()):
            return None
        path = _find(words[0], cwd, env)
        if path is None:
            return None
        final = _environment(kind, env, cwd, path)
    except (OSError, ValueError):
        return None
    if final is None:
        return None
    return DirectExec(argv=(path, *words[1:]), env=final, forks=kind == "dash")


# Memos: the warm server asks about the same few commands, files and environments call after call.
# Each is emptied when it reaches `_MEMO_MAX` (a server serves a few dozen hooks, not hundreds), as
# clear() is atomic where evicting one entry could race another thread. A remembered answer misses
# only what no stat of the file shows: a remount adding or removing noexec, a change of our own uid
# or groups, a link in the middle of the shell's chain re-pointed to another name of the same file.
_Template: TypeAlias = tuple[tuple[str, ...], ...]
_Identity: TypeAlias = tuple[int, ...]
_templates: dict[str, _Template] = {}
_kinds: dict[str, tuple[tuple[_Identity, _Identity], str]] = {}
_heads: dict[str, tuple[_Identity, _Head]] = {}
_interpreters: dict[str, tuple[_Identity, bool]] = {}
_dropped: dict[tuple[str, ...], frozenset[str] | None] = {}


def _remember(memo: dict[_K, _V], key: _K, value: _V) -> _V:
    if len(memo) >= _MEMO_MAX:
        memo.clear()
    memo[key] = value
    return value


def _template(command: str) -> _Template:
    """`command`'s words (`_COMMAND` matched) after quote removal, each as its text with the variables
    cut out: ``a"$D"b`` is ``("a", "D", "b")``, literal, name, literal, …; empty when refused."""
    tokens = [token.group(0) for token in _TOKEN.finditer(command)]
    if "=" in tokens[0]:
        return ()  # an assignment, or something that only looks like one: the shell's
    words = []
    for token in tokens:
        parts: list[str] = []
        text = ""
        for piece in re.split(r'("[^"]*")', token):  # within a token, quotes come in pairs
            if not piece.startswith('"'):
                text += piece
                continue
            for index, inside in enumerate(_IN_QUOTES_VARIABLE.split(piece[1:-1])):
                if index % 3 == 0:
                    text += inside
                elif inside is not None:  # the group of the spelling used ($X or ${X}); the other is None
                    if inside in _SHELL_SET:
                        return ()  # the shell's own value, not the environment's
                    parts += (text, inside)
                    text = ""
        words.append((*parts, text))
    return tuple(words)


def _words(template: _Template, env: Mapping[str, str]) -> list[str] | None:
    """The command's words after quote removal and expansion, or None."""
    if not template:
        return None
    words = []
    for word in template:
        text = word[0]
        for index in range(1, len(word), 2):
            found = env.get(word[index])
            # Unset: an empty word the shell would then look for. Printable ASCII only: dash marks
            # bytes 0x81-0x88 internally, a path with them is rare.
            if found is None or not (found.isascii() and found.isprintable()):
                return None
            text += found + word[index + 1]
        words.append(text)
    first = words[0]
    if not first or "=" in first or first.startswith("-") or first in _NOT_PROGRAMS:
        return None
    return words


def _kind(shell: str) -> str:
    """The name of the file `shell` leads to (``dash`` for ``/bin/sh`` on Debian)."""
    if not os.path.isabs(shell):
        return os.path.basename(os.path.realpath(shell))  # relative to our working folder: not remembered
    since = time.time_ns()
    try:
        link, target = os.lstat(shell), os.stat(shell)
    except OSError:
        return os.path.basename(os.path.realpath(shell))  # realpath answers for a missing path too
    # The path's own link and the file at the end of its chain: re-pointing /bin/sh changes the first,
    # re-pointing a link in between (/etc/alternatives/sh) the second. Residual: a link in between
    # re-pointed to another name of the same file (a hard link).
    identity = (_identity(link), _identity(target))
    known = _kinds.get(shell)
    if known is not None and known[0] == identity:
        return known[1]
    kind = os.path.basename(os.path.realpath(shell))
    if _settled(link, since) and _settled(target, since):
        _remember(_kinds, shell, (identity, kind))
    return kind


def _find(word: str, cwd: Path, env: Mapping[str, str]) -> str | None:
    """The path the shell would execute for `word`, when it is a program we may start for it."""
    since = time.time_ns()
    if "/" in word:
        path = os.path.join(cwd, word)
        return word if _startable(_head(path, os.stat(path), since)) else None
    search = env.get("PATH")
    if search is None:
        return None
    for folder in search.split(":"):
        if not os.path.isabs(folder):
            return None  # an empty or relative entry: each shell spells the path its own way
        candidate = os.path.join(folder, word)
        try:
            info = os.stat(candidate)
        except (FileNotFoundError, NotADirectoryError):
            continue
        # The first entry that exists decides; anything but a startable program there (a folder,
        # a file without the x bit) takes dash and bash different ways.
        head = _head(candidate, info, since)
        if not _startable(head):
            return None
        # Both shells pass the bare word as argv[0]; a script never sees it (the kernel hands its
        # interpreter the path), a binary does, and the launcher execs argv[0].
        return candidate if head.interpreter is not None else None
    return None


def _identity(info: os.stat_result) -> _Identity:
    # Not atime: reading the file moves it. ctime moves with every write, chmod, chown and rename (and
    # with an ACL's change); mode, owner and group are what access() reads of the file for our uid.
    return (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_mode,
            info.st_uid, info.st_gid)


def _settled(info: os.stat_result, since: int) -> bool:
    return since - info.st_ctime_ns >= _SETTLE_NS


class _Head(NamedTuple):
    """What a file's type, mode and first bytes say about starting it."""

    startable: bool
    #: A script's interpreter (an absolute path), checked at each use; None for a binary.
    interpreter: str | None


def _head(path: str, info: os.stat_result, since: int) -> _Head:
    """What `path` (`info` its stat, `since` a time read before that) holds, remembered by identity."""
    known = _recalled(_heads, path, info)
    if known is not None:
        return known
    if not stat.S_ISREG(info.st_mode):
        head = _Head(startable=False, interpreter=None)
    elif not os.access(path, os.X_OK):
        # Not remembered: access() also says no on a passing error (EIO, ENOMEM).
        return _Head(startable=False, interpreter=None)
    else:
        with open(path, "rb") as file:
            head = _read_head(file.read(_SHEBANG_MAX))
    return _kept(_heads, path, info, since, head)


def _recalled(memo: dict[str, tuple[_Identity, _V]], path: str, info: os.stat_result) -> _V | None:
    """What was remembered of `path` while it had the identity `info` shows, or None."""
    known = memo.get(path)
    return known[1] if known is not None and known[0] == _identity(info) else None


def _kept(memo: dict[str, tuple[_Identity, _V]], path: str, info: os.stat_result, since: int, value: _V) -> _V:
    """`value`, remembered for `path` by its identity when the file had settled by `since`."""
    if _settled(info, since):
        _remember(memo, path, (_identity(info), value))
    return value


def _read_head(head: bytes) -> _Head:
    if head.startswith(_ELF):
        return _Head(startable=_same_machine(head), interpreter=None)
    if not head.startswith(_SHEBANG):
        return _Head(startable=False, interpreter=None)  # the shell would run it as a script itself
    line, newline, _ = head[2:].partition(b"\n")
    parts = line.strip(b" \t").split(None, 1)
    if not newline or not parts:
        return _Head(startable=False, interpreter=None)
    interpreter = os.fsdecode(parts[0])
    if not os.path.isabs(interpreter):
        return _Head(startable=False, interpreter=None)
    return _Head(startable=True, interpreter=interpreter)


def _startable(head: _Head) -> bool:
    return head.startable and (head.interpreter is None or _runs_here(head.interpreter))


def _runs_here(interpreter: str) -> bool:
    """Whether the kernel would start `interpreter` for a script: a binary of this machine, checked
    at every use (a replaced interpreter is seen), remembered by its identity."""
    since = time.time_ns()
    try:
        info = os.stat(interpreter)
        known = _recalled(_interpreters, interpreter, info)
        if known is not None:
            return known
        if not stat.S_ISREG(info.st_mode):
            runs = False
        elif not os.access(interpreter, os.X_OK):
            return False  # not remembered, as in `_head`
        else:
            with open(interpreter, "rb") as file:
                runs = _same_machine(file.read(20))  # an interpreter that is itself a script: not followed
    except OSError:
        return False  # not remembered: a missing interpreter, or a passing error reading one
    return _kept(_interpreters, interpreter, info, since, runs)


def _same_machine(head: bytes) -> bool:
    # Class, byte order and machine: a foreign ELF fails with ENOEXEC, which dash then runs as a script.
    own = _native_elf()
    return len(head) >= 20 and head[:4] == _ELF and head[4:6] == own[4:6] and head[18:20] == own[18:20]


@cache
def _native_elf() -> bytes:
    with open("/proc/self/exe", "rb") as file:
        return file.read(20)


def _cores_possible() -> bool:
    # The limit is read each time (a host may lower it); the pattern once.
    return _piped_cores() or resource.getrlimit(resource.RLIMIT_CORE)[0] != 0


@cache
def _piped_cores() -> bool:
    try:
        with open("/proc/sys/kernel/core_pattern", "rb") as file:
            return file.read(1) == b"|"  # a helper gets the core whatever the limit
    except OSError:
        return True


def _environment(kind: str, env: Mapping[str, str], cwd: Path, path: str) -> dict[str, str] | None:
    names = (kind, *env)
    try:
        dropped = _dropped[names]
    except KeyError:
        dropped = _remember(_dropped, names, _dropped_names(kind, names[1:]))
    if dropped is None:
        return None
    final = {name: value for name, value in env.items() if name not in dropped} if dropped else dict(env)
    if kind == "bash":
        level = final.get("SHLVL", "0")
        # bash raises SHLVL at start and lowers it again before the exec: a plain 0..998 survives.
        if not _LEVEL.fullmatch(level) or int(level) > 998:
            return None
        final["SHLVL"] = level
        oldpwd = final.get("OLDPWD")
        if oldpwd is not None and not os.path.isdir(os.path.join(cwd, oldpwd)):
            del final["OLDPWD"]
        final["_"] = path
    inherited = final.get("PWD")
    if inherited is not None and inherited.startswith("/") and not _plain_path(inherited):
        return None
    if inherited is None or not inherited.startswith("/") or not _same_folder(inherited, cwd):
        final["PWD"] = os.path.realpath(cwd)
    return final


def _dropped_names(kind: str, names: tuple[str, ...]) -> frozenset[str] | None:
    """The variables `kind` would drop from an environment of these names, or None when it would act
    on one: names alone decide, and the same few sets of names come back call after call."""
    if not all(name.isascii() for name in names):
        return None
    if kind == "dash":
        if _DASH_OWN.intersection(names):
            return None
        return frozenset(name for name in names if not _NAME.fullmatch(name))
    if _BASH_OWN.intersection(names) or any(name.startswith("BASH_FUNC_") for name in names):
        return None
    return frozenset()


def _same_folder(path: str, cwd: Path) -> bool:
    try:
        return os.path.samefile(path, cwd)
    except OSError:
        return False


def _plain_path(path: str) -> bool:
    return path == "/" or (not path.endswith("/") and "//" not in path
                           and not any(part in (".", "..") for part in path.split("/")))
