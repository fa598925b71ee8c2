"""OpenCode's unit (what a unit composes, and where it is registered: ``vendors/__init__.py``)."""

from __future__ import annotations

from compat_adapter.vendor import Facts, HandlerShape, Later, Voice, home_parts, vendor_unit
from vendors.opencode.plugin_host.runtime import RUNTIME
from vendors.opencode.table import OPENCODE

__all__ = ("UNIT",)

#: OpenCode writes no handler mappings of its own (its hooks are plugins): a command mapping
#: declared for it is read for its command alone, every other key as given.
HANDLERS = HandlerShape(keys={}, other=None)


# The voice and landing facts moved here from routing/voice.py (VOICES) and explain/landing.py
# (FACTS) when the vendor became one unit (issue 25): a change to either is made here.
UNIT = vendor_unit(
    spec=OPENCODE,
    order=40,
    # Loaded on first use: the regex engines and the trust store are not needed to read the table.
    **home_parts(__package__),
    handlers=HANDLERS,
    # OpenCode's own words for a hook's answer were not reproduced: the hook's reason as it is.
    voice=Voice("opencode", post_block="replace"),
    landing=Facts(context={"session": "message:system", "prompt": "prompt", "post": "tool_result"}),
    permissions=Later("vendors.opencode.permission_language:LANGUAGE"),  # opencode.json permission
    host=Later("vendors.opencode.hostface:FACE"),  # its host face: what `port` writes for
    capabilities=(RUNTIME,),  # its plugins run as written in the plugin host (a Bun sidecar)
)
