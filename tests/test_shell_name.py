"""A vendor that starts its hook shell by name (Gemini CLI and Qwen Code spawn ``bash`` found on
PATH) gets a shell that knows itself as ``bash``: ``$0`` and the prefix of bash's own error messages,
which a hook's stderr carries to the model. A vendor that names no ``shell_name`` runs its shell by
path, as before. Real hook processes on the embedded host."""

from __future__ import annotations

from pathlib import Path

import pytest

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.catalog import resolve_vendor
from compat_adapter.host.script import Reply, call
from compat_adapter.runtime.process import BASH

#: A guard whose program is missing (co-safety's `bun` in the real corpus), then its shell's name.
HOOK = "nosuchprogram-lane; echo \"zero=$0\" >&2; exit 2"


async def _blocked_text(tmp: Path, vendor: str, event: str) -> str:
    async with MemoryHost(tmp) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook(vendor, event, None, HOOK)
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="true"),)), "done"])
        await agent.run_turn("go")
        await host.settle()
        results = [e.data for e in agent.session.events if e.type == "tool/result"]
    assert results and results[0]["isError"], results
    return str(results[0]["text"])


@pytest.mark.parametrize(("vendor", "event"), [("gemini", "BeforeTool"), ("qwen", "PreToolUse")])
async def test_a_vendor_that_starts_bash_by_name_gets_bash_s_own_words(tmp_path: Path, vendor: str,
                                                                       event: str) -> None:
    assert resolve_vendor(vendor).shell_name == "bash"
    text = await _blocked_text(tmp_path, vendor, event)
    assert "bash: line 1: nosuchprogram-lane: command not found" in text
    assert f"{BASH}: line 1" not in text and "zero=bash" in text


async def test_a_vendor_that_runs_bash_by_path_keeps_the_path(tmp_path: Path) -> None:
    spec = resolve_vendor("codex")
    assert spec.shell == "bash" and spec.shell_name is None
    text = await _blocked_text(tmp_path, "codex", "PreToolUse")
    assert f"zero={BASH}" in text
