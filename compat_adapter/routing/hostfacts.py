"""Facts a vendor payload needs that the host states only in its session log.

The seams hand a listener the event itself; what the vendors also send — which prompt the event
belongs to (Claude's ``prompt_id``), which model answers (Codex and CodeBuddy ``model``), when a
tool call began (``duration_ms``) and the arguments of a call an approval is about — is read back
from the durable records (``user/message``, ``request/header``, ``tool/call``). Nothing here is
guessed: a fact the log does not hold is left out and each dialect says what it sends instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import suppress
from itertools import islice
from typing import Any
from weakref import WeakKeyDictionary

from compat_adapter.host.protocol import LogEvent, SessionHandle
from compat_adapter.routing.points import MODEL_SWITCH

__all__ = ("call_arguments", "call_started", "session_facts")

#: Records read back from the end of the log: a turn is far shorter, and a dispatch stays cheap.
_LOOK_BACK = 4000
#: What `session_facts` found in each session, and in how many of its records: a dispatch reads
#: only the records logged since (a session without a model switch was read 4000 deep each time).
_FACTS: WeakKeyDictionary[SessionHandle, tuple[int, dict[str, Any]]] = WeakKeyDictionary()


def _recent(session: SessionHandle) -> Iterator[LogEvent]:
    return islice(reversed(session.events), _LOOK_BACK)


def session_facts(session: SessionHandle) -> dict[str, Any]:
    """``prompt_id`` (the id of the last message the user typed) and ``model`` (the model of the
    last request), for the keys the log holds."""
    events = session.events
    count = len(events)
    try:
        seen, known = _FACTS.get(session, (0, {}))
    except TypeError:  # a session that cannot be weakly referenced: read the log every time
        seen, known = 0, {}
    if seen > count:  # the log was cut: read it again
        seen, known = 0, {}
    # Only the records since the last call are new; a fact they hold is the newer one.
    out = _facts(islice(reversed(events), min(count - seen, _LOOK_BACK)))
    facts = {**known, **out} if seen else out
    with suppress(TypeError):
        _FACTS[session] = (count, facts)
    return dict(facts)


def _facts(records: Iterator[LogEvent]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for event in records:
        data = event.data
        if "prompt_id" not in out and event.type == "user/message":
            source = data.get("source")
            if isinstance(source, Mapping) and source.get("kind") == "user" and data.get("id"):
                out["prompt_id"] = str(data["id"])
        elif "model" not in out and event.type == MODEL_SWITCH.record:
            current = data.get("current")
            if isinstance(current, Mapping) and current.get("model"):
                out["model"] = str(current["model"])
        if len(out) == 2:
            break
    return out


def _call_record(session: SessionHandle, call_id: str | None) -> LogEvent | None:
    if not call_id:
        return None
    for event in _recent(session):
        if event.type == "tool/call" and event.data.get("callId") == call_id:
            return event
    return None


def call_started(session: SessionHandle, call_id: str | None) -> float | None:
    """When the host logged the call (epoch seconds), or None."""
    record = _call_record(session, call_id)
    return record.time if record is not None else None


def call_arguments(session: SessionHandle, call_id: str | None) -> dict[str, Any] | None:
    """The arguments of a logged call (host vocabulary), or None when the log does not hold it."""
    record = _call_record(session, call_id)
    if record is None:
        return None
    raw = record.data.get("arguments")
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return None
    return dict(raw) if isinstance(raw, Mapping) else None
