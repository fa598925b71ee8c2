"""What an installed vendor release says about itself: its version (the lane's stamp) and the hook
events it knows, read from what the vendor ships (its JSON schemas, its type definitions, the event
table compiled into its binary), never from our own tables.

Each vendor's lane driver reads its own release (``VendorCli.release_events``); it returns the events
and names the file it read them from, so that a report can say where a claim comes from. A
release whose events cannot be found raises: a release whose layout moved must be looked at, not reported as knowing no event.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from compat_adapter.catalog import resolve_vendor
from compat_adapter.testing.lane.vendors import cli_for, lane_vendors

__all__ = ("Release", "lane_folders", "read_release", "table_gaps")


@dataclass(frozen=True, slots=True)
class Release:
    vendor: str
    stamp: str
    """What the lane installed, as its stamp says (``@anthropic-ai/claude-code@2.1.332``)."""
    events: tuple[str, ...]
    """Every hook event the release knows, in the order it lists them."""
    source: str
    """Where the events were read, relative to the vendor's lane folder."""

    def as_json(self) -> dict[str, object]:
        return {"vendor": self.vendor, "stamp": self.stamp, "events": list(self.events), "source": self.source}


def lane_folders() -> Mapping[str, str]:
    """Each vendor with a lane driver, and its folder in the lane (``workbuddy`` is ``codebuddy``)."""
    return {vendor: cli_for(vendor).folder for vendor in lane_vendors()}


def read_release(vendor: str, lane: Path) -> Release:
    """The release of ``vendor`` installed in the lane folder ``lane``; raises when it is not
    installed or its event list cannot be found."""
    cli = cli_for(vendor)
    folder = lane / cli.folder
    stamp_file = folder / ".stamp"
    if not stamp_file.exists():
        raise FileNotFoundError(f"{vendor} is not installed in {lane} (no {stamp_file.name})")
    events, source = cli.release_events(folder)
    if not events:
        raise LookupError(f"{vendor}: no hook event list found in {source}: the release's layout changed")
    return Release(vendor, stamp_file.read_text().strip(), events, source)


def table_gaps(vendor: str, events: tuple[str, ...]) -> tuple[str, ...]:
    """The events among ``events`` that our vendor table neither serves nor names as unserved."""
    spec = resolve_vendor(vendor)
    return tuple(e for e in events if spec.row(e) is None and spec.unserved_reason(e) is None)
