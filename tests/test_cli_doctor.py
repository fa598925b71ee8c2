"""`compat-adapter doctor`: one line per hook, whether it will run here and why not. Real CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import trust_project, write_script


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "compat_adapter.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=180, stdin=subprocess.DEVNULL, env=None)


def _project(root: Path) -> Path:
    (root / ".claude").mkdir(parents=True)
    guard = write_script(root / ".claude" / "guard.sh", "cat > /dev/null\n")
    hooks = {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": str(guard), "timeout": 5}]},
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/gone.sh"}]},
        {"matcher": "WebSearch", "hooks": [{"type": "command", "command": str(guard)}]}],
        "SubagentStop": [{"matcher": "code-reviewer", "hooks": [{"type": "command", "command": str(guard)}]}]}
    (root / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return root


def test_doctor_says_per_hook_whether_it_runs_and_why_not(tmp_path: Path) -> None:
    project = _project(tmp_path / "p")
    trust_project("claude", project)
    done = cli("doctor", ".", "--json", cwd=project)
    assert done.returncode == 1, done.stderr  # some hooks would not run
    hooks = json.loads(done.stdout)["hooks"]
    assert [(h["event"], h["matcher"], h["runs"], h["failed"]) for h in hooks] == [
        ("PreToolUse", "Bash", True, None), ("PreToolUse", "Bash", False, "starts"),
        ("PreToolUse", "WebSearch", False, "fires"), ("SubagentStop", "code-reviewer", False, "fires")]
    runs = hooks[0]
    assert runs["passed"] == ["found", "trusted", "supported", "starts", "fires"]
    # Claude reads a guard's exit 1 as a non-blocking error: a crash lets the call through.
    assert runs["crash"] == "the call goes ahead (fails open)" and runs["timeout_s"] == 5
    assert "fails open" in hooks[1]["why"] and "never fires" in hooks[2]["why"]
    assert "agent_type 'default'" in hooks[3]["why"]
    text = cli("doctor", ".", cwd=project).stdout
    assert len([line for line in text.splitlines() if line.startswith(("RUNS", "WON'T RUN"))]) == 4
    assert "1 of 4 would run on embedded" in " ".join(text.split())


def test_doctor_names_untrusted_hooks_and_the_command_that_trusts_them(tmp_path: Path) -> None:
    project = _project(tmp_path / "p")
    hooks = json.loads(cli("doctor", "--json", cwd=project).stdout)["hooks"]
    assert {h["failed"] for h in hooks} == {"trusted"} and len(hooks) == 4
    assert all("compat-adapter trust ." in h["why"] for h in hooks)


def test_doctor_on_a_clean_project_exits_0_and_on_an_unusable_file_2(tmp_path: Path) -> None:
    clean = tmp_path / "clean"
    (clean / ".claude").mkdir(parents=True)
    guard = write_script(clean / "g.sh", "cat > /dev/null\n")
    (clean / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"Stop": [
        {"hooks": [{"type": "command", "command": str(guard)}]}]}}))
    trust_project("claude", clean)
    ok = cli("doctor", cwd=clean)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.startswith("RUNS claude Stop .claude/settings.json:1")
    broken = tmp_path / "broken"
    (broken / ".claude").mkdir(parents=True)
    (broken / ".claude" / "settings.json").write_text("{not json")
    bad = cli("doctor", "--json", cwd=broken)
    assert bad.returncode == 2
    assert json.loads(bad.stdout)["hooks"][0]["why"].startswith("CONFIG_PARSE_ERROR")


def test_doctor_on_a_missing_folder_is_a_stable_error(tmp_path: Path) -> None:
    done = cli("doctor", "nowhere", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("NO_SUCH_PATH: ")
