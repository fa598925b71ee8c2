"""`explain`'s "what the vendor would do", checked against what the real vendor did (issue 18).

For every drivable scenario of the vendor lane (the session's ``lane`` fixture runs the real CLIs
offline through the lane's own driver), ``explain`` replays each configured event of the scenario's
own hook config (the same self-recording hook, really run) and its vendor prediction is compared
with the real vendor's recorded outcome: which hooks fired, whether the tool ran, whether a
rewritten input ran, the text the model read in place of a denied call, where each hook text landed
and in which words, whether a blocked prompt made no model call, and whether a Stop block gave the
agent another step. OpenCode's scenarios are plugins, not command hooks: explain does not load
plugins, so those are left out (and listed).
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest

from compat_adapter.capability import PluginRuntime, capability
from compat_adapter.catalog import resolve_vendor, unit_of, vendor_tool
from compat_adapter.explain import ExplainReport, Question, explain
from compat_adapter.explain.vendorview import kind_of
from compat_adapter.importers.gate import trust_files
from compat_adapter.testing.lane.outcome import MARKERS, Outcome, normalize_text
from compat_adapter.testing.lane.run import hook_files, prepare_project
from compat_adapter.testing.lane.scenarios import EXIT_3_STEPS, KILLED_STEPS, TOOL_COMMAND, Case
from compat_adapter.testing.lane.vendors import cases_for, cli_for, lane_vendors

pytestmark = pytest.mark.vendor

#: Vendors whose lane scenarios are command hooks explain runs (a plugin-host vendor's are plugins).
EXPLAINED = tuple(v for v in lane_vendors() if not capability(unit_of(v), PluginRuntime))


def _stop_baseline(case: Case) -> int:
    """Model calls of the case's run when no Stop hook blocks: every step up to the first answer
    (STOP_STEPS: the tool call, then the first answer; a text-only run: the first answer)."""
    return next(i for i, (kind, _) in enumerate(case.steps) if kind == "text") + 1


def _question(case: Case, event: str, files: list[Path], proj: Path) -> Question:
    from compat_adapter.catalog import resolve_vendor

    row = resolve_vendor(case.vendor).row(event)
    assert row is not None, f"{case.name}: {event} has no row"
    kind = kind_of(row)
    common: dict[str, Any] = {"vendor": case.vendor, "event": event, "files": tuple(files), "root": proj}
    if kind in ("pre", "post", "permission"):
        cli = cli_for(case.vendor)
        if case.steps[0][0] == "read" and cli.read_tool is not None:
            # The case's call is a file read (Copilot asks no permission for one).
            name, argument = cli.read_tool
            return Question(**common, tool=name, tool_input={argument: case.steps[0][1]})
        return Question(**common, tool=vendor_tool(case.vendor, "bash"),
                        tool_input={"command": TOOL_COMMAND, **cli.extra_args})
    if kind == "prompt":
        return Question(**common, prompt=case.prompt)
    return Question(**common)


def _line(place: str, text: str, marker: str) -> str:
    # The lane's own rule for which part of a text it records (outcome.landings).
    if place == "tool_result":
        return next(ln for ln in text.splitlines() if marker in ln).strip()
    return next(p for p in text.split("\n\n") if marker in p).strip()


def _predicted(case: Case, reports: list[ExplainReport], roots: list[str]) -> dict[str, Any]:
    """The lane's facets, as explain's vendor predictions say they will be.

    explain answers for one event at a time; the turn's own order decides which events happen at all:
    a call the pre-tool hooks deny never runs, so its post-tool events never come.
    """
    from compat_adapter.catalog import resolve_vendor

    spec = resolve_vendor(case.vendor)
    kinds = {r.event: kind_of(spec.row(r.event)) for r in reports}  # type: ignore[arg-type]
    # A blocked prompt makes no model call, so no tool is ever called.
    if any(kinds[r.event] == "prompt" and r.vendor_view and r.vendor_view.prompt_blocked for r in reports):
        reports = [r for r in reports if kinds[r.event] not in ("pre", "post", "permission")]
    # A permission hook that asks for the call itself (its row's point) is asked only when the
    # pre-tool hooks left the call undecided (Copilot, measured: not after an allow or an ask).
    decided = any(kinds[r.event] == "pre" and r.vendor_view and r.vendor_view.decision != "none" for r in reports)
    reports = [r for r in reports if not (decided and spec.row(r.event).point == "tools/permission")]  # type: ignore[union-attr]
    denied = any(kinds[r.event] in ("pre", "permission") and r.vendor_view and r.vendor_view.tool_runs is False
                 for r in reports)
    reports = [r for r in reports if not (denied and kinds[r.event] == "post")]
    # How the call ended decides which post-tool events come: the lane's failing steps are shell
    # commands that end non-zero (exit 3, SIGKILL); each row says which endings are its event.
    nonzero = bool(case.steps) and case.steps[0] in (EXIT_3_STEPS[0], KILLED_STEPS[0])
    takes = {"success": not nonzero, "failure": nonzero, "completed": True, "incomplete": False}
    reports = [r for r in reports if kinds[r.event] != "post" or takes.get(spec.row(r.event).fires_on, True)]
    # A hook fires at the vendor when explain ran it and the vendor's run fires its event at all.
    out: dict[str, Any] = {"invoked": sorted(_name(case, r, i) for r in reports for i, h in enumerate(r.hooks)
                                             if h.fires and (h.vendor_view is None or h.vendor_view.fires))}
    landings: dict[str, Any] = {}
    for r in reports:
        v = r.vendor_view
        if v is None:
            continue
        if v.tool_runs is not None:
            out["tool_ran"] = out.get("tool_ran", True) and v.tool_runs
        if v.tool_runs is False and v.halted:
            out["tool_result"] = None  # continue:false: the agent stops, the model reads nothing more
        if v.input_rewritten:
            out["rewritten"] = True
        if v.prompt_blocked is not None:
            out["prompt_blocked"] = v.prompt_blocked
        if v.turn_continues is not None:
            out["turn_continues"] = v.turn_continues
        for read in v.reads:
            text = normalize_text(read.text, roots)
            if read.place == "tool_result" and v.tool_runs is False:
                out["tool_result"] = text
            for marker in MARKERS:
                if marker in text and read.place != "result" and marker not in landings:
                    landings[marker] = [read.place, _line(read.place, text, marker)]
    out["landings"] = landings
    return out


def _name(case: Case, report: ExplainReport, index: int) -> str:
    """A hook as the lane records it: by its event, or by the label the case gave it (one of several
    hooks of its event, each labelled, all imported in config order)."""
    mine = [a for a in case.hooks if a.event == report.event]
    if any(a.label for a in mine):
        assert len(mine) == len(report.hooks), f"{case.name}: a labelled hook did not import"
        return mine[index].label or report.event
    return report.event


def _measured(case: Case, o: Outcome, predicted: dict[str, Any]) -> dict[str, Any]:
    """The same facets from the real vendor's outcome (only those explain predicts for this case)."""
    out: dict[str, Any] = {"invoked": sorted(set(o.invoked)),
                           "landings": {m: [x.place, x.line] for m, x in o.landings.items()}}
    if "tool_ran" in predicted:
        out["tool_ran"] = o.tool_ran
    if "tool_result" in predicted or ("tool_ran" in predicted and not o.tool_ran):
        out["tool_result"] = o.tool_result
    if predicted.get("rewritten") or o.rewritten:
        out["rewritten"] = o.rewritten
    if "prompt_blocked" in predicted:
        out["prompt_blocked"] = o.model_calls == 0
    if "turn_continues" in predicted:
        out["turn_continues"] = o.model_calls > _stop_baseline(case)
    return out


def _explained(case: Case, run: Path) -> tuple[list[ExplainReport], list[str]]:
    proj = prepare_project(case, run)
    # The files the case's hooks are in, as the lane's embedded side imports them (Droid's
    # .factory/hooks.json, not its settings file).
    files = hook_files(case, proj)
    trust_files(case.vendor, files, command="tests/test_explain_lane.py: the scenario's own config")
    events = list(dict.fromkeys(h.event for h in case.hooks))
    reports = [anyio.run(explain, _question(case, event, files, proj)) for event in events]
    return reports, [str(run), str(run.resolve())]


#: Drivable cases whose vendor side explain does not predict, and why (each is checked apart).
NOT_PREDICTED = {
    "kimi:post_context_fast": "whether Kimi's unawaited post-tool hook runs depends on how soon the turn ends (the "
                              "model's latency), which no hook config carries; explain predicts it runs",
    **{f"cline:{kind}": "Cline names the model's own call id (tool_call_id) in the hook_context frame of a tool "
                        "hook's context; explain replays no model call, so it cannot name one (the lane's embedded "
                        "side names the call as its scripted model did, and agrees)"
       for kind in ("pre_context", "post_context")},
    "claude:skill_shell_deny": "PreSkillShellCommand has no row here: explain refuses it with the reason",
    "claude:stop_block_unwrapped": "the CLI ran with a switch of its own process (CLAUDE_CODE_SHINY_FOUNTAIN=0) "
                                   "that no hook config carries; explain predicts the release's default",
    "codex:permission_reserved": "the hook's answer is void, so Codex's automatic reviewer decides (the lane's "
                                 "scripted model, which cannot review): the outcome is not the hook's",
    **{f"copilot:pre_http_{kind}": "the guard is an http entry in a project file of its own, beside the lane's "
                                   "recorders, and reaches no server only in the lane's sandbox (a name it "
                                   "cannot resolve); explain replays the lane's config outside it"
       for kind in ("unresolved", "refused", "repo_settings", "local_settings")},
}


def _drivable() -> list[Case]:
    # A case whose hooks sit on events no route serves (Gemini's model events) is refused on import:
    # explain has no row to replay, and the lane's verdict names the refusal (UNSERVED_EVENT).
    # Permission-rule cases (``perm_*``) are judged by tests/test_permissions_cli.py and the lane's
    # verdicts: this replay passes explain the case's hooks alone, not the rules written beside them.
    return [c for v in EXPLAINED for c in cases_for(v) if not c.not_drivable and c.name not in NOT_PREDICTED
            and not c.name.split(":", 1)[1].startswith("perm_")
            and not any(resolve_vendor(v).unserved_reason(h.event) for h in c.hooks)]


def test_what_explain_does_not_predict_it_says(tmp_path: Path) -> None:
    from compat_adapter.errors import UnknownEvent

    assert set(NOT_PREDICTED) <= {c.name for v in EXPLAINED for c in cases_for(v) if not c.not_drivable}
    [skill] = [c for c in cases_for("claude") if c.name == "claude:skill_shell_deny"]
    proj = prepare_project(skill, tmp_path / "skill")
    config = proj / cli_for("claude").hooks_file
    trust_files("claude", [config], command="tests/test_explain_lane.py: the scenario's own config")
    with pytest.raises(UnknownEvent, match="cannot be served on this host: Claude Code 2.1.332 runs it"):
        anyio.run(explain, Question("claude", event="PreSkillShellCommand", files=(config,), root=proj))
    [reserved] = [c for c in cases_for("codex") if c.name == "codex:permission_reserved"]
    reports, _ = _explained(reserved, tmp_path / "reserved")
    [view] = [r.vendor_view for r in reports if r.event == "PermissionRequest"]
    assert view is not None and view.decision == "none" and view.tool_runs is None and view.failed
    assert view.effect == "no decision: the vendor's own permission flow decides"


def test_explain_predicts_what_the_real_vendor_did(lane: dict[str, Any], tmp_path: Path) -> None:
    disagree = {}
    checked = 0
    cases = _drivable()
    for case in cases:
        result = lane[case.name]
        assert result.failure is None and result.vendor is not None, f"{case.name}: {result.failure}"
    # Each case's replay is its own project folder and its own hook processes: three at a time, as the
    # lane runs its cases (the trust store takes concurrent writers under its lock).
    with ThreadPoolExecutor(max_workers=3) as pool:
        explained = list(pool.map(lambda c: _explained(c, tmp_path / c.vendor / c.kind), cases))
    for case, (reports, roots) in zip(cases, explained, strict=True):
        result = lane[case.name]
        predicted = _predicted(case, reports, roots)
        # Each hook fires once per event in these one-turn runs (a `once` Stop hook included).
        predicted["invoked"] = sorted(set(predicted["invoked"]))
        measured = _measured(case, result.vendor, predicted)
        checked += 1
        if predicted != measured:
            disagree[case.name] = {"explain": predicted, "vendor": measured}
    assert checked >= 45
    assert not disagree, json.dumps(disagree, indent=1)


@pytest.mark.parametrize("vendor", [v for v in lane_vendors() if capability(unit_of(v), PluginRuntime)])
def test_opencode_scenarios_are_plugins_that_explain_names_and_does_not_replay(tmp_path: Path, vendor: str) -> None:
    """OpenCode's, and Kilo's (an OpenCode fork whose lane runs OpenCode's plugin scenarios)."""
    drivable = [c for c in cases_for(vendor) if not c.not_drivable]
    # Every OpenCode scenario is a plugin: the lane's recording plugin, or corpus plugins as written.
    assert drivable and all(not c.hooks and (c.plugin_rules is not None or c.plugins) for c in drivable)
    case = drivable[0]
    proj = prepare_project(case, tmp_path / "run")
    config = proj / cli_for(vendor).hooks_file
    trust_files(vendor, [config], command="tests/test_explain_lane.py: the scenario's own plugin")
    report = anyio.run(explain, Question(vendor, tool="bash", tool_input={"command": TOOL_COMMAND},
                                         files=(config,), root=proj))
    assert report.hooks == () and report.vendor_view is None
    [note] = report.not_replayed
    assert note.startswith(f"{config}: an OpenCode plugin") and "grade" in note
