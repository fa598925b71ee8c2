"""Copilot CLI's unit (what a unit composes, and where it is registered: ``vendors/__init__.py``)."""

from __future__ import annotations

from types import MappingProxyType

from compat_adapter.vendor import Facts, Later, home_parts, vendor_unit
from vendors.copilot.handlers import COPILOT_SHAPE
from vendors.copilot.spec import COPILOT
from vendors.copilot.stopguard import RULES
from vendors.copilot.voice import CopilotVoice

__all__ = ("UNIT",)

# The voice and landing facts moved here from routing/voice.py (VOICES) and explain/landing.py
# (FACTS) when the vendor became one unit (issue 25): a change to either is made here.
UNIT = vendor_unit(
    spec=COPILOT,
    order=50,
    # Loaded on first use: the regex engines and the trust store are not needed to read the table.
    **home_parts(__package__),
    handlers=COPILOT_SHAPE,
    voice=CopilotVoice("copilot", post_block="replace", pre_tool_context=True, result_separator="\n\n",
                       places=MappingProxyType({"postToolUse": "result", "postToolUseFailure": "result",
                                                "userPromptSubmitted": "after-prompt"})),
    landing=Facts(context={"session": "message:user", "prompt": "prompt", "pre": "message:user",
                           "post": "tool_result"},
                  # Pre- and post-tool context is worded whole by the voice, in Copilot's own event
                  # names for either spelling: a frame here would wrap it twice.
                  context_frame={"prompt": "<system_reminder>\n{text}\n</system_reminder>"},
                  ask_frame="Denied by preToolUse hook (unable to ask user for confirmation): {text}"),
    permissions=None,  # no rule language read yet: its files' rules are refused, listed
    host=Later("vendors.copilot.hostface:FACE"),  # its host face: what `port` writes for
    capabilities=(RULES,),  # its runaway guard on agentStop, in place of the points table's stop rule
)
