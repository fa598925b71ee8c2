"""How Qwen Code words a hook's answer for the model (vendor lane, Qwen Code 0.24.4)."""

from __future__ import annotations

from compat_adapter.vendor import Voice

__all__ = ("QwenVoice",)

#: The block Qwen appends to its system instruction for SessionStart context (buildSessionStartContextBlock).
SESSION_CONTEXT = ('<qwen:session-start-context hidden="true">\nSessionStart additional context:\n{text}\n'
                   "</qwen:session-start-context>")
#: The wrapper Qwen puts around UserPromptSubmit context (packages/core/src/hooks/user-prompt-submit-context.ts).
PROMPT_CONTEXT = "<qwen:user-prompt-submit-context>\n{text}\n</qwen:user-prompt-submit-context>"


class QwenVoice(Voice):
    """Qwen: a deny, a Stop continuation and a post-tool stop are the hook's bare reason; prompt
    context is wrapped in Qwen's own tag; other context is the text as the hook gave it (the dialect
    has already escaped ``<`` and ``>``, as Qwen does)."""

    def context(self, event: str, tool: str | None, text: str, failed: bool = False) -> str:
        if event == "UserPromptSubmit":
            return PROMPT_CONTEXT.format(text=text)
        if event == "SessionStart":
            return SESSION_CONTEXT.format(text=text)
        return text
