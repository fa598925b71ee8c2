"""Look-ups over the vendor tables: vendor by name or alias, row by event, tool-name translation."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from compat_adapter.errors import UnknownEvent, UnknownVendor
from compat_adapter.model import EventRow, VendorSpec

__all__ = ("host_tool", "resolve_event", "resolve_vendor", "vendor_tool", "vendors")


@cache
def vendors() -> tuple[VendorSpec, ...]:
    # Imported lazily so that `import compat_adapter` stays cheap.
    from vendors.tables import VENDORS

    return VENDORS


@cache
def _by_name() -> Mapping[str, VendorSpec]:
    table: dict[str, VendorSpec] = {}
    for spec in vendors():
        for name in (spec.id, *spec.aliases):
            table[name] = spec
    return table


def resolve_vendor(name: object) -> VendorSpec:
    """The vendor for an id or documented alias; anything else raises UNKNOWN_VENDOR."""
    if isinstance(name, str):
        spec = _by_name().get(name.strip().lower())
        if spec is not None:
            return spec
    known = ", ".join(s.id for s in vendors())
    raise UnknownVendor(f"unknown vendor {name!r} (known: {known})", vendor=name)


def resolve_event(spec: VendorSpec, event: object) -> EventRow:
    """The row for the vendor's own event name, spelled exactly; anything else raises UNKNOWN_EVENT."""
    row = spec.row(event) if isinstance(event, str) else None
    why = spec.unserved_reason(event) if row is None and isinstance(event, str) else None
    if why is not None:
        # A real vendor event this host cannot serve: say why, never "no such event".
        raise UnknownEvent(f"{spec.id} {event} cannot be served on this host: {why}",
                           vendor=spec.id, event=event)
    if row is None:
        raise UnknownEvent(f"{spec.id} has no hook event {event!r}", vendor=spec.id, event=event)
    return row


@cache
def _tool_maps(vendor_id: str) -> tuple[Mapping[str, str], Mapping[str, str]]:
    spec = resolve_vendor(vendor_id)
    to_host = {t.vendor: t.host for t in spec.tools}
    to_vendor: dict[str, str] = {}
    for t in spec.tools:
        to_vendor.setdefault(t.host, t.vendor)  # first listed vendor name wins for the payload
    return to_host, to_vendor


def host_tool(vendor_id: str, vendor_name: str) -> str | None:
    """The host tool a vendor tool name stands for, or None when the host has no counterpart."""
    return _tool_maps(vendor_id)[0].get(vendor_name)


def vendor_tool(vendor_id: str, host_name: str) -> str:
    """The vendor's name for a host tool; a tool with no vendor name keeps the host's name."""
    return _tool_maps(vendor_id)[1].get(host_name, host_name)
