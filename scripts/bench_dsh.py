"""What compat-adapter costs on the real DeepSeek Harness 0.2.1 (the lane: ``bash scripts/dsh_lane.sh``).

Two runtimes of the ``sdk`` profile stay up side by side, each driven by the official SDK against
the lane's scripted model: one plain (a DSH home without the bundle), one with the bundle added by
``dsh plugin add`` and the service answering it. Every sample is one SDK session turn whose model
makes one ``bash`` call (``true``) and then answers; the three kinds of turn are interleaved, so the
machine's drift hits each alike:

* ``dsh_turn_ratio`` — a turn with compat-adapter loaded (the bundle, an adapter with no hook) / the
  same turn on the plain runtime;
* ``dsh_hook_ratio`` — a turn with one ``true`` Claude PreToolUse hook on ``Bash`` (a real process
  started for the call, through the bundle) / the same turn with compat-adapter loaded and no hook;
* ``dsh_turn_ms``, ``dsh_turn_loaded_ms``, ``dsh_turn_hook_ms`` — the medians themselves.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

__all__ = ("bench_dsh",)


def _turn_script() -> list[Any]:
    from compat_adapter.host.script import Reply, call

    return [Reply("checking", (call("bash", command="true", description="check"),)), "done"]


async def _bench(root: Path, reps: int) -> dict[str, float]:
    from deepseek_harness import DeepSeekHarness

    from compat_adapter.host.dsh.lane import SCRIPTED_KEY, boot, lane, turns_of
    from compat_adapter.service import CompatAdapter
    from compat_adapter.testing.models.anthropic import AnthropicServer

    where = lane()
    plain_ws = root / "plain"
    plain_ws.mkdir()
    loaded_ws = root / "loaded"
    loaded_ws.mkdir()
    model = AnthropicServer(()).start()
    env = {**where.env(root / "plain-home"), "DEEPSEEK_BASE_URL": model.base_url, "DEEPSEEK_API_KEY": SCRIPTED_KEY}
    plain = DeepSeekHarness(cwd=str(plain_ws), dsh_home=str(root / "plain-home"), env=env,
                            shutdown_timeout_seconds=5.0)
    times: dict[str, list[float]] = {"plain": [], "loaded": [], "hook": []}
    try:
        await anyio.to_thread.run_sync(plain.start)

        def plain_turn() -> float:
            model.load(turns_of(_turn_script()))
            started = time.perf_counter()
            plain.start_session().run("go")
            return time.perf_counter() - started

        async with boot(loaded_ws, controls=False) as runtime:
            from compat_adapter.host.dsh.lane import Runner

            runner = Runner(runtime)
            hook = root / "true.sh"
            hook.write_text("#!/bin/sh\ncat > /dev/null\n", encoding="utf-8")
            hook.chmod(0o755)

            async def loaded_turn() -> float:
                session = await runner.create_agent(_turn_script())
                started = time.perf_counter()
                await runner.run_turn(session, "go")
                return time.perf_counter() - started

            async with CompatAdapter(runtime.host, target_host_version=runtime.host.surface.version,
                                     state_dir=str(root / "state")):
                await loaded_turn()  # warm-up of both runtimes
                await anyio.to_thread.run_sync(plain_turn)
                for _ in range(reps):
                    times["plain"].append(await anyio.to_thread.run_sync(plain_turn))
                    times["loaded"].append(await loaded_turn())
                    async with CompatAdapter(runtime.host, target_host_version=runtime.host.surface.version,
                                             state_dir=str(root / "state-hook")) as hooked:
                        await hooked.register_hook("claude", "PreToolUse", "Bash", str(hook))
                        times["hook"].append(await loaded_turn())
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(plain.close)
            model.close()
    median = {k: statistics.median(v) for k, v in times.items()}
    return {"dsh_turn_ms": median["plain"] * 1000, "dsh_turn_loaded_ms": median["loaded"] * 1000,
            "dsh_turn_hook_ms": median["hook"] * 1000,
            "dsh_turn_ratio": median["loaded"] / median["plain"],
            "dsh_hook_ratio": median["hook"] / median["loaded"]}


def bench_dsh(reps: int = 7) -> dict[str, float]:
    """The figures of this module's docstring, from one run."""
    with tempfile.TemporaryDirectory(prefix="compat-bench-dsh-") as tmp:
        return anyio.run(_bench, Path(tmp).resolve(), reps)
