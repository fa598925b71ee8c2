"""Grading OpenCode plugins: one row per hook key a loaded plugin returns. Pure and synchronous.

Which keys a plugin returns is only known by running it, so the sidecar loads it first (never this
process) and hands back a :class:`LoadReport`; grading reads that report and the host surface:

* each key is graded as :func:`vendors.opencode.plugin_host.keys.grade_key` grades it;
* a plugin that throws at load (or a module that fails to import) is one UNSUPPORTED row carrying
  the error, as is an npm plugin that was not installed at set-up, or a missing runtime.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from compat_adapter.vendor import CapabilityResult, Declared, EventRow, Surface, VendorSpec, unit_of
from vendors.opencode.plugin_host.keys import grade_key, plugin_row, unsupported
from vendors.opencode.plugins import LOAD_EVENT

if TYPE_CHECKING:
    # Named in annotations only: grading a report needs no plugin files read, and reading them
    # loads the importers and the trust store.
    from vendors.opencode.plugin_host.sources import PluginSource

__all__ = ("LOAD_EVENT", "GradedHook", "LoadReport", "PluginExport", "grade_report", "plugin_declarations",
           "report_of", "runtime_missing")



@dataclass(frozen=True, slots=True)
class PluginExport:
    """One plugin function of a module, as the sidecar loaded it."""

    id: str
    name: str
    keys: tuple[str, ...]
    error: str | None = None


@dataclass(frozen=True, slots=True)
class LoadReport:
    """What loading one source gave: its plugin functions and their keys, or why it failed."""

    source: PluginSource
    exports: tuple[PluginExport, ...] = ()
    error: str | None = None


@dataclass(frozen=True, slots=True)
class GradedHook:
    """One graded row and, when it can run, the plugin and key the router calls."""

    result: CapabilityResult
    source: PluginSource
    plugin: str | None = None
    key: str | None = None
    row: EventRow | None = None


def report_of(sources: Sequence[PluginSource], reply: Mapping[str, Any]) -> tuple[LoadReport, ...]:
    """The sidecar's ``load`` reply, matched to the sources asked for (in their order)."""
    by_id = {p.get("source"): p for p in reply.get("plugins", ()) if isinstance(p, Mapping)}
    out = []
    for source in sources:
        got = by_id.get(source.id)
        if got is None:
            out.append(LoadReport(source, error="the plugin host did not report this plugin"))
            continue
        exports = tuple(PluginExport(id=str(e.get("id")), name=str(e.get("name")),
                                     keys=tuple(str(k) for k in e.get("keys", ())),
                                     error=e.get("error"))
                        for e in got.get("exports", ()) if isinstance(e, Mapping))
        out.append(LoadReport(source, exports, got.get("error")))
    return tuple(out)


def grade_report(reports: Sequence[LoadReport], surface: Surface) -> tuple[GradedHook, ...]:
    """Every row of every loaded source, in load order."""
    out: list[GradedHook] = []
    for report in reports:
        source = report.source
        spec = _spec(source.vendor)
        base = f"{spec.id}:{source.id}"
        if report.error is not None:
            out.append(GradedHook(unsupported(base, LOAD_EVENT, f"the plugin did not load: {report.error}",
                                              spec.id), source))
            continue
        for export in report.exports:
            if export.error is not None:
                out.append(GradedHook(unsupported(f"{spec.id}:{export.id}", LOAD_EVENT,
                                                   f"the plugin threw at load: {export.error}", spec.id),
                                      source, export.id))
                continue
            for key in export.keys:
                result = grade_key(f"{spec.id}:{export.id}:{key}", key, surface, spec)
                out.append(GradedHook(result, source, export.id, key, plugin_row(key)))
    return tuple(out)


def _spec(vendor: str) -> VendorSpec:
    """The table a source's rows are graded under: OpenCode's, or the fork's that named the plugin."""
    return unit_of(vendor).spec


def runtime_missing(sources: Sequence[PluginSource], why: str) -> tuple[GradedHook, ...]:
    """Every source refused at once: the plugin host cannot start here."""
    return tuple(GradedHook(unsupported(f"{s.vendor}:{s.id}", LOAD_EVENT, why, s.vendor), s) for s in sources)


def plugin_declarations(reports: Sequence[LoadReport], surface: Surface
                        ) -> list[tuple[CapabilityResult, Declared | None]]:
    """Each graded row with the declaration the plugin-host route mounts (None: never mounted).

    The declaration's handler is the plugin's own callback, which runs only in the sidecar: its
    kind is ``callable``, ``origin`` names the plugin and the row's event is the hook key.
    """
    out: list[tuple[CapabilityResult, Declared | None]] = []
    for graded in grade_report(reports, surface):
        declared = None
        if graded.result.mounted and graded.row is not None:
            unit = unit_of(graded.source.vendor)
            declared = Declared(spec=unit.spec, unit=unit, row=graded.row, handler=None, handler_kind="callable",
                                id=graded.result.id, origin=graded.plugin)
        out.append((graded.result, declared))
    return out
