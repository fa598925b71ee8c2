"""Claude Code, whole: its table, dialect, importer, handler shape, voice and landing facts, and
its vendor-lane driver. Registered once, in ``pyproject.toml`` (entry-point group ``compat_adapter.vendors``)."""

from __future__ import annotations

from compat_adapter.routing.placement import Facts
from compat_adapter.registry import vendor_unit
from vendors.claude import importer
from vendors.claude.dialect import ClaudeDialect
from vendors.claude.handlers import CLAUDE_CODE_SHAPE
from vendors.claude.table import CLAUDE
from vendors.claude.voice import ClaudeVoice

__all__ = ("UNIT",)

UNIT = vendor_unit(
    spec=CLAUDE,
    order=10,
    dialect=ClaudeDialect(),
    importer=importer,
    handlers=CLAUDE_CODE_SHAPE,
    # A pre-tool continue:false (lane case claude:pre_halt): Claude Code runs the call, then stops.
    voice=ClaudeVoice("claude", pre_tool_context=True, stop_guard=8, halt_runs_call=True),
    landing=Facts(context={"session": "message:system", "prompt": "message:system", "pre": "message:system",
                           "post": "message:system"}),
    lane="vendors.claude.lane:CLI",  # test support: loaded only by the vendor lane
)
