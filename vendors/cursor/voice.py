"""How Cursor words a hook's answer for the model, as its documentation describes it (never measured).

A deny is the hook's ``agent_message`` ("message fed back to the agent when denied"), bare; a stop
or subagentStop ``followup_message`` is submitted as the next user message, word for word; context
(``additional_context``) is added as it is. What Cursor shows the model when a deny carries no
``agent_message`` is not documented: the dispatch's own words stand (a listed loss).
"""

from __future__ import annotations

from compat_adapter.vendor import Voice

__all__ = ("CursorVoice",)


class CursorVoice(Voice):
    """Cursor: the hook's own texts, with no label or frame around them."""
