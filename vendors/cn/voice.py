"""How Continue's cn would word a hook's answer for the model, read from its source (1.5.47 fires no
hook, so nothing of it was measured)."""

from __future__ import annotations

from compat_adapter.vendor import Voice

__all__ = ("ContinueVoice",)


class ContinueVoice(Voice):
    """cn: the hook's bare reason and context, as its runner aggregates them (blockReason,
    additionalContext joined by newlines); what its tool layer wraps them in is not in the release."""
