"""Points a host service calls back: file changes, git worktrees, shell variables.

Each is armed once, when the first hook mounts on its point; :func:`arm` returns what closes it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from compat_adapter.host.protocol import ToolExecution, Worktree
from compat_adapter.routing import points
from compat_adapter.routing.dispatch import HookEntry, Keep, Runner

__all__ = ("DEBOUNCE_MS", "WORKTREE_POLL_S", "arm")

#: Poll interval of the git worktree points.
WORKTREE_POLL_S = 0.5
#: Quiet time before a burst of file changes is reported.
DEBOUNCE_MS = 250

Closer = Callable[[], Awaitable[None]]


async def arm(runner: Runner, point: points.Point, owner: str) -> Closer | None:
    """Start the host service behind ``point`` for this runner; None when it needs no start."""
    host = runner.host
    if point.service == points.FS_WATCH.service:
        return await host.watch(host.cwd, lambda paths: _files_changed(runner, paths), debounce_ms=DEBOUNCE_MS,
                                user=owner)
    if point.service == points.WORKTREES.service:
        return await host.watch_worktrees(host.cwd, lambda added, removed: _worktrees(runner, added, removed),
                                          interval_s=WORKTREE_POLL_S, user=owner)
    if point.service == points.SHELL_ENV.service:
        unregister = host.register_shell_env(f"compat-adapter-{owner}", lambda e: _shell_env(runner, e))

        async def close() -> None:
            unregister()
        return close
    return None


async def _files_changed(runner: Runner, paths: tuple[str, ...]) -> None:
    if runner.closed:
        return
    point = points.FS_WATCH
    for path in paths:
        await runner.run(point, point.fields(path, paths, str(runner.host.cwd)), session=None)


async def _worktrees(runner: Runner, added: tuple[Worktree, ...], removed: tuple[Worktree, ...]) -> None:
    """Fire WorktreeCreate / WorktreeRemove hooks for the net change since the last poll."""
    if runner.closed:
        return
    point = points.WORKTREES
    for kind, items in (("Create", added), ("Remove", removed)):
        for tree in items:
            await runner.run(point, point.fields(tree), session=None,
                             keep=_event_ends(kind))


def _event_ends(suffix: str) -> Keep:
    def keep(entry: HookEntry) -> bool:
        return entry.row.event.endswith(suffix)
    return keep


async def _shell_env(runner: Runner, execution: ToolExecution) -> Mapping[str, str]:
    point = points.SHELL_ENV
    session = execution.agent.session if execution.agent is not None else None
    done = await runner.run(point, point.fields(execution), session=session)
    env: dict[str, str] = {}
    for _, applied in done:
        env.update(applied.env or {})
    return env
