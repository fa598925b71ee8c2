"""Continue's cn: its unit, registered as ``continue`` (the folder is ``cn`` because ``continue`` is a Python
keyword); its vendor-lane driver is hook-less. What a unit composes: ``vendors/__init__.py``."""

from __future__ import annotations

from compat_adapter.vendor import Facts, home_parts, vendor_unit
from vendors.claude.handlers import CLAUDE_SHAPE
from vendors.cn.spec import CONTINUE
from vendors.cn.voice import ContinueVoice

__all__ = ("UNIT",)

UNIT = vendor_unit(
    spec=CONTINUE,
    order=75,
    **home_parts(__package__),
    handlers=CLAUDE_SHAPE,
    voice=ContinueVoice("continue"),
    # From its source only: the tool layer that would place context is not in the release.
    landing=Facts(context={"session": "message:user", "prompt": "message:user", "post": "message:user"}),
    permissions=None,  # cn's --allow/--ask/--exclude policies are flags and config, not read here
    host=None,  # cn fires no hook in this release, so no port to it can be proven; it hosts nothing yet
)
