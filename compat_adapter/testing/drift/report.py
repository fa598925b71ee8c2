"""Compare two lane snapshots, the pinned releases and the newest ones, vendor by vendor.

A snapshot is what ``scripts/vendor_drift.py`` records of one lane folder: each vendor's release
(:class:`~compat_adapter.testing.drift.releases.Release`, as JSON) and the lane's differential
report (``scripts/vendor_diff.py --json --outcomes``) for the vendors that were run. The comparison
is pure: it reads the two snapshots and says, per vendor, which case verdicts moved (and what the
real vendor did differently in them), which payload fields each event gained or lost, and which
events the newer release knows that the older one or our table does not. Nothing moved is "no drift".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from compat_adapter.testing.drift.releases import table_gaps
from compat_adapter.testing.lane.compare import payload_fields

__all__ = ("CaseMove", "VendorDrift", "compare_snapshots", "drift_json", "render")


@dataclass(frozen=True, slots=True)
class CaseMove:
    """One case under both releases: its verdicts, and the facets of the real vendor's own outcome
    that changed (what the vendor did, whatever compat-adapter does)."""

    case: str
    before: Mapping[str, Any] | None
    after: Mapping[str, Any] | None
    vendor_changes: tuple[tuple[str, Any, Any], ...] = ()

    @property
    def verdict_moved(self) -> bool:
        return self.before != self.after

    def as_json(self) -> dict[str, Any]:
        return {"case": self.case, "before": self.before, "after": self.after, "verdict_moved": self.verdict_moved,
                "vendor_changes": [{"facet": f, "before": b, "after": a} for f, b, a in self.vendor_changes]}


@dataclass(frozen=True, slots=True)
class VendorDrift:
    vendor: str
    pinned: str
    latest: str
    compared: bool
    """Whether the lane ran on both releases (a vendor whose newest release is its pin is not rerun)."""
    cases: tuple[CaseMove, ...] = ()
    fields_added: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    fields_removed: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    events_added: tuple[str, ...] = ()
    events_removed: tuple[str, ...] = ()
    table_gaps: tuple[str, ...] = ()
    """Events the newest release knows that our table neither serves nor names as unserved."""

    @property
    def drifted(self) -> bool:
        # A standing table gap is not drift (the pinned release had it too): it is printed apart.
        return bool(self.cases or self.fields_added or self.fields_removed or self.events_added
                    or self.events_removed)

    def as_json(self) -> dict[str, Any]:
        return {"vendor": self.vendor, "pinned": self.pinned, "latest": self.latest, "compared": self.compared,
                "drift": self.drifted, "cases": [c.as_json() for c in self.cases],
                "fields_added": {k: list(v) for k, v in self.fields_added.items()},
                "fields_removed": {k: list(v) for k, v in self.fields_removed.items()},
                "events_added": list(self.events_added), "events_removed": list(self.events_removed),
                "table_gaps": list(self.table_gaps)}


def _verdicts(snapshot: Mapping[str, Any], vendor: str) -> dict[str, dict[str, Any]] | None:
    summary = snapshot.get("report", {}).get("vendors", {}).get(vendor)
    if summary is None:
        return None
    out = {f"{vendor}:{kind}": {"status": v["status"], "facets": sorted(d["facet"] for d in v["differences"])}
           for kind, v in summary["verdicts"].items()}
    out.update({f"{vendor}:{kind}": {"status": "not_drivable"} for kind in summary.get("not_drivable", {})})
    out.update({f"{vendor}:{kind}": {"status": "failed"} for kind in summary.get("failures", {})})
    return out


def _vendor_facets(outcome: Mapping[str, Any] | None) -> dict[str, Any]:
    """What the real vendor did, in the facets the lane compares (no ids, no durations)."""
    if not outcome:
        return {}
    facets: dict[str, Any] = {"invoked": sorted(outcome["invoked"]), "tool_ran": outcome["tool_ran"],
                              "rewritten": outcome["rewritten"], "model_calls": outcome["model_calls"],
                              "error": outcome["error"]}
    if not outcome["tool_ran"]:
        facets["tool_result"] = outcome["tool_result"]
    for marker, landing in outcome["landings"].items():
        facets[f"landing:{marker}"] = [landing["place"], landing["line"]]
    return facets


def _outcome(snapshot: Mapping[str, Any], case: str) -> Mapping[str, Any] | None:
    return (snapshot.get("report", {}).get("outcomes", {}).get(case) or {}).get("vendor")


def _fields(snapshot: Mapping[str, Any], vendor: str) -> dict[str, set[str]]:
    fields: dict[str, set[str]] = {}
    for case, sides in snapshot.get("report", {}).get("outcomes", {}).items():
        if case.split(":", 1)[0] != vendor or not sides.get("vendor"):
            continue
        for hook in sides["vendor"]["hooks"]:
            fields.setdefault(hook["event"], set()).update(payload_fields(hook["stdin"]))
    return fields


def _cases(pinned: Mapping[str, Any], latest: Mapping[str, Any], vendor: str) -> tuple[CaseMove, ...]:
    before, after = _verdicts(pinned, vendor) or {}, _verdicts(latest, vendor) or {}
    moves = []
    for case in sorted(set(before) | set(after)):
        old, new = _vendor_facets(_outcome(pinned, case)), _vendor_facets(_outcome(latest, case))
        changes = tuple((f, old.get(f), new.get(f)) for f in sorted(set(old) | set(new)) if old.get(f) != new.get(f))
        if before.get(case) != after.get(case) or changes:
            moves.append(CaseMove(case, before.get(case), after.get(case), changes))
    return tuple(moves)


def compare_snapshots(pinned: Mapping[str, Any], latest: Mapping[str, Any],
                      vendors: Iterable[str] | None = None) -> tuple[VendorDrift, ...]:
    """Per vendor (those both snapshots hold a release of, or ``vendors``), what moved."""
    names = list(vendors) if vendors is not None else [v for v in pinned["releases"] if v in latest["releases"]]
    out = []
    for vendor in names:
        old, new = pinned["releases"][vendor], latest["releases"][vendor]
        compared = _verdicts(pinned, vendor) is not None and _verdicts(latest, vendor) is not None
        added: dict[str, tuple[str, ...]] = {}
        removed: dict[str, tuple[str, ...]] = {}
        if compared:
            f_old, f_new = _fields(pinned, vendor), _fields(latest, vendor)
            # Only events both runs fired: an event that fired in one run only is a case change,
            # reported with its case, not a payload change.
            for event in sorted(set(f_old) & set(f_new)):
                if f_new[event] - f_old[event]:
                    added[event] = tuple(sorted(f_new[event] - f_old[event]))
                if f_old[event] - f_new[event]:
                    removed[event] = tuple(sorted(f_old[event] - f_new[event]))
        out.append(VendorDrift(
            vendor, old["stamp"], new["stamp"], compared, _cases(pinned, latest, vendor) if compared else (),
            added, removed, tuple(e for e in new["events"] if e not in old["events"]),
            tuple(e for e in old["events"] if e not in new["events"]), table_gaps(vendor, tuple(new["events"]))))
    return tuple(out)


def drift_json(drifts: Iterable[VendorDrift]) -> dict[str, Any]:
    listed = list(drifts)
    return {"drift": any(d.drifted for d in listed), "vendors": {d.vendor: d.as_json() for d in listed}}


def _short(value: Any, cap: int = 1200) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= cap else text[:cap] + f"… ({len(text)} chars)"


def render(drifts: Iterable[VendorDrift]) -> str:
    """The human report: one block per vendor that drifted, one line per vendor that did not."""
    lines: list[str] = []
    listed = list(drifts)
    for d in listed:
        head = f"{d.vendor}: {d.pinned} -> {d.latest}" if d.pinned != d.latest else f"{d.vendor}: {d.pinned}"
        if not d.drifted:
            why = "" if d.compared or d.pinned != d.latest else " (newest release is the pin; lane not rerun)"
            lines.append(f"{head}: no drift{why}")
        else:
            lines.append(f"{head}: DRIFT")
            for c in d.cases:
                if c.verdict_moved:
                    lines.append(f"  case {c.case}: verdict {_verdict(c.before)} -> {_verdict(c.after)}")
                else:
                    lines.append(f"  case {c.case}: verdict unchanged ({_verdict(c.after)}), the vendor did otherwise")
                for facet, before, after in c.vendor_changes:
                    lines.append(f"    vendor {facet}:")
                    lines.append(f"      was: {_short(before)}")
                    lines.append(f"      now: {_short(after)}")
            for event, names in d.fields_added.items():
                lines.append(f"  payload {event}: fields added {', '.join(names)}")
            for event, names in d.fields_removed.items():
                lines.append(f"  payload {event}: fields removed {', '.join(names)}")
            if d.events_added:
                lines.append(f"  events new in {d.latest}: {', '.join(d.events_added)}")
            if d.events_removed:
                lines.append(f"  events gone in {d.latest}: {', '.join(d.events_removed)}")
        if d.table_gaps:
            lines.append(f"  events {d.latest} knows that our table does not: {', '.join(d.table_gaps)}")
    lines.append("drift" if any(d.drifted for d in listed) else "no drift")
    return "\n".join(lines)


def _verdict(v: Mapping[str, Any] | None) -> str:
    if v is None:
        return "absent"
    facets = v.get("facets")
    return f"{v['status']} [{', '.join(facets)}]" if facets else str(v["status"])
