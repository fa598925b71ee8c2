"""How Copilot CLI words a hook's answer for the model (vendor lane, Copilot CLI 1.0.102)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from compat_adapter.routing.voice import Place, Said, Voice

__all__ = ("CopilotVoice",)

_COPILOT_DENIED = "Denied by preToolUse hook"


class CopilotVoice(Voice):
    """Copilot: a deny names the hook event (an exit-2 deny drops stderr and names the exit code);
    pre-tool context a labelled user message, post-tool context appended to the result under a
    line naming the tool, prompt context a <system_reminder> after the prompt, session-start
    context bare. The PascalCase spellings are the same events to Copilot."""

    def deny(self, said: Said) -> str:
        if said.reason.startswith(_COPILOT_DENIED):
            return said.reason  # the dialect's words already (a hook that errored is a deny)
        reason = "hook exited with code 2" if said.exit2 else said.reason
        return f"{_COPILOT_DENIED}: {reason}"

    def ask_denied(self, said: Said) -> str:
        return f"{_COPILOT_DENIED} (unable to ask user for confirmation): {said.reason}"

    def context(self, event: str, tool: str | None, text: str, failed: bool = False) -> str:
        name = _COPILOT_EVENTS.get(event, event)
        if name == "preToolUse":
            return f"Additional context from preToolUse hook:\n{text}"
        if name in ("postToolUse", "postToolUseFailure"):
            outcome = "failed" if failed else "succeeded"
            return f'Tool "{tool}" {outcome}. Additional guidance from {name} hooks:\n{text}'
        if name == "userPromptSubmitted":
            return f"<system_reminder>\n{text}\n</system_reminder>"
        return text

    def place(self, event: str, failed: bool = False) -> Place:
        # A failing tool's context is a user message of its own (measured with postToolUseFailure).
        return "message" if failed else super().place(_COPILOT_EVENTS.get(event, event))


#: Copilot's PascalCase spellings → its own event names (the words it uses for the model).
_COPILOT_EVENTS: Mapping[str, str] = MappingProxyType({
    "PreToolUse": "preToolUse", "PostToolUse": "postToolUse", "PostToolUseFailure": "postToolUseFailure",
    "UserPromptSubmit": "userPromptSubmitted", "SessionStart": "sessionStart",
})
