"""Preflight: what one imported hook needs on this machine, checked before it ever runs.

For each command hook: the programs it starts (read by :func:`compat_adapter.trust.command_view`,
the same reading the trust review shows) must be on ``PATH``; the script files it names must exist
(and be executable when started directly); the ``$VARS`` it reads must be set for it, and not be
ones the hook environment scrubs (secret-shaped names, the host's own ``DSH_*``). A guard (a hook
whose answer is a verdict, such as PreToolUse) that cannot start its program is called out: the
shell exits 127, which every vendor but Copilot treats as a non-blocking error, so the guard fails
open and lets every call through.

Findings are advice about this machine, not grades: the same file may pass on another one.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from compat_adapter.runtime.environment import secret_name
from compat_adapter.trust import command_view, expand_word

if TYPE_CHECKING:
    from compat_adapter.model import VendorSpec

__all__ = ("Finding", "preflight")

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
    """``program`` (not on PATH), ``file`` (missing or not executable), ``variable`` (unset or
    scrubbed) or ``fails-open`` (a guard that would let every call through)."""
    subject: str
    text: str

    def line(self) -> str:
        return f"{self.kind}: {self.text}"


def _variables(command: str, known: frozenset[str], env: Mapping[str, str]) -> list[Finding]:
    out: list[Finding] = []
    assigned = set(_ASSIGNED.findall(command))
    seen: set[str] = set()
    for braced, rest, bare in _VAR.findall(command):
        name = braced or bare
        if name in seen or name in assigned or name in _SHELL_VARS or name.isdigit():
            continue
        seen.add(name)
        if name.upper().startswith(_HOST_PREFIXES) or (secret_name(name) and name not in known):
            out.append(Finding("variable", name, f"${name} is removed from every hook's environment "
                                                 "here (a secret-shaped or host-owned name)"))
        elif name not in known and name not in env:
            fallback = rest.startswith((":-", "-", ":=", "="))
            out.append(Finding("variable", name, f"${name} is not set for hooks here"
                               + (" (the command falls back to its default)" if fallback else
                                  ", so the command sees an empty string")))
    return out


def preflight(spec: object, event: str, matcher: str | None, handler: object, root: Path, *,
              blocking: str = "observe", env: Mapping[str, str] | None = None) -> tuple[Finding, ...]:
    """Findings for one command hook of ``spec`` (a VendorSpec) run from project ``root``.

    ``blocking="verdict"`` marks a guard (a hook whose answer gates the action before it happens:
    PreToolUse, a permission request, a prompt check); a guard that cannot start its program is
    called out as failing open (or, in Copilot's preToolUse, closed)."""
    from compat_adapter.model import VendorSpec

    assert isinstance(spec, VendorSpec)
    env = os.environ if env is None else env
    root = Path(os.path.abspath(root))  # a relative root would be joined in twice
    view = command_view(spec, event, matcher, handler, root)
    out: list[Finding] = []
    missing: list[tuple[str, int | None]] = []  # what cannot start, and the exit status that gives
    checked: set[str] = set()
    for program in view.programs:
        word = expand_word(program, root, spec.project_dir_env)
        if word in _SHELL_OWN or "$" in word:
            continue
        if "/" in word:
            path = Path(word) if os.path.isabs(word) else root / word
            checked.add(os.path.normpath(path))
            if not path.is_file():
                out.append(Finding("file", program, f"{program} does not exist here"))
                missing.append((program, 127))
            elif not os.access(path, os.X_OK):
                out.append(Finding("file", program, f"{program} is not executable"))
                missing.append((program, 126))
        elif shutil.which(word, path=env.get("PATH")) is None:
            out.append(Finding("program", program, f"{program} is not on PATH"))
            missing.append((program, 127))
    for script in view.files:
        if os.path.normpath(root / script) in checked:
            continue  # started directly: already checked above
        if not (root / script).is_file():
            out.append(Finding("file", script, f"{script} does not exist under {root}"))
            runner = next((os.path.basename(p) for p in view.programs if "/" not in p), "")
            missing.append((script, _MISSING_SCRIPT_EXIT.get(runner.rstrip("0123456789.") or runner)))
    known = frozenset(spec.project_dir_env)
    out += _variables(view.command, known, env)
    if missing and blocking == "verdict":
        out.append(_guard(spec, event, *missing[0], closed=_fail_closed(spec, handler)))
    return tuple(out)


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


def _guard(spec: VendorSpec, event: str, what: str, code: int | None, *, closed: bool = False) -> Finding:
    """What a guard that cannot start ``what`` does: the vendor's reading of that exit status."""
    status = f"exits {code}" if code is not None else "fails"
    vendor = spec.id
    if closed:
        return Finding("fails-closed", what, f"this guard cannot start {what}: the hook {status}, a failed "
                                             "run, and the hook is fail-closed, so every call it matches "
                                             "is denied (fails closed)")
    # Any failure denies on some vendors' events (Copilot preToolUse); elsewhere exit 2 with the
    # interpreter's error on stderr blocks where the vendor reads exit 2 as a block.
    denies = event in spec.failure_denies or (code == 2 and spec.exit2_blocks)
    if denies:
        return Finding("fails-closed", what, f"this guard cannot start {what}: the hook {status}, which "
                                             f"{vendor} reads as a block, so every call it matches is "
                                             "denied (fails closed)")
    return Finding("fails-open", what, f"this guard cannot start {what}: the hook {status}, a "
                                       f"non-blocking error in {vendor}, so every call it matches is let "
                                       "through (fails open)")
