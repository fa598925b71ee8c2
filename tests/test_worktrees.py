"""Worktree listing and polling against real git repositories: no fakes."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import anyio

from compat_adapter.host.protocol import Worktree
from compat_adapter.runtime.worktrees import WorktreePoller, list_worktrees, parse_worktrees

SHA = re.compile(r"[0-9a-f]{40}")


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", "-C", str(repo), *args], check=True, env=env,
                          capture_output=True, text=True)
    return done.stdout.strip()


class Changes:
    """Records poller callbacks; `next()` waits (bounded) for the next one."""

    def __init__(self) -> None:
        self.calls: list[tuple[tuple[Worktree, ...], tuple[Worktree, ...]]] = []
        self._arrived = anyio.Event()

    async def __call__(self, added: tuple[Worktree, ...], removed: tuple[Worktree, ...]) -> None:
        self.calls.append((added, removed))
        self._arrived.set()
        self._arrived = anyio.Event()

    async def next(self, count: int) -> tuple[tuple[Worktree, ...], tuple[Worktree, ...]]:
        with anyio.fail_after(15):
            while len(self.calls) < count:
                await self._arrived.wait()
        return self.calls[count - 1]


async def test_lists_the_main_worktree_from_anywhere_inside(git_repo: Path) -> None:
    head = git(git_repo, "rev-parse", "HEAD")
    expected = (Worktree(path=str(git_repo.resolve()), head=head, branch="main"),)
    assert await list_worktrees(git_repo) == expected
    (git_repo / "sub" / "dir").mkdir(parents=True)
    assert await list_worktrees(git_repo / "sub" / "dir") == expected


async def test_outside_a_repository_there_are_none(tmp_path: Path) -> None:
    assert await list_worktrees(tmp_path) == ()
    assert await list_worktrees(tmp_path / "missing") == ()


async def test_linked_and_detached_worktrees_are_listed(git_repo: Path, tmp_path: Path) -> None:
    head = git(git_repo, "rev-parse", "HEAD")
    git(git_repo, "worktree", "add", "-b", "feature", str(tmp_path / "wt"))
    git(git_repo, "worktree", "add", "--detach", str(tmp_path / "wt2"), "HEAD")
    listed = await list_worktrees(tmp_path / "wt")  # from inside a linked worktree too
    assert listed == (
        Worktree(path=str(git_repo.resolve()), head=head, branch="main"),
        Worktree(path=str((tmp_path / "wt").resolve()), head=head, branch="feature"),
        Worktree(path=str((tmp_path / "wt2").resolve()), head=head, branch=None),
    )


def test_parse_agrees_on_both_porcelain_forms() -> None:
    newline = ("worktree /r/main\nHEAD " + "a" * 40 + "\nbranch refs/heads/main\n\n"
               "worktree /r/wt\nHEAD " + "b" * 40 + "\ndetached\nlocked ci\n\n"
               "worktree /r/bare\nbare\n")
    nul = newline.replace("\n", "\0")
    expected = (Worktree("/r/main", "a" * 40, "main"), Worktree("/r/wt", "b" * 40, None),
                Worktree("/r/bare", None, None))
    assert parse_worktrees(newline, nul=False) == expected
    assert parse_worktrees(nul) == expected


async def test_the_poller_sees_a_worktree_added_then_removed(git_repo: Path,
                                                             tmp_path: Path) -> None:
    changes = Changes()
    linked = tmp_path / "linked"
    async with WorktreePoller(git_repo, changes, interval_s=0.1) as poller:
        assert [tree.branch for tree in poller.worktrees] == ["main"]  # the baseline
        git(git_repo, "worktree", "add", "-b", "topic", str(linked))
        added, removed = await changes.next(1)
        head = git(linked, "rev-parse", "HEAD")
        assert added == (Worktree(path=str(linked.resolve()), head=head, branch="topic"),)
        assert removed == ()

        git(git_repo, "worktree", "remove", str(linked))
        added, removed = await changes.next(2)
        assert added == ()
        assert removed == (Worktree(path=str(linked.resolve()), head=head, branch="topic"),)
    assert len(changes.calls) == 2


async def test_poll_now_reports_once_and_calls_back(git_repo: Path, tmp_path: Path) -> None:
    changes = Changes()
    # A long interval: only poll_now polls during the test.
    async with WorktreePoller(git_repo, changes, interval_s=3600) as poller:
        assert await poller.poll_now() == ((), ())
        git(git_repo, "worktree", "add", "--detach", str(tmp_path / "d"), "HEAD")
        added, removed = await poller.poll_now()
        assert [(tree.path, tree.branch) for tree in added] == [
            (str((tmp_path / "d").resolve()), None)]
        assert removed == ()
        assert changes.calls == [(added, removed)]
        assert await poller.poll_now() == ((), ())
    assert len(changes.calls) == 1


async def test_a_poller_outside_a_repository_sees_one_appear(tmp_path: Path) -> None:
    changes = Changes()
    async with WorktreePoller(tmp_path, changes, interval_s=3600) as poller:
        assert poller.worktrees == ()
        git(tmp_path, "init", "-q", "-b", "trunk")
        git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@example.invalid",
            "commit", "-q", "--allow-empty", "-m", "init")
        added, removed = await poller.poll_now()
    assert [(tree.path, tree.branch) for tree in added] == [(str(tmp_path.resolve()), "trunk")]
    assert SHA.fullmatch(added[0].head or "")
    assert removed == ()
