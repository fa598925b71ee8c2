"""Crush, whole: its table, dialect, importer, handler shape, voice and landing facts, and its test
support (a live speaker, no vendor-lane driver: Crush's npm package downloads its binary from GitHub
at install, which CI cannot reach, so nothing of it runs here and its row says it is documented, not
measured). Registered once, in ``pyproject.toml`` (entry-point group ``compat_adapter.vendors``)."""

from __future__ import annotations

from compat_adapter.vendor import Facts, home_parts, vendor_unit
from vendors.claude.handlers import CLAUDE_SHAPE
from vendors.crush.spec import CRUSH
from vendors.crush.voice import CrushVoice

__all__ = ("UNIT",)

UNIT = vendor_unit(
    spec=CRUSH,
    order=85,
    **home_parts(__package__),  # its lane module: a live speaker, and a CLI that says why it has no driver
    handlers=CLAUDE_SHAPE,
    # hooked_tool.go appends context to the result of the call that ran; the host places pre-tool
    # context only as a message before the next model call (a loss its row lists).
    voice=CrushVoice("crush", pre_tool_context=True),
    landing=Facts(context={"pre": "message:user"}),
    permissions=None,  # Crush's permissions.allowed_tools is its own config, not read here
    host=None,  # no Crush runs here to prove a port; it hosts nothing yet
)
