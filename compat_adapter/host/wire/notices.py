"""The wire host's ``notify``: a notice for the person goes to the peer, which shows it where its
runtime shows things to its user (DSH: ``bundle/voice.mjs``)."""

from __future__ import annotations

from typing import Any

from compat_adapter.host.protocol import Notice

__all__ = ("ChannelNotices", "encode_notice")


def encode_notice(notice: Notice) -> dict[str, Any]:
    return {"kind": notice.kind, "text": notice.text, "session": notice.session_id, "origin": notice.origin,
            "ends_turn": notice.ends_turn}


class ChannelNotices:
    """Mixed into :class:`~compat_adapter.host.wire.host.WireHost`: its own channel carries the notice,
    in order with the dispatch replies and appends sent before it."""

    def notify(self, notice: Notice) -> None:
        self._channel.notify("notice", encode_notice(notice))  # type: ignore[attr-defined]
