"""Check a host surface against what the vendor tables consume, naming each missing piece."""

from __future__ import annotations

from compat_adapter.catalog import vendors
from compat_adapter.host.protocol import Surface
from compat_adapter.model import Route

__all__ = ("check_surface", "consumed")


def consumed() -> dict[str, tuple[str, ...]]:
    """Every seam, service and bridge package the rows need → the rows that need it."""
    needs: dict[str, list[str]] = {"service:shell": []}
    for spec in vendors():
        for row in spec.events:
            label = f"{spec.id} {row.event}"
            needs["service:shell"].append(label)
            for seam in row.seams:
                needs.setdefault(f"seam:{seam}", []).append(label)
            for service in row.services:
                needs.setdefault(f"service:{service}", []).append(label)
            # A bridge is needed by the rows it carries by default, and by the rows that take it
            # when a preset asks for prefer="official".
            if (row.route is Route.OFFICIAL_BRIDGE or row.official is not None) and spec.bridge_package:
                needs.setdefault(f"bridge:{spec.bridge_package}", []).append(
                    label if row.route is Route.OFFICIAL_BRIDGE else f"{label} (prefer=official)")
        needs.setdefault("seam:agent/created", []).append(f"{spec.id} rules")
    return {k: tuple(v) for k, v in needs.items()}


def check_surface(surface: Surface) -> tuple[str, ...]:
    """`kind:name (needed by N rows: …)` for each piece the surface lacks; empty when complete."""
    missing = []
    for key, rows in sorted(consumed().items()):
        kind, name = key.split(":", 1)
        have = (name in surface.seams if kind == "seam" else
                name in surface.services if kind == "service" else name in surface.bridge_packages)
        if not have:
            shown = ", ".join(rows[:4]) + (" …" if len(rows) > 4 else "")
            missing.append(f"{kind} {name} (needed by {len(rows)} rows: {shown})")
    return tuple(missing)
