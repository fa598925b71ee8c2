"""Where the embedded host shows the person what a hook tells them: a ``notice`` session record.

The record is the session's own (the transcript file carries it, ``run`` and ``explain`` print it),
and it is no message: the model never reads it, as under the vendors, which show these texts to
their user and not to their model.
"""

from __future__ import annotations

from typing import Any

from compat_adapter.host.protocol import Notice

__all__ = ("SessionNotices", "notice_record")


def notice_record(notice: Notice) -> dict[str, Any]:
    """The data of a ``notice`` record."""
    return {"kind": notice.kind, "text": notice.text, "origin": notice.origin, "endsTurn": notice.ends_turn}


class SessionNotices:
    """The embedded host's ``notify``: a notice joins its session's log (a host-wide one, said before
    any session, goes to the operator log)."""

    def notify(self, notice: Notice) -> None:
        session = self.get_session(notice.session_id) if notice.session_id else None  # type: ignore[attr-defined]
        if session is None:
            self.log("warning", f"notice for the person ({notice.kind}): {notice.text}",  # type: ignore[attr-defined]
                     origin=notice.origin)
            return
        session.append("notice", notice_record(notice))
