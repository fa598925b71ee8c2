"""Ported permission rules (issue 38): written in the target's own permission block where the target
reads the source's rule text as written (Claude's ``permissions`` read by Qwen Code and CodeBuddy
Code), with the guard entry still refusing, in the source's reading, what the target's reading lets
through; a target with another format keeps the guard entry alone and says so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import trust

LAUNCHER = f"{sys.executable} -m compat_adapter"
RULES = {"permissions": {"deny": ["Bash(rm -rf *)"], "ask": ["Bash(git push:*)"], "allow": ["Bash(ls:*)"]}}
#: The team's own Qwen settings, written by hand: its own deny rule and a key beside the rules.
TEAM_QWEN = '{ "permissions": {"deny": ["Read(.env)"]},\n  "model": {"name": "team-model"} }\n'


@pytest.fixture(autouse=True)
def no_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPAT_ADAPTER_SHIM_SERVER", "off")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(RULES))
    trust("claude", settings)
    return tmp_path


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "compat_adapter", *args], capture_output=True, text=True,
                          env=os.environ.copy(), timeout=120)


def _call(project: Path, file: str, event: str, tool: str, command: str) -> subprocess.CompletedProcess[str]:
    groups = json.loads((project / file).read_text())["hooks"][event]
    entry = next(h["command"] for g in groups for h in g["hooks"] if " shim " in h["command"])
    stdin = json.dumps({"session_id": "s1", "cwd": str(project), "hook_event_name": event, "tool_name": tool,
                        "tool_input": {"command": command}})
    return subprocess.run(["/bin/sh", "-c", entry], input=stdin, capture_output=True, text=True, cwd=project,
                          timeout=120)


def test_claude_rules_land_in_qwens_own_permissions_block_beside_the_teams_own(project: Path) -> None:
    target = project / ".qwen" / "settings.json"
    target.parent.mkdir()
    target.write_text(TEAM_QWEN)
    done = cli("port", "--to", "qwen", str(project), "--json", "--launcher", LAUNCHER)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert {(r["behavior"], r["rule"]) for r in report["native_rules"]} == {
        ("deny", "Bash(rm -rf *)"), ("ask", "Bash(git push:*)"), ("allow", "Bash(ls:*)")}
    written = json.loads(target.read_text())
    assert written["permissions"]["deny"] == ["Read(.env)", "Bash(rm -rf *)"]
    assert written["permissions"]["allow"] == ["Bash(ls:*)"] and written["model"] == {"name": "team-model"}
    grades = {r["event"]: r for r in report["results"]}
    # The allow rule is carried now: in Qwen's own block it lifts Qwen's checks as it lifted Claude's.
    assert grades["rule:allow"]["capability"] == "ADAPTED"
    # What Qwen's reading does otherwise, measured by the two languages on probe calls: Qwen does not
    # unwrap `timeout 5`, and it weighs its rules before its hooks.
    deny_losses = {d["code"]: d["text"] for d in grades["rule:deny"]["degradations"]}
    assert "timeout 5 rm -rf build" in deny_losses["message-provenance"]
    assert "before its pre-tool hooks" in deny_losses["timing-differs"]
    # Qwen's own importer reads the rule back as one of Qwen's.
    from compat_adapter.importers.discover import import_all

    qwen = next(d for d in import_all(project, trust_all=True, vendors=["qwen"]) if d.result is not None)
    assert {r.text for r in qwen.result.permissions} >= {"Read(.env)", "Bash(rm -rf *)", "Bash(ls:*)"}
    # The guard leaves to Qwen what Qwen's own rule refuses, and refuses in Claude's reading what it misses.
    left = _call(project, ".qwen/settings.json", "PreToolUse", "run_shell_command", "rm -rf build")
    assert left.returncode == 0 and left.stdout == "", left.stdout
    caught = _call(project, ".qwen/settings.json", "PreToolUse", "run_shell_command", "timeout 5 rm -rf build")
    answer = json.loads(caught.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny" and "rm -rf build" in answer["permissionDecisionReason"]
    assert _call(project, ".qwen/settings.json", "PreToolUse", "run_shell_command", "ls -la").stdout == ""
    # Idempotent, and --check agrees; removal restores the team's bytes.
    assert cli("port", "--to", "qwen", str(project), "--launcher", LAUNCHER).returncode == 0
    assert cli("port", "--to", "qwen", str(project), "--check", "--launcher", LAUNCHER).returncode == 0
    assert cli("port", "--to", "qwen", str(project), "--remove").returncode == 0
    assert target.read_bytes() == TEAM_QWEN.encode()


def test_removal_after_the_team_edited_the_file_takes_out_only_ports_rules(project: Path) -> None:
    target = project / ".qwen" / "settings.json"
    target.parent.mkdir()
    target.write_text(json.dumps({"permissions": {"deny": ["Bash(rm -rf *)"]}}))  # the team had it already
    assert cli("port", "--to", "qwen", str(project), "--launcher", LAUNCHER).returncode == 0
    edited = json.loads(target.read_text())
    edited["permissions"]["deny"].append("Bash(curl:*)")
    target.write_text(json.dumps(edited))
    removed = cli("port", "--to", "qwen", str(project), "--remove")
    assert removed.returncode == 0 and "strip" in removed.stdout
    left = json.loads(target.read_text())
    # The team's own copy of the rule stays; port's ask and allow go, with its guard entry.
    assert left == {"permissions": {"deny": ["Bash(rm -rf *)", "Bash(curl:*)"]}}


def test_codebuddy_reads_the_rule_more_narrowly_and_the_guard_covers_the_gap(project: Path) -> None:
    done = cli("port", "--to", "workbuddy", str(project), "--json", "--launcher", LAUNCHER)
    assert done.returncode == 0, done.stderr
    assert json.loads((project / ".codebuddy/settings.json").read_text())["permissions"]["deny"] == ["Bash(rm -rf *)"]
    grades = {r["event"]: r for r in json.loads(done.stdout)["results"]}
    codes = {d["code"]: d["text"] for d in grades["rule:deny"]["degradations"]}
    # CodeBuddy 2.163.0: no unwrapping of `FOO=1`, and a hook's allow lifts a deny rule (measured, its unit).
    assert "FOO=1 rm -rf build" in codes["message-provenance"] and "lifts the rule" in codes["decision-narrowed"]
    caught = _call(project, ".codebuddy/settings.json", "PreToolUse", "Bash", "FOO=1 rm -rf build")
    assert json.loads(caught.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert _call(project, ".codebuddy/settings.json", "PreToolUse", "Bash", "rm -rf build").stdout == ""


@pytest.mark.parametrize("target", ["codex", "gemini", "copilot", "opencode"])
def test_a_target_with_another_rule_format_keeps_the_guard_entry_and_says_so(project: Path, target: str) -> None:
    done = cli("port", "--to", target, str(project), "--json", "--dry-run", "--launcher", LAUNCHER)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["native_rules"] == [] and report["entries"] == 1
    grades = {r["event"]: r for r in report["results"]}
    assert grades["rule:deny"]["capability"] == "ADAPTED"
    assert any("enforced by the ported hook entry" in d["text"] for d in grades["rule:deny"]["degradations"])
    assert grades["rule:allow"]["capability"] == "UNSUPPORTED"
