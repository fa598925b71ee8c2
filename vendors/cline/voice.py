"""How Cline words a hook's answer for the model (vendor lane, cline 3.0.65)."""

from __future__ import annotations

import re

from compat_adapter.vendor import Voice

__all__ = ("ClineVoice", "escaped")

_ESCAPES = {"_": "__", '"': "_q_", "<": "_lt_", ">": "_gt_"}
_NESTED = re.compile(r"<(/?)hook_context", re.IGNORECASE)


def escaped(value: str) -> str:
    """An attribute value as Cline writes it into its hook_context tag."""
    return re.sub(r'[_"<>]', lambda m: _ESCAPES[m.group(0)], value)


class ClineVoice(Voice):
    """Cline: a tool hook's context is a ``<hook_context source=… tool_name=…>`` block in a user
    message of its own after the tool's result (measured, lane cases cline:pre_context and
    cline:post_context); the text is trimmed and a nested tag in it defused. Cline also names the
    model's call id there, which a voice is not told (the row's message-provenance loss says so)."""

    def context(self, event: str, tool: str | None, text: str, failed: bool = False) -> str:
        attrs = [f'source="{event}"', *([f'tool_name="{escaped(tool)}"'] if tool else [])]
        body = _NESTED.sub(lambda m: f"<\\{m.group(1)}hook_context", text.strip())
        return f"<hook_context {' '.join(attrs)}>\n{body}\n</hook_context>"
