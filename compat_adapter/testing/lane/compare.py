"""Compare a real vendor's outcome with compat-adapter's, facet by facet, and judge each case.

A case *agrees* when every compared facet is equal. A differing facet is *listed* when a hook of
the case was graded with a degradation whose code names that kind of difference (the table below,
fixed for every case and vendor), or when an entry the import refused (or a row graded UNSUPPORTED)
could have caused it; otherwise the difference is *unlisted*. A difference in which hooks fired can
be named only by the rows of the events that fired a different number of times. A refused or
unsupported entry names a difference only when its hook fired fewer times here than at the vendor
and the facet is one its event can change (:data:`POINT_FACETS`): a refusal elsewhere in the case
never hides a difference another entry made. The comparison itself is never adjusted per case.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from compat_adapter.capability import PluginRuntime, capability
from compat_adapter.catalog import resolve_vendor, unit_of
from compat_adapter.routing import pointfacts as points
from compat_adapter.testing.lane.outcome import Outcome, Refusal
from compat_adapter.testing.lane.scenarios import Case

__all__ = ("FACET_CODES", "POINT_FACETS", "Difference", "Verdict", "compare", "facets_of", "naming", "payload_fields", "reason_words")

#: Which degradation codes name which kind of difference. A kind is a facet and, where it matters,
#: how the facet differs: a text that is missing is an ignored field, a text that arrives in another
#: shape or place is a provenance difference, and nothing else names it. ``exit`` kinds apply only
#: when the case answered with a non-zero exit code (the codes describe exit-code conventions).
#: ``unsupported`` (a hook graded UNSUPPORTED) and an importer's refusal are judged by the entry
#: they concern instead (:data:`POINT_FACETS`).
FACET_CODES: Mapping[str, frozenset[str]] = {
    # the hooks that fired (how many times each)
    "invoked": frozenset({"timing-differs", "approximate", "matcher-narrowed", "scope-differs"}),
    # whether the scripted tool call ran
    "tool_ran": frozenset({"decision-narrowed", "observe-only"}),
    "tool_ran/exit": frozenset({"exit-code-differs"}),
    # whether a rewritten input is what ran
    "rewritten": frozenset({"input-rewrite-ignored"}),
    # the text the model reads in place of a tool the vendor did not run
    "tool_result/missing": frozenset({"output-field-ignored", "decision-narrowed", "observe-only"}),
    "tool_result/shape": frozenset({"message-provenance", "text-differs"}),
    "tool_result/exit": frozenset({"exit-code-differs"}),
    # a hook's text reached the model: not at all here, or in another place or shape
    "landing/missing": frozenset({"output-field-ignored", "output-rewrite-ignored", "observe-only",
                                  "decision-narrowed"}),
    "landing/shape": frozenset({"message-provenance"}),
    # a hook's text reached the model here and never at the vendor: no loss code says that
    "landing/extra": frozenset(),
    # how many model calls the run made (a block that continues or ends the turn)
    "model_calls": frozenset({"decision-narrowed", "no-loop-guard", "observe-only"}),
    # what a hook said that the person was shown: not here, in other words here, or here only (the
    # vendor's user interface showed nothing of it)
    "shown/missing": frozenset({"output-field-ignored", "observe-only"}),
    "shown/shape": frozenset({"text-differs"}),
    "shown/extra": frozenset({"shown-more"}),
}
UNSUPPORTED = "unsupported"

#: Which facets a hook can change, besides whether it fired itself, by the host point of its event
#: (the row's ``point``: one name for the same kind of event across vendors). A tool guard or a
#: permission hook decides whether the call runs, what it runs and what the model reads in its
#: place; a post-tool hook replaces or adds to the result; a prompt hook adds context or blocks the
#: prompt (no model call, no tool); a start hook adds context; a stop hook forces another step and
#: says why. A continue:false stops the agent where it is answered, so every acting point can also
#: change the model calls, and one at the start (session, prompt) whether the tool ran at all (the
#: lane's *_halt cases, measured: Codex 0.171 runs nothing after a SessionStart halt, Claude 2.1.332
#: makes one model call after a PreToolUse or PostToolUse halt where it makes three). The other
#: points only watch. An event with no row here (unknown, or unserved on this host) is of no known
#: kind: it names its own firing, and the landing of a marker its scripted answer carries.
_START = frozenset({"landing", "model_calls", "tool_ran", "tool_result", "shown"})
POINT_FACETS: Mapping[str, frozenset[str]] = {
    points.PRE_EXECUTE.name: frozenset({"tool_ran", "tool_result", "rewritten", "landing", "model_calls", "shown"}),
    points.APPROVAL.name: frozenset({"tool_ran", "tool_result", "rewritten", "landing", "model_calls", "shown"}),
    points.PERMISSION.name: frozenset({"tool_ran", "tool_result", "rewritten", "landing", "model_calls", "shown"}),
    points.POST_EXECUTE.name: frozenset({"tool_result", "landing", "model_calls", "shown"}),
    points.PRE_STEP.name: _START,
    points.PRE_STEP_TRANSFORM.name: _START,
    points.AGENT_CREATED.name: _START,
    points.SUBAGENT_START.name: frozenset({"landing", "model_calls"}),
    points.TURN_STOPPING.name: frozenset({"landing", "model_calls", "shown"}),
    points.SUBAGENT_END.name: frozenset({"landing", "model_calls"}),
}


@dataclass(frozen=True, slots=True)
class Difference:
    facet: str
    vendor: Any
    ours: Any
    listed_by: tuple[str, ...]
    """The degradation (or refusal) codes of the case's hooks that name this difference."""

    def as_json(self) -> dict[str, Any]:
        return {"facet": self.facet, "vendor": self.vendor, "ours": self.ours, "listed_by": list(self.listed_by)}


@dataclass(frozen=True, slots=True)
class Verdict:
    case: str
    status: str
    """``agree``, ``differ_listed`` or ``differ_unlisted``."""
    differences: tuple[Difference, ...]

    def as_json(self) -> dict[str, Any]:
        return {"case": self.case, "status": self.status, "differences": [d.as_json() for d in self.differences]}


def facets_of(case: Case, o: Outcome, vendor: Outcome) -> dict[str, Any]:
    """The compared facets of one side's outcome (the vendor's decides whether a tool result is one)."""
    # Which hooks fired, as a multiset: the order across events is not stable in every vendor
    # (CodeBuddy fires SessionStart and UserPromptSubmit in either order from run to run).
    facets: dict[str, Any] = {"invoked": sorted(o.invoked), "tool_ran": o.tool_ran, "rewritten": o.rewritten,
                              "model_calls": o.model_calls}
    if not vendor.tool_ran:
        facets["tool_result"] = o.tool_result
    # Compared only where the vendor's side was observed: a driver that does not read its CLI's
    # output says None, and "the person saw nothing" must not be read into that silence.
    if vendor.shown is not None and (vendor.shown or o.shown):
        facets["shown"] = sorted(o.shown or ())
    for marker in sorted(set(vendor.landings) | set(o.landings)):
        landing = o.landings.get(marker)
        facets[f"landing:{marker}"] = None if landing is None else [landing.place, landing.line]
    return facets


def compare(case: Case, vendor: Outcome, ours: Outcome) -> Verdict:
    codes: set[str] = {c for event_codes in ours.degradations.values() for c in event_codes}
    # The entries the import left out or could not serve: each refusal, and each event graded
    # UNSUPPORTED (its hooks do not run here).
    entries = (*ours.refused, *(Refusal(UNSUPPORTED, "graded UNSUPPORTED", event)
                                for event, event_codes in ours.degradations.items() if UNSUPPORTED in event_codes))
    left_out = [e for e in entries if _fewer_here(e, vendor, ours)]
    want, got = facets_of(case, vendor, vendor), facets_of(case, ours, vendor)
    diffs = []
    # Both sides' facets: a text that lands only here (a hook the vendor never ran) differs too.
    for facet in [*want, *(f for f in got if f not in want)]:
        if want.get(facet) == got.get(facet):
            continue
        # Which hooks fired: only the rows of the events that fired a different number of times
        # can name it (a loss listed on another event of the case says nothing about this one).
        among = _event_codes(ours, want[facet], got.get(facet)) if facet == "invoked" else codes
        explained = {e.code for e in left_out if _can_change(case, e, facet)}
        named = sorted((among & naming(case, facet, want.get(facet), got.get(facet))) | explained)
        diffs.append(Difference(facet, want.get(facet), got.get(facet), tuple(named)))
    if ours.error:
        diffs.append(Difference("error", None, ours.error, ()))
    if not diffs:
        status = "agree"
    elif all(d.listed_by for d in diffs):
        status = "differ_listed"
    else:
        status = "differ_unlisted"
    return Verdict(case.name, status, tuple(diffs))


def _fewer_here(entry: Refusal, vendor: Outcome, ours: Outcome) -> bool:
    """Whether the entry's hook (its event, and its label when known) fired fewer times here than
    at the vendor: a refused hook that the vendor does not run either changed nothing."""
    if entry.event is None:
        return False

    def count(o: Outcome) -> int:
        return sum(h.event == entry.event and (entry.label is None or h.label == entry.label) for h in o.hooks)

    return count(ours) < count(vendor)


def _can_change(case: Case, entry: Refusal, facet: str) -> bool:
    """Whether a hook of the entry's event can make this facet differ (its own firing always)."""
    family, _, marker = facet.partition(":")
    if family == "invoked":
        return True
    # What the case scripts the entry's hooks to answer: a marker they carry is their own text.
    answers = [h for h in case.hooks if h.event == entry.event and (entry.label is None or h.label == entry.label)]
    carried = any(marker in h.stdout or marker in h.stderr for h in answers) if family == "landing" else False
    # A plugin hook key has the row of the plugin runtime the vendor's unit brings (OpenCode's).
    runtime = capability(unit_of(case.vendor), PluginRuntime)
    row = resolve_vendor(case.vendor).row(entry.event or "") or (runtime.row(entry.event or "") if runtime else None)
    if row is None:
        # An event of no known kind here (unserved, unknown): only its own text reaching the model
        # is surely its doing (Claude's PreSkillShellCommand deny lands in the skill's output).
        return carried
    if family not in POINT_FACETS.get(row.point, frozenset()):
        return False
    return family != "landing" or not answers or carried


def _event_codes(ours: Outcome, vendor: list[str], here: list[str] | None) -> set[str]:
    differing = {e for e in set(vendor) | set(here or ()) if vendor.count(e) != (here or []).count(e)}
    # A labelled hook (``PreToolUse[Ba.h]``) is named by its event's row.
    return {c for event in differing for c in ours.degradations.get(event.split("[", 1)[0], ())}


def naming(case: Case, facet: str, vendor: Any, ours: Any) -> frozenset[str]:
    """The degradation codes that name a difference of ``facet`` between these two values."""
    family = facet.split(":", 1)[0]
    exit_answer = any(h.exit for h in case.hooks)
    if family == "tool_ran":
        return FACET_CODES["tool_ran"] | (FACET_CODES["tool_ran/exit"] if exit_answer else frozenset())
    if family == "tool_result":
        reason = next((m for m in reason_words(case) if vendor and m in vendor), None)
        kind = "missing" if ours is None or (reason is not None and reason not in ours) else "shape"
        extra = FACET_CODES["tool_result/exit"] if exit_answer else frozenset()
        return FACET_CODES[f"tool_result/{kind}"] | extra
    if family == "landing":
        kind = "missing" if ours is None else "extra" if vendor is None else "shape"
        return FACET_CODES[f"landing/{kind}"]
    if family == "shown":
        kind = "missing" if not ours else "extra" if not vendor else "shape"
        return FACET_CODES[f"shown/{kind}"]
    return FACET_CODES[family]


def reason_words(case: Case) -> list[str]:
    """The reason texts the case's hooks answer with (what a deny message should carry)."""
    out = []
    for h in case.hooks:
        for text in (h.stdout, h.stderr):
            for word in text.replace('"', " ").split():
                if word.startswith("LANE-"):
                    out.append(word)
    for value in (case.plugin_rules or {}).values():
        if isinstance(value, str) and value.startswith("LANE-"):
            out.append(value.split()[0])
    return out


def payload_fields(payload: Any) -> set[str]:
    """A payload's field paths: top-level keys, and ``key.sub`` one level into objects."""
    if not isinstance(payload, Mapping):
        return set()
    out = set()
    for key, value in payload.items():
        out.add(str(key))
        if isinstance(value, Mapping):
            out |= {f"{key}.{sub}" for sub in value}
    return out
