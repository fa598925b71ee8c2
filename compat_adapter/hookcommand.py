"""What one hook's command line starts, read as its vendor would run it: the review the trust
prompt shows, what the trust store fingerprints, and what preflight checks.

The words of the command are read with the vendor's variables expanded as it gives them to the hook
(``compat_adapter.hookvars``: the project folder, a plugin's folder …), relative words from the
folder the hook runs in. Not a sandbox and not a shell: a reading for review and checks.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compat_adapter.hookvars import known
from compat_adapter.model import HookPlace, VendorSpec

__all__ = ("HookView", "command_view", "expand_word", "vendor_values", "where_program")
#: Programs whose first plain argument is the program they really run.
_INTERPRETERS = re.compile(r"^(?:sh|bash|dash|zsh|ksh|fish|node|deno|bun|tsx|ts-node|ruby|perl|php|"
                           r"pwsh|python(?:\d+(?:\.\d+)?)?)$")
#: Words that run the next word as the program.
_PREFIXES = frozenset({"exec", "command", "env", "nohup", "time", "nice", "sudo", "builtin"})
#: Tools whose ``run`` sub-command runs the next word as the program (``uv run python x.py``).
_LAUNCHERS = frozenset({"uv", "poetry", "pipenv", "pdm", "hatch"})
#: A launcher's ``run`` options that take the next word as their value (``uv run --extra dev python``):
#: neither is the program. Other options (``--no-project``, ``--frozen``) stand alone.
_LAUNCHER_VALUED = frozenset({"--extra", "--with", "--with-editable", "--with-requirements", "--python", "-p",
                              "--project", "--directory", "--group", "--only-group", "--no-group", "--package",
                              "--env-file", "--index", "--default-index", "--index-url", "--extra-index-url"})


@dataclass(frozen=True, slots=True)
class HookView:
    """One hook as the user reviews it: where it fires and what it would start."""

    vendor: str
    event: str
    matcher: str | None
    command: str
    programs: tuple[str, ...]
    """The programs the command line starts (first word of each simple command), as written."""
    files: tuple[str, ...]
    """Project files the command runs (a script path, or an interpreter's script), relative."""
    outside: tuple[str, ...] = ()
    """Files the command runs that are not in the project (a plugin's script, another machine's
    home folder), absolute, with the vendor's variables expanded."""
    inputs: tuple[str, ...] = ()
    """Files the shell reads before the program starts (``< file``), as expanded, relative to the
    hook's folder unless absolute: one that is missing stops the command before it runs."""

    def line(self) -> str:
        on = f"{self.event}[{self.matcher}]" if self.matcher else self.event
        return f"{self.vendor} {on}: {self.command}"


def _command_text(handler: Any) -> str:
    if isinstance(handler, str):
        return handler
    if isinstance(handler, Mapping):
        for key in ("command", "bash", "powershell"):
            if isinstance(handler.get(key), str):
                return handler[key]
        if isinstance(handler.get("args"), Sequence):
            return shlex.join(str(a) for a in handler["args"])
    return json.dumps(handler, default=str, sort_keys=True)


def _words(command: str) -> list[str]:
    """Shell words with control operators as their own words; a line shlex cannot split is split
    on blanks (it is still shown in full, and still needs trust)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:
        return command.split()


#: ``$NAME``, ``${NAME}`` and ``${NAME<op>default}`` (``:-``, ``-``, ``:=``, ``=``) in a shell word.
_PARAM = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-=])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))")


def expand_word(word: str, values: Mapping[str, str], unset: frozenset[str] = frozenset()) -> str:
    """``word`` with the variables the vendor gives the hook (``values``) replaced, however they are
    spelled: ``$V``, ``${V}``, and ``${V:-default}`` (the vendor sets V, so the default is never
    used). A name in ``unset`` (one the vendor owns and does not give this hook, such as a plugin's
    root for a project file) is empty, or its default. Another variable with a default becomes its
    default (what runs where it is unset); one without a default stays as written."""
    def one(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(4)
        if name in values:
            return values[name]
        if match.group(2) is not None:
            return expand_word(match.group(3), values, unset)
        if name in unset:
            return ""
        return match.group(0)
    return _PARAM.sub(one, word)


def vendor_values(vendor: VendorSpec, event: str, root: Path, place: HookPlace | None = None
                  ) -> tuple[dict[str, str], frozenset[str]]:
    """(the vendor's variables as a hook of ``place`` run in ``root`` gets them, the vendor's own
    names it does not get)."""
    values = known(vendor, place, event=event, root=root)
    owned = set(vendor.project_dir_env) | {v.name for v in vendor.hook_vars}
    return values, frozenset(owned - set(values))


def _project_file(word: str, root: Path, cwd: Path) -> str | None:
    """``word`` as a path relative to the project root, when it names a place inside it; a
    relative word is read from the folder the hook runs in (``cwd``)."""
    if "/" not in word or word.startswith(("-", "~")) or "$" in word:
        return None
    full = Path(os.path.normpath(cwd / word))
    try:
        return full.relative_to(root).as_posix()
    except ValueError:
        return None


def _hook_cwd(handler: Any, root: Path) -> Path:
    """The folder a handler runs in: the project root, or the handler's own relative ``cwd``."""
    cwd = handler.get("cwd") if isinstance(handler, Mapping) else None
    if isinstance(cwd, str) and cwd and "$" not in cwd:
        return Path(os.path.normpath(root / cwd))
    return root


def command_view(vendor: VendorSpec | str, event: str, matcher: str | None, handler: Any,
                 root: Path, place: HookPlace | None = None, *, empty: frozenset[str] = frozenset()) -> HookView:
    """What one handler's command line starts, read from its words with the vendor's variables
    expanded as it gives them to a hook of ``place`` (and the names in ``empty``, which the hook's
    environment will not have, as empty strings); not a sandbox, a review aid."""
    vendor_id = vendor if isinstance(vendor, str) else vendor.id
    root = Path(os.path.abspath(root))  # a relative root would be joined in twice below
    values, unset = ({}, frozenset()) if isinstance(vendor, str) else vendor_values(vendor, event, root, place)
    unset |= empty
    cwd = _hook_cwd(handler, root)
    command = _command_text(handler)
    programs: list[str] = []
    files: list[str] = []
    outside: list[str] = []
    inputs: list[str] = []
    at_start, after_interpreter, redirect, launcher = True, False, "", False
    options, value = False, False  # inside a launcher's `run` options; the next word is an option's value
    program_dir = cwd  # the folder of the program the command starts, when it is a project file
    for raw in _words(command):
        if options:
            if value:
                value = False
                continue
            if raw.startswith("-"):
                value = raw in _LAUNCHER_VALUED
                continue
            options = False
        if raw and all(c in "();<>|&" for c in raw):
            if "<" in raw or ">" in raw:
                redirect = raw  # the next word is a file to read or write, not a program
            else:
                at_start, after_interpreter = True, False
            continue
        if redirect:
            if redirect == "<":
                inputs.append(expand_word(raw, values, unset))
            redirect = ""
            continue
        if launcher:
            launcher, at_start = False, raw == "run"
            if at_start:
                options = True
                continue
        word = expand_word(raw, values, unset).replace(_GIT_TOP, str(_git_top(root)))
        if at_start:
            if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", raw) or raw in _PREFIXES:
                continue
            at_start = False
            programs.append(raw)
            launcher = os.path.basename(word) in _LAUNCHERS
            after_interpreter = bool(_INTERPRETERS.match(os.path.basename(word)))
            inside = _project_file(word, root, cwd)
            if inside is not None:
                files.append(inside)
                program_dir = (root / inside).parent
            elif os.path.isabs(word) and "$" not in word:
                outside.append(os.path.normpath(word))
            continue
        if after_interpreter and value:
            value = False  # a setting's value
            continue
        if after_interpreter and raw in _CODE_FLAGS:
            after_interpreter = False  # `node -e CODE`, `python -m module`: no script file follows
            continue
        if after_interpreter and raw in _SETTING_FLAGS:
            value = True
            continue
        if after_interpreter and not raw.startswith("-"):
            after_interpreter = False
            # The shell expands a leading `~/` to the hook's home folder (a user-level script).
            word = os.path.expanduser(word) if word.startswith("~/") else word
            inside = _project_file(word, root, cwd) or _bare_file(word, root, cwd)
            if inside is not None:
                files.append(inside)
            elif os.path.isabs(word) and "$" not in word:
                outside.append(os.path.normpath(word))
            continue
        # A wrapper's argument that is a project file (`hook.sh safety-check.sh`): the wrapper runs
        # it, from the folder the hook runs in or its own, so trust pins it too.
        argument = _argument_file(word, root, (cwd, program_dir)) if not raw.startswith("-") else None
        if argument is not None:
            files.append(argument)
    return HookView(vendor=vendor_id, event=event, matcher=matcher, command=command,
                    programs=tuple(dict.fromkeys(programs)), files=tuple(dict.fromkeys(files)),
                    outside=tuple(dict.fromkeys(outside)), inputs=tuple(dict.fromkeys(inputs)))


#: An interpreter flag whose value is code or a module, not a script file.
_CODE_FLAGS = frozenset({"-e", "-c", "-m", "-p", "--eval", "--print", "-Command", "-EncodedCommand"})
#: An interpreter flag whose value is a setting, not the script (``pwsh -ExecutionPolicy Bypass -File x.ps1``).
_SETTING_FLAGS = frozenset({"-ExecutionPolicy", "-ep", "-WorkingDirectory", "-wd", "-WindowStyle",
                            "-ConfigurationName", "-OutputFormat", "-InputFormat", "-Version"})
#: The repository's top folder, as commands spell it (Codex's own docs do).
_GIT_TOP = "$(git rev-parse --show-toplevel)"


def _git_top(root: Path) -> Path:
    """The repository ``root`` is in (its nearest ``.git``), else ``root``."""
    return next((f for f in (root, *root.parents) if (f / ".git").exists()), root)


def _bare_file(word: str, root: Path, cwd: Path) -> str | None:
    """An interpreter's script named without a slash (``bash check.sh``), when it is a project file."""
    if "$" in word or "/" in word or not (cwd / word).is_file():
        return None
    try:
        return (cwd / word).relative_to(root).as_posix()
    except ValueError:
        return None


def _argument_file(word: str, root: Path, folders: tuple[Path, ...]) -> str | None:
    """An argument that names an existing project file, read from each of ``folders`` in turn."""
    if not word or "$" in word or word.startswith("~"):
        return None
    for folder in folders:
        full = Path(os.path.normpath(folder / word))
        try:
            if full.is_file():
                return full.relative_to(root).as_posix()
        except (ValueError, OSError):
            continue
    return None


def where_program(word: str) -> str:
    """Where a bare program name would be found on this PATH (for the review), else the word."""
    if "/" in word:
        return word
    found = shutil.which(word)
    return f"{word} ({found})" if found else f"{word} (not on PATH)"
