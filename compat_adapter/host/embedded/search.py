"""The embedded host's file search tools, ``glob`` and ``grep``, named and shaped as DeepSeek
Harness's ``dsh-tool-fs-search`` (0.2.1-rc.2) names and shapes them:

========  =====================================================================================
``glob``  ``{pattern, path?}`` — files (not folders) whose path matches a glob, hidden and ignored
          files included, version-control folders left out, oldest change first; at most 100
          paths shown (the head), ``No files found`` for none
``grep``  ``{pattern, path?, include?}`` — lines matching a regular expression, grouped by file as
          ``Line <n>: <text>``; hidden files and folders are not searched, nor binary files; at most
          250 matches shown, each line cut at 2000 bytes; ``No matches found`` for none
========  =====================================================================================

A pattern with no ``/`` matches a file's name at any depth (``*.py``); one with a ``/`` matches the
path relative to the search root (``src/**/*.py``); ``**`` spans folders, ``{a,b}`` is a choice.
``path`` (a folder, or for ``grep`` a file too) is relative to the session cwd; paths shown are
relative to the cwd where they lie under it. ``include`` is one such glob over the files ``grep``
reads.

Where DSH differs: it runs its packaged ripgrep, so ``grep`` takes ripgrep's regular expressions and
skips what ``.gitignore`` files ignore, and a capped result is saved whole to its spill store. Here
the expressions are Python's :mod:`re` (the same for ordinary patterns), ignore files are not read,
and a capped result says that it could not be saved, as DSH says where it has no spill store.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import anyio

from compat_adapter.host.protocol import ToolResult

__all__ = ("GLOB_MAX_RESULTS", "GREP_MAX_LINE_BYTES", "GREP_MAX_MATCHES", "find_files", "glob_pattern",
           "search_text")

GLOB_MAX_RESULTS = 100          # DSH's globMaxResults default (Claude Code's Glob limit)
GREP_MAX_MATCHES = 250          # DSH's grepMaxMatches default (Claude Code's Grep head_limit)
GREP_MAX_LINE_BYTES = 2000      # DSH's grepMaxLineBytes default
#: Folders neither tool descends into (DSH's GLOB_VCS_EXCLUDES; ripgrep skips them for grep as hidden).
_VCS = frozenset({".git", ".svn", ".hg", ".bzr", ".jj", ".sl"})
#: Bytes of a file's head read to tell a binary file (ripgrep's test: a NUL byte).
_BINARY_PROBE = 8192


@dataclass(frozen=True, slots=True)
class _Args:
    pattern: str
    root: Path
    include: str | None = None


def _arguments(cwd: Path, arguments: Mapping[str, Any], *, blank_pattern: bool,
               include: bool) -> _Args | str:
    """The checked arguments, or the error the model reads (DSH's wording)."""
    pattern = arguments.get("pattern")
    if not isinstance(pattern, str) or not pattern or (not blank_pattern and not pattern.strip()):
        return "Error: pattern must be a non-empty string"
    path = arguments.get("path")
    if path is not None and (not isinstance(path, str) or not path.strip()):
        return "Error: path must be a non-empty string when given"
    given = arguments.get("include") if include else None
    if given is not None:
        if not isinstance(given, str) or not given.strip():
            return "Error: include must be a non-empty glob when given"
        if given.startswith("!"):
            return 'Error: include must be a positive glob filter; negated patterns ("!…") are not supported'
        if _top_level_comma(given):
            return "Error: include must be one glob, not a comma-separated list (use {a,b} alternation instead)"
    root = cwd / path if path is not None else cwd
    return _Args(pattern, root, given)


def _top_level_comma(text: str) -> bool:
    depth = 0
    for char in text:
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(0, depth - 1)
        elif char == "," and depth == 0:
            return True
    return False


@lru_cache(maxsize=256)
def glob_pattern(pattern: str) -> re.Pattern[str]:
    """A glob as ripgrep's ``--glob`` reads it, as a regular expression over a ``/`` path relative to
    the search root: without a ``/`` it matches the last segment at any depth."""
    anchored = "/" in pattern.rstrip("/")
    body = pattern.rstrip("/").lstrip("/")
    out: list[str] = []
    i, depth = 0, 0
    while i < len(body):
        char = body[i]
        if body.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if body.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = body.find("]", i + 2)
            if end == -1:
                out.append(re.escape(char))
            else:
                inner = body[i + 1:end]
                negate = inner[:1] in ("!", "^")
                inner = inner[1:] if negate else inner
                out.append("[" + ("^" if negate else "") + inner.replace("\\", "\\\\") + "]")
                i = end
        elif char == "{":
            out.append("(?:")
            depth += 1
        elif char == "}" and depth:
            out.append(")")
            depth -= 1
        elif char == "," and depth:
            out.append("|")
        else:
            out.append(re.escape(char))
        i += 1
    out.append(")" * depth)
    lead = "" if anchored else "(?:.*/)?"
    return re.compile("^" + lead + "".join(out) + "$", re.S)


def _walk(root: Path, *, hidden: bool) -> Iterator[Path]:
    """Every file under ``root`` (``root`` itself when it is a file), in name order, never through a
    linked folder nor into a version-control folder; hidden names only where ``hidden``."""
    if not root.is_dir():
        if root.exists():
            yield root
        return
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _VCS and (hidden or not d.startswith(".")))
        for name in sorted(files):
            if hidden or not name.startswith("."):
                yield Path(folder, name)


def _shown(path: Path, cwd: Path) -> str:
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return str(path)


def _relative(path: Path, root: Path) -> str:
    return path.name if path == root else path.relative_to(root).as_posix()


def _glob_paths(args: _Args) -> list[Path]:
    matcher = glob_pattern(args.pattern)
    found = [p for p in _walk(args.root, hidden=True) if matcher.match(_relative(p, args.root))]
    return sorted(found, key=_mtime)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


async def find_files(cwd: Path, arguments: Mapping[str, Any]) -> ToolResult:
    """The ``glob`` tool."""
    args = _arguments(cwd, arguments, blank_pattern=False, include=False)
    if isinstance(args, str):
        return ToolResult(True, args)
    if not args.root.is_dir():
        return ToolResult(True, f"Error: glob search path is not a folder: {arguments.get('path')}")
    paths = [_shown(p, cwd) for p in await anyio.to_thread.run_sync(_glob_paths, args)]
    value = {"root": _shown(args.root, cwd) if "path" in arguments else ".", "paths": paths}
    if not paths:
        return ToolResult(False, "No files found", value)
    if len(paths) <= GLOB_MAX_RESULTS:
        return ToolResult(False, "\n".join(paths), value)
    page = "\n".join(paths[:GLOB_MAX_RESULTS])
    return ToolResult(False, f"{page}\n\n(Showing {GLOB_MAX_RESULTS} of {len(paths)} paths. The complete "
                             "result could not be saved; narrow pattern or path to see more.)", value)


@dataclass(frozen=True, slots=True)
class _Found:
    matches: tuple[tuple[str, int, str], ...]
    seen: int


def _binary(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return b"\0" in handle.read(_BINARY_PROBE)
    except OSError:
        return True


def _preview(line: str) -> str:
    data = line.encode("utf-8")
    if len(data) <= GREP_MAX_LINE_BYTES:
        return line
    return data[:GREP_MAX_LINE_BYTES].decode("utf-8", "ignore") + " (line truncated)"


def _grep(args: _Args, expression: re.Pattern[str], cwd: Path) -> _Found:
    include = glob_pattern(args.include) if args.include is not None else None
    kept: list[tuple[str, int, str]] = []
    seen = 0
    for path in _walk(args.root, hidden=False):
        if include is not None and not include.match(_relative(path, args.root)):
            continue
        if _binary(path):
            continue
        shown = _shown(path, cwd)
        with path.open(encoding="utf-8", errors="replace", newline="") as handle:
            for number, line in enumerate(handle, 1):
                text = line.rstrip("\r\n")
                if expression.search(text):
                    seen += 1
                    if len(kept) < GREP_MAX_MATCHES:  # counted past the cap, never kept
                        kept.append((shown, number, _preview(text)))
    return _Found(tuple(kept), seen)


async def search_text(cwd: Path, arguments: Mapping[str, Any]) -> ToolResult:
    """The ``grep`` tool."""
    args = _arguments(cwd, arguments, blank_pattern=True, include=True)
    if isinstance(args, str):
        return ToolResult(True, args)
    try:
        expression = re.compile(args.pattern)
    except re.error as exc:
        return ToolResult(True, f"Error: grep pattern is not a regular expression: {exc}")
    if not args.root.exists():
        return ToolResult(True, f"Error: grep search path does not exist: {arguments.get('path')}")
    found = await anyio.to_thread.run_sync(_grep, args, expression, cwd)
    value = {"matches": [{"path": p, "lineNumber": n, "line": t} for p, n, t in found.matches]}
    if not found.seen:
        return ToolResult(False, "No matches found", value)
    groups: dict[str, list[str]] = {}
    for path, number, text in found.matches:
        groups.setdefault(path, []).append(f"Line {number}: {text}")
    body = "\n\n".join(f"{path}\n" + "\n".join(lines) for path, lines in groups.items())
    if found.seen <= GREP_MAX_MATCHES:
        noun = "match" if found.seen == 1 else "matches"
        return ToolResult(False, f"Found {found.seen} {noun}\n\n{body}", value)
    return ToolResult(False, f"Found {len(found.matches)} of {found.seen} matches\n\n{body}\n\n(The complete "
                             "result could not be saved; narrow pattern, path, or include to see more.)", value)
