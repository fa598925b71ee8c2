"""Claude Code's unit (what a unit composes, and where it is registered: ``vendors/__init__.py``)."""

from __future__ import annotations

from compat_adapter.vendor import Facts, Later, home_parts, vendor_unit
from vendors.claude.handlers import CLAUDE_CODE_SHAPE
from vendors.claude.table import CLAUDE
from vendors.claude.voice import ClaudeVoice

__all__ = ("UNIT",)

# The voice and landing facts moved here from routing/voice.py (VOICES) and explain/landing.py
# (FACTS) when the vendor became one unit (issue 25): a change to either is made here.
UNIT = vendor_unit(
    spec=CLAUDE,
    order=10,
    # Loaded on first use: the regex engines and the trust store are not needed to read the table.
    **home_parts(__package__),
    handlers=CLAUDE_CODE_SHAPE,
    # A pre-tool continue:false (lane case claude:pre_halt): Claude Code runs the call, then stops.
    voice=ClaudeVoice("claude", pre_tool_context=True, stop_guard=8, halt_runs_call=True),
    landing=Facts(context={"session": "message:system", "prompt": "message:system", "pre": "message:system",
                           "post": "message:system"}),
    permissions=Later("vendors.claude.permissions:LANGUAGE"),  # permissions.allow/ask/deny in its settings
    host=Later("vendors.claude.hostface:FACE"),  # its host face: what `port` writes for
)
