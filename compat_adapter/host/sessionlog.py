"""The read side of a session log that both hosts share: id, cwd, transcript path, the records.

The embedded host appends to its own log (``host/embedded/session.py``); the DSH host mirrors the
real one from the channel (``host/dsh/host.py``). Listeners and routes read either through the same
:class:`SessionLog` properties.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from compat_adapter.host.protocol import LogEvent

__all__ = ("LogView", "SessionLog")


class LogView(Sequence[LogEvent]):
    """A read-only window on a growing log: listeners read it, only the session appends."""

    __slots__ = ("_events",)

    def __init__(self, events: list[LogEvent]) -> None:
        self._events = events

    def __len__(self) -> int:
        return len(self._events)

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        return self._events[index]

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._events)

    def __reversed__(self):  # type: ignore[no-untyped-def]
        return reversed(self._events)


class SessionLog:
    """The read side every session handle shares: id, cwd, transcript path and the log itself.

    Subclasses set ``_id``, ``_cwd``, ``_path`` and ``_events`` and decide how records are appended.
    """

    __slots__ = ()
    _id: str
    _cwd: Path
    _path: Path | None
    _events: list[LogEvent]

    @property
    def id(self) -> str:
        return self._id

    @property
    def cwd(self) -> Path:
        return self._cwd

    @property
    def transcript_path(self) -> Path | None:
        return self._path

    @property
    def events(self) -> Sequence[LogEvent]:
        # A read-only view, not a copy: routes read the log on every dispatch.
        return LogView(self._events)
