"""Ports judged by the real CLIs (issue 38's lane case): a Claude PreToolUse guard in
``.claude/settings.json``, ported with ``compat-adapter port`` to Codex, Gemini, Qwen, Copilot,
OpenCode and CodeBuddy, stops ``rm -rf build`` under each real CLI (offline, ``.cache/vendors``),
and the model reads the guard's reason in the target's own words."""

from __future__ import annotations

from pathlib import Path

import pytest

from compat_adapter.testing.lane.drivers import vendor_outcome
from compat_adapter.testing.lane.porting import guard_case, ported_case

pytestmark = pytest.mark.vendor

REASON = "LANE-DENY-GUARD recursive delete refused by the team guard"
#: What the model reads in place of the refused call, measured per target (its own wording around
#: the guard's reason).
WORDS = {"codex": "Command blocked by PreToolUse hook: " + REASON, "gemini": "Tool execution blocked: " + REASON,
         "copilot": "Denied by preToolUse hook: " + REASON, "workbuddy": "Error: " + REASON,
         "qwen": REASON, "opencode": REASON}


@pytest.fixture(autouse=True)
def stop_servers(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A ported run's first call starts a warm shim server in the run's TMPDIR: stopped by its id
    when the test ends (it would leave after its idle time in any case)."""
    import os

    yield
    for pid_file in tmp_path.glob("**/compat-adapter-shim-*/*.sock.pid"):
        try:
            os.kill(int(pid_file.read_text()), 15)
        except (OSError, ValueError):
            pass


@pytest.mark.parametrize("target", sorted(WORDS))
def test_a_ported_claude_guard_stops_rm_rf_build_under_the_real_target_cli(target: str, tmp_path: Path) -> None:
    case, report = ported_case(guard_case(), target, tmp_path, guard_command="./guard.sh")
    assert report["entries"] == 1 and [r["capability"] for r in report["results"]] == ["ADAPTED"]
    # The source file is not in the target's project: only the ported entry can have stopped it.
    assert ".claude/settings.json" not in case.files and report["file"] in case.files
    out = vendor_outcome(case, tmp_path)
    assert out.error is None, out.error
    assert not out.tool_ran and (tmp_path / "proj" / "build" / "keep.txt").exists()
    assert (out.tool_result or "").strip().startswith(WORDS[target]), out.tool_result


def test_without_the_port_the_same_run_deletes_the_folder(tmp_path: Path) -> None:
    """The control: the target CLI with the guard's script but no ported entry runs the command."""
    case, _ = ported_case(guard_case(), "gemini", tmp_path, guard_command="./guard.sh")
    files = {k: v for k, v in case.files.items() if not k.startswith(".gemini/") and ".compat-adapter" not in k}
    from dataclasses import replace

    out = vendor_outcome(replace(case, files=files), tmp_path)
    assert out.tool_ran and not (tmp_path / "proj" / "build").exists()


@pytest.mark.parametrize(("source", "target"), [("gemini", "claude"), ("copilot", "codex")])
def test_a_ported_deny_agrees_with_its_source_run_in_the_target_s_own_words(source: str, target: str,
                                                                          tmp_path: Path) -> None:
    """scripts/port_diff.py's comparison for one pair: the source CLI with its own file, the target
    CLI with the ported one; the call is refused on both, and the model reads the hook's reason in
    the words the target's unit gives any hook's deny (measured: agree on both pairs)."""
    from compat_adapter.testing.lane.portdiff import run_pair
    from compat_adapter.testing.lane.vendors import cases_for

    case = next(c for c in cases_for(source) if c.kind == "deny_json")
    result = run_pair(case, target, tmp_path)
    assert result["status"] == "agree", result
    assert "tool_result in the target's words" in result["worded"], result
    assert result["target_read"] == result["target_words"] != result["source_read"], result


def test_an_opencode_plugin_guard_is_ported_and_its_session_callbacks_say_why_not(tmp_path: Path) -> None:
    """OpenCode as a source: the lane's plugin throws in tool.execute.before; ported to Gemini, the
    shim loads the same plugin file in the plugin host and the real Gemini CLI refuses the call with
    the thrown message in its own words. Its chat callbacks have no Gemini event to run from: each
    UNSUPPORTED with the reason, and the hooks that did not fire are named by those rows."""
    from compat_adapter.testing.lane.portdiff import run_pair
    from compat_adapter.testing.lane.vendors import cases_for

    case = next(c for c in cases_for("opencode") if c.kind == "deny_json")
    result = run_pair(case, "gemini", tmp_path)
    grades = {g["event"]: g["capability"] for g in result["grades"]}
    assert grades["tool.execute.before"] == "ADAPTED" and grades["chat.message"] == "UNSUPPORTED", grades
    assert result["target_read"] == "Tool execution blocked: LANE-DENY-JSON reason", result
    assert result["status"] == "differ_listed" and not result["adapted"], result
    assert [d["facet"] for d in result["differences"]] == ["invoked"], result
