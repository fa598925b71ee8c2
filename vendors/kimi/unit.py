"""Kimi Code's unit (what a unit composes, and where it is registered: ``vendors/__init__.py``)."""

from __future__ import annotations

from compat_adapter.vendor import Facts, home_parts, vendor_unit
from vendors.claude.handlers import CLAUDE_SHAPE
from vendors.kimi.spec import KIMI
from vendors.kimi.voice import KimiVoice

__all__ = ("UNIT",)

UNIT = vendor_unit(
    spec=KIMI,
    order=80,
    **home_parts(__package__),
    handlers=CLAUDE_SHAPE,
    # Measured (lane, kimi -p 2.1.0): a Stop block continues the turn once and Stop is not run again
    # (runStop returns at once while stopHookContinuationUsed, reset when the turn ends).
    voice=KimiVoice("kimi", post_block="ignored", stop_guard=1, stop_again=False),
    landing=Facts(context={"prompt": "message:user"}),  # only a prompt hook's stdout reaches the model
    permissions=None,  # Kimi's permission modes are its own settings, not read here
    host=None,  # no host face yet: port does not write Kimi's config
)
