"""How Cline words a hook's answer for the model (vendor lane, cline 3.0.65)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from compat_adapter.vendor import Call, Voice
from vendors.cline.table import TOOL_NAMES

__all__ = ("ClineVoice", "escaped")

_ESCAPES = {"_": "__", '"': "_q_", "<": "_lt_", ">": "_gt_"}
_NESTED = re.compile(r"<(/?)hook_context", re.IGNORECASE)
#: The host's tool → Cline's name of it (the first name its table lists, as a payload carries it).
_VENDOR_NAME: dict[str, str] = {}
for _vendor, _host, _ in TOOL_NAMES:
    _VENDOR_NAME.setdefault(_host, _vendor)


def escaped(value: str) -> str:
    """An attribute value as Cline writes it into its hook_context tag (``_`` doubled first, so
    that no two values collapse: its sanitizeHookAttribute)."""
    return re.sub(r'[_"<>]', lambda m: _ESCAPES[m.group(0)], value)


def _block(event: str, attrs: Sequence[str], text: str) -> str:
    body = _NESTED.sub(lambda m: f"<\\{m.group(1)}hook_context", text.strip())
    head = " ".join((f'source="{event}"', *attrs))
    return f"<hook_context {head}>\n{body}\n</hook_context>"


class ClineVoice(Voice):
    """Cline: a tool hook's context is a ``<hook_context source=… tool_name=… tool_call_id=…>``
    block in a user message of its own after the tool's result (measured, lane cases
    cline:pre_context and cline:post_context; its agent runtime's formatHookContextBlock); the text
    is trimmed and a nested tag in it defused. The tool is named as Cline's table names the host's
    tool, and the call by the host's call id: the model's own id where the host keeps it."""

    def context(self, event: str, tool: str | None, text: str, failed: bool = False) -> str:
        return _block(event, [f'tool_name="{escaped(tool)}"'] if tool else [], text)

    def contexts(self, event: str, tool: str | None, subject: str | None, texts: Sequence[str],
                 printed: Sequence[str] = (), failed: bool = False, call: Call | None = None) -> tuple[str, ...]:
        if call is None:
            return Voice.contexts(self, event, tool, subject, texts, printed, failed)
        attrs = (f'tool_name="{escaped(_VENDOR_NAME.get(call.tool, call.tool))}"',
                 f'tool_call_id="{escaped(call.id)}"')
        return tuple(_block(event, attrs, text) for text in texts)
