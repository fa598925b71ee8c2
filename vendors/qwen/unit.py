"""Qwen Code's unit (what a unit composes, and where it is registered: ``vendors/__init__.py``)."""

from __future__ import annotations

from types import MappingProxyType

from compat_adapter.vendor import Facts, Later, home_parts, vendor_unit
from vendors.qwen.handlers import QWEN_SHAPE
from vendors.qwen.table import QWEN
from vendors.qwen.voice import QwenVoice

__all__ = ("UNIT",)

UNIT = vendor_unit(
    spec=QWEN,
    order=65,
    # Loaded on first use: the regex engines and the trust store are not needed to read the table.
    **home_parts(__package__),
    handlers=QWEN_SHAPE,
    # Measured (vendor lane, Qwen Code 0.24.4 -p): pre-tool context reaches no one, a post-tool
    # decision is ignored (continue:false replaces the result), Stop blocks stop after 8 in a row.
    voice=QwenVoice("qwen", post_block="replace", stop_guard=8, result_separator="\n\n",
                    places=MappingProxyType({"PostToolUse": "result", "PostToolUseFailure": "result",
                                             "UserPromptSubmit": "after-prompt"})),
    landing=Facts(context={"session": "message:system", "prompt": "prompt", "post": "tool_result"},
                  rewrites_input=False, unfired=frozenset({"SessionEnd"})),  # -p never fires it (measured)
    permissions=Later("vendors.qwen.permissions:LANGUAGE"),  # Claude's language, derived
    host=Later("vendors.qwen.hostface:FACE"),  # its host face: what `port` writes for
)
