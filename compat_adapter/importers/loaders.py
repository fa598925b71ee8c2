"""Reading an importer's config file into data: JSON, JSONC (OpenCode's dialect) and TOML.

Every error is a :class:`ConfigParseError` that names the file, and the line and column when the
text does not parse. The file is read through :mod:`compat_adapter.safefile`: regular files only,
a size limit, symlinks kept inside the project the file is named in.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from compat_adapter.errors import ConfigParseError
from compat_adapter.jsonlimits import loads_json, loads_toml
from compat_adapter.safefile import MAX_CONFIG_BYTES, read_regular
from compat_adapter.trust import project_root

__all__ = ("json_kind", "load_json", "load_jsonc", "load_toml", "read_text", "strip_jsonc")


def read_text(path: Path, shown: str) -> str:
    """The text of config file ``path`` (``shown`` is how errors name it), as UTF-8."""
    try:
        # Regular files only, size on the open descriptor, symlinks kept inside the project the
        # file is named in (safefile): a shared settings file elsewhere in the repository is read.
        data = read_regular(path, max_bytes=MAX_CONFIG_BYTES, root=project_root(path, follow=False))
    except FileNotFoundError as exc:
        raise ConfigParseError(f"{shown}: no such file", path=shown) from exc
    except IsADirectoryError as exc:
        raise ConfigParseError(f"{shown}: is a directory, not a config file", path=shown) from exc
    except OSError as exc:
        raise ConfigParseError(f"{shown}: cannot read: {exc.strerror or exc}", path=shown) from exc
    try:
        # utf-8-sig: editors on Windows save a byte-order mark that json would reject.
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigParseError(f"{shown}: not UTF-8 text (byte {exc.start})", path=shown) from exc


def _json_object(text: str, shown: str, kind: str) -> Mapping[str, Any]:
    try:
        data = loads_json(text, where=shown)  # one nesting limit everywhere (jsonlimits)
    except json.JSONDecodeError as exc:
        raise ConfigParseError(f"{shown}: invalid {kind} at line {exc.lineno} column {exc.colno}: "
                               f"{exc.msg}", path=shown, line=exc.lineno, column=exc.colno) from exc
    if not isinstance(data, dict):
        raise ConfigParseError(f"{shown}: the top level must be an object, not "
                               f"{json_kind(data)}", path=shown)
    return data


def load_json(path: Path, shown: str) -> Mapping[str, Any]:
    """A strict JSON object; errors carry the line and column."""
    return _json_object(read_text(path, shown), shown, "JSON")


def load_jsonc(path: Path, shown: str) -> Mapping[str, Any]:
    """JSON with ``//`` and ``/* */`` comments and trailing commas (OpenCode's config dialect).

    Comments and trailing commas are blanked with spaces, never removed, so a parse error still
    points at the right line and column of the original text.
    """
    return _json_object(strip_jsonc(read_text(path, shown)), shown, "JSONC")


def load_toml(path: Path, shown: str) -> Mapping[str, Any]:
    """A TOML document; tomllib's message already names the line and column."""
    try:
        return loads_toml(read_text(path, shown), where=shown)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigParseError(f"{shown}: invalid TOML: {exc}", path=shown) from exc


def strip_jsonc(text: str) -> str:
    """Blank out comments and trailing commas outside strings; everything else is kept in place.

    Only a comma that follows a value and precedes ``]`` or ``}`` is trailing; ``[,]`` and ``{,}``
    are left for json to report, as OpenCode's parser reports them.
    """
    out = list(text)
    i, n = 0, len(text)
    in_string = False
    last_comma: int | None = None  # a comma after a value, not yet followed by another token
    previous = ""  # the last significant character outside strings and comments
    while i < n:
        c = text[i]
        if in_string:
            if c == "\\":
                i += 2
                continue
            if c == '"':
                in_string, previous = False, '"'
            i += 1
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end == -1 else end
            for j in range(i, end):
                out[j] = " "
            i = end
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end == -1 else end + 2  # an unclosed comment: json reports what follows
            for j in range(i, end):
                if out[j] not in "\r\n":
                    out[j] = " "
            i = end
            continue
        if not c.isspace():
            if c in "}]" and last_comma is not None:
                out[last_comma] = " "
            last_comma = i if c == "," and previous not in ("", "[", "{", ",") else None
            if c == '"':
                in_string = True
            previous = c
        i += 1
    return "".join(out)


def json_kind(value: object) -> str:
    """How a parsed JSON value is named in a message: ``an object``, ``a list``, ``null`` …"""
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)
