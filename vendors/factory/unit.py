"""Factory Droid's unit (what a unit composes, and where it is registered: ``vendors/__init__.py``)."""

from __future__ import annotations

from compat_adapter.vendor import Facts, home_parts, vendor_unit
from vendors.claude.handlers import CLAUDE_SHAPE
from vendors.factory.spec import FACTORY
from vendors.factory.voice import FactoryVoice

__all__ = ("UNIT",)

UNIT = vendor_unit(
    spec=FACTORY,
    order=70,
    **home_parts(__package__),
    handlers=CLAUDE_SHAPE,
    # Measured (vendor lane, droid exec 0.215.0): pre-tool context reaches no one, a post-tool
    # decision is ignored, a pre-tool continue:false stops the agent before the call runs.
    voice=FactoryVoice("factory", post_block="ignored"),
    # An ask in exec (--auto high) runs the call: nobody is asked (lane case factory:ask).
    landing=Facts(context={"session": "message:user", "prompt": "message:user", "post": "message:user"},
                  deny_frame="Error: {text}", ask_unattended="allow"),
    permissions=None,  # Droid's commandAllowlist/commandDenylist are its own settings, not read here
    host=None,  # no host face yet: port does not write Droid's files
)
