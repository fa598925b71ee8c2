"""How Factory Droid words a hook's answer for the model (vendor lane, Droid 0.215.0, ``droid exec``)."""

from __future__ import annotations

from compat_adapter.vendor import Said, Voice

__all__ = ("FactoryVoice",)


class FactoryVoice(Voice):
    """Droid: a deny is the tool's ``Error:`` result with the hook's bare reason (exit 2 and JSON
    alike, no hook label, no command); context and a Stop continuation are the hook's bare text in a
    user message."""

    def deny(self, said: Said) -> str:
        return f"Error: {said.reason}"

    def ask_denied(self, said: Said) -> str | None:
        # In droid exec an ask runs the call (nobody is asked, lane case factory:ask): what Droid
        # shows when an ask is refused was not observed, so the host's own words stay.
        return None
