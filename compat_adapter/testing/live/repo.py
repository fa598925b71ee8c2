"""The real git repository a row check works in: one commit, the identity in its own config."""

from __future__ import annotations

import os
from pathlib import Path

import anyio

__all__ = ("git", "make_repo", "reset_repo")


async def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"}
    result = await anyio.run_process(["git", *args], cwd=cwd, env=env, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {result.stderr.decode(errors='replace')}")
    return result.stdout.decode(errors="replace")


async def make_repo(root: Path) -> Path:
    """A real git repository with one commit; the identity lives in its own config."""
    root.mkdir(parents=True)
    await git(root, "init", "-q", "-b", "main")
    await git(root, "config", "user.name", "compat-adapter verify")
    await git(root, "config", "user.email", "verify@compat-adapter.invalid")
    (root / "README.md").write_text("verify\n", encoding="utf-8")
    await git(root, "add", "README.md")
    await git(root, "commit", "-q", "-m", "init")
    return root


async def reset_repo(root: Path) -> None:
    """Back to its one commit: what a previous check changed or added is gone (its worktrees and
    branches too: a worktree check adds both)."""
    await git(root, "reset", "-q", "--hard")
    await git(root, "clean", "-qfdx")
    listed = await git(root, "worktree", "list", "--porcelain")
    for line in listed.splitlines():
        path = line.removeprefix("worktree ")
        if line.startswith("worktree ") and Path(path).resolve() != root.resolve():
            await git(root, "worktree", "remove", "--force", path)
    await git(root, "worktree", "prune")
    for branch in (await git(root, "for-each-ref", "--format=%(refname:short)", "refs/heads")).split():
        if branch != "main":
            await git(root, "branch", "-q", "-D", branch)
