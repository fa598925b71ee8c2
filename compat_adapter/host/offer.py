"""The tools a host offers its model: the ``tools/offer`` waterfall.

A vendor may keep a tool from its model altogether: OpenCode does not offer a tool its permission
rules deny for every pattern, and its model reads an error naming the tools it does offer when it
calls that one anyway. The seam lets a listener do the same on a host: before each model request the
host dispatches ``tools/offer`` with its whole catalogue (host tool names, in its own order); the
tuple the waterfall answers is what the request offers, and a call to a tool outside it never runs
its body. The embedded host offers the seam; DSH's counterpart (the tool list of its
``system-prompt/assemble`` assembly) is not reached by the bundle, so the dsh kind has none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # The grader reads the seam's name without loading the host contract (the matrix never does).
    from compat_adapter.host.protocol import AgentHandle

__all__ = ("OFFER_SEAM", "ToolOffer", "unoffered_text")

OFFER_SEAM = "tools/offer"


@dataclass(frozen=True, slots=True)
class ToolOffer:
    """Payload of ``tools/offer``: the tools about to be offered for one request of ``agent``."""

    agent: AgentHandle
    tools: tuple[str, ...]


def unoffered_text(tool: str) -> str:
    """The host's own error for a call to a tool it did not offer (a listener may word it otherwise)."""
    return f"Error: tool {tool!r} was not offered to the model"
