"""Copilot CLI's table: its camelCase rows (:mod:`vendors.copilot.table`), then the same events in
the Claude-compatible spelling, each row derived from the camelCase row it repeats with the matcher
keyed on the snake_case field (the Claude format's payload), and UserPromptSubmit's row of its own."""

from __future__ import annotations

from compat_adapter.model import EventRow, VendorSpec
from vendors.copilot.table import CLAUDE_PROMPT, CLAUDE_SPELLING, EVENTS, OWN, SNAKE_SUBJECTS

__all__ = ("COPILOT",)

_CAMEL = {row.event: row for row in EVENTS}


def _claude_spelled(event: str, camel: str | None) -> EventRow:
    if camel is None:
        return CLAUDE_PROMPT
    row = _CAMEL[camel]
    subject = SNAKE_SUBJECTS.get(row.matcher_subject or "", row.matcher_subject)
    return row.model_copy(update={"event": event, "matcher_subject": subject})


COPILOT = VendorSpec(**OWN, events=(*EVENTS, *(_claude_spelled(event, camel) for event, camel in CLAUDE_SPELLING)))
