"""`run` and `explain` run hooks in a scratch copy of the project unless --in-place; session scripts
take the vendor's tool names; an unusable file or an unknown tool is exit 2 in every command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import trust_project, write_script


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "compat_adapter.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)


def _project(root: Path) -> Path:
    """A project whose PreToolUse hook cleans the build folder, as a careless team's does."""
    (root / ".claude").mkdir(parents=True)
    (root / "build").mkdir()
    (root / "build" / "keep.txt").write_text("precious\n")
    write_script(root / ".claude" / "clean.sh", "cat > /dev/null\nrm -rf build\necho ran > hook-ran.txt\n")
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": '"$CLAUDE_PROJECT_DIR"/.claude/clean.sh'}]}]}
    (root / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    trust_project("claude", root)
    return root


def _script(root: Path, tool: str, arguments: dict[str, str]) -> str:
    (root / "session.json").write_text(json.dumps([{"text": "Working.", "tools": [{"name": tool, "arguments": arguments}]},
                                                  "Done."]))
    return "session.json"


def test_run_works_on_a_scratch_copy_and_says_so(tmp_path: Path) -> None:
    project = _project(tmp_path / "p")
    done = cli("run", ".", "--script", _script(project, "Bash", {"command": "touch listed"}), cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (project / "build" / "keep.txt").read_text() == "precious\n"
    assert not (project / "hook-ran.txt").exists() and not (project / "listed").exists()
    assert "ran in a scratch copy of ." in " ".join(done.stdout.split())
    ran = json.loads(cli("run", ".", "--json", "--script", "session.json", cwd=project).stdout)
    assert any(r["seam"] == "PreToolUse" for r in ran["timeline"]) and ran["in_place"] is False


def test_run_in_place_runs_in_the_project(tmp_path: Path) -> None:
    project = _project(tmp_path / "p")
    done = cli("run", ".", "--in-place", "--script", _script(project, "bash", {"command": "touch listed"}),
               cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (project / "build").exists() and (project / "hook-ran.txt").exists() and (project / "listed").exists()


def test_explain_works_on_a_scratch_copy_unless_in_place(tmp_path: Path) -> None:
    project = _project(tmp_path / "p")
    args = ("explain", "--vendor", "claude", "--tool", "Bash", "--input", '{"command": "ls"}', "--json")
    done = cli(*args, cwd=project)
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    assert report["hooks"] and str(tmp_path) in json.dumps(report) and "compat-adapter-scratch" not in done.stdout
    assert (project / "build" / "keep.txt").exists() and not (project / "hook-ran.txt").exists()
    cli(*args, "--in-place", cwd=project)
    assert not (project / "build").exists() and (project / "hook-ran.txt").exists()


@pytest.mark.parametrize("tool,arguments", [("Read", {"file_path": "notes.txt"}), ("read", {"path": "notes.txt"})])
def test_session_scripts_take_the_vendors_tool_names_and_the_hosts(tmp_path: Path, tool: str,
                                                                     arguments: dict[str, str]) -> None:
    project = _project(tmp_path / "p")
    (project / "notes.txt").write_text("NOTE-TEXT\n")
    done = cli("run", ".", "--json", "--script", _script(project, tool, arguments), cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "NOTE-TEXT" in done.stdout


def test_an_unknown_tool_is_exit_2_in_run_and_in_explain(tmp_path: Path) -> None:
    project = _project(tmp_path / "p")
    run = cli("run", ".", "--script", _script(project, "Frobnicate", {}), cwd=project)
    assert run.returncode == 2 and run.stderr.startswith("SCRIPT_ERROR: unknown tool 'Frobnicate'")
    explain = cli("explain", "--vendor", "claude", "--tool", "Bsh", "--input", "{}", cwd=project)
    assert explain.returncode == 2 and explain.stderr.startswith("BAD_ARGUMENT: unknown tool 'Bsh' for claude "
                                                                 "(did you mean 'Bash'?)")


def test_an_unusable_file_is_exit_2_in_every_command(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text("{not json")
    script = _script(project, "bash", {"command": "true"})
    for args in (("grade", "."), ("hooks", "."), ("doctor", "."), ("trust", ".", "--yes"),
                 ("run", ".", "--script", script), ("explain", "--vendor", "claude", "--tool", "Bash", "--input", "{}")):
        done = cli(*args, cwd=project)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert "CONFIG_PARSE_ERROR" in done.stdout + done.stderr, args
        assert "compat-adapter-scratch" not in done.stdout + done.stderr, args
