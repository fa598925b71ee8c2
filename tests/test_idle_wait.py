"""Claude's idle notification waits, as Claude Code does: its interactive app fires Notification
idle_prompt once the agent has stayed idle 60 s after a turn (measured on 2.1.332: 61.7 s after
Stop), and `claude -p` ends before that and never fires it. The host's agent turns idle at once, so
the row waits on a host timer that the next turn or the agent's end cancels, and that ``settle()``
does not wait for. Real hook processes on the embedded host; the waits below are the row's own wait
made short (a copy of the row), never a measure of speed.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import anyio
from conftest import write_script

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.catalog import resolve_vendor
from compat_adapter.declare import Declared, declare_hook

#: The copy's wait: long enough that a turn started right after the idle cuts it short.
SHORT = 0.6


def _logger(tmp: Path) -> tuple[str, Path]:
    """A hook that writes each payload it reads to a file of its own in ``log/``."""
    log = tmp / "log"
    log.mkdir()
    return str(write_script(tmp / "notify.sh", f"cat > '{log}'/$$.json\n")), log


def _fired(log: Path) -> list[dict]:
    return [json.loads(f.read_text()) for f in sorted(log.iterdir())]


def _short(command: str, matcher: str | None = None) -> Declared:
    declared = declare_hook("claude", "Notification", matcher, command)
    assert declared.row.idle_after_s == 60.0
    return replace(declared, row=declared.row.model_copy(update={"idle_after_s": SHORT}))


def test_claude_s_notification_row_waits_sixty_seconds_and_says_so() -> None:
    row = resolve_vendor("claude").row("Notification")
    assert row is not None and row.fires_on == "idle" and row.idle_after_s == 60.0
    said = " ".join(d.text for d in row.degradations)
    assert "stayed idle 60 s" in said and "claude -p" in said
    # The other vendors' idle rows fire at once (measured on their CLIs; CodeBuddy fires it under -p).
    for vendor, event in (("workbuddy", "Notification"), ("copilot", "notification"), ("qwen", "Notification")):
        other = resolve_vendor(vendor).row(event)
        assert other is not None and other.idle_after_s is None, vendor


async def test_a_turn_then_the_session_s_end_fires_no_idle_prompt_as_claude_p(tmp_path: Path) -> None:
    """The real row (60 s): a turn, settle, dispose. settle() returns without the wait, and the end
    cancels it: nothing fires, as under `claude -p`."""
    hook, log = _logger(tmp_path)
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("claude", "Notification", None, hook)
        agent = await host.create_agent(script=["done"])
        await agent.run_turn("hi")
        with anyio.fail_after(30):  # a guard against waiting out the 60 s, not a speed check
            await host.settle()
        await agent.dispose()
        await host.settle()
    assert _fired(log) == []


async def _one_turn(host: MemoryHost, adapter: CompatAdapter, declared: Declared) -> object:
    await adapter.register(declared)
    agent = await host.create_agent(script=["done"])
    await agent.run_turn("hi")
    return agent


async def test_an_agent_that_stays_idle_gets_one_idle_prompt(tmp_path: Path) -> None:
    hook, log = _logger(tmp_path)
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await _one_turn(host, adapter, _short(hook))
        await host.settle()
        assert _fired(log) == []  # not at once
        await anyio.sleep(SHORT * 3)
        await host.settle()
        fired = _fired(log)
    assert [p["notification_type"] for p in fired] == ["idle_prompt"]
    assert fired[0]["hook_event_name"] == "Notification"


async def test_a_turn_that_starts_within_the_wait_cancels_it(tmp_path: Path) -> None:
    """Two turns back to back: the first idle is cut short by the second turn; only the last idle,
    left alone, notifies. A matcher on another notification type never fires."""
    hook, log = _logger(tmp_path)
    other = tmp_path / "other.runs"
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register(_short(hook, "idle_prompt"))
        await adapter.register(_short(str(write_script(tmp_path / "other.sh", f"echo run >> '{other}'\n")),
                                      "permission_prompt"))
        agent = await host.create_agent(script=["one", "two"])
        await agent.run_turn("first")
        await agent.run_turn("second")
        await anyio.sleep(SHORT * 3)
        await host.settle()
        fired = _fired(log)
    assert [p["notification_type"] for p in fired] == ["idle_prompt"]
    assert not other.exists()


async def test_an_agent_disposed_within_the_wait_never_notifies_and_leaves_no_timer(tmp_path: Path) -> None:
    hook, log = _logger(tmp_path)
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        agent = await _one_turn(host, adapter, _short(hook))
        await agent.dispose()  # type: ignore[attr-defined]
        await anyio.sleep(SHORT * 3)
        await host.settle()
        assert adapter.kept()["idle_waits"] == 0
    assert _fired(log) == []
