"""CodeBuddy / WorkBuddy's unit (what a unit composes, and where it is registered: ``vendors/__init__.py``)."""

from __future__ import annotations

from types import MappingProxyType

from compat_adapter.vendor import Facts, Later, home_parts, vendor_unit
from vendors.claude.handlers import CLAUDE_SHAPE
from vendors.workbuddy.table import WORKBUDDY
from vendors.workbuddy.voice import CodeBuddyVoice

__all__ = ("UNIT",)

# The voice and landing facts moved here from routing/voice.py (VOICES) and explain/landing.py
# (FACTS) when the vendor became one unit (issue 25): a change to either is made here.
UNIT = vendor_unit(
    spec=WORKBUDDY,
    order=30,
    # Loaded on first use: the regex engines and the trust store are not needed to read the table.
    **home_parts(__package__),
    handlers=CLAUDE_SHAPE,
    voice=CodeBuddyVoice("workbuddy", post_block="ignored", places=MappingProxyType({
        "PostToolUse": "result", "PostToolUseFailure": "result",
        "UserPromptSubmit": "before-prompt", "SessionStart": "before-prompt"})),
    landing=Facts(context={"session": "prompt", "prompt": "prompt", "post": "tool_result"},
                  deny_frame="Error: {text}", ask_unattended="allow",
                  # After an ask its PreToolUse hooks run again as the call executes (lane case ask).
                  ask_runs_hooks_again=True,
                  # -p exits without it (lane case session_end); /clear, /exit and SIGTERM fire it.
                  unfired=frozenset({"SessionEnd"})),
    permissions=Later("vendors.workbuddy.permissions:LANGUAGE"),  # Claude's language, derived
    host=Later("vendors.workbuddy.hostface:FACE"),  # its host face: what `port` writes for
)
