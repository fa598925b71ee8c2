"""Cursor's unit (what a unit composes, and where it is registered: ``vendors/__init__.py``). Its test
support is a live speaker and no vendor-lane driver: Cursor's CLI is not on the registries and its models
are Cursor-hosted, so nothing of it runs offline here and every row says its semantics are documented,
not measured."""

from __future__ import annotations

from types import MappingProxyType

from compat_adapter.vendor import Facts, Later, home_parts, vendor_unit
from vendors.cursor.handlers import CURSOR_SHAPE, DEFAULT_LOOP_LIMIT
from vendors.cursor.table import CURSOR
from vendors.cursor.voice import CursorVoice

__all__ = ("UNIT",)

UNIT = vendor_unit(
    spec=CURSOR,
    order=70,
    # Loaded on first use: the regex engines and the trust store are not needed to read the table.
    **home_parts(__package__),  # its lane module: a live speaker, and a CLI that says why it has no driver
    handlers=CURSOR_SHAPE,
    # postToolUse cannot block in Cursor; preToolUse has no context output; after 5 follow-ups
    # (Cursor's default loop_limit) a stop hook's followup_message is not submitted any more.
    voice=CursorVoice("cursor", post_block="ignored", stop_guard=DEFAULT_LOOP_LIMIT,
                      places=MappingProxyType({})),
    landing=Facts(context={"session": "message:system", "post": "message:user"},
                  stop="message:user"),
    permissions=Later("vendors.cursor.permission_language:LANGUAGE"),  # .cursor/cli.json permissions (documented)
    host=None,  # no Cursor CLI runs here to prove a port; it hosts nothing yet
)
