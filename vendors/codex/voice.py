"""How Codex words a hook's answer for the model (vendor lane, Codex 0.171.0)."""

from __future__ import annotations

from compat_adapter.vendor import Said, Voice

__all__ = ("CodexVoice",)


class CodexVoice(Voice):
    """Codex: a deny names the command; context is bare; a Stop block is a tagged user prompt."""

    def deny(self, said: Said) -> str:
        text = f"Command blocked by {said.event} hook: {said.reason}"
        return f"{text}. Command: {said.tool_command}" if said.tool_command is not None else text

    def permission_denied(self, said: Said) -> str | None:
        # Measured on Codex 0.171.0 (lane case codex:permission_deny): the shell call fails with the
        # hook's message as the rejection. Only the shell tool's words were seen.
        if said.tool != "Bash":
            return None
        return f'exec_command failed: CreateProcess {{ message: "Rejected(\\"{said.reason}\\")" }}'

    def stop(self, said: Said) -> str:
        run_id = f"stop:{said.index}:{said.source or ''}"
        return f'<hook_prompt hook_run_id="{run_id}">{said.reason}</hook_prompt>'

    def prompt_blocked(self, said: Said, prompt: str) -> str:
        # Codex's terminal UI draws the reason in a cell of its own (lane case codex:prompt_block,
        # read off the 0.171.0 screen); `codex exec` prints only `hook: UserPromptSubmit Blocked`.
        return f"Blocked by hook\n{said.reason}"

    def stopped(self, said: Said, reason: str) -> str:
        # The terminal UI's cell for a continue:false (lane cases session_halt and post_halt, 0.171.0).
        return f"Hook stopped\n{reason}"

    def system_message(self, said: Said, text: str) -> str:
        # The terminal UI's line for a systemMessage (lane case system_message, 0.171.0).
        return f"Hook \u00b7 {text}"
