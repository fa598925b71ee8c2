"""How Gemini CLI words a hook's answer for the model (0.61.0: its tool scheduler and client, as the
vendor lane measured them)."""

from __future__ import annotations

from compat_adapter.vendor import Said, Voice

__all__ = ("GeminiVoice", "hook_context")


def hook_context(text: str) -> str:
    """Context as Gemini hands it to the model: ``getAdditionalContext`` escapes ``<`` and ``>``,
    and every place wraps it in ``<hook_context>`` tags (its system prompt tells the model what
    they are)."""
    return "<hook_context>" + text.replace("<", "&lt;").replace(">", "&gt;") + "</hook_context>"


class GeminiVoice(Voice):
    """Gemini: a denied call's result is ``Tool execution blocked: <reason>``, a blocked result the
    bare reason (the scheduler sends the error's message, not the ``Tool result blocked:`` text it
    shows the user); context in ``<hook_context>`` (SessionStart before the
    prompt, BeforeAgent a part after it, AfterTool appended to the result, BeforeTool dropped); an
    AfterAgent block continues with the bare reason."""

    def deny(self, said: Said) -> str:
        return f"Tool execution blocked: {said.reason}"

    def ask_denied(self, said: Said) -> str | None:
        # A BeforeTool ask in -p waits for a confirmation nobody gives (lane case gemini:ask):
        # Gemini has no words for it.
        return None

    def context(self, event: str, tool: str | None, text: str, failed: bool = False) -> str:
        return hook_context(text)
