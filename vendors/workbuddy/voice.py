"""How CodeBuddy words a hook's answer for the model (vendor lane, CodeBuddy Code 2.163.0)."""

from __future__ import annotations

from compat_adapter.routing.voice import Said, Voice

__all__ = ("CodeBuddyVoice",)


class CodeBuddyVoice(Voice):
    """CodeBuddy: a deny keeps the ``Error:`` envelope; context in system-reminder parts; a Stop
    block quotes the command in a user query."""

    def deny(self, said: Said) -> str:
        return f"Error: {said.reason}"

    def prompt_blocked(self, said: Said, prompt: str) -> str:
        # The -p result when UserPromptSubmit blocks (lane case prompt_block).
        return f"UserPromptSubmit operation blocked by hook:\n{said.reason}"

    def stopped(self, said: Said, reason: str) -> str | None:
        # A continue:false on PreToolUse or Stop: neither -p's JSON nor the SDK's stream-json carries
        # a word of its stopReason (measured, 2.163.0, lane cases pre_halt and stop_halt; the headless
        # build has no terminal UI). Elsewhere it was not measured: the host's notice stays.
        return None if said.event in ("PreToolUse", "Stop") else reason

    def ask_denied(self, said: Said) -> str | None:
        # CodeBuddy takes an ask to its own permission check; with nobody to ask (-p) the call runs
        # (unit facts: ask_unattended="allow", routing.unattended), so it shows nothing.
        return None

    def context(self, event: str, tool: str | None, text: str, failed: bool = False) -> str:
        role = "tool-hint" if event in ("PostToolUse", "PostToolUseFailure") else "hook"
        return f'<system-reminder data-role="{role}">{text}</system-reminder>'

    def stop(self, said: Said) -> str:
        return f"<user_query>Stop hook feedback:\n[{said.command}]: {said.reason}</user_query>"
