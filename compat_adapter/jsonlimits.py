"""One nesting limit for every JSON and TOML text this package parses, and one error for it.

Python's parsers recurse once per level: ``json`` gives up near the interpreter's recursion limit
(about 1000 levels, fewer inside a deep call stack) and ``tomllib`` sooner, both with a bare
``RecursionError`` that callers do not expect; anything walking the result recursively afterwards
has the same problem. A config file, a serve line or a hook's output nested 100 000 deep must be a
clear, stable error instead, and the same one everywhere: `NestingTooDeep` (``NESTING_TOO_DEEP``)
for anything deeper than `MAX_DEPTH` levels.

`MAX_DEPTH` is 200: far above any real config or hook answer, and low enough that both parsers
finish it from any reasonable stack depth. The check runs after parsing (an explicit stack, no
recursion), so its cost is one pass over the containers; a ``RecursionError`` during parsing is the
same error. The vendors' own parsers (JavaScript ``JSON.parse``, Rust ``serde_json`` with its limit of
128) differ here; a text nested between their limit and ours is a documented difference.

Use `loads_json` for JSON text (serve lines, config files), `loads_toml` for TOML, and
`check_depth` for data that arrived already parsed.

A hook's answer is the exception: it is read by the vendor's rule, and a JavaScript vendor reads a
deny whatever else the object holds, however deep. Refusing the whole answer would turn that deny
into "no decision" (an allow). So the vendors' readers (:mod:`compat_adapter.jsontext`) keep the
answer and `clip_depth` replaces only what lies deeper than `MAX_DEPTH` by `CLIPPED`: every field a
verdict is made of stays exactly as the vendor reads it, and nothing downstream ever walks a
structure deeper than the limit.
"""

from __future__ import annotations

import json
import tomllib
from typing import Any

from compat_adapter.errors import NestingTooDeep

__all__ = ("CLIPPED", "MAX_DEPTH", "check_depth", "clip_depth", "loads_json", "loads_toml")

MAX_DEPTH = 200
#: What `clip_depth` leaves where a container nested deeper than the limit was.
CLIPPED = f"[nested deeper than {MAX_DEPTH} levels: not kept]"


def _too_deep(where: str, limit: int) -> NestingTooDeep:
    return NestingTooDeep(f"{where}: nested deeper than {limit} levels; refused whole",
                          where=where, limit=limit)


def check_depth(data: Any, *, where: str = "input", limit: int = MAX_DEPTH) -> Any:
    """`data` unchanged, or `NestingTooDeep` if its dicts and lists nest deeper than `limit`.

    A scalar is depth 0, ``[]`` and ``{}`` are depth 1, ``[[1]]`` is depth 2.
    """
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth > limit:
            raise _too_deep(where, limit)
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list | tuple))
    return data


def clip_depth(data: Any, *, limit: int = MAX_DEPTH, marker: Any = CLIPPED) -> tuple[Any, bool]:
    """``(data, False)`` when it nests at most `limit` deep; else a copy-free edit of `data` in
    which every container below depth `limit` is replaced by `marker`, and True. Only JSON-shaped
    data (dicts and lists, as a parser builds them) is edited; depth counts as in `check_depth`."""
    if not isinstance(data, dict | list):
        return data, False
    if limit < 1:
        return marker, True
    clipped = False
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        slots = item.items() if isinstance(item, dict) else enumerate(item)
        for key, child in list(slots):
            if isinstance(child, dict | list):
                if depth >= limit:
                    item[key] = marker
                    clipped = True
                else:
                    stack.append((child, depth + 1))
    return data, clipped


def loads_json(text: str | bytes, *, where: str = "JSON text", limit: int = MAX_DEPTH) -> Any:
    """`json.loads` with the nesting limit; a syntax error stays `json.JSONDecodeError`."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise _too_deep(where, limit) from None
    return check_depth(data, where=where, limit=limit)


def loads_toml(text: str, *, where: str = "TOML text", limit: int = MAX_DEPTH) -> dict[str, Any]:
    """`tomllib.loads` with the nesting limit; a syntax error stays `tomllib.TOMLDecodeError`."""
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise _too_deep(where, limit) from None
    return check_depth(data, where=where, limit=limit)
