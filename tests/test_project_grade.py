"""Grading a project is a library function: the CLI prints what ``grade_project`` returns, nothing more.

Run on a real team's project (tests/teamproject.py: Claude, Codex, Copilot and CodeBuddy files side by
side, one script missing), the function's report and ``compat-adapter grade --json`` of the same folder
are the same document; the function takes its options as keywords, and it never reaches into the CLI.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compat_adapter.errors import UnknownVendor
from compat_adapter.project import grade_project
from tests.teamproject import build

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return build(tmp_path / "team")


def cli_report(folder: Path, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "compat_adapter", "grade", "--json", *args, str(folder)],
                          cwd=folder, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def test_the_cli_prints_the_library_report(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    report = grade_project([project], trust_all=True)
    assert report == cli_report(project, "--trust-all")
    vendors = set(report["vendors"])
    assert {"claude", "codex", "copilot", "workbuddy"} <= vendors
    # The missing script of the real project is a hook that cannot start, found by the function itself.
    assert report["cannot_start"] >= 1


def test_options_are_keywords_with_the_cli_meaning(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    only = grade_project([project], vendor="codex", trust_all=True, host="dsh")
    assert only["vendors"] == ["codex"] and only["host"] == "dsh"
    assert only == cli_report(project, "--trust-all", "--vendor", "codex", "--host", "dsh")
    untrusted = grade_project([project])  # nobody trusted these files: nothing of theirs runs
    assert untrusted != grade_project([project], trust_all=True)
    with pytest.raises(UnknownVendor):
        grade_project([project], vendor="claud")


def test_the_library_never_imports_the_cli() -> None:
    tree = ast.parse((ROOT / "compat_adapter" / "project.py").read_text(encoding="utf-8"))
    named = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    named |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not [m for m in named if m == "compat_adapter.cli" or m.startswith("compat_adapter.cli.")]
