"""The embedded host's optional services, delegated to the real runtime: a real file watcher, a
real language server, real git worktrees and the host's own official bridges."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from compat_adapter.errors import HostSurfaceMismatch
from compat_adapter.host.embedded.memory import MemoryHost
from compat_adapter.host.script import call
from compat_adapter.host.surfaces import CLAUDE_BRIDGE


async def test_switched_off_services_raise_not_implemented(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path, fs_watch=False, lsp=False, worktrees=False,
                          bridges=False) as host:
        async def changed(paths: tuple[str, ...]) -> None:
            pass

        with pytest.raises(NotImplementedError):
            await host.watch(tmp_path, changed)
        with pytest.raises(NotImplementedError):
            await host.lsp_query("hover", tmp_path / "x.py")
        with pytest.raises(NotImplementedError):
            await host.list_worktrees(tmp_path)
        with pytest.raises(NotImplementedError):
            await host.mount_bridge(CLAUDE_BRIDGE, tmp_path / "settings.json")


async def test_list_worktrees_reads_the_real_repository(git_repo: Path, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    subprocess.run(["git", "worktree", "add", "-q", "-b", "feature", str(linked)], cwd=git_repo,
                   check=True, capture_output=True)
    async with MemoryHost(git_repo) as host:
        worktrees = await host.list_worktrees(git_repo)
        outside = await host.list_worktrees(tmp_path)
    assert [Path(w.path).resolve() for w in worktrees] == [git_repo.resolve(), linked.resolve()]
    assert [w.branch for w in worktrees] == ["main", "feature"]
    assert outside == ()


async def test_watch_reports_real_changes_and_is_stopped_with_the_host(tmp_path: Path) -> None:
    watched = tmp_path / "src"
    watched.mkdir()
    seen: list[tuple[str, ...]] = []
    arrived = None
    async with MemoryHost(tmp_path) as host:
        arrived = anyio.Event()

        async def changed(paths: tuple[str, ...]) -> None:
            seen.append(paths)
            arrived.set()

        close = await host.watch(watched, changed, debounce_ms=20)
        (watched / "new.txt").write_text("hello")
        with anyio.fail_after(15):
            await arrived.wait()
        await close()
    assert str((watched / "new.txt").absolute()) in seen[0]


async def test_a_service_first_used_from_a_background_task_closes_cleanly(tmp_path: Path) -> None:
    closes: list[Any] = []
    async with MemoryHost(tmp_path) as host:
        async def changed(paths: tuple[str, ...]) -> None:
            pass

        async def arm() -> None:
            closes.append(await host.watch(tmp_path, changed))

        host.start_soon(arm)
        await host.settle()
        assert len(closes) == 1
    # Leaving the host stopped the watcher inside the task that started the service.
    assert not [r for r in host.records if r.level == "error"]


async def test_lsp_query_talks_to_a_real_language_server(tmp_path: Path) -> None:
    source = tmp_path / "greet.py"
    source.write_text('def greet(name):\n    """Say hello to someone."""\n    return name\n\n\n'
                      'greet("x")\n')
    async with MemoryHost(tmp_path) as host:
        hover = await host.lsp_query("hover", source, 5, 1)
        definition = await host.lsp_query("goToDefinition", Path("greet.py"), 5, 1)
    assert hover.kind == "hover" and "Say hello to someone" in str(hover.data)
    assert definition.kind == "locations"
    assert "greet.py" in json.dumps(definition.data, default=str)


async def test_mount_bridge_refuses_a_package_it_does_not_offer(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        with pytest.raises(HostSurfaceMismatch):
            await host.mount_bridge("@someone/else", tmp_path / "settings.json")


async def test_mounted_claude_bridge_really_denies_a_tool(tmp_path: Path) -> None:
    hook = tmp_path / "deny.sh"
    hook.write_text('#!/bin/sh\ncat >/dev/null; echo "no shell today" >&2; exit 2\n')
    hook.chmod(0o755)
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "bash", "hooks": [{"type": "command", "command": str(hook)}]}]}}))
    async with MemoryHost(tmp_path) as host:
        mounted = await host.mount_bridge(CLAUDE_BRIDGE, settings)
        assert mounted.package == CLAUDE_BRIDGE
        agent = await host.create_agent(script=[call("bash", command="touch ran"), "ok"])
        await agent.run_turn("go")
        types = [e.type for e in agent.session.events]
        result = agent.session.of_type("tool/result")[0]
    assert not (tmp_path / "ran").exists()
    assert result.data["isError"] is True and "no shell today" in result.data["text"]
    # The bridge's hook records sit between the call and its result.
    assert types.index("tool/call") < types.index("hook/invoked") < types.index(
        "hook/result") < types.index("tool/result")
