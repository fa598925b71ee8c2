"""How Claude Code reads a path specifier (``Read(./.env)``, ``Edit(src/**)``): gitignore patterns
with Claude's own roots.

* ``//path`` starts at the file-system root, ``~/path`` at the home folder, ``/path`` at the
  project (the folder holding ``.claude``), and ``path`` or ``./path`` at the session's folder.
* As in a gitignore file, a pattern with no slash but a trailing one matches at any depth
  (``Read(.env)`` covers ``config/.env``), one with a slash is anchored at its root; ``*`` stays in
  one folder, ``**`` crosses folders; a pattern that matches a folder covers what is inside it.

Measured on Claude Code 2.1.332: ``Read(./.env)``, ``Read(.env)``, ``Read(/.env)``,
``Read(//**/.env)`` and ``Read(**/*.env)`` all refuse reading the project's ``.env``;
``Edit(src/**)`` refuses a Write of ``src/a.txt`` and lets ``other.txt`` be written.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache

__all__ = ("CLAUDE_PATHS", "PathReading", "covers", "rooted")


@dataclass(frozen=True, slots=True)
class PathReading:
    """Where a vendor of this language roots a path specifier otherwise than Claude Code."""

    #: ``./path`` starts at the session's folder (False: it is read as written, and never matches
    #: a path the tool names without ``./``: CodeBuddy Code 2.163.0, measured).
    dot_is_cwd: bool = True
    #: ``/path`` starts at the project (False: at the settings file's folder, as Claude's older
    #: documentation said; CodeBuddy Code's ``Read(/.env)`` does not reach the project's ``.env``).
    slash_is_project: bool = True
    #: A pattern with no slash matches at any depth, as in a gitignore file (False: it is anchored
    #: at the session's folder, Qwen Code 0.24.4's ``resolvePathPattern``).
    bare_any_depth: bool = True
    #: A pattern that matches a folder covers what is inside it (False: picomatch, Qwen Code).
    folder_covers: bool = True


CLAUDE_PATHS = PathReading()


@cache
def _regex(pattern: str) -> re.Pattern[str]:
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out += "(?:/.*)?"
            i += 3
        elif pattern.startswith("**", i):
            out += ".*"
            i += 2
        elif pattern[i] == "*":
            out += "[^/]*"
            i += 1
        elif pattern[i] == "?":
            out += "[^/]"
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 1:]:
            end = pattern.index("]", i + 1)
            out += "[" + pattern[i + 1:end].replace("!", "^", 1) + "]"
            i = end + 1
        else:
            out += re.escape(pattern[i])
            i += 1
    return re.compile(out, re.DOTALL)


def rooted(specifier: str, *, project: str, cwd: str, home: str, settings_dir: str = "",
           reading: PathReading = CLAUDE_PATHS) -> tuple[str, str, bool]:
    """(the folder a specifier starts at, the gitignore pattern under it, whether it is anchored
    there): a root written out anchors it, as a leading slash does in a gitignore file."""
    if specifier.startswith("//"):
        return "/", specifier[2:], True
    if specifier.startswith("~/"):
        return home, specifier[2:], True
    if specifier.startswith("/"):
        return (project if reading.slash_is_project else settings_dir or project), specifier[1:], True
    if specifier.startswith("./"):
        return cwd, specifier[2:] if reading.dot_is_cwd else specifier, True
    return cwd, specifier, "/" in specifier.rstrip("/") or not reading.bare_any_depth


def covers(specifier: str, path: str, *, project: str, cwd: str, home: str, settings_dir: str = "",
           reading: PathReading = CLAUDE_PATHS) -> bool:
    """Whether a path specifier covers ``path`` (relative paths are the session folder's)."""
    base, pattern, anchored = rooted(specifier, project=project, cwd=cwd, home=home, settings_dir=settings_dir,
                                     reading=reading)
    full = os.path.normpath(os.path.join(cwd, os.path.expanduser(path)) if not path.startswith("~")
                            else os.path.expanduser(path))
    rel = os.path.relpath(full, os.path.normpath(base))
    if rel == "." or rel.startswith(".."):
        return False
    pattern = pattern.rstrip("/") or "**"
    if not anchored:
        pattern = "**/" + pattern  # gitignore: a name alone matches at any depth
    regex = _regex(pattern)
    parts = rel.split("/")
    # A pattern that matches a folder covers everything inside it.
    first = 1 if reading.folder_covers else len(parts)
    return any(regex.fullmatch("/".join(parts[:n])) for n in range(first, len(parts) + 1))
