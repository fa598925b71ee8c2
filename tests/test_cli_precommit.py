"""`.pre-commit-hooks.yaml` under the real pre-commit (from PyPI, the test extra), offline.

pre-commit would install a `language: python` hook from the repository into a virtualenv of its own,
which needs the package index; here the manifest's own hook (its id, entry, files pattern and
arguments, read from the file) runs as a `repo: local` hook of `language: system` with this
environment's `compat-adapter` on PATH, in a temporary git repository: a commit of a hook file
with a disarmed guard is refused, a clean one passes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from compat_adapter.importers.discover import discover

ROOT = Path(__file__).resolve().parents[1]
[MANIFEST] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    for args in (("init", "-q", "-b", "main"), ("config", "user.name", "t"), ("config", "user.email", "t@t.invalid")):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
    local = {"id": MANIFEST["id"], "name": MANIFEST["name"], "entry": MANIFEST["entry"], "language": "system",
             "files": MANIFEST["files"], "pass_filenames": MANIFEST["pass_filenames"]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": "local", "hooks": [local]}]}))
    return repo


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "GIT_CONFIG_NOSYSTEM": "1"}


def _settings(repo: Path, command: str) -> None:
    (repo / ".claude").mkdir(exist_ok=True)
    (repo / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]}}, indent=2))


def _commit(repo: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = _env(tmp_path)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    return subprocess.run(["git", "commit", "-q", "-m", "hooks"], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=300)


def test_the_manifest_is_pre_commits_and_runs_grade_strict() -> None:
    assert MANIFEST["id"] == "compat-adapter-grade" and MANIFEST["language"] == "python"
    assert MANIFEST["entry"].split()[:3] == ["compat-adapter", "grade", "--strict"]
    done = subprocess.run([sys.executable, "-m", "pre_commit", "validate-manifest", ".pre-commit-hooks.yaml"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_files_pattern_takes_every_vendors_hook_file_and_no_rules(tmp_path: Path) -> None:
    """A project holding every vendor's documented hook files (and a plugin): each file a vendor
    reads there matches the pattern, and no rules file does."""
    pattern = re.compile(MANIFEST["files"])
    names = (".claude/settings.json", ".claude/settings.local.json", ".codex/hooks.json", ".codex/config.toml",
             ".github/hooks/ci.json", ".github/copilot/settings.json", ".gemini/settings.json", ".qwen/settings.json",
             ".cursor/hooks.json", ".codebuddy/settings.json", ".workbuddy/settings.json", "opencode.json",
             ".factory/hooks.json", ".factory/settings.json", ".continue/settings.json", "crush.json", ".windsurf/hooks.json",
             ".clinerules/hooks/PreToolUse",
             ".opencode/opencode.json", "hooks/hooks.json", ".claude-plugin/plugin.json",
             "AGENTS.md", "CLAUDE.md", "GEMINI.md", "QWEN.md", ".cursor/rules/a.mdc")
    for name in names:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text('{"name": "p"}' if name.endswith("plugin.json") else "{}")
    seen = set()
    for vendor, files in discover(tmp_path, shared="all").items():
        for f in files:
            name = f.relative_to(tmp_path).as_posix()
            if f.suffix in (".md", ".mdc"):
                assert not pattern.search(name), name
                continue
            assert pattern.search(name), (vendor, name)
            seen.add(vendor)
    from compat_adapter.catalog import vendors

    # Kimi Code reads hooks only from the user's ~/.kimi config.toml: a project holds none of its hook files.
    assert seen | {"kimi"} == {s.id for s in vendors()}


def test_a_commit_of_a_disarmed_guard_is_refused_and_a_clean_one_passes(repo: Path, tmp_path: Path) -> None:
    env = _env(tmp_path)
    installed = subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=repo, env=env,
                               capture_output=True, text=True)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    # A guard whose script is not in the repository: it cannot start, Claude lets every call through.
    _settings(repo, "$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh")
    refused = _commit(repo, tmp_path)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    said = " ".join((refused.stdout + refused.stderr).split())
    assert "compat-adapter grade --strict" in said and "Failed" in said and "fails open" in said
    assert subprocess.run(["git", "log", "--oneline"], cwd=repo, capture_output=True, text=True).stdout == ""
    # The script committed beside it: the guard starts, nothing disarms it.
    (repo / ".claude" / "hooks").mkdir()
    guard = repo / ".claude" / "hooks" / "guard.sh"
    guard.write_text("#!/bin/sh\ncat > /dev/null\n")
    guard.chmod(0o755)
    passed = _commit(repo, tmp_path)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout + passed.stderr


def test_pre_commit_run_on_a_file_with_a_hook_that_never_fires_fails(repo: Path, tmp_path: Path) -> None:
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"SubagentStop": [
        {"matcher": "code-reviewer", "hooks": [{"type": "command", "command": "true"}]}]}}))
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    done = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--files", ".claude/settings.json"], cwd=repo,
                          env=_env(tmp_path), capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and "never fires" in " ".join(done.stdout.split()), done.stdout + done.stderr
