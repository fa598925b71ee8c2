"""Codex's unit (what a unit composes, and where it is registered: ``vendors/__init__.py``)."""

from __future__ import annotations

from compat_adapter.vendor import Facts, HandlerShape, Later, home_parts, vendor_unit
from vendors.codex.policy import POLICY
from vendors.codex.table import CODEX
from vendors.codex.voice import CodexVoice

__all__ = ("UNIT",)

#: Codex's own handler keys (hooks.json and config.toml), read by its importer.
HANDLERS = HandlerShape(keys={}, other=frozenset({"type", "command", "timeout", "timeoutSec", "statusMessage",
                                                   "commandWindows", "command_windows", "async"}))


# The voice and landing facts moved here from routing/voice.py (VOICES) and explain/landing.py
# (FACTS) when the vendor became one unit (issue 25): a change to either is made here.
UNIT = vendor_unit(
    spec=CODEX,
    order=20,
    # Loaded on first use: the regex engines and the trust store are not needed to read the table.
    **home_parts(__package__),
    handlers=HANDLERS,
    # Codex 0.171.0 shows pre-tool context as a developer message (the lane saw it; older notes
    # say dropped).
    voice=CodexVoice("codex", post_block="replace", pre_tool_context=True),
    landing=Facts(context={"session": "message:developer", "prompt": "message:developer",
                           "pre": "message:developer", "post": "message:developer"}, ask_unattended="allow"),
    permissions=None,  # its .rules command policy is its own capability (policy.py), not a rule language
    host=Later("vendors.codex.hostface:FACE"),  # its host face: what `port` writes for
    capabilities=(POLICY,),  # .rules files are prefix-rule command policy, enforced on the shell
)
