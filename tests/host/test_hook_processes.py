"""What is left of a hook after its timeout, per host: on hosts where compat-adapter runs the hook
process (the embedded host's bridges and routes) every descendant is gone, ``setsid`` or not; on
DSH the native route, the default, runs the hook with compat-adapter's runner too. DSH's official
bridge packages (rc.8) ran hooks with DSH's own subprocess service, which signals the process group
only, so a descendant that left the group outlived the run there; 0.2.1 bundles no bridge, so on it
the official route is refused and the hook never starts (pinned, so that a bridge coming back shows)."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

import anyio
import pytest
from conftest import running, write_script
from test_contract import Lane, bash, dsh_lane, lane

__all__ = ("dsh_lane", "lane")  # fixtures, shared with the contract suite


@pytest.mark.parametrize("prefer", ["fidelity", "official"])
async def test_a_setsid_grandchild_after_the_hook_timeout(lane: Lane, tmp_path: Path, prefer: str) -> None:
    ws = lane.host.cwd
    hook = write_script(tmp_path / "escape.sh", (
        "cat > /dev/null\n"
        f"setsid sh -c 'echo $$ > \"{tmp_path}/esc.tmp\"; mv \"{tmp_path}/esc.tmp\" \"{tmp_path}/esc.pid\"; "
        "exec sleep 120' &\n"
        f"while [ ! -f '{tmp_path}/esc.pid' ]; do sleep 0.01; done\n"
        "sleep 60\n"))
    async with lane.adapter(tmp_path) as adapter:
        result = await adapter.register_hook("claude", "PreToolUse", "Bash",
                                             {"type": "command", "command": str(hook), "timeout": 2}, prefer=prefer)
        agent = await lane.agent([bash(f"touch {ws}/ran"), "ok"])
        await lane.run(agent, "go")
    if not result.mounted:
        assert lane.name == "dsh" and prefer == "official"
        assert "dsh-hooks-claude-code" in (result.reason or "")
        assert (ws / "ran").exists() and not (tmp_path / "esc.pid").exists(), "a refused hook never starts"
        return
    escaped = int((tmp_path / "esc.pid").read_text())
    try:
        with anyio.move_on_after(5):
            while running(escaped):
                await anyio.sleep(0.05)
        # compat-adapter runs the hook itself (the embedded bridges, and the native route on DSH too).
        assert not running(escaped)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(escaped, signal.SIGKILL)
