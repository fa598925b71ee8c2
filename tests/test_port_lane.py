"""Ports judged by the real CLIs (issue 38's lane case): a Claude PreToolUse guard in
``.claude/settings.json``, ported with ``compat-adapter port`` to Codex, Gemini, Qwen, Copilot,
OpenCode and CodeBuddy, stops ``rm -rf build`` under each real CLI (offline, ``.cache/vendors``),
and the model reads the guard's reason in the target's own words."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from compat_adapter.testing.lane.drivers import vendor_outcome
from compat_adapter.testing.lane.portdiff import run_pair
from compat_adapter.testing.lane.porting import guard_case, ported_case
from compat_adapter.testing.lane.vendors import cases_for

pytestmark = pytest.mark.vendor

REASON = "LANE-DENY-GUARD recursive delete refused by the team guard"
#: What the model reads in place of the refused call, measured per target (its own wording around
#: the guard's reason).
WORDS = {"codex": "Command blocked by PreToolUse hook: " + REASON, "gemini": "Tool execution blocked: " + REASON,
         "copilot": "Denied by preToolUse hook: " + REASON, "workbuddy": "Error: " + REASON,
         "qwen": REASON, "opencode": REASON}


#: The pairs whose ported deny is compared with its source run (scripts/port_diff.py's comparison).
PAIRS = (("gemini", "claude"), ("copilot", "codex"))


def _guard_run(target: str, run: Path) -> tuple[Any, Any, Any]:
    case, report = ported_case(guard_case(), target, run, guard_command="./guard.sh")
    return case, report, vendor_outcome(case, run)


def _control_run(run: Path) -> Any:
    case, _ = ported_case(guard_case(), "gemini", run, guard_command="./guard.sh")
    files = {k: v for k, v in case.files.items() if not k.startswith(".gemini/") and ".compat-adapter" not in k}
    return vendor_outcome(replace(case, files=files), run)


def _pair_run(source: str, target: str, run: Path) -> dict[str, Any]:
    case = next(c for c in cases_for(source) if c.kind == "deny_json")
    return run_pair(case, target, run)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[tuple[str, ...], tuple[Future[Any], Path]]]:
    """Every real CLI run of this module, each in its own scratch folder, run together (three at a
    time, as the vendor lane runs its cases) when the first test asks, so that the runs overlap their
    start-ups and hooks instead of following one another; each test then asserts on its own runs (a
    run that raised raises in its test). The runs trust their files in a private store of their own,
    never the user's, and all end before any test goes on (a test's own store is set per test)."""
    root = tmp_path_factory.mktemp("port-lane")
    jobs: dict[tuple[str, ...], tuple[Callable[[Path], Any], Path]] = {
        ("guard", t): (partial(_guard_run, t), root / f"guard-{t}") for t in sorted(WORDS)}
    jobs[("control",)] = (_control_run, root / "control")
    for source, target in (*PAIRS, ("opencode", "gemini")):
        jobs[("pair", source, target)] = (partial(_pair_run, source, target), root / f"pair-{source}-{target}")
    with pytest.MonkeyPatch.context() as mp, ThreadPoolExecutor(max_workers=3) as pool:
        mp.setenv("COMPAT_ADAPTER_STATE_HOME", str(tmp_path_factory.mktemp("port-lane-state-home")))
        for _, run in jobs.values():
            run.mkdir()
        done = {key: (pool.submit(job, run), run) for key, (job, run) in jobs.items()}
        wait([future for future, _ in done.values()])
    yield done
    # A ported run's first call starts a warm shim server in the run's TMPDIR: stopped by its id (it
    # would leave after its idle time in any case).
    for pid_file in root.glob("**/compat-adapter-shim-*/*.sock.pid"):
        try:
            os.kill(int(pid_file.read_text()), 15)
        except (OSError, ValueError):
            pass


@pytest.mark.parametrize("target", sorted(WORDS))
def test_a_ported_claude_guard_stops_rm_rf_build_under_the_real_target_cli(target: str, runs: dict) -> None:
    future, tmp_path = runs[("guard", target)]
    case, report, out = future.result()
    assert report["entries"] == 1 and [r["capability"] for r in report["results"]] == ["ADAPTED"]
    # The source file is not in the target's project: only the ported entry can have stopped it.
    assert ".claude/settings.json" not in case.files and report["file"] in case.files
    assert out.error is None, out.error
    assert not out.tool_ran and (tmp_path / "proj" / "build" / "keep.txt").exists()
    assert (out.tool_result or "").strip().startswith(WORDS[target]), out.tool_result


def test_without_the_port_the_same_run_deletes_the_folder(runs: dict) -> None:
    """The control: the target CLI with the guard's script but no ported entry runs the command."""
    future, tmp_path = runs[("control",)]
    out = future.result()
    assert out.tool_ran and not (tmp_path / "proj" / "build").exists()


@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_a_ported_deny_agrees_with_its_source_run_in_the_target_s_own_words(source: str, target: str,
                                                                          runs: dict) -> None:
    """scripts/port_diff.py's comparison for one pair: the source CLI with its own file, the target
    CLI with the ported one; the call is refused on both, and the model reads the hook's reason in
    the words the target's unit gives any hook's deny (measured: agree on both pairs)."""
    result = runs[("pair", source, target)][0].result()
    assert result["status"] == "agree", result
    assert "tool_result in the target's words" in result["worded"], result
    assert result["target_read"] == result["target_words"] != result["source_read"], result


def test_an_opencode_plugin_guard_is_ported_and_agrees_with_its_source_run(runs: dict) -> None:
    """OpenCode as a source: the lane's plugin throws in tool.execute.before (its scenario's one
    callback, as every other source's scenario is one hook: OpenCodeCli.port_source); ported to
    Gemini, the shim loads the same plugin file in the plugin host and the real Gemini CLI refuses
    the call with the thrown message in its own words (measured: agree, graded ADAPTED)."""
    result = runs[("pair", "opencode", "gemini")][0].result()
    grades = {g["event"]: g["capability"] for g in result["grades"]}
    assert grades == {"tool.execute.before": "ADAPTED"}, grades
    assert result["target_read"] == "Tool execution blocked: LANE-DENY-JSON reason", result
    assert result["status"] == "agree" and result["adapted"], result
