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


@pytest.fixture(autouse=True)
def trust_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test has its own private state folder (the trust store): the user's own is never read
    or written, and nothing trusted in one test is trusted in another."""
    home = tmp_path_factory.mktemp("state-home")
    monkeypatch.setenv("COMPAT_ADAPTER_STATE_HOME", str(home))
    return home


def trust(vendor: str, *paths: str | Path) -> None:
    """Trust a test's own fixture files explicitly, through the real store, as a user would with
    `compat-adapter trust`: the record names this helper as the command that did it."""
    from compat_adapter.importers.gate import trust_files

    trust_files(vendor, paths, command="tests/conftest.py: trust(fixtures written by the test)")


def trust_project(vendor: str, root: Path) -> None:
    """Trust every default file of ``vendor`` under a test's own project folder explicitly."""
    from compat_adapter.catalog import resolve_vendor
    from compat_adapter.importers.gate import importer_for

    trust(vendor, *importer_for(resolve_vendor(vendor).id).project_files(Path(root)))


@pytest.fixture(scope="session")
def lane(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The vendor lane, run once per session: every scenario under the real vendor CLI (offline) and
    on the embedded host, by case name (``suite.CaseResult``). Shared by test_vendor_lane.py and
    test_explain_lane.py so that the real CLIs run once."""
    from compat_adapter.testing.lane.suite import run_suite

    done = subprocess.run(["bash", str(Path(__file__).resolve().parents[1] / "scripts" / "vendor_lane.sh")],
                          capture_output=True, text=True)
    assert done.returncode == 0, f"scripts/vendor_lane.sh failed:\n{done.stdout}\n{done.stderr}"
    # The embedded side trusts each scenario's config in a private trust store, never the user's.
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COMPAT_ADAPTER_STATE_HOME", str(tmp_path_factory.mktemp("lane-state-home")))
        results, _ = run_suite(root=tmp_path_factory.mktemp("vendor-lane"))
    return {r.case.name: r for r in results}


@pytest.fixture(scope="session")
def plugin_runtime() -> None:
    """The OpenCode plugin runtime, installed by the project's own set-up script: a no-op check when
    it is there (``.ci/run`` runs it first), an npm install from a fresh clone. Never a skip."""
    from vendors.opencode.plugin_host.lane import lane as plugin_lane

    done = subprocess.run(["bash", str(Path(__file__).resolve().parents[1] / "scripts" / "plugin_lane.sh")],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"scripts/plugin_lane.sh failed:\n{done.stdout}\n{done.stderr}"
    assert plugin_lane().installed


@pytest.fixture(scope="session")
def toolchain() -> Path:
    """The programs real teams' hooks start (scripts/toolchain_lane.sh, which links the DSH lane's
    pnpm and the plugin lane's Bun, so those two go first): a no-op check when ``.ci/run`` installed
    them, an install from a fresh clone. Never a skip. Its ``bin`` folder."""
    from compat_adapter.testing.realconfig.install import toolchain_bin

    scripts = Path(__file__).resolve().parents[1] / "scripts"
    for lane in ("dsh_lane.sh", "plugin_lane.sh", "toolchain_lane.sh"):
        done = subprocess.run(["bash", str(scripts / lane)], capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"scripts/{lane} failed:\n{done.stdout}\n{done.stderr}"
    folder = toolchain_bin()
    assert folder is not None, "scripts/toolchain_lane.sh left no bin folder"
    return folder


def running(pid: int) -> bool:
    """Whether ``pid`` still runs: a zombie has stopped (only its reaping is left, and in a
    container without an init that reaps, that may never come)."""
    try:
        stat_line = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat_line.rpartition(")")[2].split()[0] != "Z"
