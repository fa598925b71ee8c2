"""What a hook adds to a tool call here and under its own vendor, side by side in one run.

The same scripted session (one prompt, ``CALLS`` shell calls of ``true``, then an answer) runs with
no hook, with one PreToolUse command hook (``true 1``) and with four (``true 1`` … ``true 4``: Claude
Code runs an identical command line once), under the real Claude Code and Codex of the vendor lane
(``bash scripts/vendor_lane.sh``; through its driver, in its sandbox, against its scripted model)
and on the embedded host with the very same file imported, as a user imports it. All twelve
sessions of a round run one after another in an order that turns every round, so that the
machine's drift hits each alike.

A session's figure is the median time between consecutive model requests (the model's request
log on the vendor side, the ``assistant/message`` records here): one tool call with its hooks.
Per round and host, a hook's added time is ``(hooked − bare)`` for one hook and ``(hooked − bare)
/ 4`` for each of four; each figure is the median over the rounds with a 95 % interval of that
median (order statistics):

* ``vendor_<host>_one_ms``, ``vendor_<host>_each_of_four_ms`` (and ``…_lo``, ``…_hi``), where
  ``<host>`` is ``claude``, ``codex``, ``embedded_claude`` (the Claude file imported here) and
  ``embedded_codex``;
* ``vendor_<vendor>_<n>_excess_ms`` — the embedded host's added time minus its vendor's, per round
  (``n``: ``one``, ``each_of_four``): the goal is ≤ 1 ms, against both vendors;
* ``vendor_<host>_call_ms`` — the bare session's median call, for scale; ``vendor_load`` the load
  average when the step began and ended.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ("HOOK_COUNTS", "VENDORS", "bench_vendor", "interval")

VENDORS = ("claude", "codex")
HOOK_COUNTS = (0, 1, 4)
CALLS = 20
ROUNDS = 15
#: The shell step's command and the lane's prompt: the model calls the shell tool CALLS times.
STEP = "true"
PROMPT = "run the lane steps"


def interval(values: Sequence[float]) -> tuple[float, float, float]:
    """The median of ``values`` and a 95 % interval for it, by order statistics: the values of
    ranks ``n/2 − 0.98 √n`` and ``1 + n/2 + 0.98 √n`` (the normal approximation to the binomial,
    rounded outwards), clipped to the sample."""
    ordered = sorted(values)
    n = len(ordered)
    half = 0.98 * math.sqrt(n)
    lo = max(0, math.floor(n / 2 - half) - 1)  # ranks count from 1
    hi = min(n - 1, math.ceil(1 + n / 2 + half) - 1)
    return float(statistics.median(ordered)), ordered[lo], ordered[hi]


def _hooks_config(n: int) -> dict[str, Any]:
    handlers = [{"type": "command", "command": f"true {i + 1}"} for i in range(n)]
    return {"hooks": {"PreToolUse": [{"matcher": ".*", "hooks": handlers}]}} if n else {}


def _case(vendor: str, n: int) -> Any:
    from compat_adapter.testing.lane.scenarios import Case
    from compat_adapter.testing.lane.vendors import cli_for

    steps = (*((("shell", STEP),) * CALLS), ("text", "done"))
    # `installed`: the file is the case's own (no recorder), written where the vendor reads it.
    return Case(vendor, f"bench_{n}", steps=steps, prompt=PROMPT, installed=True,
                files={cli_for(vendor).hooks_file: json.dumps(_hooks_config(n), indent=1)})


def _call_ms(stamps: Sequence[float]) -> float:
    """The median gap between consecutive model requests, in ms (seconds in)."""
    gaps = [(b - a) * 1000.0 for a, b in zip(stamps, stamps[1:], strict=False)]
    if len(gaps) < CALLS:
        raise RuntimeError(f"expected {CALLS + 1} model requests, saw {len(stamps)}")
    return float(statistics.median(gaps[:CALLS]))


def _vendor_session(vendor: str, n: int, root: Path) -> float:
    from compat_adapter.testing.lane.run import run_vendor

    run = Path(tempfile.mkdtemp(prefix=f"{vendor}-{n}-", dir=root))
    record = run_vendor(_case(vendor, n), run)
    if record.result["rc"] != 0:
        raise RuntimeError(f"{vendor} exited {record.result['rc']}: {record.result['stderr'][-400:]}")
    return _call_ms([r["at"] for r in record.requests if r["step"]])


async def _embedded_session(vendor: str, n: int, root: Path) -> float:
    from compat_adapter import CompatAdapter, MemoryHost
    from compat_adapter.importers import import_files, register_import
    from compat_adapter.importers.gate import trust_files
    from compat_adapter.testing.lane.run import prepare_project
    from compat_adapter.testing.lane.vendors import cli_for

    case = _case(vendor, n)
    run = Path(tempfile.mkdtemp(prefix=f"embedded-{vendor}-{n}-", dir=root))
    proj = prepare_project(case, run)
    files = [proj / cli_for(vendor).hooks_file]
    trust_files(vendor, files, command="scripts/bench.py: the benchmark's own hook file")
    imported = import_files(vendor, files)
    # The host's shell tool, with the arguments the vendor's model sent besides the command.
    extra = dict(cli_for(vendor).extra_args)
    script: list[Any] = [{"tools": [{"name": "bash", "arguments": {"command": STEP, **extra}}]}] * CALLS
    script.append("done")
    async with MemoryHost(proj, clock=time.perf_counter) as host, \
            CompatAdapter(host, state_dir=str(run / "adapter")) as adapter:
        await register_import(adapter, imported)
        agent = await host.create_agent(script=script)
        await agent.run_turn(PROMPT)
        stamps = [e.time for e in agent.session.events if e.type == "assistant/message"]
        ran = len(adapter.audit)
        await agent.dispose()
    if ran != n * CALLS:
        raise RuntimeError(f"embedded {vendor} with {n} hooks ran {ran} hooks, expected {n * CALLS}")
    return _call_ms(stamps)


def _load() -> float:
    return os.getloadavg()[0]


async def _rounds(root: Path, rounds: int) -> dict[str, dict[int, list[float]]]:
    import anyio.to_thread

    hosts = [*VENDORS, *(f"embedded_{v}" for v in VENDORS)]
    sessions = [(host, n) for host in hosts for n in HOOK_COUNTS]
    calls: dict[str, dict[int, list[float]]] = {h: {n: [] for n in HOOK_COUNTS} for h in hosts}
    for r in range(rounds + 1):
        turn = r % len(sessions)
        order = sessions[turn:] + sessions[:turn]
        if r % 2:
            order.reverse()
        for host, n in order:
            if host.startswith("embedded_"):
                ms = await _embedded_session(host.removeprefix("embedded_"), n, root)
            else:
                ms = await anyio.to_thread.run_sync(_vendor_session, host, n, root)
            if r:  # the first round warms up (caches, the launch server, the CLIs' files)
                calls[host][n].append(ms)
    return calls


def _figures(calls: dict[str, dict[int, list[float]]]) -> dict[str, float]:
    out: dict[str, float] = {}
    added: dict[str, dict[str, list[float]]] = {}
    for host, by_n in calls.items():
        bare = by_n[0]
        added[host] = {"one": [h - b for h, b in zip(by_n[1], bare, strict=True)],
                       "each_of_four": [(h - b) / 4 for h, b in zip(by_n[4], bare, strict=True)]}
        out[f"vendor_{host}_call_ms"] = float(statistics.median(bare))
        for kind, values in added[host].items():
            mid, lo, hi = interval(values)
            out[f"vendor_{host}_{kind}_ms"], out[f"vendor_{host}_{kind}_lo"], out[f"vendor_{host}_{kind}_hi"] = mid, lo, hi
    for vendor in VENDORS:
        for kind in ("one", "each_of_four"):
            # Per round: both sides measured within the same minute of the same machine.
            excess = [e - v for e, v in zip(added[f"embedded_{vendor}"][kind], added[vendor][kind], strict=True)]
            mid, lo, hi = interval(excess)
            out[f"vendor_{vendor}_{kind}_excess_ms"] = mid
            out[f"vendor_{vendor}_{kind}_excess_lo"], out[f"vendor_{vendor}_{kind}_excess_hi"] = lo, hi
    return out


async def bench_vendor(root: Path, rounds: int | None = None) -> dict[str, Any]:
    """The side-by-side step; needs the vendor lane's Claude Code and Codex."""
    from compat_adapter.testing.lane.vendors import cli_for

    for vendor in VENDORS:
        binary = cli_for(vendor).binary_path()
        if not binary.exists():
            raise FileNotFoundError(f"{binary} is missing: run `bash scripts/vendor_lane.sh` first")
    rounds = rounds or int(os.environ.get("COMPAT_ADAPTER_BENCH_VENDOR_ROUNDS", ROUNDS))
    before = os.environ.get("COMPAT_ADAPTER_STATE_HOME")
    with tempfile.TemporaryDirectory(prefix="compat-bench-trust-") as home:
        os.environ["COMPAT_ADAPTER_STATE_HOME"] = home  # a throw-away trust store for the imports
        try:
            load = _load()
            calls = await _rounds(root, rounds)
        finally:
            if before is None:
                os.environ.pop("COMPAT_ADAPTER_STATE_HOME", None)
            else:
                os.environ["COMPAT_ADAPTER_STATE_HOME"] = before
    return {**_figures(calls), "vendor_rounds": rounds, "vendor_load_start": load, "vendor_load_end": _load()}
