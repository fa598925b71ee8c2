"""The port lane's reference: the source run's behaviour with its texts in the target's own words
(compat_adapter.testing.lane.portcompare). Pure: outcomes built here, no CLI."""

from __future__ import annotations

from compat_adapter.testing.lane.compare import compare
from compat_adapter.testing.lane.outcome import Landing, Outcome
from compat_adapter.testing.lane.portcompare import in_target_words
from compat_adapter.testing.lane.scenarios import HookAnswer, Case, hso

CASE = Case("claude", "deny_json", (HookAnswer("PreToolUse", hso("PreToolUse", permissionDecision="deny",
                                                                  permissionDecisionReason="LANE-DENY-JSON reason")),))
SOURCE_WORDS = "PreToolUse:Bash hook error: LANE-DENY-JSON reason"
CODEX_WORDS = "Command blocked by PreToolUse hook: LANE-DENY-JSON reason. Command: echo ran"


def outcome(side: str, text: str | None, *, ran: bool = False, shown: tuple[str, ...] | None = ()) -> Outcome:
    return Outcome(side, CASE.name, tool_ran=ran, tool_result=text, model_calls=2, shown=shown,
                   landings={} if text is None else {"LANE-DENY": Landing("tool_result", text)})


def test_a_reason_in_the_target_unit_own_words_agrees() -> None:
    source, here = outcome("vendor", SOURCE_WORDS), outcome("ported", CODEX_WORDS)
    expected, notes = in_target_words(CASE, source, outcome("embedded", CODEX_WORDS), here)
    assert compare(CASE, expected, here).status == "agree" and notes


def test_words_that_are_not_the_target_unit_own_still_differ() -> None:
    source, here = outcome("vendor", SOURCE_WORDS), outcome("ported", "Denied: LANE-DENY-JSON reason")
    expected, _ = in_target_words(CASE, source, outcome("embedded", CODEX_WORDS), here)
    verdict = compare(CASE, expected, here)
    assert verdict.status != "agree" and {d.facet for d in verdict.differences} == {"tool_result", "landing:LANE-DENY"}


def test_a_reason_the_target_never_gives_the_model_is_not_reworded_away() -> None:
    """The target's unit would not carry the reason: the source's words stay the reference, so a
    target run without the reason differs."""
    source, here = outcome("vendor", SOURCE_WORDS), outcome("ported", "Tool refused")
    expected, notes = in_target_words(CASE, source, outcome("embedded", "Tool refused"), here)
    assert expected.tool_result == SOURCE_WORDS and not any("tool_result" in n for n in notes)
    assert compare(CASE, expected, here).status != "agree"


def test_behaviour_is_the_source_run_s_whatever_the_words() -> None:
    source, here = outcome("vendor", SOURCE_WORDS), outcome("ported", CODEX_WORDS, ran=True)
    expected, _ = in_target_words(CASE, source, outcome("embedded", CODEX_WORDS), here)
    assert any(d.facet == "tool_ran" for d in compare(CASE, expected, here).differences)


def test_a_failed_wording_run_leaves_the_source_words() -> None:
    failed = Outcome("embedded", CASE.name, error="import failed")
    source = outcome("vendor", SOURCE_WORDS)
    expected, notes = in_target_words(CASE, source, failed, outcome("ported", CODEX_WORDS))
    assert expected == source and "unknown" in notes[0]


def test_what_the_person_saw_is_compared_only_where_the_target_run_observes_it() -> None:
    source = outcome("vendor", SOURCE_WORDS, shown=("UserPromptSubmit operation blocked by hook:\nLANE-BLOCK prompt",))
    worded = outcome("embedded", CODEX_WORDS, shown=("Blocked by hook\nLANE-BLOCK prompt",))
    seen, _ = in_target_words(CASE, source, worded, outcome("ported", CODEX_WORDS, shown=()))
    unseen, _ = in_target_words(CASE, source, worded, outcome("ported", CODEX_WORDS, shown=None))
    assert seen.shown == ("Blocked by hook\nLANE-BLOCK prompt",) and unseen.shown is None


def test_a_reason_the_source_vendor_wrote_in_place_of_the_hooks_is_held_to_the_target_words() -> None:
    """Copilot's exit-2 deny reads "hook exited with code 2", not the hook's stderr: ported, the
    target's wording of that reason is the reference; a target that drops it still differs."""
    case = Case("copilot", "deny_exit2", (HookAnswer("preToolUse", stderr="LANE-DENY-EXIT2 reason", exit=2),))
    said = "Denied by preToolUse hook: hook exited with code 2"
    theirs = "PreToolUse:Bash hook error: hook exited with code 2"

    def run(side: str, text: str) -> Outcome:
        return Outcome(side, case.name, tool_result=text, model_calls=2)

    expected, notes = in_target_words(case, run("vendor", said), run("embedded", theirs), run("ported", theirs))
    assert expected.tool_result == theirs and "tool_result in the target's words" in notes
    assert compare(case, expected, run("ported", theirs)).status == "agree"
    dropped, _ = in_target_words(case, run("vendor", said), run("embedded", "PreToolUse:Bash hook error"),
                                 run("ported", "PreToolUse:Bash hook error"))
    assert dropped.tool_result == said


def test_the_opencode_source_file_has_its_scenario_s_callbacks_only_and_the_vendor_lane_keeps_all_four() -> None:
    """The port lane's OpenCode source file (OpenCodeCli.port_source): the lane plugin with the
    callbacks its rules act in, as every other source's scenario is one hook at its event; the
    vendor lane's case, and the port lane's ``observe`` (no rule), record at all four."""
    from compat_adapter.testing.lane.vendors import cases_for, cli_for

    cli, cases = cli_for("opencode"), {c.kind: c for c in cases_for("opencode")}
    keys = {kind: (cli.port_source(cases[kind]).plugin_rules or {}).get("keys")
            for kind in ("deny_json", "post_block", "prompt_context", "session_context", "observe")}
    assert keys == {"deny_json": ["tool.execute.before"], "post_block": ["tool.execute.after"],
                    "prompt_context": ["chat.message"], "session_context": ["experimental.chat.system.transform"],
                    "observe": None}
    assert "keys" not in (cases["deny_json"].plugin_rules or {})
    assert cli_for("claude").port_source(cases_for("claude")[0]) == cases_for("claude")[0]
