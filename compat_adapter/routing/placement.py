"""Where a vendor puts a hook's text for the model: the facts ``explain`` shows beside the voice's words.

One record per vendor, named by its unit (``landing=``); :mod:`compat_adapter.explain.landing`
reads it. Kept apart from ``explain`` so that a vendor unit builds it without loading the
explain machinery.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ("Facts",)


@dataclass(frozen=True, slots=True)
class Facts:
    """One vendor's placement facts."""

    #: Event kind → where additional context lands (``message:<role>``, ``prompt``, ``tool_result``);
    #: a kind not listed drops it.
    context: Mapping[str, str] = field(default_factory=dict)
    #: Event kind → a frame around the voice's context text (``{text}``, ``{event}``, ``{tool}``).
    context_frame: Mapping[str, str] = field(default_factory=dict)
    #: A frame around the voice's deny text (the tool result the model reads).
    deny_frame: str = "{text}"
    #: Where a post-tool block's feedback lands when the result stays (voice ``post_block == "context"``).
    post_feedback: str = "message:system"
    #: Where a Stop continuation lands.
    stop: str = "message:user"
    #: Whether the vendor runs a rewritten tool input.
    rewrites_input: bool = True
    #: What ``ask`` does in a non-interactive run: ``deny`` (the model reads ``ask_frame`` around the hook's
    #: reason) or ``allow`` (nobody is asked and the call runs).
    ask_unattended: str = "deny"
    ask_frame: str = "{text}"
    #: Whether the vendor runs its pre-tool hooks again when a call they answered ``ask`` executes
    #: (CodeBuddy; see :mod:`compat_adapter.routing.reasked`).
    ask_runs_hooks_again: bool = False
    #: Events the vendor's non-interactive run never fires, though the host fires them (CodeBuddy
    #: and Qwen ``-p`` end without SessionEnd: measured, read in their code).
    unfired: frozenset[str] = frozenset()
