"""Permission rules in every listing: ``grade``, ``explain``, ``hooks``, ``matrix`` and the trust
review name each rule, where it is declared and what the host does with it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RULES = {"deny": ["Bash(rm -rf *)", "WebFetch(domain:example.com)"], "ask": ["Bash(git push:*)"]}


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "compat_adapter.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=180, env=env, stdin=subprocess.DEVNULL)


def guarded(tmp_path: Path, permissions: dict[str, Any] | None = None) -> Path:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude/settings.json").write_text(json.dumps({"permissions": permissions or RULES}))
    (tmp_path / "build").mkdir()
    return tmp_path


def test_grade_lists_every_rule_with_its_grade(tmp_path: Path) -> None:
    done = cli("grade", "--json", ".", cwd=guarded(tmp_path))
    assert done.returncode == 0, done.stderr
    rows = [(r["event"], r["matcher"], r["capability"]) for r in json.loads(done.stdout)["rows"]]
    assert rows == [("permissions.deny", "Bash(rm -rf *)", "ADAPTED"),
                    ("permissions.deny", "WebFetch(domain:example.com)", "UNSUPPORTED"),
                    ("permissions.ask", "Bash(git push:*)", "ADAPTED")]
    text = cli("grade", ".", cwd=tmp_path).stdout
    assert "permissions.deny[Bash(rm -rf *)]" in text and "no host tool stands for claude's WebFetch" in text


def test_explain_shows_claude_refusing_the_call_and_the_host_refusing_it(tmp_path: Path) -> None:
    root = guarded(tmp_path, {"deny": ["Bash(rm -rf *)"]})
    done = cli("explain", "--vendor", "claude", "--tool", "Bash", "--input", '{"command":"rm -rf build"}', "--json",
               cwd=root)
    assert done.returncode == 0, done.stderr
    rules = json.loads(done.stdout)["permissions"]
    refused = "Permission to use Bash with command rm -rf build has been denied."
    for side in (rules["vendor"], rules["host"]):
        assert (side["decision"], side["rule"], side["decided_by"], side["reads"]) == \
            ("deny", "Bash(rm -rf *)", "rule", refused)
    assert [(r["rule"], r["matches"]) for r in rules["rules"]] == [("Bash(rm -rf *)", True)]
    human = cli("explain", "--vendor", "claude", "--tool", "Bash", "--input", '{"command":"rm -rf build"}', cwd=root)
    assert "Claude Code refuses the call" in human.stdout and "host embedded refuses the call" in human.stdout
    other = cli("explain", "--vendor", "claude", "--tool", "Bash", "--input", '{"command":"ls"}', "--json", cwd=root)
    assert json.loads(other.stdout)["permissions"]["host"]["decision"] == "none"


def test_explain_weighs_a_hooks_allow_against_a_rule_as_codebuddy_does(tmp_path: Path) -> None:
    # CodeBuddy lets a PreToolUse hook's allow lift a deny rule (measured); so does the host's guard
    # for a hook the adapter runs itself (routing.allowed).
    (tmp_path / ".codebuddy").mkdir()
    allow = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}
    settings = {"permissions": {"deny": ["Bash(rm -rf *)"]},
                "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                    {"type": "command", "command": f"echo '{json.dumps(allow)}'"}]}]}}
    (tmp_path / ".codebuddy/settings.json").write_text(json.dumps(settings))
    done = cli("explain", "--vendor", "workbuddy", "--tool", "Bash", "--input", '{"command":"rm -rf build"}',
               "--json", "--trust-all", cwd=tmp_path)
    report = json.loads(done.stdout)
    rules = report["permissions"]
    assert (rules["vendor"]["decision"], rules["vendor"]["decided_by"]) == ("allow", "hook")
    assert (rules["host"]["decision"], rules["host"]["decided_by"]) == ("allow", "hook")
    assert not any(d.startswith("permission rules:") for d in report["differences"]), report["differences"]


def test_hooks_and_the_trust_review_list_the_rules(tmp_path: Path) -> None:
    root = guarded(tmp_path)
    listed = json.loads(cli("hooks", "--json", cwd=root).stdout)["hooks"]
    assert [(h["event"], h["command"]) for h in listed] == [
        ("permissions.deny", "Bash(rm -rf *)"), ("permissions.deny", "WebFetch(domain:example.com)"),
        ("permissions.ask", "Bash(git push:*)")]
    review = cli("trust", "--json", ".claude/settings.json", cwd=root)
    # The review comes first; trusting then stops for want of a terminal (rules need no trust).
    seen, _ = json.JSONDecoder().raw_decode(review.stdout)
    assert [p["rule"] for p in seen["files"][0]["permissions"]] == ["Bash(rm -rf *)", "WebFetch(domain:example.com)",
                                                           "Bash(git push:*)"]


def test_the_matrix_grades_each_rule_language(tmp_path: Path) -> None:
    done = cli("matrix", "--format", "json", cwd=tmp_path)
    rows = json.loads(done.stdout)["permissions"]
    claude = {(r["event"], r["matcher"]): r["capability"] for r in rows if r["vendor"] == "claude"}
    assert claude[("permissions.deny", "Bash(rm -rf *)")] == "ADAPTED"
    assert claude[("permissions.deny", "mcp__github")] == "UNSUPPORTED"
    assert {r["vendor"] for r in rows} >= {"claude", "workbuddy"}


def test_codex_prefix_rules_are_listed_as_permission_rules(tmp_path: Path) -> None:
    (tmp_path / ".codex/rules").mkdir(parents=True)
    (tmp_path / ".codex/rules/default.rules").write_text(
        'prefix_rule(pattern = ["rm", ["-rf", "-fr"]], decision = "forbidden")\n'
        'prefix_rule(pattern = ["git", "push"], decision = "prompt")\n')
    done = cli("grade", "--json", ".", cwd=tmp_path)
    rows = [(r["event"], r["matcher"], r["capability"]) for r in json.loads(done.stdout)["rows"]
            if r["event"].startswith("permissions.")]
    assert rows == [("permissions.deny", "prefix_rule(rm -fr|-rf)", "ADAPTED"),
                    ("permissions.ask", "prefix_rule(git push)", "ADAPTED")]
