"""A vendor's row derived from another vendor's row of the same event.

A vendor that copies another's hook protocol (CodeBuddy, Qwen and Codex copy Claude Code's) lands
most events exactly where that vendor does: the same seams, point, blocking, matcher subject and
fires-on. What differs is what it loses there, and that is worded against its own behaviour. So a
derived row takes the base row's routing and never its losses: the table that derives states its
own losses, and any routing fact where it differs, next to the base vendor and event it names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from compat_adapter.model import EventRow, VendorSpec

__all__ = ("derive_row",)

#: What a derived row never takes from its base: the losses (worded against the base's vendor)
#: and the official alternative (a vendor states its own, or has none).
_OWN_ONLY = frozenset({"degradations", "role_losses", "official"})


def derive_row(base: VendorSpec, event: str, /, *, official: Mapping[str, Any] | None = None, **own: Any) -> EventRow:
    """``base``'s row of ``event``, routed as there, with this vendor's ``own`` fields: its losses,
    and any routing fact that differs (``event=`` where the vendor names the same event otherwise).
    ``official``: this vendor's fields on the base row's official-bridge alternative (derived the
    same way); None: no alternative."""
    row = base.row(event)
    if row is None:
        raise ValueError(f"{base.id} has no {event} row to derive one from")
    return _derived(row, official, own)


def _derived(row: EventRow, official: Mapping[str, Any] | None, own: Mapping[str, Any]) -> EventRow:
    alternative = None
    if official is not None:
        if row.official is None:
            raise ValueError(f"{row.event}: the base row has no official alternative to derive one from")
        alternative = _derived(row.official, None, official)
    taken = {name: value for name, value in row if name not in _OWN_ONLY}
    return EventRow(**{**taken, **own, "official": alternative})
