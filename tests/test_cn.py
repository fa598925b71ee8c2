"""Continue's unit: its settings files read as cn 1.5.47's loader reads them, its looser dialect (from
its source), and the measurement its rows rest on: the real cn runs offline and fires no hook."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compat_adapter.catalog import unit_of
from compat_adapter.importers import import_project
from compat_adapter.runtime.process import ProcessOutcome
from compat_adapter.testing.lane.vendors import lane_dir

ROOT = Path(__file__).resolve().parents[1]


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def handler(kind: str = "command", **extra: Any) -> dict[str, Any]:
    return {"type": kind, **({"command": "true"} if kind == "command" else {"prompt": "is it safe?"}), **extra}


def outcome(code: int, stdout: str = "", stderr: str = "") -> ProcessOutcome:
    return ProcessOutcome(exit_code=code, stdout=stdout, stderr=stderr, timed_out=False, truncated=False, cause=None,
                          duration_ms=1.0)


def test_its_settings_are_found_read_and_its_skipped_handlers_refused(tmp_path: Path) -> None:
    write(tmp_path / ".continue/settings.json", {"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [handler(), handler("prompt"), handler("agent")]}]}})
    write(tmp_path / ".continue/settings.local.json", {"hooks": {"Stop": [{"hooks": [handler()]}]}})
    write(tmp_path / "AGENTS.md", "Be careful.\n")
    found = [p.relative_to(tmp_path).as_posix() for p in unit_of("cn").importer.project_files(tmp_path)]
    assert found == [".continue/settings.json", ".continue/settings.local.json", "AGENTS.md"]
    result = import_project("continue", tmp_path, trust_all=True)
    assert sorted(h.event for h in result.hooks) == ["PreToolUse", "Stop"]
    assert [r.code for r in result.refused] == ["SKIPPED_BY_VENDOR", "SKIPPED_BY_VENDOR"]
    assert all("never runs" in r.reason for r in result.refused)
    # Claude's own files, which cn also loads, are named as run twice when both imports register.
    assert unit_of("continue").importer.RUNS_HOOKS_OF["claude"][0] == (".claude/settings.json",
                                                                       ".claude/settings.local.json")


def test_every_row_says_it_is_documented_and_the_release_fires_none() -> None:
    spec = unit_of("continue").spec
    assert len(spec.events) == 17 and {r.confidence for r in spec.events} == {"documented"}
    assert any("never runs a hook" in d.text for d in spec.losses)


@pytest.mark.parametrize(("matcher", "subject", "matched"), [
    ("Bash", "Bash", True), ("Write", "NotebookWrite", True),  # always a regular expression, unanchored
    ("Bash|Write", "Write", True), ("*", "Anything", True), ("", "Anything", True),
    ("[", "Bash", False),  # an invalid pattern skips its group
])
def test_matchers_are_always_a_javascript_regex(matcher: str, subject: str, matched: bool) -> None:
    assert unit_of("continue").dialect.matches("PreToolUse", matcher, subject) is matched


def test_it_reads_answers_more_loosely_than_claude() -> None:
    dialect = unit_of("continue").dialect
    # exit 2 with no stderr blocks with cn's own words; decision block blocks on any exit code.
    assert (dialect.decode("PreToolUse", outcome(2)).decision, dialect.decode("PreToolUse", outcome(2)).reason) == (
        "deny", "Blocked by hook")
    late = dialect.decode("Stop", outcome(1, '{"decision": "block"}', "why\n"))
    assert (late.decision, late.reason) == ("block", "why")
    # continue:false is never read; a JSON object without hookSpecificOutput is prompt context as printed.
    assert dialect.decode("PreToolUse", outcome(0, '{"continue": false}')).stop is False
    said = dialect.decode("UserPromptSubmit", outcome(0, '{"note": 1}'))
    assert said.additional_context == ('{"note": 1}',) and said.printed == ('{"note": 1}',)


@pytest.mark.vendor
def test_the_real_cn_runs_offline_and_fires_no_hook(tmp_path: Path) -> None:
    """The measurement every Continue row rests on (cn 1.5.47): the tool runs, no configured hook does."""
    from vendors.cn.lane import BINARY, run_cn

    assert (lane_dir() / BINARY).exists(), "run bash scripts/vendor_lane.sh"
    log = tmp_path / "hooks.log"
    hooks = {"hooks": {event: [{"matcher": "*", "hooks": [{"type": "command", "command": f"echo {event} >> {log}"}]}]
                       for event in ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")}}
    turns: list[dict[str, Any]] = [{"calls": [{"name": "Bash", "arguments": {"command": "echo ran > tool-ran.txt"}}]},
                                   {"text": "done"}]
    result = run_cn(tmp_path / "run", hooks, "run the lane step", turns)
    assert result["rc"] == 0 and not result["timed_out"], result
    assert (tmp_path / "run/proj/tool-ran.txt").read_text() == "ran\n"
    assert not log.exists(), log.read_text()
