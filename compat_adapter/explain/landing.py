"""Where a vendor puts a hook's text for the model, and the frames it adds around the voice's words.

Each vendor's :class:`~compat_adapter.routing.placement.Facts` live in its unit
(``vendors/<id>/unit.py``, ``landing=``).
``routing/voice.py`` says how a vendor words a deny, a context, a Stop continuation; these facts add
what an ``explain`` reader also needs and the seams do not: in which message the text lands at the
real vendor (measured by the vendor lane, ``reference/vendor-lane/README.md`` §2 and the lane's
recorded outcomes), whether the vendor runs a rewritten tool input, and what it does with ``ask``
in a non-interactive run. A frame is applied only when the voice's own text does not already carry
it, so that a voice that learns the frame does not get it twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

# The record lives beside the voice (vendor units build it without loading explain).
from compat_adapter.routing.placement import Facts

__all__ = ("KINDS", "Facts", "facts_of", "framed")

#: Event kinds, by the host seam a vendor row sits on.
KINDS: Mapping[str, str] = MappingProxyType({
    "tools/pre-execute": "pre", "tools/post-execute": "post", "agent/pre-step": "prompt",
    "agent/turn-stopping": "stop", "agent/created": "session", "approval/request": "permission",
    "tools/permission": "permission",
})


def facts_of(vendor: str) -> Facts:
    """The vendor's placement facts: its unit's (every unit has them; an unknown vendor is an error)."""
    from compat_adapter.catalog import unit_of

    return unit_of(vendor).landing


def framed(frame: str, text: str, **names: str | None) -> str:
    """``text`` in ``frame``, unless the text already carries the frame's fixed words."""
    head = frame.split("{text}", 1)[0].format(**{k: v or "" for k, v in names.items()})
    if head and text.startswith(head):
        return text
    return frame.format(text=text, **{k: v or "" for k, v in names.items()})
