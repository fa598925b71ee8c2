"""DSH's session records read in the host contract's vocabulary.

DSH (rc.8 and the v4 format of 0.2.1 alike) writes messages as content blocks (``user/message {content, source}`` with no turn or step,
``assistant/message {turn, step, message: {content}}``, one ``tool/result`` per step holding
``tool-result`` blocks) where the host contract, and so every route that reads records, says
``text``, ``turn``, ``step`` and one ``tool/result {text, isError}`` per call (and a compaction
summary as text, where rc.8 keeps content blocks). :class:`RecordReader`
adds those fields to each record (keeping DSH's own), so the session routes and the checks read
one vocabulary on either host.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from compat_adapter.host.protocol import LogEvent

__all__ = ("NOTICE_RECORD", "RecordReader", "text_of")

#: The plugin record a notice for the person is in the log (read as the contract's ``notice``).
NOTICE_RECORD = "plugin:compat-adapter/notice"


def text_of(blocks: Any) -> str:
    """The text of a list of content blocks."""
    if not isinstance(blocks, (list, tuple)):
        return ""
    return "".join(str(b.get("text", "")) for b in blocks
                   if isinstance(b, Mapping) and b.get("type") == "text")


def _source(raw: Any) -> dict[str, Any]:
    # v4 (0.2.1) refuses {kind: 'plugin'}: a source kind names its producer, as the contract says.
    return dict(raw) if isinstance(raw, Mapping) else {}


class RecordReader:
    """Reads one session's records in order; keeps the turn and step each record belongs to."""

    __slots__ = ("_turn", "_step")

    def __init__(self) -> None:
        self._turn: Any = None
        self._step: Any = None

    def read(self, event: LogEvent) -> list[LogEvent]:
        data: Mapping[str, Any] = event.data
        if event.type == "turn/start":
            self._turn, self._step = data.get("turn"), None
        elif event.type == "step/start":
            self._turn, self._step = data.get("turn", self._turn), data.get("step")
        where = {"turn": data.get("turn", self._turn), "step": data.get("step", self._step)}
        if event.type == NOTICE_RECORD:  # what a hook told the person (bundle/voice.mjs)
            return [self._with(LogEvent(event.seq, "notice", data, event.time), dict(data))]
        if event.type == "user/message" and "text" not in data:
            return [self._with(event, {**data, **where, "text": text_of(data.get("content")),
                                       "source": _source(data.get("source"))})]
        if event.type in ("assistant/message", "developer/message", "system/message") and "text" not in data:
            message = given if isinstance(given := data.get("message"), Mapping) else {}
            return [self._with(event, {**data, **where, "text": text_of(message.get("content"))})]
        if event.type == "compaction/summary" and isinstance(data.get("summary"), (list, tuple)):
            return [self._with(event, {**data, "summary": text_of(data["summary"]),
                                       "summaryBlocks": data["summary"]})]
        if event.type == "tool/result" and isinstance(data.get("message"), Mapping) \
                and "toolCallId" in data["message"]:
            # v4 (0.2.1): one tool/result per call, a tool-role message with its own content.
            message = data["message"]
            return [self._with(event, {**where, "callId": message.get("toolCallId"),
                                       "text": text_of(message.get("content")),
                                       "isError": bool(message.get("isError"))})]
        if event.type == "tool/result" and isinstance(data.get("message"), Mapping):
            out = []
            for block in data["message"].get("content") or ():
                if isinstance(block, Mapping) and block.get("type") == "tool-result":
                    out.append(self._with(event, {**where, "callId": block.get("toolCallId"),
                                                  "text": text_of(block.get("content")),
                                                  "isError": bool(block.get("isError"))}))
            return out
        return [event]

    @staticmethod
    def _with(event: LogEvent, data: dict[str, Any]) -> LogEvent:
        return LogEvent(seq=event.seq, type=event.type, data=data, time=event.time)
