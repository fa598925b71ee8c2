"""How Claude Code reads a ``Bash(...)`` permission rule against a shell command (measured on
Claude Code 2.1.332 with ``claude -p``, the lane's ``perm_*`` cases and the probes named here).

* ``Bash(npm run test:*)``: a prefix at a word boundary: ``Bash(rm:*)`` refuses ``rm -rf build``
  and not ``rmdir build``.
* ``*`` anywhere is a wildcard over any text, spaces included (``Bash(git * main)`` refuses ``git
  push origin main``); a trailing `` *`` also matches nothing (``Bash(rm -rf *)`` refuses ``rm
  -rf``), and only ``Bash(rm*)`` with no space reaches ``rmdir``.
* Without either, the command must be the whole text (``Bash(rm -rf build)`` lets ``rm -rf build
  x`` run).
* A command is read word by word (``rm  -rf build`` with two spaces is refused), after variable
  prefixes (``FOO=1 rm …``) and the wrappers ``timeout N``, ``time``, ``nice``, ``nohup`` and
  ``stdbuf`` are taken off; ``rm -fr build`` is another command and runs.
* A compound command is judged part by part: ``echo a; rm -rf build``, ``echo hi && rm -rf build``,
  ``echo a | rm -rf build`` and ``(rm -rf build)`` are all refused. The refusal names the whole
  command, except in a pipeline, where it names the part that matched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

__all__ = ("CLAUDE_SHELL", "ShellReading", "command_parts", "file_operands", "matches_command", "refused_part")


@dataclass(frozen=True, slots=True)
class ShellReading:
    """Where a vendor of this language reads a command differently from Claude Code."""

    #: Variable prefixes and process wrappers are taken off before matching.
    unwraps: bool = True
    #: Variable prefixes alone are taken off (Qwen Code 0.24.4: ``stripLeadingVariableAssignments``).
    assignments: bool = False
    #: A trailing `` *`` also matches nothing (``Bash(rm -rf *)`` refuses ``rm -rf``).
    optional_tail: bool = True
    #: Every `` *`` (not only a trailing one) also matches nothing (Qwen Code: ``( .*)?``).
    optional_spaces: bool = False
    #: A specifier with no wildcard is a prefix at a word boundary, not the whole command (Qwen Code).
    bare_is_prefix: bool = False
    #: Read and Edit rules also reach the files a shell command reads or writes (Claude Code).
    file_commands: bool = True
    #: A refusal in a pipeline names the part that matched, not the whole command.
    names_pipe_part: bool = True


CLAUDE_SHELL = ShellReading()

_OPERATORS = ("&&", "||", ";", "|", "\n")
_WRAPPERS = frozenset({"time", "nice", "nohup", "stdbuf", "timeout"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def _split(script: str) -> list[tuple[str, str]]:
    """(part, the operator after it) for each part of a compound command, quotes respected."""
    parts: list[tuple[str, str]] = []
    start, i, quote = 0, 0, ""
    while i < len(script):
        c = script[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 2
                continue
            if c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c == "\\":
            i += 2
            continue
        else:
            op = next((o for o in _OPERATORS if script.startswith(o, i)), None)
            if op is not None:
                parts.append((script[start:i], op))
                i += len(op)
                start = i
                continue
        i += 1
    parts.append((script[start:], ""))
    return [(p.strip(), op) for p, op in parts if p.strip()]


def _words(part: str) -> list[str]:
    """The words of one simple command, quotes kept as written (a rule's ``*`` matches them too)."""
    words: list[str] = []
    word, quote = "", ""
    for c in part:
        if quote:
            word += c
            if c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
            word += c
        elif c in " \t":
            if word:
                words.append(word)
            word = ""
        else:
            word += c
    if word:
        words.append(word)
    return words


def _unwrapped(words: list[str], reading: ShellReading = CLAUDE_SHELL) -> list[str]:
    """The command under its variable prefixes and process wrappers."""
    while words and (reading.unwraps or reading.assignments):
        head = words[0]
        if _ASSIGNMENT.match(head):
            words = words[1:]
        elif head in _WRAPPERS and reading.unwraps:
            words = words[1:]
            # Their own options and a timeout's duration come before the command.
            while words and (words[0].startswith("-") or (head == "timeout" and words[0][:1].isdigit())):
                words = words[1:]
        else:
            break
    return words


def _bare(part: str) -> str:
    text = part.strip()
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()
    return text.lstrip("(").rstrip(")").strip()


def command_parts(command: str, reading: ShellReading = CLAUDE_SHELL) -> list[tuple[str, str, bool]]:
    """(the part as written, the part as a rule reads it, whether it is in a pipeline) for each
    simple command of ``command``."""
    split = _split(command)
    out = []
    for index, (part, op) in enumerate(split):
        piped = op == "|" or (index > 0 and split[index - 1][1] == "|")
        read = " ".join(_unwrapped(_words(_bare(part)), reading))
        if read:
            out.append((_bare(part), read, piped))
    return out


@cache
def _pattern(specifier: str, optional_tail: bool, optional_spaces: bool = False) -> re.Pattern[str] | None:
    """A wildcard specifier as a regular expression; None for an exact or prefix one."""
    if specifier.endswith(":*") or "*" not in specifier:
        return None
    if optional_spaces:
        # Each `` *`` is an optional space-led rest, each other ``*`` any text.
        pieces = re.split(r"( \*|\*)", specifier)
        return re.compile("".join("(?: .*)?" if p == " *" else ".*" if p == "*" else re.escape(p) for p in pieces),
                          re.DOTALL)
    body = specifier
    tail = ""
    if body.endswith(" *") and optional_tail:
        body, tail = body[:-2], "(?: .*)?"
    regex = ".*".join(re.escape(piece) for piece in body.split("*"))
    return re.compile(f"{regex}{tail}", re.DOTALL)


def _one(specifier: str, text: str, reading: ShellReading = CLAUDE_SHELL) -> bool:
    if specifier.endswith(":*"):
        prefix = specifier[:-2]
        return text == prefix or text.startswith(prefix + " ")
    pattern = _pattern(specifier, reading.optional_tail, reading.optional_spaces)
    if pattern is None:
        exact = " ".join(_words(specifier))
        return text == exact or (reading.bare_is_prefix and text.startswith(exact + " "))
    return pattern.fullmatch(text) is not None


def matches_command(specifier: str, command: str, *, every: bool, reading: ShellReading = CLAUDE_SHELL) -> bool:
    """Whether a ``Bash(<specifier>)`` rule reaches ``command``: any part of it for a deny or an
    ask, every part for an allow (``every``)."""
    parts = command_parts(command, reading)
    if not parts:
        return False
    # A wildcard never spans an operator: ``Bash(echo *)`` does not allow ``echo a && rm -rf x``.
    judged = (_one(specifier, read, reading) for _, read, _ in parts)
    return all(judged) if every else any(judged)


def refused_part(specifier: str, command: str, reading: ShellReading = CLAUDE_SHELL) -> str:
    """The text Claude names in its refusal: the command, or the pipeline part the rule matched."""
    if not reading.names_pipe_part:
        return command
    for written, read, piped in command_parts(command, reading):
        if piped and _one(specifier, read, reading):
            return written
    return command


# ── the files a shell command reads or writes ──────────────────────────────────────────────────
# Claude Code 2.1.332 also weighs Read and Edit rules against a shell command's files (measured:
# under Read(./.env) `cat .env`, `head -n 1 .env`, `ls .env`, `grep SECRET .env` and `cp .env x.txt`
# are refused and `echo .env` runs; under Edit(src/**) `sed -i s/a/b/ src/a.txt` and `echo hi >
# src/a.txt` are refused). Here the commands below are read that way; others are not.

#: Commands whose operands are files they read.
READERS = frozenset({"cat", "head", "tail", "less", "more", "ls", "wc", "sort", "uniq", "diff", "stat", "file",
                     "nl", "od", "xxd", "strings", "base64", "jq", "cp", "grep", "egrep", "fgrep", "rg", "sed"})
#: Commands whose operands are files they write.
WRITERS = frozenset({"tee", "touch", "truncate"})
#: Commands whose first operand is a pattern or a script, not a file.
_PATTERN_FIRST = frozenset({"grep", "egrep", "fgrep", "rg", "sed", "jq"})


def _unquoted(word: str) -> str:
    return word[1:-1] if len(word) >= 2 and word[0] == word[-1] and word[0] in "'\"" else word


def file_operands(command: str, reading: ShellReading = CLAUDE_SHELL) -> tuple[list[str], list[str]]:
    """(files read, files written) by the parts of ``command`` this module knows."""
    reads: list[str] = []
    writes: list[str] = []
    for _, read, _ in command_parts(command, reading):
        words = [_unquoted(w) for w in read.split(" ")]
        rest: list[str] = []
        i = 0
        while i < len(words):
            word = words[i]
            if word in (">", ">>") and i + 1 < len(words):
                writes.append(words[i + 1])
                i += 2
                continue
            if word.startswith((">", ">>")) and not word.startswith(">&"):
                writes.append(word.lstrip(">"))
            elif word[:1].isdigit() and ">" in word:
                pass  # a descriptor redirection (2>&1, 2>/dev/null)
            else:
                rest.append(word)
            i += 1
        if not rest:
            continue
        name, args = rest[0].rsplit("/", 1)[-1], rest[1:]
        operands = [a for a in args if not a.startswith("-")]
        if name in _PATTERN_FIRST and operands and not any(a in ("-e", "-f") for a in args):
            operands = operands[1:]
        if name in WRITERS or (name == "sed" and any(a.startswith("-i") for a in args)):
            writes += operands
        if name == "cp" and len(operands) >= 2:
            reads += operands[:-1]
            writes.append(operands[-1])
        elif name in READERS:
            reads += operands
    return reads, writes
