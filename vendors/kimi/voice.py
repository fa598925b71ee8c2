"""How Kimi Code words a hook's answer for the model (vendor lane, 2.1.0)."""

from __future__ import annotations

from compat_adapter.vendor import Said, Voice

__all__ = ("KimiVoice",)


class KimiVoice(Voice):
    """Kimi: a refused call's result is Kimi's failure line, then the hook's reason (measured,
    lane case kimi:deny_exit2); a Stop block is the bare reason; a prompt hook's stdout is a
    ``<hook_result>`` of the user's message (lane case kimi:prompt_context)."""

    def deny(self, said: Said) -> str:
        return f"<system>ERROR: Tool execution failed.</system>\n{said.reason}"

    def context(self, event: str, tool: str | None, text: str, failed: bool = False) -> str:
        return f'<hook_result hook_event="{event}">\n{text}\n</hook_result>'
