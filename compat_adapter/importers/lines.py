"""Line numbers for the places the importers name (``hooks.PreToolUse[0].hooks[1]``), so a finding
reads ``file:line`` as a linter's does.

The importers parse with ``json`` (which keeps no positions); this reads the text once more with a
token scanner that follows the same paths. JSONC comments and trailing commas are blanked first,
in place (:func:`compat_adapter.importers.loaders.strip_jsonc`), so lines stay where they were. A
file that is not JSON (TOML, Markdown) or too big to scan for a report has no lines: the place
alone still names the entry.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path

__all__ = ("line_of",)

#: Files bigger than this are not scanned for line numbers (the place still names the entry).
_MAX_SCAN_BYTES = 1 << 20

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.S)


def places(text: str) -> dict[str, int]:
    """Each value's place (keys joined by ``.``, indices as ``[i]``) → the 1-based line it starts on."""
    newlines = [m.start() for m in re.finditer("\n", text)]
    out: dict[str, int] = {}
    # A frame per open container: [is_object, its place, the pending key (object) or index (array)].
    stack: list[list[object]] = []
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token == ":":
            continue
        if token == ",":
            if stack and not stack[-1][0]:
                stack[-1][2] = int(stack[-1][2]) + 1  # type: ignore[call-overload]
            continue
        if token in "}]":
            if stack:
                stack.pop()
            continue
        top = stack[-1] if stack else None
        if top is not None and top[0] and top[2] is None:
            try:
                top[2] = json.loads(token)  # a key
            except ValueError:
                return out  # not JSON after all: what was found so far
            continue
        if top is None:
            place = ""
        elif top[0]:
            place = f"{top[1]}.{top[2]}" if top[1] else str(top[2])
            top[2] = None
        else:
            place = f"{top[1]}[{top[2]}]"
        out.setdefault(place, bisect.bisect_right(newlines, match.start()) + 1)
        if token in "{[":
            stack.append([token == "{", place, None if token == "{" else 0])
    return out


@cache
def _file_places(path: str, size: int, mtime: float) -> Mapping[str, int]:
    from compat_adapter.errors import CompatError
    from compat_adapter.importers.loaders import strip_jsonc
    from compat_adapter.safefile import read_regular

    try:
        text = read_regular(path, max_bytes=_MAX_SCAN_BYTES, allow_outside=True).decode("utf-8-sig")
    except (OSError, UnicodeDecodeError, CompatError):  # refused, too large: the place still names it
        return {}
    return places(strip_jsonc(text))


def line_of(origin: str) -> int | None:
    """The line an origin (``<file>:<place>``) starts on, when its file is JSON and has the place."""
    path, sep, place = origin.rpartition(":")
    if not sep or not path or "/" in place or not path.lower().endswith((".json", ".jsonc")):
        return None
    try:
        info = Path(path).stat()
    except OSError:
        return None
    return _file_places(path, info.st_size, info.st_mtime).get(place)
