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

Use `loads_json` for JSON text (serve lines, hook output, config files), `loads_toml` for TOML, and
`check_depth` for data that arrived already parsed.
"""

from __future__ import annotations

import json
import tomllib
from typing import Any

from compat_adapter.errors import NestingTooDeep

__all__ = ("MAX_DEPTH", "check_depth", "loads_json", "loads_toml")

MAX_DEPTH = 200


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
