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
"""

from __future__ import annotations

import os
import re
import resource
import signal
import stat
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

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
_IN_QUOTES = re.compile(_QUOTED)
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
    if not _COMMAND.fullmatch(command) or not os.path.isabs(cwd):
        return None  # first: the cheap refusal of most shell commands
    words = _words(command, env)
    if words is None:
        return None
    try:
        kind = os.path.basename(os.path.realpath(shell))
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


def _words(command: str, env: Mapping[str, str]) -> list[str] | None:
    """The command's words after quote removal and expansion (`_COMMAND` matched), or None."""
    tokens = [token.group(0) for token in _TOKEN.finditer(command)]
    if "=" in tokens[0]:
        return None  # an assignment, or something that only looks like one: the shell's
    try:
        words = [_IN_QUOTES.sub(lambda quoted: _expand(quoted.group(0)[1:-1], env), token) for token in tokens]
    except KeyError:
        return None
    first = words[0]
    if not first or "=" in first or first.startswith("-") or first in _NOT_PROGRAMS:
        return None
    return words


def _expand(quoted: str, env: Mapping[str, str]) -> str:
    def value(variable: re.Match[str]) -> str:
        name = variable.group(1) or variable.group(2)
        if name in _SHELL_SET:
            raise KeyError(name)
        found = env[name]  # unset: KeyError (an empty word the shell would then look for)
        # Printable ASCII only: dash marks bytes 0x81-0x88 internally, a path with them is rare.
        if not all(" " <= char <= "~" for char in found):
            raise KeyError(name)
        return found
    return _IN_QUOTES_VARIABLE.sub(value, quoted)


def _find(word: str, cwd: Path, env: Mapping[str, str]) -> str | None:
    """The path the shell would execute for `word`, when it is a program we may start for it."""
    if "/" in word:
        return word if _startable(os.path.join(cwd, word)) else None
    search = env.get("PATH")
    if search is None:
        return None
    for folder in search.split(":"):
        if not os.path.isabs(folder):
            return None  # an empty or relative entry: each shell spells the path its own way
        candidate = os.path.join(folder, word)
        try:
            os.stat(candidate)
        except (FileNotFoundError, NotADirectoryError):
            continue
        # The first entry that exists decides; anything but a startable program there (a folder,
        # a file without the x bit) takes dash and bash different ways.
        if not _startable(candidate):
            return None
        # Both shells pass the bare word as argv[0]; a script never sees it (the kernel hands its
        # interpreter the path), a binary does, and the launcher execs argv[0].
        return candidate if _is_script(candidate) else None
    return None


def _startable(path: str) -> bool:
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode) or not os.access(path, os.X_OK):
        return False
    with open(path, "rb") as file:
        head = file.read(_SHEBANG_MAX)
    if head.startswith(_ELF):
        return _same_machine(head)
    if not head.startswith(_SHEBANG):
        return False  # the shell would run it as a script itself
    line, newline, _ = head[2:].partition(b"\n")
    parts = line.strip(b" \t").split(None, 1)
    if not newline or not parts:
        return False
    interpreter = os.fsdecode(parts[0])
    if not os.path.isabs(interpreter):
        return False
    try:
        if not stat.S_ISREG(os.stat(interpreter).st_mode) or not os.access(interpreter, os.X_OK):
            return False
        with open(interpreter, "rb") as file:
            return _same_machine(file.read(20))  # an interpreter that is itself a script: not followed
    except OSError:
        return False


def _is_script(path: str) -> bool:
    with open(path, "rb") as file:
        return file.read(2) == _SHEBANG


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
    names = list(env)
    if not all(name.isascii() for name in names):
        return None
    if kind == "dash":
        if _DASH_OWN.intersection(names):
            return None
        final = {name: value for name, value in env.items() if _NAME.fullmatch(name)}
    else:
        if _BASH_OWN.intersection(names) or any(name.startswith("BASH_FUNC_") for name in names):
            return None
        final = dict(env)
        level = final.get("SHLVL", "0")
        # bash raises SHLVL at start and lowers it again before the exec: a plain 0..998 survives.
        if not re.fullmatch(r"0|[1-9][0-9]{0,2}", level) or int(level) > 998:
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


def _same_folder(path: str, cwd: Path) -> bool:
    try:
        return os.path.samefile(path, cwd)
    except OSError:
        return False


def _plain_path(path: str) -> bool:
    return path == "/" or (not path.endswith("/") and "//" not in path
                           and not any(part in (".", "..") for part in path.split("/")))
