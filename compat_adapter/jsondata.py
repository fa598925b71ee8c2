"""Host data as plain JSON: one conversion for session records, hook payloads and audits.

Host payloads are frozen (read-only mappings, tuples, dataclasses); what goes into a log line, a
hook's stdin or a report must be plain JSON. Anything unknown is written as its ``str`` rather than
failing the whole record.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

__all__ = ("jsonable", "thaw")


def jsonable(value: Any) -> Any:
    """Plain JSON data for a log record: dataclasses and mappings become dicts, enums their value,
    paths strings, other sequences lists; anything else is written as its ``str``."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, enum.Enum):
        return jsonable(value.value)
    if isinstance(value, Path):
        return str(value)
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    return str(value)


def thaw(value: Any) -> Any:
    """The mutable JSON form of frozen record data (what ``json.loads`` of the file gives)."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    return value
