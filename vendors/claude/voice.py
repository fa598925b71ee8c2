"""How Claude Code words a hook's answer for the model (vendor lane, Claude Code 2.1.328)."""

from __future__ import annotations

from compat_adapter.routing.voice import Said, Voice, label

__all__ = ("ClaudeVoice",)


class ClaudeVoice(Voice):
    """Claude Code: a hook label before every text, the command quoted on exit-2 answers."""

    def deny(self, said: Said) -> str:
        if said.exit2:
            return f"{label(said)} hook error: [{said.command}]: {said.reason}"
        return f"{label(said)} hook error: {said.reason}"

    def ask_denied(self, said: Said) -> str:
        # Claude in -p cannot ask: the tool result is the hook's reason, unlabelled.
        return said.reason

    def context(self, event: str, tool: str | None, text: str, failed: bool = False) -> str:
        label = f"{event}:{tool}" if tool else event
        return f"{label} hook additional context: {text}"

    def post_feedback(self, said: Said) -> str:
        return f'{label(said)} hook blocking error from command: "{said.command}": {said.reason}'

    def stop(self, said: Said) -> str:
        if said.exit2:
            return f"Stop hook feedback:\n[{said.command}]: {said.reason}"
        return f"Stop hook feedback:\n{said.reason}"
