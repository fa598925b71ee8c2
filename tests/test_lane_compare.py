"""The lane's comparison: which listed losses may name a difference in which hooks fired."""

from __future__ import annotations

from compat_adapter.testing.lane.compare import compare
from compat_adapter.testing.lane.outcome import HookRun, Outcome
from compat_adapter.testing.lane.scenarios import Case, HookAnswer

CASE = Case("workbuddy", "probe", hooks=(HookAnswer("PostToolUse"), HookAnswer("PostToolUseFailure")))


def _fired(side: str, *events: str, degradations: dict[str, tuple[str, ...]] | None = None) -> Outcome:
    return Outcome(side=side, case=CASE.name, hooks=tuple(HookRun(event=e, stdin={}) for e in events),
                   tool_ran=True, model_calls=2, degradations=degradations or {})


def test_a_loss_listed_on_another_event_does_not_name_a_hook_that_fired_differently() -> None:
    vendor = _fired("vendor", "PostToolUse")
    # The event that fired differently lists nothing; an unrelated event lists a matcher loss.
    ours = _fired("ours", "PostToolUseFailure",
                  degradations={"PostToolUse": (), "PostToolUseFailure": (), "PreToolUse": ("matcher-narrowed",)})
    verdict = compare(CASE, vendor, ours)
    assert verdict.status == "differ_unlisted"
    assert [(d.facet, d.listed_by) for d in verdict.differences] == [("invoked", ())]


def test_a_loss_listed_on_the_event_that_fired_differently_names_it() -> None:
    vendor = _fired("vendor", "PostToolUse")
    ours = _fired("ours", "PostToolUseFailure",
                  degradations={"PostToolUse": ("timing-differs",), "PostToolUseFailure": ()})
    verdict = compare(CASE, vendor, ours)
    assert verdict.status == "differ_listed"
    assert [(d.facet, d.listed_by) for d in verdict.differences] == [("invoked", ("timing-differs",))]
