"""Git worktrees as a host service: list them, and poll for worktrees added or removed.

Listing runs ``git worktree list --porcelain -z`` through GitPython's command wrapper in a worker
thread (GitPython is blocking). GitPython has no worktree API of its own, and we never touch the
object database, so no long-lived ``git cat-file`` helpers are spawned.

GitPython is imported inside the functions that use it: importing it looks for a ``git``
executable, which ``import compat_adapter`` must not pay for.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

import anyio

from compat_adapter.host.protocol import Worktree

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

__all__ = ("WorktreePoller", "list_worktrees", "parse_worktrees")

_log = logging.getLogger(__name__)

#: ``git worktree list`` names a checked-out branch by its full ref; the protocol carries the
#: branch name. A worktree can only have a local branch checked out, so stripping is lossless.
_HEADS = "refs/heads/"

_WorktreeChange = tuple[tuple[Worktree, ...], tuple[Worktree, ...]]


def parse_worktrees(porcelain: str, *, nul: bool = True) -> tuple[Worktree, ...]:
    """Parse ``git worktree list --porcelain`` output, main worktree first.

    :param porcelain: the command's stdout.
    :param nul: ``True`` for the ``-z`` form (fields end in NUL, records in an extra NUL),
        ``False`` for the newline form. Both give the same result.
    :returns: one :class:`Worktree` per record; ``head`` is the commit sha (``None`` for a bare
        repository), ``branch`` the short branch name (``None`` when detached or bare).
        Keys we do not need (``locked``, ``prunable`` …) are ignored.
    """
    found: list[Worktree] = []
    record: dict[str, str] = {}

    def flush() -> None:
        if "worktree" in record:
            branch = record.get("branch")
            if branch is not None and branch.startswith(_HEADS):
                branch = branch[len(_HEADS):]
            found.append(Worktree(path=record["worktree"], head=record.get("HEAD"), branch=branch))
        record.clear()

    for line in porcelain.split("\0" if nul else "\n"):
        if not line:
            flush()
            continue
        key, _, value = line.partition(" ")
        record[key] = value
    flush()
    return tuple(found)


def _list_blocking(cwd: Path) -> tuple[Worktree, ...]:
    import git

    try:
        repo = git.Repo(cwd, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return ()
    with repo:
        try:
            raw = repo.git.worktree("list", "--porcelain", "-z")
        except git.GitCommandError as exc:
            # `-z` needs git >= 2.36; older gits reject the option, so fall back to the newline
            # form (which cannot carry paths containing newlines, a rare loss).
            if "unknown switch" not in str(exc.stderr):
                raise
            return parse_worktrees(repo.git.worktree("list", "--porcelain"), nul=False)
    return parse_worktrees(raw)


async def list_worktrees(cwd: Path, *, limiter: anyio.CapacityLimiter | None = None
                         ) -> tuple[Worktree, ...]:
    """The worktrees of the repository containing ``cwd``, main worktree first.

    Returns ``()`` when ``cwd`` is not inside a git repository (or does not exist). Other git
    failures surface as GitPython's ``git.GitCommandError``.

    :param limiter: bounds concurrent git calls; :class:`WorktreePoller` passes a one-token limiter
        so its polls never pile up in the thread pool.
    """
    return await anyio.to_thread.run_sync(_list_blocking, Path(cwd), limiter=limiter)


class WorktreePoller:
    """Poll a repository's worktrees and report the ones added or removed.

    ``async with WorktreePoller(cwd, on_change) as poller:`` takes a baseline on entry (no
    callback), then polls every ``interval_s`` seconds in the background. Worktrees are compared
    by path: a worktree whose HEAD or branch moves is neither added nor removed, but the snapshot
    keeps the newest values, so a removed entry carries its last known head and branch.

    ``on_change(added, removed)`` is awaited outside the poller's lock, so it may call
    :meth:`poll_now`. A failing background poll or callback is logged and polling goes on.
    """

    def __init__(self, cwd: Path,
                 on_change: Callable[[tuple[Worktree, ...], tuple[Worktree, ...]], Awaitable[None]],
                 interval_s: float = 0.5) -> None:
        self._cwd = Path(cwd)
        self._on_change = on_change
        self._interval_s = interval_s
        self._known: dict[str, Worktree] | None = None
        self._lock = anyio.Lock()
        # One git call at a time per poller: a slow repository must not fill the thread pool.
        self._limiter = anyio.CapacityLimiter(1)
        self._task_group: TaskGroup | None = None

    @property
    def worktrees(self) -> tuple[Worktree, ...]:
        """The last snapshot (empty before the baseline)."""
        return tuple(self._known.values()) if self._known is not None else ()

    async def __aenter__(self) -> WorktreePoller:
        await self.poll_now()
        task_group = anyio.create_task_group()
        await task_group.__aenter__()
        self._task_group = task_group
        task_group.start_soon(self._run)
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> bool | None:
        task_group, self._task_group = self._task_group, None
        assert task_group is not None
        task_group.cancel_scope.cancel()
        # The body's exception is not handed to the task group, so it propagates as itself
        # instead of inside an ExceptionGroup.
        await task_group.__aexit__(None, None, None)
        return None

    async def poll_now(self) -> _WorktreeChange:
        """Poll once; return ``(added, removed)`` and, when either is non-empty, await
        ``on_change`` with them. The first poll only records the baseline and returns ``((), ())``.
        """
        async with self._lock:
            current = await list_worktrees(self._cwd, limiter=self._limiter)
            change = self._diff(current)
        if change[0] or change[1]:
            await self._on_change(*change)
        return change

    def _diff(self, current: Sequence[Worktree]) -> _WorktreeChange:
        now = {tree.path: tree for tree in current}
        previous, self._known = self._known, now
        if previous is None:
            return (), ()
        added = tuple(tree for path, tree in now.items() if path not in previous)
        removed = tuple(tree for path, tree in previous.items() if path not in now)
        return added, removed

    async def _run(self) -> None:
        while True:
            await anyio.sleep(self._interval_s)
            try:
                await self.poll_now()
            except Exception:
                _log.exception("worktree poll of %s failed", self._cwd)
