"""Gemini CLI's unit (what a unit composes, and where it is registered: ``vendors/__init__.py``)."""

from __future__ import annotations

from types import MappingProxyType

from compat_adapter.vendor import Facts, Later, home_parts, vendor_unit
from vendors.gemini.handlers import GEMINI_SHAPE
from vendors.gemini.table import GEMINI
from vendors.gemini.voice import GeminiVoice

__all__ = ("UNIT",)

UNIT = vendor_unit(
    spec=GEMINI,
    order=60,
    # Loaded on first use: the regex engines and the trust store are not needed to read the table.
    **home_parts(__package__),
    handlers=GEMINI_SHAPE,
    # Measured (vendor lane, Gemini CLI 0.61.0 -p): SessionStart context is put before the prompt's
    # text, BeforeAgent context is a part after it, AfterTool context is appended to the result after
    # a blank line, BeforeTool context is dropped; an AfterTool deny replaces the result.
    # A block is worded with every hook's reason joined (mergeWithOrDecision; lane case two_hooks).
    voice=GeminiVoice("gemini", post_block="replace", result_separator="\n\n", merged_reason=True,
                      places=MappingProxyType({"SessionStart": "before-prompt", "BeforeAgent": "after-prompt",
                                               "AfterTool": "result"})),
    # The voice words the texts (<hook_context> tags, "Tool execution blocked: …"), so no frame is added.
    # An ask in -p hangs in Gemini (lane case gemini:ask), which no ask_unattended value says.
    landing=Facts(context={"session": "prompt", "prompt": "prompt", "post": "tool_result"}),
    permissions=Later("vendors.gemini.permission_language:LANGUAGE"),  # tools.exclude/allowed/core/confirmationRequired
    host=Later("vendors.gemini.hostface:FACE"),  # its host face: what `port` writes for
)
