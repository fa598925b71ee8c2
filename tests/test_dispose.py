"""Dispose means gone: an adapter disposed on a long-lived host leaves nothing of itself behind.

One embedded host lives through several adapters. Each registers one real command hook on every
row of all five vendors plus a rules file, runs a scripted turn (a shell call and a Python file
written, so hooks fire on tool seams, emit seams, the file watch and the language-server point),
and is disposed right after the turn, with the host's background work still queued. After each
dispose nothing of it may remain: no listener, no bridge mount, no service it started, no hook
process, no extra fd, thread or task, and no hook may start. Counts are compared, never times;
the memory figure per cycle is ``dispose_cycle_rss_kb`` in ``scripts/bench.py --json``.
"""

from __future__ import annotations

import os
import shlex
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import write_script

from compat_adapter import CompatAdapter
from compat_adapter.host.embedded.memory import MemoryHost
from compat_adapter.host.script import call
from compat_adapter.runtime import spawner
from compat_adapter.testing.live.harness import all_rows

pytestmark = pytest.mark.anyio

#: Adapters per host: the first is the baseline (imports, caches, a full log ring), the rest are
#: measured against it.
CYCLES = 4
#: Operator-log entries the host keeps: one cycle logs more than this, so the ring is full from
#: the first cycle on and any growth would be a leak.
MAX_RECORDS = 100


def descendants() -> int:
    """Live (non-zombie) processes below this one, the launch server itself and its spare aside
    (they live as long as this process, and the spare has started nothing; every launcher of a
    run still counts)."""
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="utf-8") as f:
                state, ppid = f.read().rsplit(")", 1)[1].split()[:2]
        except (OSError, ValueError):
            continue
        if state != "Z":
            parents[int(name)] = int(ppid)
    mine, frontier = set(), {os.getpid()}
    while frontier:
        frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - mine
        mine |= frontier
    return len(mine - spawner.standing_pids())


def _counts(host: MemoryHost) -> dict[str, Any]:
    return {
        "listeners": sum(host.listener_count(seam) for seam in host.surface.seams),
        "mounts": len(host.mounts),
        "services": dict(host.services_in_use()),
        "processes": descendants(),
        "fds": len(os.listdir("/proc/self/fd")),
        "threads": threading.active_count(),
        "tasks": len(anyio.get_running_tasks()),
        "records": len(host.records),
    }


def starts(marker: Path) -> int:
    return marker.read_text(encoding="utf-8").count("start") if marker.exists() else 0


async def _cycle(host: MemoryHost, root: Path, prefer: str) -> tuple[CompatAdapter, Path, int]:
    """One adapter's life; returns it, its hook's start marker and the starts when dispose returned."""
    adapter = CompatAdapter(host, state_dir=str(root / "state"))
    marker = root / f"starts-{adapter.id}"
    hook = write_script(root / f"hook-{adapter.id}.sh",
                        f"echo start >> {shlex.quote(str(marker))}\ncat > /dev/null\n")
    # Outside batch(): every official-bridge registration remounts its bridge.
    for spec, row in all_rows():
        await adapter.register_hook(spec.id, row.event, None, shlex.quote(str(hook)), prefer=prefer)
    await adapter.register_rules("claude", "CLAUDE.md", base_dir=root)
    agent = await host.create_agent(script=[
        call("bash", command="echo hi"),
        call("write", path="module.py", content="def f(x):\n    return x\n"),
        "done",
    ])
    await agent.run_turn("work")
    assert starts(marker) > 0, "the hooks never ran: the cycle proves nothing"
    await adapter.dispose()
    started = starts(marker)
    await agent.dispose()
    return adapter, marker, started


async def test_repeated_adapters_leave_nothing_behind_and_no_hook_starts_after_dispose(git_repo: Path) -> None:
    (git_repo / "CLAUDE.md").write_text("Keep the tests green.\n", encoding="utf-8")
    async with MemoryHost(git_repo, max_records=MAX_RECORDS, close_grace_s=10) as host:
        before = _counts(host)
        baseline: dict[str, Any] | None = None
        for cycle in range(CYCLES):
            prefer = "official" if cycle % 2 == 0 else "fidelity"
            adapter, marker, started = await _cycle(host, git_repo, prefer)
            audited = len(adapter.audit)
            # Everything the turn queued has had its chance to run by now.
            await host.settle()
            await anyio.sleep(0.5)
            assert starts(marker) == started, f"cycle {cycle}: a hook started after dispose() returned"
            assert len(adapter.audit) == audited, f"cycle {cycle}: the disposed adapter's audit grew"
            now = _counts(host)
            assert now["listeners"] == before["listeners"], now
            assert now["mounts"] == 0, now
            assert now["services"] == {}, f"cycle {cycle}: services still held: {now['services']}"
            assert now["processes"] == 0, now
            assert now["records"] <= MAX_RECORDS
            assert not any(h.running for h in adapter.status().hooks)
            if baseline is None:
                baseline = now
                continue
            for key in ("fds", "threads", "tasks"):
                assert now[key] <= baseline[key], f"cycle {cycle}: {key} grew: {baseline} → {now}"


async def test_dispose_kills_a_running_hook_with_its_whole_process_group(git_repo: Path) -> None:
    pids = git_repo / "pids"
    # Observe-only (CodeBuddy's Notification on agent/status, which fires at once): it runs in the
    # host's background.
    hook = write_script(git_repo / "slow.sh", f"sleep 300 & echo $! >> {shlex.quote(str(pids))}\n"
                        f"echo $$ >> {shlex.quote(str(pids))}\nwait\n")
    async with MemoryHost(git_repo) as host:
        adapter = CompatAdapter(host, state_dir=str(git_repo / "state"))
        await adapter.register_hook("workbuddy", "Notification", None, shlex.quote(str(hook)))
        agent = await host.create_agent(script=["done"])
        await agent.run_turn("hi")
        with anyio.fail_after(60):
            while not pids.exists() or len(pids.read_text().split()) < 2:
                await anyio.sleep(0.05)
        await adapter.dispose()
        for pid in map(int, pids.read_text().split()):
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)
        assert descendants() == 0


async def test_the_language_server_stops_when_its_last_user_releases_it(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def f(x):\n    return x\n", encoding="utf-8")
    async with MemoryHost(tmp_path) as host:
        await host.lsp_query("diagnostics", tmp_path / "m.py", user="a")
        await host.lsp_query("hover", tmp_path / "m.py", user="b")
        assert host.services_in_use() == {"lsp": ("a", "b")}
        server = descendants()
        assert server >= 1
        await host.release("lsp", "a")
        assert host.services_in_use() == {"lsp": ("b",)}
        assert descendants() == server
        await host.release("lsp", "b")
        assert host.services_in_use() == {}
        assert descendants() == 0
        # Released twice, or by a user that never held it: nothing happens.
        await host.release("lsp", "b")
        await host.release("lsp", "nobody")


async def test_a_watch_is_closed_by_release_and_the_watcher_stops_with_the_last_one(tmp_path: Path) -> None:
    async def changed(paths: tuple[str, ...]) -> None:
        pass

    async with MemoryHost(tmp_path) as host:
        close_a = await host.watch(tmp_path, changed, user="a")
        await host.watch(tmp_path, changed, user="b")
        assert host.services_in_use() == {"fs.watch": ("a", "b")}
        await close_a()
        await close_a()  # idempotent
        assert host.services_in_use() == {"fs.watch": ("b",)}
        await host.release("fs.watch", "b")  # b never closed its watch: release does
        assert host.services_in_use() == {}
