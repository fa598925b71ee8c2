"""What this project does on the host with the same merged answer: the grade's route, then the verdict
rule that route mounts (the points table's rule, observe-only, or the vendor unit's own rule in its
place, as Copilot's guarded stop), applied
to the real run. The rules are the ones the seams run; nothing is re-implemented here."""

from __future__ import annotations

from compat_adapter.explain.report import HostView, Read
from compat_adapter.host.protocol import PostToolDecision, PreStepDecision, PreToolDecision
from compat_adapter.model import CapabilityResult, EventRow, Route
from compat_adapter.catalog import unit_of
from compat_adapter.routing.dispatch import GroupResult
from compat_adapter.routing.notices import notices
from compat_adapter.routing.native import unit_rule
from compat_adapter.routing.points import point_named
from compat_adapter.routing.verdicts import END_TURN, Rule, Steer, observe
from compat_adapter.vocabulary import Surface

__all__ = ("host_view", "rule_for")


def rule_for(result: CapabilityResult, row: EventRow) -> tuple[str, Rule | None]:
    """The verdict rule the graded route mounts for ``row`` (None: the host's official bridge decides)."""
    if result.route is Route.OFFICIAL_BRIDGE:
        return "bridge", None
    if result.route is Route.NATIVE_SEAM or row.blocking == "observe":
        return "observe", observe
    point = point_named(row.point)
    rule = point.rule
    if result.route is Route.BUILTIN_BRIDGE:
        rule = unit_rule(unit_of(result.vendor), point, row, rule)  # explain is an edge: by name
    return rule.__name__, rule


def _verdict(verdict: object) -> tuple[str | None, tuple[Read, ...]]:
    if verdict is None:
        return None, ()
    if isinstance(verdict, PreToolDecision):
        reads = (Read(place="tool_result", text=verdict.reason or ""),) if verdict.kind == "deny" else ()
        return f"PreToolDecision({verdict.kind})", reads
    if isinstance(verdict, PostToolDecision):
        reads = (Read(place="tool_result", text=verdict.feedback or ""),) if verdict.kind == "block" else ()
        return f"PostToolDecision({verdict.kind})", reads
    if isinstance(verdict, PreStepDecision):
        return f"PreStepDecision({verdict.kind})", ()
    if isinstance(verdict, Steer):
        return "Steer(another step)", (Read(place="message:user", text=verdict.text),)
    if verdict is END_TURN:
        return "EndTurn", ()
    return f"{type(verdict).__name__}({verdict})", ()


def host_view(result: CapabilityResult, row: EventRow, group: GroupResult, surface: Surface) -> HostView:
    """The host's handling of the group's merged answer on the route ``result`` chose."""
    losses = tuple(f"{d.code}: {d.text}" for d in result.degradations)
    common = {"host": surface.host, "capability": str(result.capability),
              "route": str(result.route), "degradations": losses}
    if not result.mounted:
        return HostView(**common, rule="none", honoured=None,
                        note=f"not mounted: {result.reason or 'UNSUPPORTED'}")
    name, rule = rule_for(result, row)
    if rule is None:
        return HostView(**common, rule=name, honoured=None,
                        note="the host's official bridge reads this answer itself (its losses are listed)")
    applied = rule(group, row, {})
    verdict, reads = _verdict(applied.verdict)
    extra: list[Read] = list(reads)
    if applied.context:
        # A message of its own takes the vendor's role where this host gives hook context that role
        # (Surface.context_roles); anything else reaches the model as user text.
        role = group.ran[0].spec.role_of(row) if applied.place == "message" else None
        # A host that places the role's text elsewhere (DSH: its system prompt) says where.
        place = ("system-prompt" if role in surface.context_placement else f"message:{role}") \
            if role in surface.context_roles else "message:user"
        extra.append(Read(place=place, text=applied.context))
    if applied.replacement is not None:
        extra.append(Read(place="prompt", text=applied.replacement))
    note = applied.note + (f"; halt: {applied.halt}" if applied.halt else "")
    rejected = isinstance(applied.verdict, PreStepDecision) and applied.verdict.kind == "reject"
    halted = applied.halt is not None or (group.merged.stop and rejected)
    fields = group.moment.fields if group.moment is not None else {}
    shown = tuple(n.text for n in notices(group, applied, fields, None))
    return HostView(**common, rule=name, honoured=applied.honoured, note=note, verdict=verdict, halted=halted,
                    reads=tuple(extra), shown=shown)
