"""A shell script's simple commands, found the way tree-sitter-bash finds its ``command`` nodes.

Gemini CLI and OpenCode judge a shell call by its parts: they parse the script with tree-sitter-bash
and check every ``command`` node (commands inside ``$(…)``, backticks and subshells included). Gemini
takes a command's own text (its redirections are separate nodes it skips); OpenCode takes the text of
the redirected statement around it, redirections included. Both are given here, per command, in
source order.

This is a hand-written scanner, not tree-sitter: plain words, quotes, escapes, the list and pipe
operators, redirections, ``$(…)``, backticks, subshells and ``{ …; }`` groups, and the reserved words
of compound commands are read; heredoc bodies, ``case`` arms and arithmetic are not, and a script
that uses them (or leaves a quote or a bracket open) is reported ``complete=False`` so that a caller
can do what its vendor does with a script its parser cannot read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ("ShellCommand", "ShellParts", "split")

_SEPARATORS = ("&&", "||", "|&", ";;", ";", "|", "&", "\n")
_REDIRECTS = ("&>>", "&>", ">>", ">&", "<&", ">|", "<>", ">", "<")
#: Words that open or close a compound command: not commands of their own.
_RESERVED = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "{", "}", "!", "time"})
#: Compound headers whose words up to the next separator name no command (``for x in a b``).
_HEADERS = frozenset({"for", "select"})
#: Constructs the scanner does not read: the script is reported incomplete.
_UNREAD = frozenset({"case", "esac", "function", "[[", "((", "coproc"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True, slots=True)
class ShellCommand:
    name: str
    """Its first word, unquoted (tree-sitter's ``name`` field)."""
    text: str
    """The command without its redirections (Gemini's detail text)."""
    statement: str
    """The command with its redirections (OpenCode's pattern: the redirected statement's text)."""
    start: int


@dataclass(frozen=True, slots=True)
class ShellParts:
    commands: tuple[ShellCommand, ...]
    complete: bool
    """False when the script uses a construct this scanner does not read, or leaves one open."""
    redirected: bool
    """Whether any command has a file redirection (Gemini downgrades an allow for it outside YOLO)."""


class _Incomplete(Exception):
    pass


def _word_end(s: str, i: int) -> int:
    """Where the word starting at ``i`` ends (quotes, escapes and substitutions kept inside)."""
    n = len(s)
    while i < n:
        c = s[i]
        if c in " \t\n;&|<>()":
            return i
        if c == "\\":
            i += 2
        elif c == "'":
            end = s.find("'", i + 1)
            if end < 0:
                raise _Incomplete
            i = end + 1
        elif c == '"':
            i = _dquote_end(s, i + 1)
        elif c == "`":
            end = s.find("`", i + 1)
            if end < 0:
                raise _Incomplete
            i = end + 1
        elif s.startswith("$(", i):
            if s.startswith("$((", i):
                raise _Incomplete
            i = _paren_end(s, i + 2)
        elif s.startswith("${", i):
            end = s.find("}", i + 2)
            if end < 0:
                raise _Incomplete
            i = end + 1
        else:
            i += 1
    return i


def _dquote_end(s: str, i: int) -> int:
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        elif s.startswith("$(", i):
            i = _paren_end(s, i + 2)
        elif c == "`":
            end = s.find("`", i + 1)
            if end < 0:
                raise _Incomplete
            i = end + 1
        else:
            i += 1
    raise _Incomplete


def _paren_end(s: str, i: int) -> int:
    """The index after the ``)`` closing a group opened just before ``i``."""
    depth = 1
    while i < len(s):
        c = s[i]
        if c in "'\"`\\" or s.startswith("$(", i) or s.startswith("${", i):
            i = _word_end(s, i) if c != "\\" else i + 2
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise _Incomplete


def _unquote(word: str) -> str:
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "'\"":
        return word[1:-1]
    return word


def _nested(s: str, start: int, end: int, base: int, out: list[ShellCommand], flags: dict[str, bool]) -> None:
    """The commands inside substitutions of the word ``s[start:end]``."""
    i = start
    while i < end:
        if s[i] == "\\":
            i += 2
            continue
        if s[i] == "'":
            i = s.find("'", i + 1) + 1
            continue
        if s.startswith("$(", i):
            close = _paren_end(s, i + 2)
            _scan(s[i + 2:close - 1], base + i + 2, out, flags)
            i = close
            continue
        if s[i] == "`":
            close = s.find("`", i + 1)
            _scan(s[i + 1:close], base + i + 1, out, flags)
            i = close + 1
            continue
        i += 1


def _scan(s: str, base: int, out: list[ShellCommand], flags: dict[str, bool]) -> None:
    words: list[tuple[int, int]] = []
    stmt_end = 0
    header = False

    def flush() -> None:
        nonlocal words, stmt_end, header
        while words and s[words[0][0]:words[0][1]] in _RESERVED:
            words = words[1:]
        if words and not header:
            first = s[words[0][0]:words[0][1]]
            if first in _UNREAD:
                raise _Incomplete
            if first in _HEADERS:
                header = True
            else:
                a, b = words[0][0], words[-1][1]
                # Leading assignments belong to the command; its name is the first other word.
                named = next((s[x:y] for x, y in words if not _ASSIGNMENT.match(s[x:y])), first)
                out.append(ShellCommand(_unquote(named), s[a:b].strip(), s[a:max(b, stmt_end)].strip(), base + a))
        words, stmt_end = [], 0

    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c in " \t":
            i += 1
            continue
        if c == "#" and (i == 0 or s[i - 1] in " \t\n;&|("):
            end = s.find("\n", i)
            i = n if end < 0 else end
            continue
        op = next((o for o in _SEPARATORS if s.startswith(o, i)), None)
        if op is not None:
            flush()
            if op in (";", "\n", "&&", "||", "&", ";;") and header:
                header = False
            i += len(op)
            continue
        if c == "(":
            flush()
            close = _paren_end(s, i + 1)
            _scan(s[i + 1:close - 1], base + i + 1, out, flags)
            i = close
            continue
        if c == ")":
            raise _Incomplete
        fd = i
        while fd < n and s[fd].isdigit():
            fd += 1
        redirect = next((o for o in _REDIRECTS if s.startswith(o, fd)), None)
        if redirect is not None:
            if s.startswith("<<", fd):
                raise _Incomplete  # a heredoc's body is not read
            j = fd + len(redirect)
            while j < n and s[j] in " \t":
                j += 1
            end = _word_end(s, j)
            if end == j:
                raise _Incomplete
            _nested(s, j, end, base, out, flags)
            flags["redirected"] = True
            stmt_end = max(stmt_end, end)
            i = end
            continue
        end = _word_end(s, i)
        _nested(s, i, end, base, out, flags)
        words.append((i, end))
        stmt_end = max(stmt_end, end)
        i = end
    flush()


def split(script: str) -> ShellParts:
    """The simple commands of ``script`` in source order (nested ones where they start)."""
    out: list[ShellCommand] = []
    flags = {"redirected": False}
    try:
        _scan(script, 0, out, flags)
    except _Incomplete:
        return ShellParts(tuple(sorted(out, key=lambda c: c.start)), False, flags["redirected"])
    return ShellParts(tuple(sorted(out, key=lambda c: c.start)), True, flags["redirected"])
