"""The main job on the embedded host: the example preset in a real git repository, one scripted
session, and the timeline of what each hook did.

The session: a prompt; a write under ``prod/`` that Claude's PreToolUse hook blocks through the
official bridge; ``git status``, which Copilot's hook sends to approval and Claude's
PermissionRequest hook approves; a command whose result gets context from Claude's PostToolUse
hook; ``rm -rf`` that Copilot's built-in bridge denies; a stop that Codex's Stop hook blocks once;
then an outside file edit (FileChanged) and a new git worktree (WorktreeCreate).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

from compat_adapter.examples.preset import PRESET, PROJECT
from compat_adapter.host.embedded.memory import MemoryHost
from compat_adapter.host.script import Reply, call
from compat_adapter.model import Frozen
from compat_adapter.presets import apply_preset
from compat_adapter.service import CompatAdapter, Status
from compat_adapter.cli.timeline import TimelineRow, build_timeline

__all__ = ("DemoReport", "prepare_repository", "run_demo", "run_session")


class DemoReport(Frozen):
    workdir: str
    turn_reasons: tuple[str, ...]
    timeline: tuple[TimelineRow, ...]
    status: Status
    hook_runs: int
    """Lines the example hooks wrote to the trace file: proof they ran as processes."""


def _git(repo: Path, *args: str) -> None:
    # The user's own git configuration stays out of the demo repository.
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo.parent),
           "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)


def prepare_repository(root: Path) -> Path:
    """A real git repository holding the example project's rules files, with one commit."""
    repo = root / "repo"
    shutil.copytree(PROJECT, repo)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.name", "compat-adapter demo")
    _git(repo, "config", "user.email", "demo@compat-adapter.invalid")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "example project")
    return repo


def _script() -> list[Any]:
    return [
        Reply(text="I will set up the config.",
              calls=(call("write", path="prod/config.yml", content="debug: true\n"),)),
        Reply(text="Checking the repository.", calls=(call("bash", command="git status --short"),)),
        Reply(calls=(call("bash", command="echo tests pass"),)),
        Reply(text="Cleaning up.", calls=(call("bash", command="rm -rf build"),)),
        "Done.",
        "Tests checked again. Done.",
    ]


async def run_session(adapter: CompatAdapter, script: list[Any], prompts: list[str],
                      progress: Callable[[str], None] | None = None) -> tuple[list[str], Any]:
    """Run ``prompts`` as turns of one agent with ``script``; returns the turn reasons and the agent."""
    host = adapter.host
    agent = await host.create_agent(script=script)  # type: ignore[attr-defined]
    reasons = []
    for prompt in prompts:
        if progress:
            progress(f"turn: {prompt}")
        result = await agent.run_turn(prompt)
        reasons.append(result.reason)
    await host.settle()
    return reasons, agent


async def run_demo(workdir: Path | None = None, progress: Callable[[str], None] | None = None
                   ) -> DemoReport:
    """Run the whole demo; ``workdir`` (default: a fresh temporary folder) keeps the files."""
    own_tmp = workdir is None
    root = Path(workdir) if workdir is not None else Path(tempfile.mkdtemp(prefix="compat-adapter-demo-"))
    try:
        repo = prepare_repository(root)
        trace = root / "hook-trace.jsonl"
        # The example hooks append to this file, proving they ran as processes.
        os.environ["COMPAT_DEMO_TRACE"] = str(trace)
        async with MemoryHost(repo, log_dir=root / "sessions") as host:
            async with CompatAdapter(host, state_dir=str(root / "bridges")) as adapter:
                if progress:
                    progress("registering the example preset (5 vendors)")
                await apply_preset(adapter, PRESET)
                reasons, agent = await run_session(adapter, _script(), ["Set up the project config."],
                                                   progress)
                if progress:
                    progress("an outside edit and a new worktree")
                (repo / "notes.txt").write_text("edited outside the agent\n")
                _git(repo, "worktree", "add", "-q", "-b", "demo-branch", str(root / "worktree"))
                await _wait_for(adapter, {"fs/watch", "git/worktrees"})
                timeline = build_timeline(agent.session.events, adapter.audit)
                status = adapter.status()
        runs = len(trace.read_text().splitlines()) if trace.exists() else 0
        return DemoReport(workdir=str(root), turn_reasons=tuple(reasons), timeline=timeline,
                          status=status, hook_runs=runs)
    finally:
        os.environ.pop("COMPAT_DEMO_TRACE", None)
        if own_tmp:
            shutil.rmtree(root, ignore_errors=True)


async def _wait_for(adapter: CompatAdapter, points: set[str], limit_s: float = 15.0) -> None:
    """Wait until each service point has run at least once (watchers and pollers are asynchronous)."""
    with anyio.move_on_after(limit_s):
        while not points <= {r.point for r in adapter.audit}:
            await anyio.sleep(0.1)
    await adapter.host.settle()
