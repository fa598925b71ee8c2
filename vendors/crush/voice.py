"""How Crush words a hook's answer for the model, read from its source (internal/agent/hooked_tool.go;
no Crush ran here)."""

from __future__ import annotations

from collections.abc import Sequence

from compat_adapter.vendor import Call, Said, Voice

__all__ = ("CrushVoice",)


class CrushVoice(Voice):
    """Crush: a blocked call's result is ``Tool call blocked by hook. Reason: <the joined reasons>``
    (an error result the model reads); the hooks' contexts are joined by newlines, bare (Crush
    appends them to the tool's result; here they are a message: vendors/crush/table.py says so)."""

    def deny(self, said: Said) -> str:
        return f"Tool call blocked by hook. Reason: {said.reason}"

    def ask_denied(self, said: Said) -> str | None:
        # Crush reads ask as no opinion, so no Crush words exist for an ask refused.
        return None

    def contexts(self, event: str, tool: str | None, subject: str | None, texts: Sequence[str],
                 printed: Sequence[str] = (), failed: bool = False, call: Call | None = None) -> tuple[str, ...]:
        # aggregate(): one context, the hooks' own joined by newlines in config order.
        return ("\n".join(texts),) if texts else ()
