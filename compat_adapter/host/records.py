"""One operator-log entry, as both hosts keep them (``MemoryHost.records``, ``DshHost.records``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ("HostRecord",)


@dataclass(frozen=True, slots=True)
class HostRecord:
    """One operator-log entry (``Host.log``): its level, message and structured fields."""

    level: str
    message: str
    fields: Mapping[str, Any] = field(default_factory=dict)
