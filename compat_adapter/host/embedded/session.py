"""One session of the embedded host: an append-only log, mirrored to a JSONL file when asked.

Every record is turned into plain JSON data when it is appended, so what a listener reads from
:attr:`MemorySession.events` is exactly what a reader of the transcript file gets back (the
in-memory copy is frozen: mappings are read-only views, lists become tuples). Each append is
published on the ``session/event`` emit seam after it is committed, as in DSH.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import IO, TYPE_CHECKING, Any

from compat_adapter.host.protocol import LogEvent, SessionEventNotice
from compat_adapter.host.sessionlog import SessionLog
from compat_adapter.jsondata import jsonable

if TYPE_CHECKING:
    from compat_adapter.host.embedded.agent import MemoryAgent

__all__ = ("MemorySession", "Sessions")


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


class MemorySession(SessionLog):
    """A :class:`~compat_adapter.host.protocol.SessionHandle` with an append-only log.

    :param publish: called with each committed :class:`SessionEventNotice` (the host's emit).
    """

    __slots__ = ("_id", "_cwd", "_path", "_events", "_publish", "_clock", "_file", "agent",
                 "turns", "header_config", "__weakref__")

    def __init__(self, session_id: str, cwd: Path, transcript_path: Path | None, *,
                 publish: Callable[[SessionEventNotice], None], clock: Callable[[], float]) -> None:
        self._id = session_id
        self._cwd = cwd
        self._path = transcript_path
        self._events: list[LogEvent] = []
        self._publish = publish
        self._clock = clock
        self._file: IO[str] | None = None
        #: The agent currently attached (named in ``session/event`` notices).
        self.agent: MemoryAgent | None = None
        #: Turns numbered per session, so a resumed agent continues the count.
        self.turns = 0
        #: The model config of the last ``request/header`` (``None`` before the first request).
        self.header_config: Mapping[str, str] | None = None

    def of_type(self, *types: str) -> tuple[LogEvent, ...]:
        """The records of the given types, in log order."""
        return tuple(e for e in self._events if e.type in types)

    def append(self, type: str, data: Mapping[str, Any]) -> LogEvent:
        plain = jsonable(dict(data))
        event = LogEvent(seq=len(self._events) + 1, type=type, data=_freeze(plain),
                         time=self._clock())
        self._events.append(event)
        if self._path is not None:
            self._write({"seq": event.seq, "type": type, "time": event.time, "data": plain})
        self._publish(SessionEventNotice(session=self, event=event, agent=self.agent))
        return event

    def _write(self, line: Mapping[str, Any]) -> None:
        assert self._path is not None
        if self._file is None:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self._path.open("a", encoding="utf-8")
        self._file.write(json.dumps(line, ensure_ascii=False) + "\n")
        # Flushed per record: a hook reading transcript_path mid-turn must see what is logged.
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __repr__(self) -> str:
        return f"<MemorySession {self._id} events={len(self._events)}>"


class Sessions:
    """The host's sessions by id: every one with a live agent (or none yet), and of those whose
    agent is gone the newest ``detached_kept`` (a later agent may resume one); older ones are
    dropped, so a host that lives through many sessions keeps a bounded number of their logs."""

    def __init__(self, detached_kept: int) -> None:
        self.detached_kept = detached_kept
        self._all: dict[str, MemorySession] = {}
        self._detached: dict[str, None] = {}  # oldest first (a dict as an ordered set)

    def add(self, session: MemorySession) -> None:
        self._all[session.id] = session

    def get(self, session_id: str) -> MemorySession | None:
        return self._all.get(session_id)

    def values(self) -> tuple[MemorySession, ...]:
        return tuple(self._all.values())

    def attach(self, session: MemorySession) -> None:
        """An agent runs in the session: it is kept whatever its age."""
        self._detached.pop(session.id, None)

    def detach(self, session: MemorySession) -> None:
        """The session's agent is gone: it is kept among the newest detached ones."""
        if session.id not in self._all:
            return
        self._detached[session.id] = None
        while len(self._detached) > self.detached_kept:
            oldest = next(iter(self._detached))
            del self._detached[oldest]
            self._all.pop(oldest).close()
