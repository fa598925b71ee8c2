"""The session facts a payload reads from the host's log: read once, then only what was logged since,
with the same answer as a full read of the log each time."""

from __future__ import annotations

from typing import Any

from compat_adapter.host.protocol import LogEvent
from compat_adapter.routing.hostfacts import session_facts
from compat_adapter.routing.points import MODEL_SWITCH


class _Session:
    def __init__(self) -> None:
        self.events: list[LogEvent] = []

    def log(self, kind: str, data: dict[str, Any]) -> None:
        self.events.append(LogEvent(seq=len(self.events), type=kind, data=data, time=0.0))


def _prompt(session: _Session, pid: str) -> None:
    session.log("user/message", {"id": pid, "source": {"kind": "user"}})


def _model(session: _Session, name: str) -> None:
    session.log(MODEL_SWITCH.record, {"current": {"model": name}})


def test_facts_follow_the_log_as_it_grows() -> None:
    session = _Session()
    assert session_facts(session) == {}
    _prompt(session, "p1")
    for i in range(50):
        session.log("tool/call", {"callId": f"c{i}"})
    assert session_facts(session) == {"prompt_id": "p1"}
    _model(session, "m1")
    assert session_facts(session) == {"prompt_id": "p1", "model": "m1"}
    # A newer prompt and a newer model win over what an earlier call found.
    _prompt(session, "p2")
    assert session_facts(session) == {"prompt_id": "p2", "model": "m1"}
    _model(session, "m2")
    session.log("tool/call", {"callId": "last"})
    assert session_facts(session) == {"prompt_id": "p2", "model": "m2"}
    # A prompt that is not the user's (a hook's, a command's) is not the prompt of the call.
    session.log("user/message", {"id": "p3", "source": {"kind": "hook"}})
    assert session_facts(session) == {"prompt_id": "p2", "model": "m2"}


def test_a_returned_answer_changed_by_its_caller_changes_nothing_kept() -> None:
    session = _Session()
    _prompt(session, "p1")
    session_facts(session)["prompt_id"] = "mutated"
    assert session_facts(session) == {"prompt_id": "p1"}


def test_a_log_that_was_cut_is_read_again() -> None:
    session = _Session()
    _prompt(session, "p1")
    _model(session, "m1")
    assert session_facts(session) == {"prompt_id": "p1", "model": "m1"}
    session.events = session.events[:1]
    assert session_facts(session) == {"prompt_id": "p1"}
