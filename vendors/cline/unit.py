"""Cline, whole: its table, dialect, importer, handler shape, voice and landing facts, and its
vendor-lane driver. Registered once, in ``pyproject.toml`` (entry-point group ``compat_adapter.vendors``)."""

from __future__ import annotations

from compat_adapter.vendor import Facts, home_parts, vendor_unit
from vendors.claude.handlers import CLAUDE_SHAPE
from vendors.cline.spec import CLINE
from vendors.cline.voice import ClineVoice

__all__ = ("UNIT",)

UNIT = vendor_unit(
    spec=CLINE,
    order=90,
    **home_parts(__package__),
    handlers=CLAUDE_SHAPE,
    # A PostToolUse cancel ends the run like a PreToolUse one; no block of a single call exists.
    voice=ClineVoice("cline", post_block="ignored", pre_tool_context=True),
    # Measured (lane, cline --json 3.0.65): tool-hook context is a user message after the result;
    # TaskStart is started detached, so its answer reaches no one. UserPromptSubmit has no row: Cline
    # never runs it for a prompt (table.OWN_UNSERVED).
    landing=Facts(context={"pre": "message:user", "post": "message:user"}, rewrites_input=True),
    permissions=None,  # Cline's auto-approve settings are its own, not read here
    host=None,  # no host face yet: port does not write Cline's hook files
)
