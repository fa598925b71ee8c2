"""The lane's comparison: which listed losses, refusals and UNSUPPORTED rows may name a difference."""

from __future__ import annotations

from pathlib import Path

import anyio

from compat_adapter.testing.lane.compare import Verdict, compare
from compat_adapter.testing.lane.drivers import embedded_outcome
from compat_adapter.testing.lane.outcome import HookRun, Landing, Outcome, Refusal
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


# ── refusals and UNSUPPORTED rows: only the entry that could have made the difference names it ──

#: Copilot: two recorded hooks beside a guard the import refuses (a prompt entry on preToolUse, say).
GUARDED = Case("copilot", "probe", hooks=(HookAnswer("sessionStart"), HookAnswer("postToolUse")))


def _run(side: str, *events: str, tool_ran: bool = True, refused: tuple[Refusal, ...] = (),
         degradations: dict[str, tuple[str, ...]] | None = None, case: Case = GUARDED,
         labels: dict[str, str] | None = None, landings: dict[str, Landing] | None = None) -> Outcome:
    hooks = tuple(HookRun(event=e, stdin={}, label=(labels or {}).get(e)) for e in events)
    return Outcome(side=side, case=case.name, hooks=hooks, tool_ran=tool_ran, model_calls=2, refused=refused,
                   degradations=degradations or {}, landings=landings or {})


def _listed(verdict: Verdict) -> dict[str, tuple[str, ...]]:
    return {d.facet: d.listed_by for d in verdict.differences}


def test_a_refusal_whose_hook_fired_as_often_at_the_vendor_names_nothing() -> None:
    # The vendor denied the call (another entry: an http guard neither side records); the refused
    # entry is a sessionStart one the vendor did not run either. The deny is a real difference.
    refused = (Refusal("INVALID_HANDLER", "a prompt entry", "sessionStart"),)
    vendor = _run("vendor", "sessionStart", tool_ran=False)
    ours = _run("ours", "sessionStart", "postToolUse", refused=refused)
    verdict = compare(GUARDED, vendor, ours)
    assert verdict.status == "differ_unlisted"
    assert _listed(verdict) == {"invoked": (), "tool_ran": ()}


def test_a_refusal_names_only_what_its_event_can_change() -> None:
    # A refused sessionEnd hook that the vendor ran: its own firing is explained, a tool that did not
    # run is not (a session's end decides nothing about a call).
    case = Case("copilot", "probe", hooks=(HookAnswer("sessionEnd"),))
    refused = (Refusal("INVALID_HANDLER", "a powershell-only entry", "sessionEnd"),)
    vendor = _run("vendor", "sessionEnd", tool_ran=False, case=case)
    ours = _run("ours", refused=refused, case=case)
    verdict = compare(case, vendor, ours)
    assert _listed(verdict) == {"invoked": ("INVALID_HANDLER",), "tool_ran": ()}
    assert verdict.status == "differ_unlisted"


def test_a_refused_guard_that_the_vendor_ran_names_the_call_it_stopped() -> None:
    case = Case("copilot", "probe", hooks=(HookAnswer("preToolUse", stderr="LANE-DENY-EXIT2 no", exit=2),))
    refused = (Refusal("INVALID_HANDLER", "a powershell-only entry", "preToolUse"),)
    deny = {"LANE-DENY": Landing("tool_result", "LANE-DENY-EXIT2 no")}
    vendor = _run("vendor", "preToolUse", tool_ran=False, case=case, landings=deny)
    ours = _run("ours", refused=refused, case=case)
    verdict = compare(case, vendor, ours)
    assert verdict.status == "differ_listed"
    assert _listed(verdict) == {"invoked": ("INVALID_HANDLER",), "tool_ran": ("INVALID_HANDLER",),
                                "landing:LANE-DENY": ("INVALID_HANDLER",)}


def test_a_refused_hook_names_only_the_landing_of_its_own_text() -> None:
    # A refused sessionStart hook that adds context explains that context missing, not a deny's.
    case = Case("copilot", "probe", hooks=(HookAnswer("sessionStart", "LANE-CTX-SESSION hi"),))
    refused = (Refusal("INVALID_HANDLER", "a powershell-only entry", "sessionStart"),)
    vendor = _run("vendor", "sessionStart", case=case, landings={
        "LANE-CTX-SESSION": Landing("message:user", "LANE-CTX-SESSION hi"),
        "LANE-DENY": Landing("tool_result", "LANE-DENY x")})
    verdict = compare(case, vendor, _run("ours", refused=refused, case=case))
    assert _listed(verdict) == {"invoked": ("INVALID_HANDLER",), "landing:LANE-CTX-SESSION": ("INVALID_HANDLER",),
                                "landing:LANE-DENY": ()}


def test_a_refusal_of_a_labelled_hook_counts_that_hook_only() -> None:
    # Two guards of one event, told apart by label: the refused one (A) did not run at the vendor
    # either, so B's missing run here is not explained by it, though the event fired fewer times.
    case = Case("codex", "probe", hooks=(HookAnswer("PreToolUse", matcher="Bash(", label="PreToolUse[A]"),
                                         HookAnswer("PreToolUse", matcher="Bash", label="PreToolUse[B]")))
    refused = (Refusal("SKIPPED_BY_VENDOR", "an invalid matcher", "PreToolUse", "PreToolUse[A]"),)
    vendor = _run("vendor", "PreToolUse", case=case, labels={"PreToolUse": "PreToolUse[B]"})
    verdict = compare(case, vendor, _run("ours", refused=refused, case=case))
    assert _listed(verdict) == {"invoked": ()}
    # Without the label, the event as a whole fired fewer times and the refusal would name it.
    unlabelled = (Refusal("SKIPPED_BY_VENDOR", "an invalid matcher", "PreToolUse"),)
    assert _listed(compare(case, vendor, _run("ours", refused=unlabelled, case=case))) == {
        "invoked": ("SKIPPED_BY_VENDOR",)}


def test_an_unsupported_row_names_only_what_its_own_hooks_did() -> None:
    case = Case("claude", "probe", hooks=(HookAnswer("SubagentStop"), HookAnswer("PreToolUse")))
    rows = {"SubagentStop": ("unsupported",), "PreToolUse": ()}
    # Its hook ran here as often as at the vendor: the call the vendor did not run is unlisted.
    vendor = _run("vendor", "PreToolUse", tool_ran=False, case=case)
    verdict = compare(case, vendor, _run("ours", "PreToolUse", degradations=rows, case=case))
    assert verdict.status == "differ_unlisted" and _listed(verdict) == {"tool_ran": ()}
    # A stop hook that fired at the vendor and not here explains its own firing and a model call.
    vendor = Outcome(side="vendor", case=case.name, hooks=(HookRun("SubagentStop", {}),), tool_ran=True,
                     model_calls=3)
    verdict = compare(case, vendor, _run("ours", degradations=rows, case=case))
    assert verdict.status == "differ_listed"
    assert _listed(verdict) == {"invoked": ("unsupported",), "model_calls": ("unsupported",)}


def test_a_refused_hook_of_an_unserved_event_names_its_own_text_only() -> None:
    # Claude's PreSkillShellCommand has no route here: its deny's text in the skill's output is its
    # doing (the answer carries the marker); a tool that did not run is of no kind it is known to be.
    skill = "PreSkillShellCommand"
    case = Case("claude", "probe", hooks=(HookAnswer(skill, stdout="LANE-DENY-SKILL no"), HookAnswer("PreToolUse")))
    refused = (Refusal("UNSERVED_EVENT", "no skill loader", skill),)
    vendor = _run("vendor", skill, tool_ran=False, case=case,
                  landings={"LANE-DENY": Landing("message:user", "[not run: LANE-DENY-SKILL no]")})
    verdict = compare(case, vendor, _run("ours", refused=refused, case=case))
    assert _listed(verdict) == {"invoked": ("UNSERVED_EVENT",), "landing:LANE-DENY": ("UNSERVED_EVENT",),
                                "tool_ran": ()}


def test_the_embedded_side_tells_which_labelled_hook_the_import_refused(tmp_path: Path) -> None:
    # A real import of the lane's own Codex config: the group whose matcher Codex cannot compile is
    # refused (Codex drops it), and the refusal is the hook the case labelled A, not B.
    case = Case("codex", "probe", steps=(("text", "done"),),
                hooks=(HookAnswer("PreToolUse", matcher="Bash", label="PreToolUse[B]"),
                       HookAnswer("PreToolUse", matcher="Bash(", label="PreToolUse[A]")))
    ours = anyio.run(embedded_outcome, case, tmp_path)
    assert [(r.code, r.event, r.label) for r in ours.refused] == [("SKIPPED_BY_VENDOR", "PreToolUse", "PreToolUse[A]")]


# ── what the person is shown (the ``shown`` facet) ─────────────────────────────────────────────

PROMPT_CASE = Case("claude", "shown", hooks=(HookAnswer("UserPromptSubmit"),))


def _shown(side: str, *texts: str, codes: tuple[str, ...] = ()) -> Outcome:
    return Outcome(side=side, case=PROMPT_CASE.name, hooks=(HookRun(event="UserPromptSubmit", stdin={}),),
                   shown=texts, degradations={"UserPromptSubmit": codes})


def test_the_same_words_shown_to_the_person_agree_and_none_is_no_facet() -> None:
    said = "UserPromptSubmit operation blocked by hook:\nLANE-BLOCK prompt\n\nOriginal prompt: go"
    assert compare(PROMPT_CASE, _shown("vendor", said), _shown("ours", said)).status == "agree"
    assert compare(PROMPT_CASE, _shown("vendor"), _shown("ours")).differences == ()


def test_words_the_person_is_not_shown_here_are_named_by_an_ignored_field_only() -> None:
    said = "LANE-SYSMSG for you"
    missing = compare(PROMPT_CASE, _shown("vendor", said), _shown("ours", codes=("output-field-ignored",)))
    assert missing.status == "differ_listed" and missing.differences[0].facet == "shown"
    # Shown here and not by the vendor: an ignored field does not say that, so it stays unlisted.
    extra = compare(PROMPT_CASE, _shown("vendor"), _shown("ours", said, codes=("output-field-ignored",)))
    assert extra.status == "differ_unlisted"
    reworded = compare(PROMPT_CASE, _shown("vendor", said), _shown("ours", "LANE-SYSMSG said otherwise",
                                                                     codes=("output-field-ignored",)))
    assert reworded.status == "differ_unlisted"


def test_a_vendor_side_that_was_not_read_compares_no_shown_facet() -> None:
    # A driver not taught to read its CLI's output says None: the notice shown here is not held
    # against a silence nobody observed (it was, before: copilot, gemini and qwen cases went unlisted).
    said = "UserPromptSubmit operation blocked by hook:\nLANE-BLOCK prompt\n\nOriginal prompt: go"
    unread = Outcome(side="vendor", case=PROMPT_CASE.name, hooks=(HookRun(event="UserPromptSubmit", stdin={}),),
                     shown=None)
    verdict = compare(PROMPT_CASE, unread, _shown("ours", said))
    assert verdict.status == "agree" and verdict.differences == ()
    # Read and empty is observed: the same notice is then a difference.
    assert compare(PROMPT_CASE, _shown("vendor"), _shown("ours", said)).status == "differ_unlisted"


def test_a_notice_shown_here_only_is_named_by_shown_more_alone() -> None:
    # CodeBuddy shows nothing of a continue:false's stopReason (its rows list shown-more): the
    # notice shown here is that listed loss, and shown-more names no notice missing or reworded here.
    said = "LANE-HALT stop"
    extra = compare(PROMPT_CASE, _shown("vendor"), _shown("ours", said, codes=("shown-more",)))
    assert extra.status == "differ_listed" and extra.differences[0].listed_by == ("shown-more",)
    missing = compare(PROMPT_CASE, _shown("vendor", said), _shown("ours", codes=("shown-more",)))
    assert missing.status == "differ_unlisted"
    reworded = compare(PROMPT_CASE, _shown("vendor", said), _shown("ours", "LANE-HALT other", codes=("shown-more",)))
    assert reworded.status == "differ_unlisted"
