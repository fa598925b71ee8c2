"""The drift report (scripts/vendor_drift.py), pinned offline on a pair of real lane snapshots.

The fixtures are what the command records of a lane folder (``--save``): the two releases' event
lists read from their binaries, and the lane report of Claude Code and Codex, measured on
Claude Code 2.1.328 / Codex 0.169.0 and on 2.1.332 / 0.171.0 (the other three vendors at their
pins, not rerun). Between those, Claude moved two Stop cases (its feedback is now wrapped in a
``<system-reminder>`` with a provenance lead) and learnt PreSkillShellCommand; Codex did not move.
The command is not a CI gate; these tests pin its report logic, never a vendor's newest release.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from compat_adapter.testing.drift.releases import lane_folders, read_release, table_gaps
from compat_adapter.testing.drift.report import compare_snapshots, drift_json, render
from compat_adapter.testing.lane.vendors import lane_dir

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "vendor_drift"
OLD = FIXTURES / "claude-2.1.328-codex-0.169.0.json"
NEW = FIXTURES / "claude-2.1.332-codex-0.171.0.json"
WRAPPER_LEAD = "<system-reminder>\nThe text below is the output of a hook that the user, their organization or this"


def load(path: Path) -> dict[str, Any]:
    snapshot: dict[str, Any] = json.loads(path.read_text())
    return snapshot


def drift(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(REPO / "scripts" / "vendor_drift.py"), *argv], capture_output=True,
                          text=True, timeout=120)


def test_an_older_claude_pin_names_the_stop_wrapper_and_the_new_event() -> None:
    done = drift("--snapshots", str(OLD), str(NEW))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "claude: @anthropic-ai/claude-code@2.1.328 -> @anthropic-ai/claude-code@2.1.332: DRIFT" in out
    assert "case claude:stop_block_json: verdict agree -> differ_listed [landing:LANE-STOP-REASON]" in out
    assert "case claude:stop_block_exit2: verdict agree -> differ_listed [landing:LANE-STOP-REASON]" in out
    assert "was: ['message:user', 'Stop hook feedback:\\nLANE-STOP-REASON json']" in out
    assert "now: ['message:user', \"" + WRAPPER_LEAD.replace("\n", "\\n") in out
    assert "events new in @anthropic-ai/claude-code@2.1.332: PreSkillShellCommand" in out
    assert "codex: @openai/codex@0.169.0 -> @openai/codex@0.171.0: no drift" in out
    assert out.rstrip().endswith("\ndrift")


def test_the_json_report_says_exactly_what_moved() -> None:
    done = drift("--snapshots", str(OLD), str(NEW), "--json", "--vendor", "claude", "--vendor", "codex")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["drift"] is True and set(report["vendors"]) == {"claude", "codex"}
    claude, codex = report["vendors"]["claude"], report["vendors"]["codex"]
    moved = {c["case"]: c for c in claude["cases"]}
    assert set(moved) == {"claude:stop_block_json", "claude:stop_block_exit2"}
    case = moved["claude:stop_block_json"]
    assert case["before"] == {"status": "agree", "facets": []}
    assert case["after"] == {"status": "differ_listed", "facets": ["landing:LANE-STOP-REASON"]}
    [change] = case["vendor_changes"]
    assert change["facet"] == "landing:LANE-STOP-REASON"
    assert change["after"][1].startswith(WRAPPER_LEAD)
    assert change["after"][1].endswith("\nStop hook feedback:\nLANE-STOP-REASON json\n</system-reminder>")
    # Both releases sent the same hook payloads: no field was added or removed on any event.
    assert claude["fields_added"] == {} and claude["fields_removed"] == {}
    assert claude["events_added"] == ["PreSkillShellCommand"] and claude["events_removed"] == []
    assert codex["compared"] is True and codex["drift"] is False and codex["cases"] == []


def test_a_snapshot_against_itself_is_no_drift() -> None:
    for path in (OLD, NEW):
        done = drift("--snapshots", str(path), str(path))
        assert done.returncode == 0, done.stderr
        lines = done.stdout.rstrip().splitlines()
        assert lines[-1] == "no drift"
        assert "DRIFT" not in done.stdout and "case " not in done.stdout
    # The three vendors that were not rerun are said to be so, not silently skipped.
    assert "copilot: @github/copilot@1.0.102: no drift (newest release is the pin; lane not rerun)" in done.stdout


def test_a_payload_field_that_appears_or_disappears_is_named_per_event() -> None:
    old, new = load(NEW), copy.deepcopy(load(NEW))
    new["releases"]["codex"]["stamp"] = "@openai/codex@9.9.9"
    # A newer Codex that drops turn_id from PreToolUse and sends a new object instead.
    changed = 0
    for case, sides in new["report"]["outcomes"].items():
        for hook in sides["vendor"]["hooks"] if case.startswith("codex:") and sides["vendor"] else ():
            if hook["event"] == "PreToolUse":
                hook["stdin"].pop("turn_id")
                hook["stdin"]["sandbox"] = {"mode": "x"}
                changed += 1
    assert changed > 3
    [codex] = compare_snapshots(old, new, ["codex"])
    assert codex.drifted
    assert codex.fields_removed == {"PreToolUse": ("turn_id",)}
    assert codex.fields_added == {"PreToolUse": ("sandbox", "sandbox.mode")}
    text = render([codex])
    assert "payload PreToolUse: fields added sandbox, sandbox.mode" in text
    assert "payload PreToolUse: fields removed turn_id" in text
    assert drift_json([codex])["drift"] is True


def test_a_vendor_the_newer_snapshot_did_not_run_is_not_compared() -> None:
    old, new = load(OLD), copy.deepcopy(load(NEW))
    del new["report"]["vendors"]["claude"]
    [claude] = compare_snapshots(old, new, ["claude"])
    assert not claude.compared and claude.cases == ()
    # The release's own event list is still compared: it is read from the binary, not the lane.
    assert claude.events_added == ("PreSkillShellCommand",) and claude.drifted


def test_table_gaps_leave_out_served_and_named_unserved_events() -> None:
    assert table_gaps("claude", ("PreToolUse", "NoSuchEventAnywhere")) == ("NoSuchEventAnywhere",)
    # Codex's PreModelRequest is in the table as an event it cannot serve, with a reason: not a gap.
    assert table_gaps("codex", ("PreModelRequest", "Stop")) == ()


def test_a_lane_folder_without_the_vendor_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="claude is not installed"):
        read_release("claude", tmp_path)
    (tmp_path / "claude").mkdir()
    (tmp_path / "claude" / ".stamp").write_text("@anthropic-ai/claude-code@0.0.0")
    with pytest.raises(FileNotFoundError):
        read_release("claude", tmp_path)


@pytest.mark.vendor
def test_every_pinned_release_yields_its_events_from_what_it_ships() -> None:
    want = subprocess.run(["bash", str(REPO / "scripts" / "vendor_lane.sh"), "--want"], capture_output=True,
                          text=True, check=True).stdout
    stamps = dict(line.split("\t") for line in want.splitlines())
    for vendor, folder in lane_folders().items():
        release = read_release(vendor, lane_dir())
        assert release.stamp == stamps[folder]
        # Each reader finds the vendor's full list, with the events every release of it has had.
        core = {"claude": {"PreToolUse", "PostToolUse", "Stop", "SessionStart"},
                "codex": {"PreToolUse", "PostToolUse", "Stop", "SessionStart", "UserPromptSubmit"},
                "copilot": {"preToolUse", "postToolUse", "agentStop", "sessionStart"},
                "opencode": {"tool.execute.before", "tool.execute.after", "event", "session.idle"},
                "workbuddy": {"PreToolUse", "PostToolUse", "Stop", "SessionStart"},
                "qwen": {"PreToolUse", "PostToolUse", "Stop", "SessionStart", "UserPromptSubmit"},
                "gemini": {"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "SessionStart"}}.get(vendor)
        # A vendor added since (a unit of its own) states no core here: its reader finds some events.
        assert core <= set(release.events) if core else release.events, (vendor, release.events)
        assert len(release.events) == len(set(release.events))
        # Every event the pinned release knows is a row of our table or named as unserved, with why.
        assert table_gaps(vendor, release.events) == (), (vendor, table_gaps(vendor, release.events))
