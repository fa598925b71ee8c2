"""How Codex words a hook's answer for the model (vendor lane, Codex 0.169.0)."""

from __future__ import annotations

from compat_adapter.routing.voice import Said, Voice

__all__ = ("CodexVoice",)


class CodexVoice(Voice):
    """Codex: a deny names the command; context is bare; a Stop block is a tagged user prompt."""

    def deny(self, said: Said) -> str:
        text = f"Command blocked by {said.event} hook: {said.reason}"
        return f"{text}. Command: {said.tool_command}" if said.tool_command is not None else text

    def stop(self, said: Said) -> str:
        run_id = f"stop:{said.index}:{said.source or ''}"
        return f'<hook_prompt hook_run_id="{run_id}">{said.reason}</hook_prompt>'
