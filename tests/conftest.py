"""Shared fixtures: real temporary git repositories and a few helpers for hook scripts."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def write_script(path: Path, body: str) -> Path:
    """Write an executable shell script and return its path."""
    path.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """A real git repository with one commit; identity set locally, never globally."""
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    run = lambda *a: subprocess.run(["git", *a], cwd=repo, check=True, env=env,  # noqa: E731
                                    capture_output=True)
    run("init", "-q", "-b", "main")
    run("config", "user.name", "compat-adapter tests")
    run("config", "user.email", "tests@compat-adapter.invalid")
    (repo / "README.md").write_text("hello\n")
    run("add", "README.md")
    run("commit", "-q", "-m", "init")
    return repo
