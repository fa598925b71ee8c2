"""How Windsurf words a hook's answer for the model, from its docs (no Windsurf ran here)."""

from __future__ import annotations

from compat_adapter.routing.voice import Voice

__all__ = ("WindsurfVoice",)


class WindsurfVoice(Voice):
    """Windsurf: "the Cascade agent will see the error message from stderr" of a blocking pre-hook,
    as the hook wrote it; no hook output is ever context."""
