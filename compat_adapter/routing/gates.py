"""Two per-row and per-handler gates of the dispatch loop, vendor-neutral: which tool calls a row's
event fires for, and what a fail-closed handler's failed run decides.

A vendor with an event per kind of tool (Cursor's beforeShellExecution fires only for shell calls)
names the host tools on its row (``EventRow.tools``); a handler that says its failure denies
(Cursor's ``failClosed``) carries ``CommandHandler.fail_closed``. Which runs failed is the dialect's
reading (``HookAnswer.failed``).
"""

from __future__ import annotations

from dataclasses import replace

from compat_adapter.dialects.base import HookAnswer, Moment
from compat_adapter.model import CommandHandler, EventRow, Handler

__all__ = ("closed", "fires_for")


def fires_for(row: EventRow, moment: Moment) -> bool:
    """Whether the row's event fires for this moment's tool call (every call when it names no tools)."""
    return row.tools is None or moment.fields.get("tool_name") in row.tools


def closed(row: EventRow, handler: Handler | None, answer: HookAnswer) -> HookAnswer:
    """A failed run of a fail-closed handler denies what its event guards; only an event whose answer
    is a verdict has an action to deny, so elsewhere (and for any other handler) the answer stands."""
    if not (isinstance(handler, CommandHandler) and handler.fail_closed) or answer.failed is None \
            or row.blocking != "verdict" or answer.decision in ("deny", "block"):
        return answer
    return replace(answer, decision="deny",
                   reason=answer.reason or f"{row.event} hook failed and is fail-closed: {answer.failed}")
