"""Windsurf (Cascade), whole: its table, dialect, importer, handler shape, voice and landing facts,
and its test support (a live speaker, no vendor-lane driver: Windsurf is an IDE with hosted models and
no CLI on the registries, so every row says it is documented, not measured). Registered once, in
``pyproject.toml`` (entry-point group ``compat_adapter.vendors``)."""

from __future__ import annotations

from compat_adapter.vendor import Facts, home_parts, vendor_unit
from vendors.claude.handlers import CLAUDE_SHAPE
from vendors.windsurf.spec import WINDSURF
from vendors.windsurf.voice import WindsurfVoice

__all__ = ("UNIT",)

UNIT = vendor_unit(
    spec=WINDSURF,
    order=87,
    **home_parts(__package__),  # its lane module: a live speaker, and a CLI that says why it has no driver
    handlers=CLAUDE_SHAPE,
    voice=WindsurfVoice("windsurf", post_block="ignored"),
    landing=Facts(context={}),  # no hook output ever reaches the model
    permissions=None,  # Windsurf's command allow and deny lists are its own settings, not read here
    host=None,  # no Windsurf runs here to prove a port; it hosts nothing yet
)
