"""Grading: declaration × vendor row × host surface → a frozen CapabilityResult. Pure and synchronous.

Two kinds of outcome, kept apart on purpose:

* a declaration that cannot be processed (unknown vendor or event, a matcher that is not a string or
  does not compile, a handler that is malformed) **raises** a CompatError;
* poor portability never raises: it is a grade. A callable handler, a missing shell, a missing
  bridge package, a missing seam or service each give UNSUPPORTED with a reason naming what is
  missing. There is no silent fallback and no home-made stand-in for a missing bridge.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

from compat_adapter.capability import CommandPolicy, capability
from compat_adapter.catalog import resolve_vendor, unit_of
from compat_adapter.declare import Declared
from compat_adapter.handlers.grade import handler_losses, handler_refusal
from compat_adapter.hookvars import losses
from compat_adapter.model import (
    Capability,
    CapabilityResult,
    CommandHandler,
    Degradation,
    EventRow,
    Route,
    RulesFile,
    SeamMode,
    Surface,
    capability_result,
    degrade,
)

# The surface the vendor tables were written against; a host whose seam modes differ from it
# changes what a row can do, and grading says so.
from vendors.surface import TABLE_SURFACE

if TYPE_CHECKING:
    from compat_adapter.dialects.base import Dialect

__all__ = ("PREFERENCES", "TABLE_SURFACE", "Prefer", "grade", "grade_rules", "grade_runtime", "routed")

#: Route policy. ``fidelity`` (the default): every event this project can translate natively with
#: the vendor's own semantics takes that route. ``official``: an event the host's official bridge
#: carries goes through the bridge, as the seed plugin did.
Prefer = Literal["fidelity", "official"]
PREFERENCES: tuple[str, ...] = ("fidelity", "official")


def routed(decl: Declared, prefer: str = "fidelity") -> Declared:
    """The declaration on the route the policy chooses: its official form when asked for and one exists."""
    if prefer not in PREFERENCES:
        raise ValueError(f"prefer must be one of {', '.join(PREFERENCES)}, not {prefer!r}")
    official = decl.row.official
    if prefer == "official" and official is not None:
        return replace(decl, row=official)
    return decl

_LITERAL = re.compile(r"^[A-Za-z0-9_|]+$")


def _matcher_losses(decl: Declared) -> tuple[Degradation, ...]:
    """Losses that depend on this declaration's matcher rather than on the row."""
    spec, row, matcher = decl.spec, decl.row, decl.matcher
    if matcher and matcher != "*" and row.matcher_subject is None:
        # The vendor itself ignores a matcher here; so do we, and the author should know.
        return (degrade("matcher-narrowed",
                        f"{spec.id} {row.event} takes no matcher, so {matcher!r} is ignored and the "
                        "hook runs every time the event fires."),)
    if matcher and matcher != "*" and row.matcher_subject == "agent_type":
        return _agent_type_losses(decl.unit.dialect, row, matcher)
    if not matcher or row.matcher_subject != "tool_name" or not _LITERAL.match(matcher):
        return ()
    known = {t.vendor for t in spec.tools}
    named = [name for name in matcher.split("|") if name]
    missing = [name for name in named if name not in known]
    if not missing:
        return ()
    names = ", ".join(missing)
    if len(missing) == len(named):
        # Every tool it names is one this host lacks: the hook is registered and never runs.
        return (degrade("never-fires", f"{names} {'is' if len(missing) == 1 else 'are'} no tool of this host, so "
                                       "this matcher selects nothing here and the hook never fires."),)
    return (degrade("matcher-narrowed",
                    f"{names} has no host tool here, so this matcher never selects it."),)


def _agent_type_losses(dialect: Dialect, row: EventRow, matcher: str) -> tuple[Degradation, ...]:
    """A subagent matcher the one agent type this host reports never matches: it never fires."""
    from compat_adapter.routing.points import BRIDGE_AGENT_TYPE, HOST_AGENT_TYPE

    reported = BRIDGE_AGENT_TYPE if row.route is Route.OFFICIAL_BRIDGE else HOST_AGENT_TYPE
    if dialect.matches(row.event, matcher, reported):
        return ()
    return (degrade("never-fires", f"every subagent here has agent_type {reported!r}, which {matcher!r} does not "
                                   "match, so the hook never fires."),)


def _refusal(decl: Declared, surface: Surface) -> str | None:
    spec, row = decl.spec, decl.row
    if decl.handler_kind == "callable":
        return ("a function handler would run foreign code inside the host; only command hooks "
                "are adapted")
    if "shell" not in surface.services:
        return "no shell executor in this composition, so no command hook can run"
    if row.route is Route.OFFICIAL_BRIDGE and spec.bridge_package not in surface.bridge_packages:
        return (f"the official bridge package {spec.bridge_package} is not available on host "
                f"{surface.host}; this project does not stand in for a missing bridge")
    for seam in row.seams:
        if seam not in surface.seams:
            return f"host {surface.host} {surface.version} has no {seam} seam"
        if (row.blocking == "verdict" and TABLE_SURFACE.seams.get(seam) is SeamMode.WATERFALL
                and surface.seams[seam] is not SeamMode.WATERFALL):
            return (f"host {surface.host} {surface.version} has {seam} only as an "
                    f"{surface.seams[seam]} seam, so no answer can reach it")
    for service in row.services:
        if service not in surface.services:
            return f"host {surface.host} {surface.version} has no {service} service"
    unserved = surface.unserved.get(row.point)
    if unserved is not None:
        return unserved
    if decl.handler is not None:
        return handler_refusal(spec, row, decl.handler, surface, decl.unit.handlers)
    return None


def _mode_losses(seams: tuple[str, ...], blocking: str, surface: Surface,
                 point: str | None = None) -> tuple[Degradation, ...]:
    """Losses from seams this host dispatches in another mode than the tables assume, and from a
    point it reaches at another moment (:attr:`Surface.timing`)."""
    out = []
    if point is not None and point in surface.timing:
        out.append(degrade("timing-differs", f"On {surface.host} {surface.version} {surface.timing[point]}"))
    for seam in seams:
        wanted, have = TABLE_SURFACE.seams.get(seam), surface.seams.get(seam)
        if wanted is SeamMode.SERIAL and have is SeamMode.EMIT and blocking != "observe":
            out.append(degrade(
                "timing-differs",
                f"On {surface.host} {surface.version} {seam} is an emit seam, not serial: the host "
                "does not wait for this listener, so what it injects can miss the agent's first request."))
    return tuple(out)


def grade(decl: Declared, surface: Surface, *, id: str | None = None,
          prefer: str = "fidelity") -> CapabilityResult:
    """Grade one resolved hook declaration on one host surface, on the route ``prefer`` chooses.

    Where the event has two routes (ours and the host's official bridge) the result names the
    other one in ``alternative``, with what it would lose that the chosen one does not.
    """
    chosen = routed(decl, prefer)
    result = _grade_route(chosen, surface, id)
    if decl.row.official is None:
        return result
    other = replace(decl, row=decl.row.official if chosen.row is decl.row else decl.row)
    return result.model_copy(update={"alternative": _alternative(result, _grade_route(other, surface, id))})


def _alternative(chosen: CapabilityResult, other: CapabilityResult) -> str:
    """One line: the other route, and the losses it lists that the chosen route does not."""
    route = f"{other.route if other.mounted else 'the other route'}"
    if not other.mounted:
        return f"{route} is unavailable here: {other.reason}"
    if not chosen.mounted:
        # Nothing to compare against: say the other route runs here, and what it loses.
        codes = list(dict.fromkeys(str(d.code) for d in other.degradations))
        return f"{route} runs here instead, losing: {', '.join(codes)}"
    mine = set(chosen.degradations)
    extra = [d for d in other.degradations if d not in mine]
    if not extra:
        return f"{route} loses nothing this route keeps"
    # Codes this route does not list at all first: they are what choosing the other would add.
    have = {d.code for d in chosen.degradations}
    codes = list(dict.fromkeys(str(d.code) for d in extra if d.code not in have)) or \
        list(dict.fromkeys(str(d.code) for d in extra))
    return f"{route} would lose more: {', '.join(codes)} ({len(extra)} losses not listed here)"


def _grade_route(decl: Declared, surface: Surface, id: str | None) -> CapabilityResult:
    spec, row = decl.spec, decl.row
    common: dict[str, Any] = dict(id=id or decl.id or f"{spec.id}:{row.event}", vendor=spec.id,
                                  event=row.event, matcher=decl.matcher, measured_on=spec.measured_on,
                                  confidence=row.confidence)
    reason = _refusal(decl, surface)
    if reason is not None:
        return capability_result(**common, capability=Capability.UNSUPPORTED,
                                 route=Route.UNSUPPORTED, reason=reason)
    return capability_result(
        **common,
        capability=Capability.ADAPTED,
        route=row.route,
        seams=row.seams,
        services=tuple(str(s) for s in row.services),
        point=row.point,
        degradations=(spec.losses_for(row, surface.context_roles) + _matcher_losses(decl)
                      + _mode_losses(row.seams, row.blocking, surface, row.point)
                      + _placement_losses(spec, row, surface)
                      + (handler_losses(spec, row, decl.handler) if decl.handler is not None else ())
                      + _variable_losses(decl)),
    )


def _placement_losses(spec: Any, row: Any, surface: Surface) -> tuple[Degradation, ...]:
    """A row whose context has its role here, where the host places that role's text otherwise."""
    role = spec.role_of(row)
    if not row.role_losses or role not in surface.context_roles or role not in surface.context_placement:
        return ()
    return (degrade("context-cost", f"On {surface.host} {surface.version} {surface.context_placement[role]}"),)


def _variable_losses(decl: Declared) -> tuple[Degradation, ...]:
    """A command that reads a variable its vendor gives and this host (or route) cannot."""
    if not isinstance(decl.handler, CommandHandler):
        return ()
    text = " ".join((decl.handler.command, *(decl.handler.args or ())))
    return losses(decl.spec, decl.place, decl.row.event, text, bridged=decl.row.route is Route.OFFICIAL_BRIDGE)


def grade_rules(vendor: object, surface: Surface, *, id: str | None = None,
                files: tuple[RulesFile, ...] = ()) -> CapabilityResult:
    """Rules are carried as text on agent/created, never turned into policy; files a vendor's
    ``policy`` capability holds (Codex ``.rules``) are also enforced (or the result says why not)."""
    unit = unit_of(vendor)
    spec, policy = unit.spec, capability(unit, CommandPolicy)
    rid = id or f"{spec.id}:rules"
    if "agent/created" not in surface.seams:
        return capability_result(id=rid, vendor=spec.id, event="rules", measured_on=spec.measured_on,
                             confidence=spec.confidence,
                                 capability=Capability.UNSUPPORTED, route=Route.UNSUPPORTED,
                                 reason=f"host {surface.host} {surface.version} has no agent/created seam")
    return capability_result(id=rid, vendor=spec.id, event="rules", measured_on=spec.measured_on,
                             confidence=spec.confidence,
                             capability=Capability.CARRY,
                             route=Route.CARRY, seams=("agent/created",), point="agent/created",
                             files=tuple(files),
                             degradations=_mode_losses(("agent/created",), "context", surface)
                             + (policy.losses(files, surface) if policy is not None else ()))


def grade_runtime(vendor: object) -> CapabilityResult:
    """A vendor's plugin runtime is out of scope everywhere."""
    spec = resolve_vendor(vendor)
    return capability_result(id=f"{spec.id}:plugin-runtime", vendor=spec.id, event="plugin-runtime",
                             measured_on=spec.measured_on, confidence=spec.confidence,
                             capability=Capability.UNSUPPORTED, route=Route.UNSUPPORTED,
                             reason=spec.plugin_runtime)

