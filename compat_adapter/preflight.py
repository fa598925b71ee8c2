"""Preflight: whether one imported hook can start on this machine, checked before it ever runs.

The command is resolved as its vendor would run it (:func:`compat_adapter.trust.command_view`, the
same reading the trust review shows): the vendor's variables expanded as it gives them to this hook
(a plugin's ``${CLAUDE_PLUGIN_ROOT}``, the project folder; a vendor variable it does not give this
hook is empty, as it is under the vendor), relative words read from the folder the hook runs in.
Then the programs it starts must be on ``PATH``; the scripts it runs (directly or through an
interpreter, in the project or elsewhere) must exist, and be executable when started directly; a
file the shell reads first (``< file``) must exist; the ``$VARS`` it reads must be set for it, and
not be ones the hook environment scrubs (secret-shaped names, the host's own ``DSH_*``).

A hook that fails one of these **cannot start** (``cannot-start``), and what that means is its
vendor's reading of the exit status the shell or interpreter gives: a guard whose vendor reads it
as a non-blocking error fails open and lets every call through (``fails-open``); one whose vendor
reads it as a block (Copilot's preToolUse on any failure, an exit 2 where the vendor blocks on it)
denies every call, blocks every prompt, or never lets the agent stop (``fails-closed``). A line
with a fallback (``… || true``) still runs to its end: its findings stand, but it starts.

Findings are about this machine, not grades: the same file may start on another one.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from compat_adapter.hookvars import reads
from compat_adapter.runtime.environment import secret_name
from compat_adapter.trust import command_view, expand_word, vendor_values

if TYPE_CHECKING:
    from compat_adapter.model import HookPlace, VendorSpec

__all__ = ("CANNOT_START", "Finding", "preflight")

#: The finding kinds that say a hook cannot start (``--strict`` fails on each of them).
CANNOT_START = frozenset({"cannot-start", "fails-open", "fails-closed"})
#: Absolute folders that belong to another machine's user (a path committed from a laptop).
_FOREIGN = re.compile(r"^(?:/Users/[^/]+|/home/[^/]+|[A-Za-z]:)(?=[\\/])")

#: Words a POSIX shell runs itself: never looked up on PATH.
_SHELL_OWN = frozenset({
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "in",
    "function", "select", "time", "!", "{", "}", "[[", "]]", "[", "test", "cd", "echo", "printf",
    "export", "unset", "set", "read", "source", ".", "exit", "return", "true", "false", ":",
    "eval", "exec", "shift", "trap", "wait", "type", "alias", "local", "declare", "pwd", "let",
    "ulimit", "umask", "command", "builtin", "getopts", "hash", "kill",
})
_VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)([^}]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_ASSIGNED = re.compile(r"(?:^|[\s;&|(])(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=")
#: Set by the shell itself for every command.
_SHELL_VARS = frozenset({"HOME", "PATH", "PWD", "OLDPWD", "SHELL", "USER", "LOGNAME", "IFS", "RANDOM",
                         "LINENO", "SECONDS", "PPID", "UID", "EUID", "HOSTNAME", "OSTYPE", "BASH",
                         "BASH_SOURCE", "TMPDIR"})
_HOST_PREFIXES = ("DSH_", "COMPAT_ADAPTER_")
#: The exit status an interpreter gives for a script file that does not exist (measured with dash,
#: bash, CPython 3.11, Node 22 and Perl 5; Ruby and the JS runtimes exit 1 as Node does).
_MISSING_SCRIPT_EXIT = {"sh": 2, "dash": 2, "bash": 127, "zsh": 127, "python": 2, "perl": 2,
                        "node": 1, "deno": 1, "bun": 1, "tsx": 1, "ruby": 1}


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing a hook needs that this machine or host does not give it."""

    kind: str
    """``program`` (not on PATH; ``client-missing`` for the compiled shim client), ``file`` (missing
    or not executable), ``variable`` (unset or scrubbed), ``cannot-start`` (the hook cannot start:
    what that means on its vendor), and for a guard ``fails-open`` (every call let through) or
    ``fails-closed`` (every call denied)."""
    subject: str
    text: str

    def line(self) -> str:
        return f"{self.kind}: {self.text}"


def _variables(command: str, known: frozenset[str], env: Mapping[str, str],
               unset: frozenset[str] = frozenset()) -> list[Finding]:
    out: list[Finding] = []
    assigned = set(_ASSIGNED.findall(command))
    seen: set[str] = set()
    for braced, rest, bare in _VAR.findall(command):
        name = braced or bare
        if name in seen or name in assigned or name in _SHELL_VARS or name.isdigit():
            continue
        seen.add(name)
        if name in unset:
            fallback = rest.startswith((":-", "-", ":=", "="))
            out.append(Finding("variable", name, f"${name} is not set for this hook (its vendor gives it only "
                                                 "to a plugin's hooks, or on other events)"
                               + (", so the command falls back to its default" if fallback else
                                  ", so the command sees an empty string, as under its vendor")))
        elif name.upper().startswith(_HOST_PREFIXES) or (secret_name(name) and name not in known):
            out.append(Finding("variable", name, f"${name} is removed from every hook's environment "
                                                 "here (a secret-shaped or host-owned name)"))
        elif name not in known and name not in env:
            fallback = rest.startswith((":-", "-", ":=", "="))
            out.append(Finding("variable", name, f"${name} is not set for hooks here"
                               + (" (the command falls back to its default)" if fallback else
                                  ", so the command sees an empty string")))
    return out


def preflight(spec: object, event: str, matcher: str | None, handler: object, root: Path, *,
              blocking: str = "observe", env: Mapping[str, str] | None = None,
              place: HookPlace | None = None) -> tuple[Finding, ...]:
    """Findings for one command hook of ``spec`` (a VendorSpec) run from project ``root``, its file
    at ``place`` (where its vendor's variables come from).

    ``blocking`` is the row's (``verdict`` for a guard that gates the action before it happens:
    PreToolUse, a permission request, a prompt check; ``continue`` for a Stop gate)."""
    from compat_adapter.model import VendorSpec

    assert isinstance(spec, VendorSpec)
    env = os.environ if env is None else env
    root = Path(os.path.abspath(root))  # a relative root would be joined in twice
    values, unset = vendor_values(spec, event, root, place)
    # A variable the hook's environment will not have expands to nothing, as in any shell.
    text = command_view(spec, event, matcher, handler, root, place).command
    absent = frozenset(name for name in reads(text) if name not in env and name not in values
                       and name not in _SHELL_VARS and name not in set(_ASSIGNED.findall(text)))
    view = command_view(spec, event, matcher, handler, root, place, empty=absent)
    cwd = _cwd(handler, root)
    out: list[Finding] = []
    missing: list[tuple[str, int | None]] = []  # what cannot start, and the exit status that gives
    checked: set[str] = set()
    # The shell opens a redirection before it starts the program: a missing input stops it first.
    shell_exit = 1 if spec.shell == "bash" else 2  # a redirection that fails: dash exits 2, bash 1
    for source in view.inputs:
        if "$" not in source and not (cwd / source).exists():
            out.append(Finding("file", source, f"the shell reads {source} before the command starts (`<{source}`), "
                                               "and it does not exist here, so the command never runs"))
            missing.append((f"<{source}", shell_exit))
    for program in view.programs:
        word = expand_word(program, values, unset | absent)
        if word in _SHELL_OWN or "$" in word:
            continue
        if "/" in word:
            path = Path(word) if os.path.isabs(word) else cwd / word
            checked.add(os.path.normpath(path))
            shown = _shown(program, word, unset | absent)
            if not path.is_file():
                out.append(Finding("file", program, f"{shown} does not exist here{_foreign(word)}"))
                missing.append((program, 127))
            elif not os.access(path, os.X_OK):
                out.append(Finding("file", program, f"{shown} is not executable"))
                missing.append((program, 126))
        elif shutil.which(word, path=env.get("PATH")) is None:
            out.append(_absent_program(program, word))
            missing.append((program, 127))
    # The interpreter that runs a named script: its own exit status for a script that is missing.
    runners = [os.path.basename(expand_word(p, values, unset | absent)) for p in view.programs]
    code = next((_MISSING_SCRIPT_EXIT[r.rstrip("0123456789.")] for r in runners
                 if r.rstrip("0123456789.") in _MISSING_SCRIPT_EXIT), None)
    for script in view.files:
        if os.path.normpath(root / script) in checked:
            continue  # started directly: already checked above
        if not (root / script).is_file():
            out.append(Finding("file", script, f"{script} does not exist under {root}{_foreign(script)}"))
            missing.append((script, code))
    for script in view.outside:
        if script in checked or os.path.exists(script):
            continue
        out.append(Finding("file", script, f"{script} does not exist here{_foreign(script)}"))
        missing.append((script, code))
    out += _variables(view.command, frozenset(values), env, unset)
    if missing and "||" not in view.command:
        out += _cannot_start(spec, event, blocking, *missing[0], closed=_fail_closed(spec, handler))
    return tuple(out)


def _absent_program(program: str, word: str) -> Finding:
    """A program not on PATH; the compiled shim client that ported entries start is named as such,
    with the one step that places it (a clone of a project whose committed entries name it)."""
    from compat_adapter.port.fastclient import CLIENT_NAME

    if word == CLIENT_NAME:
        return Finding("client-missing", program, f"{program} is not on PATH: compat-adapter's compiled shim "
                                                  "client, which ported entries start; `compat-adapter port "
                                                  "--install-client` builds it and places it beside compat-adapter")
    return Finding("program", program, f"{program} is not on PATH")


def _cwd(handler: object, root: Path) -> Path:
    cwd = handler.get("cwd") if isinstance(handler, Mapping) else None
    if isinstance(cwd, str) and cwd and "$" not in cwd:
        return Path(os.path.normpath(root / cwd))
    return root


def _shown(program: str, word: str, unset: frozenset[str]) -> str:
    """The program as written, and as it expands when that differs."""
    if word == program:
        return program
    empty = sorted(name for name in unset if name in program)
    why = f"; {', '.join('$' + n for n in empty)} is not set for this hook, as under its vendor" if empty else ""
    return f"{program} (here {word}{why})"


def _foreign(path: str) -> str:
    """A note when a missing path lies in a home folder (or on a drive) this machine does not have."""
    home = _FOREIGN.match(path)
    if home is None or os.path.isdir(home.group(0)):
        return ""
    return f" (an absolute path from another machine: there is no {home.group(0)} here)"


def _read_as_block(spec: VendorSpec, event: str, code: int | None) -> bool:
    """Whether the vendor reads this failed start as a block on ``event``: its own dialect decodes
    the exit status with the shell's error on stderr (Copilot's preToolUse denies on any failure;
    exit 2 blocks where the vendor blocks on it, and only on the events where it does)."""
    from compat_adapter.dialects import dialect_for
    from compat_adapter.runtime.outcome import ProcessOutcome

    failed = ProcessOutcome(exit_code=1 if code is None else code, stdout="", stderr="sh: cannot start the hook",
                            timed_out=False, truncated=False, cause=None, duration_ms=0.0)
    try:
        answer = dialect_for(spec.id).decode(event, failed)
    except Exception:  # noqa: BLE001 - a dialect that cannot read it: the vendor tables' facts decide
        return event in spec.failure_denies or (code == 2 and spec.exit2_blocks)
    return answer.decision in ("deny", "block")


def _fail_closed(spec: VendorSpec, handler: object) -> bool:
    """Whether the handler itself says a failed run denies (Cursor's ``failClosed``), as the
    vendor's handler shape reads it."""
    from compat_adapter.catalog import unit_of
    from compat_adapter.errors import InvalidHandler

    if not isinstance(handler, Mapping):
        return False
    try:
        return unit_of(spec.id).handlers.options(spec.id, handler).fail_closed
    except InvalidHandler:
        return False


def _cannot_start(spec: VendorSpec, event: str, blocking: str, what: str, code: int | None, *,
                  closed: bool = False) -> list[Finding]:
    """What a hook that cannot start ``what`` does: the vendor's reading of that exit status (a
    fail-closed handler denies on any failed run)."""
    status = f"exits {code}" if code is not None else "fails"
    vendor = spec.id
    blocks = blocking != "observe" and (closed or _read_as_block(spec, event, code))
    if blocks:
        effect = {"verdict": "every call or prompt it matches is denied",
                  "continue": "the agent is sent back to work every time it would stop",
                  "context": "the session or prompt it gates is blocked"}[blocking]
        text = (f"this hook cannot start {what}: it {status}, which {vendor} reads as a block, so {effect} "
                "(fails closed)")
        out = [Finding("cannot-start", what, text)]
        return out + ([Finding("fails-closed", what, text)] if blocking == "verdict" else [])
    if blocking == "verdict":
        text = (f"this guard cannot start {what}: it {status}, a non-blocking error in {vendor}, so every call it "
                "matches is let through (fails open)")
        return [Finding("cannot-start", what, text), Finding("fails-open", what, text)]
    return [Finding("cannot-start", what, f"this hook cannot start {what}: it {status}, a non-blocking error in "
                                          f"{vendor}, so what it does never happens")]
