"""Hook dialects: the protocol every vendor's dialect speaks, and the shared pieces they are built of.

Each vendor's dialect lives in its unit (``vendors/<id>/dialect.py``); pure modules, no I/O and no
processes. :func:`dialect_for` hands out the one shared instance of a vendor's unit.
"""

from __future__ import annotations

from compat_adapter.dialects.base import Dialect, HookAnswer, Moment

__all__ = ("Dialect", "HookAnswer", "Moment", "dialect_for")


def dialect_for(vendor_id: str) -> Dialect:
    """The dialect of a vendor id or documented alias; anything else raises UNKNOWN_VENDOR."""
    from compat_adapter.catalog import unit_of

    return unit_of(vendor_id).dialect
