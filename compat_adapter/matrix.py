"""The support matrix: every vendor row graded on one host surface, as data, Markdown and JSON.

The README summary, docs/support-matrix.md and `compat-adapter matrix` are all rendered from
:func:`build_matrix`, so the documentation cannot claim more than the code grades; the Markdown
pages are written by :mod:`compat_adapter.matrixdoc` (``matrix --format json`` loads none of it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from compat_adapter.capability import PluginRuntime, capability
from compat_adapter.catalog import unit_of, units
from compat_adapter.declare import Declared
from compat_adapter.grading import grade, grade_rules, grade_runtime
from compat_adapter.host.surfaces import EMBEDDED_SURFACE
from compat_adapter.model import (
    Capability,
    CapabilityResult,
    CommandHandler,
    DegradationCode,
    Frozen,
    Route,
    Surface,
    capability_result,
)
from compat_adapter.routing.pointfacts import FACTS

if TYPE_CHECKING:
    from compat_adapter.registry import VendorUnit

__all__ = ("Matrix", "NativePoint", "VendorCounts", "build_matrix", "plugin_rows", "to_json")

#: The handler the matrix grades each row with: a plain command, as any preset would declare.
SAMPLE_HANDLER = CommandHandler(command="true")

ROUTES = (Route.OFFICIAL_BRIDGE, Route.NATIVE_TRANSLATE, Route.NATIVE_SEAM, Route.BUILTIN_BRIDGE)

#: How a service-driven point wakes up when it has no seam.
_SERVICE_MODE = {"fs.watch": "watcher", "worktrees": "poll", "lsp": "query", "shellEnv": "registry"}


class VendorCounts(Frozen):
    vendor: str
    events: int
    routes: dict[str, int]
    adapted: int
    direct: int
    unsupported: int
    approximate: int
    rules: str
    runtime: str
    confidence: str = "measured"
    """``measured`` on the vendor's real CLI, ``documented`` (read from its documentation only), or
    ``mixed`` when its rows differ."""
    unserved: int = 0
    """The vendor's documented events that no route here serves (each in :attr:`Matrix.unserved`):
    with ``events`` they are every event the vendor documents."""
    measured_on: str | None = None
    """The vendor release its rows follow (:attr:`VendorSpec.measured_on`)."""


class NativePoint(Frozen):
    point: str
    seams: tuple[str, ...]
    mode: str
    produces: str
    used_by: tuple[str, ...]


class Matrix(Frozen):
    host: str
    version: str
    hooks: tuple[CapabilityResult, ...]
    rules: tuple[CapabilityResult, ...]
    runtimes: tuple[CapabilityResult, ...]
    plugins: tuple[CapabilityResult, ...]
    """OpenCode plugin hook keys as the plugin host grades them (one row per key a plugin returns)."""
    unserved: tuple[CapabilityResult, ...] = ()
    """The vendors' documented events no route on this host serves, each UNSUPPORTED with why."""
    permissions: tuple[CapabilityResult, ...] = ()
    """Typical permission rules of each vendor whose rule language is read here, graded as a
    project's would be (``matcher``: the rule as written)."""
    native_points: tuple[NativePoint, ...]
    observation_points: tuple[NativePoint, ...]
    counts: tuple[VendorCounts, ...]
    totals: VendorCounts


def _approximate(result: CapabilityResult) -> bool:
    # One set, not a generator resumed per loss: this runs for every row of every vendor.
    return DegradationCode.APPROXIMATE in {d.code for d in result.degradations}


def _count(vendor: str, hooks: list[CapabilityResult], rules: CapabilityResult,
           runtime: CapabilityResult, unserved: int) -> VendorCounts:
    routes = Counter(str(h.route) for h in hooks)
    caps = Counter(h.capability for h in hooks)
    return VendorCounts(
        vendor=vendor,
        events=len(hooks),
        routes={str(r): routes.get(str(r), 0) for r in ROUTES},
        adapted=caps[Capability.ADAPTED],
        direct=caps[Capability.DIRECT],
        unsupported=caps[Capability.UNSUPPORTED],
        approximate=sum(_approximate(h) for h in hooks),
        rules=str(rules.capability),
        runtime=str(runtime.capability),
        confidence=next(iter(kinds)) if len(kinds := {h.confidence for h in hooks} or {"measured"}) == 1 else "mixed",
        unserved=unserved,
        measured_on=rules.measured_on,
    )


def _points(hooks: tuple[CapabilityResult, ...], route: Route, surface: Surface) -> tuple[NativePoint, ...]:
    seen: dict[str, list[CapabilityResult]] = {}
    for h in hooks:
        if h.route is route and h.point:
            seen.setdefault(h.point, []).append(h)
    points = []
    for point, users in seen.items():
        first = users[0]
        if first.seams:
            mode = str(surface.seams.get(first.seams[0], "missing"))
        else:
            mode = ", ".join(_SERVICE_MODE.get(s, "service") for s in first.services) or "service"
        points.append(NativePoint(
            point=point, seams=first.seams or first.services, mode=mode,
            produces=FACTS[point].produces if route is not Route.NATIVE_SEAM else "none",
            used_by=tuple(f"{u.vendor} {u.event}" for u in users),
        ))
    return tuple(sorted(points, key=lambda p: p.point))


def _permission_rows(unit: VendorUnit, surface: Surface) -> list[CapabilityResult]:
    from pathlib import Path

    from compat_adapter.permissions.grade import grade_permission

    vendor, language = unit.spec.id, unit.permissions
    if language is None:
        return []
    return [grade_permission(rule, language, surface, id=f"{vendor}:permission:{n}")
            for n, rule in enumerate(language.samples(Path("/project")), start=1)]


def plugin_rows(surface: Surface, chosen: Sequence[VendorUnit]) -> tuple[CapabilityResult, ...]:
    """Every plugin hook key of the plugin runtime the first of ``chosen`` to bring one brings
    (OpenCode's, which Kilo's unit declares too), graded on ``surface`` as a loaded plugin's key is."""
    runtime = next((r for u in chosen if (r := capability(u, PluginRuntime)) is not None), None)
    return runtime.matrix_rows(surface) if runtime is not None else ()


def build_matrix(surface: Surface = EMBEDDED_SURFACE, vendor: str | None = None,
                 prefer: str = "fidelity") -> Matrix:
    """Grade every row of every vendor (or one) on ``surface`` with a plain command handler."""
    chosen = (unit_of(vendor),) if vendor else units()
    hooks: list[CapabilityResult] = []
    rules: list[CapabilityResult] = []
    runtimes: list[CapabilityResult] = []
    counts: list[VendorCounts] = []
    unserved: list[CapabilityResult] = []
    permissions: list[CapabilityResult] = []
    for unit in chosen:
        spec = unit.spec
        permissions += _permission_rows(unit, surface)
        mine = [
            grade(Declared(spec=spec, unit=unit, row=row, handler=SAMPLE_HANDLER, handler_kind="command"),
                  surface, id=f"{spec.id}:{row.event}", prefer=prefer)
            for row in spec.events
        ]
        rule = grade_rules(spec.id, surface)
        runtime = grade_runtime(spec.id)
        unserved += [capability_result(id=f"{spec.id}:{event}", vendor=spec.id, event=event,
                                       capability=Capability.UNSUPPORTED, route=Route.UNSUPPORTED,
                                       reason=f"{spec.id} {event} cannot be served on this host: {why}",
                                       confidence=spec.confidence)
                     for event, why in spec.unserved]
        hooks += mine
        rules.append(rule)
        runtimes.append(runtime)
        counts.append(_count(spec.id, mine, rule, runtime, len(spec.unserved)))
    all_hooks = tuple(hooks)
    totals = VendorCounts(
        vendor="total",
        events=sum(c.events for c in counts),
        routes={str(r): sum(c.routes[str(r)] for c in counts) for r in ROUTES},
        adapted=sum(c.adapted for c in counts),
        direct=sum(c.direct for c in counts),
        unsupported=sum(c.unsupported for c in counts),
        approximate=sum(c.approximate for c in counts),
        unserved=sum(c.unserved for c in counts),
        rules=f"{sum(r.capability is Capability.CARRY for r in rules)} CARRY",
        runtime=f"{sum(r.capability is Capability.UNSUPPORTED for r in runtimes)} UNSUPPORTED",
    )
    return Matrix(
        host=surface.host,
        version=surface.version,
        hooks=all_hooks,
        rules=tuple(rules),
        runtimes=tuple(runtimes),
        plugins=plugin_rows(surface, chosen),
        unserved=tuple(unserved),
        permissions=tuple(permissions),
        native_points=_points(all_hooks, Route.NATIVE_TRANSLATE, surface),
        observation_points=_points(all_hooks, Route.NATIVE_SEAM, surface),
        counts=tuple(counts),
        totals=totals,
    )


def to_json(matrix: Matrix) -> str:
    """The matrix as JSON: two-space indent, text as it is (not ``\\u`` escapes). Written by
    pydantic's own serializer, byte for byte what ``json.dumps(model_dump(mode="json"), indent=2,
    ensure_ascii=False)`` writes (a test compares them on every host) in a tenth of its time: with
    an indent, the standard library encodes in Python, not C."""
    return matrix.model_dump_json(indent=2)
