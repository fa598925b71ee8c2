#!/usr/bin/env python
"""Benchmarks of compat-adapter on the embedded host: one run, several repetitions, medians.

The machine this runs on is shared and noisy, so nothing here fails on a number: every figure is
reported next to its goal, and the goals that compare two things are ratios measured inside the
same run (the two sides interleaved, so drift hits both). Usage::

    .venv/bin/python scripts/bench.py          # a small table
    .venv/bin/python scripts/bench.py --json   # one JSON object: figures, goals, met
    .venv/bin/python scripts/bench.py --json --only spawn_ratio   # one step (repeatable)

Figures:

* ``nomatch_<route>_<n>_us`` — one dispatch through an adapter holding ``n`` (100, 1000) hooks
  whose matchers do not match, per route: ``official_claude`` and ``official_codex`` (PreToolUse
  through the host's bridge, ``prefer="official"``), ``native_claude`` (Claude PreToolUse on its
  default, native route), ``native`` (Claude PermissionRequest on ``approval/request``),
  ``observe`` (Claude PreCompact, a ``session/event`` record, awaited to the end) and ``builtin``
  (Copilot preToolUse). No process starts (checked by a marker file and in the audit);
* ``spawn_ratio`` — one matching allow hook through that dispatch / the same command run bare
  with ``runtime.process.run_command``;
* ``launcher_ratio`` — that bare run under the hook launcher (forked by the launch server) / the
  same run with no launcher at all (``COMPAT_ADAPTER_HOOK_LAUNCHER=off``): what the kill-all
  guarantee costs per hook;
* ``parallel_ratio`` — four matching ``sleep 0.2`` hooks of a concurrent vendor (Claude
  PermissionRequest on ``approval/request``): wall time / 0.2 s;
* ``pretool_<route>_ratio`` — the same four hooks on PreToolUse per route (Claude natively, as by
  default, and through the official bridge, OpenCode tool.execute.before natively, Copilot
  preToolUse built in): wall time / 0.2 s. Its goal is what the route promises: Claude runs them
  at once (``native_claude`` ≤ 1.5); the bridge and both other vendors run a point's hooks one
  after another (the bridge's serial run is a listed loss), so about 4, not 1;
* ``register_1000_s``, ``register_scaling`` (2000 / 1000) on native rows and
  ``register_1000_bridge_s`` for official-bridge rows inside one ``batch()``;
* ``import_ms`` (``import compat_adapter`` minus a bare interpreter), ``heavy_modules_imported``,
  ``matrix_cli_ms``, ``grade_cli_ms`` (subprocess wall times, in this script's own environment);
* ``matrix_cli_cached_ms`` — ``matrix_cli_ms`` with the bytecode cached (in a throw-away
  ``PYTHONPYCACHEPREFIX``, warmed by one run), as an installed copy runs; and
  ``cli_compiles_every_start``: whether the first figures were taken with ``PYTHONDONTWRITEBYTECODE``
  set. Both are reported because they differ by what compiling the package costs: an editable
  install under that variable (as on the developers' machines here) compiles every module of
  ``compat_adapter`` and ``vendors`` at every start, about a quarter of the matrix command's work.
  The goal stays on ``matrix_cli_ms``, as measured;
* ``rss_1000_hooks_mb`` — resident memory growth of a process for 1000 registered hooks;
* ``dispose_cycle_rss_kb`` — resident memory growth per adapter cycle on one host (create, one
  hook on every row of all five vendors plus rules, a scripted turn, dispose): the median step
  over ``DISPOSE_CYCLES`` cycles after ``DISPOSE_WARMUP`` warm-up ones, and
  ``dispose_rss_growth_kb`` over all of them; ``dispose_mounts_left``,
  ``dispose_services_left`` and ``dispose_hook_starts_after`` are what those cycles left behind;
* ``dsh_turn_ratio``, ``dsh_hook_ratio`` (and their medians) — a real DSH 0.2.1 turn with and
  without compat-adapter loaded, and with one ``true`` PreToolUse hook (``scripts/bench_dsh.py``)
  (bridge mounts, services in use, hook processes started after ``dispose()`` returned);
* ``fswatch_latency_ms`` — an outside write to a FileChanged hook's marker, minus the 250 ms
  debounce;
* ``plugin_host_*`` and ``plugin_runtime_*`` — the OpenCode plugin host's start-up and per-call
  latency, and the Bun / Node 22 comparison (``scripts/bench_plugins.py``);
* ``vendor_*`` — what one PreToolUse command hook, and each of four, adds to a shell call under the
  real Claude Code and Codex of the vendor lane and on the embedded host with the same file
  imported, interleaved in one run (``scripts/bench_vendor.py``; ``COMPAT_ADAPTER_BENCH_VENDOR_ROUNDS``
  sets the rounds, 15 by default);
* ``port_*`` — a ported hook under the target's real CLI (Codex, Claude Code) against the same hook
  written natively for it (``scripts/bench_port.py``; ``COMPAT_ADAPTER_BENCH_PORT_ROUNDS``): ``fast``
  is the compiled client ``port`` writes by default, ``hook``/``ported`` its Python fallback, each
  with the shim server warm (``COMPAT_ADAPTER_BENCH_PORT_WARM=0``: each session starts its own);
  ``port_<target>_fast_ratio_band`` is how far the ratio moves over the rounds resampled, and
  ``port_<target>_read`` how the gaps were read (Codex's against each session's own calls that no
  hook sees; Claude Code's step has two modes, read one by one); 12 rounds of 30 calls by default;
* ``load_start``, ``load_end`` — the machine's load average when the run began and ended: every
  figure above is a wall time or a ratio of two, on a machine that may be shared.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    # Run from a checkout without installing: the package sits next to this script's folder.
    sys.path.insert(0, str(REPO))

from compat_adapter import CompatAdapter  # noqa: E402
from compat_adapter.dialects import dialect_for  # noqa: E402
from compat_adapter.dialects.base import Moment  # noqa: E402
from compat_adapter.host.embedded.memory import MemoryHost  # noqa: E402
from compat_adapter.host.protocol import (  # noqa: E402
    ApprovalOutcome,
    ApprovalRequest,
    LogEvent,
    PreToolDecision,
    SessionEventNotice,
    ToolExecution,
)
from compat_adapter.runtime.process import BASH, hook_environment, run_command  # noqa: E402
from scripts.bench_dsh import bench_dsh  # noqa: E402
from scripts.bench_plugins import bench_plugin_host  # noqa: E402
from scripts.bench_port import TARGETS as PORT_TARGETS, bench_port  # noqa: E402
from scripts.bench_vendor import VENDORS, bench_vendor  # noqa: E402

#: Routes the no-match dispatch is measured on, and routes with a PreToolUse row.
NOMATCH_ROUTES = ("official_claude", "official_codex", "native_claude", "native", "observe", "builtin")
PRETOOL_ROUTES = ("official_claude", "native", "builtin")
#: Figure → (goal, comparison). Goals are reported, never enforced.
GOALS: dict[str, tuple[float, str]] = {
    **{f"nomatch_{route}_100_us": (50.0, "<=") for route in NOMATCH_ROUTES},
    **{f"nomatch_{route}_1000_us": (100.0, "<=") for route in NOMATCH_ROUTES},
    **{f"pretool_{route}_ratio": (4.6, "<=") for route in PRETOOL_ROUTES},
    "spawn_ratio": (1.3, "<="),
    "launcher_ratio": (1.3, "<="),
    "parallel_ratio": (1.5, "<="),
    # Claude Code starts every matching PreToolUse hook at once; the native route does too.
    "pretool_native_claude_ratio": (1.5, "<="),
    "register_scaling": (2.2, "<="),
    "grade_cli_ms": (400.0, "<="),
    "matrix_cli_ms": (400.0, "<="),
    "import_ms": (150.0, "<="),
    # Within noise: what is left is the host's own session logs (one session per cycle, kept
    # among the newest 64 for a resume).
    "dispose_cycle_rss_kb": (150.0, "<="),
    "dispose_mounts_left": (0, "<="),
    "dispose_services_left": (0, "<="),
    "dispose_hook_starts_after": (0, "<="),
    # A hook costs no more here than under its own vendor, within a millisecond (issue 39).
    **{f"vendor_{vendor}_{kind}_excess_ms": (1.0, "<=") for vendor in VENDORS for kind in ("one", "each_of_four")},
    # A ported hook costs at most 1.5 times the same hook written natively for the target (issue 38).
    **{f"port_{target}_hook_ratio": (1.5, "<=") for target in PORT_TARGETS},
    **{f"port_{target}_fast_ratio": (1.5, "<=") for target in PORT_TARGETS},
}
HEAVY = ("pygls", "watchfiles", "git")
SLEEP_S = 0.2
DEBOUNCE_MS = 250


def _median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def _script(path: Path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    path.chmod(0o755)
    return str(path)


def _allow_default() -> PreToolDecision:
    return PreToolDecision("allow")


# ── dispatch: no match ──────────────────────────────────────────────────────────────────────────

#: Route → (vendor, event, the n-th hook's matcher); none of them selects `bash` / `auto`.
_NOMATCH = {
    # Regexes, not literal names: a literal naming no host tool is left out of a bridge config.
    "official_claude": ("claude", "PreToolUse", "nomatch{i}.*"),
    "official_codex": ("codex", "PreToolUse", "nomatch{i}.*"),
    "native_claude": ("claude", "PreToolUse", "nomatch{i}.*"),
    "native": ("claude", "PermissionRequest", "nomatch{i}|view{i}"),
    "observe": ("claude", "PreCompact", "manual"),
    # Copilot compiles ^(?:P)$ against the whole tool name: none of these is `bash`.
    "builtin": ("copilot", "preToolUse", "nomatch{i}|view{i}"),
}


async def _dispatcher(route: str, host: MemoryHost) -> Callable[[], Any]:
    """One dispatch of the seam the route's hooks listen on, awaited to its end."""
    if route == "native":
        agent = await host.create_agent(script=[])
        request = ApprovalRequest(agent, "bash", "call-1", "bench")
        return lambda: host.waterfall("approval/request", request, lambda: ApprovalOutcome.UNAVAILABLE)
    if route == "observe":
        agent = await host.create_agent(script=[])
        record = LogEvent(seq=1, type="compaction/start", data={"compactionId": "c1"}, time=0.0)
        notice = SessionEventNotice(agent.session, record, agent)

        async def emitted() -> None:
            for done in host.emit("session/event", notice):
                await done.wait()
        return emitted
    execution = ToolExecution("call-1", "bash", {"command": "ls -la"}, None)
    return lambda: host.waterfall("tools/pre-execute", execution, _allow_default)


async def bench_nomatch(root: Path, route: str, n: int, calls: int = 2000) -> float:
    vendor, event, matcher = _NOMATCH[route]
    marker = root / f"nomatch-{route}-{n}-ran"
    prefer = "official" if route.startswith("official") else "fidelity"
    async with MemoryHost(root) as host, CompatAdapter(host, log_registrations=False, prefer=prefer,
                                                       state_dir=str(root / "state")) as adapter:
        async with adapter.batch():
            for i in range(n):
                await adapter.register_hook(vendor, event, matcher.format(i=i),
                                            {"type": "command", "command": f"touch {marker}"})
        assert sum(h.running for h in adapter.status().hooks) == n, "not every hook runs"
        dispatch = await _dispatcher(route, host)
        for _ in range(200):  # warm caches (compiled patterns, payload code paths)
            await dispatch()
        samples = []
        clock = time.perf_counter_ns
        for _ in range(calls):
            t0 = clock()
            await dispatch()
            samples.append((clock() - t0) / 1000.0)
        await host.settle()
        assert adapter.audit == (), f"a non-matching hook ran: {adapter.audit[:1]}"
        assert not marker.exists(), "a non-matching hook's process ran"
    return _median(samples)


async def bench_nomatch_all(root: Path) -> dict[str, float]:
    figures = {}
    for route in NOMATCH_ROUTES:
        for n in (100, 1000):
            where = root / f"{route}-{n}"
            where.mkdir()
            figures[f"nomatch_{route}_{n}_us"] = await bench_nomatch(where, route, n)
    return figures


# ── dispatch: one spawn, adapter vs bare ────────────────────────────────────────────────────────

#: Each measured run starts on an idle host, as a hook does between tool calls: what a run leaves
#: to do after it returned (reaping, the launch server forking the next run's launcher, asyncio's
#: child-watcher thread) must not land in the next run's time, whichever side that is.
SETTLE_S = 0.02

async def bench_spawn_ratio(root: Path, reps: int = 40, settle_s: float = SETTLE_S) -> dict[str, float]:
    command = _script(root / "allow.sh",
                      "cat >/dev/null\necho '{\"permissionDecision\": \"allow\"}'\n")
    dialect = dialect_for("copilot")
    arguments = {"command": "ls -la"}
    stdin = dialect.encode(dialect.payload(Moment(
        event="preToolUse", session_id="", cwd=str(root),
        fields={"tool_name": "bash", "tool_input": arguments, "tool_use_id": "call-1"})))
    env = hook_environment(os.environ)
    adapter_ms: list[float] = []
    bare_ms: list[float] = []
    direct_ms: list[float] = []
    async with MemoryHost(root) as host, CompatAdapter(host, log_registrations=False) as adapter:
        await adapter.register_hook("copilot", "preToolUse", "bash", command)
        execution = ToolExecution("call-1", "bash", arguments, None)
        async def through_adapter() -> float:
            await anyio.sleep(settle_s)
            t0 = time.perf_counter()
            verdict = await host.waterfall("tools/pre-execute", execution, _allow_default)
            assert verdict == PreToolDecision("allow"), verdict
            return (time.perf_counter() - t0) * 1000

        async def bare(launcher: str = "on") -> float:
            before = os.environ.get("COMPAT_ADAPTER_HOOK_LAUNCHER")
            os.environ["COMPAT_ADAPTER_HOOK_LAUNCHER"] = launcher
            try:
                await anyio.sleep(settle_s)
                t0 = time.perf_counter()
                # Same machinery, same shell: Copilot hooks run with bash, as Copilot runs them.
                outcome = await run_command(command, stdin=stdin, cwd=root, env=env, timeout_s=30.0,
                                            shell=BASH)
                assert outcome.exit_code == 0, outcome
                return (time.perf_counter() - t0) * 1000
            finally:
                if before is None:
                    os.environ.pop("COMPAT_ADAPTER_HOOK_LAUNCHER", None)
                else:
                    os.environ["COMPAT_ADAPTER_HOOK_LAUNCHER"] = before

        for i in range(reps + 2):
            # Interleaved, the order turning every round, so drift and "who goes first" hit every
            # side alike; the first two rounds warm up (and start the launch server).
            if i % 2:
                c, b, a = await bare("off"), await bare(), await through_adapter()
            else:
                a, b, c = await through_adapter(), await bare(), await bare("off")
            if i >= 2:
                adapter_ms.append(a)
                bare_ms.append(b)
                direct_ms.append(c)
        ran = [r for r in adapter.audit if r.decision == "allow"]
        assert len(ran) == reps + 2, f"expected every dispatch to run the hook: {len(ran)}"
    a, b, c = _median(adapter_ms), _median(bare_ms), _median(direct_ms)
    return {"spawn_adapter_ms": a, "spawn_bare_ms": b, "spawn_ratio": a / b,
            "spawn_no_launcher_ms": c, "launcher_ratio": b / c}


# ── concurrency ─────────────────────────────────────────────────────────────────────────────────

async def bench_parallel(root: Path, reps: int = 5) -> dict[str, float]:
    walls = []
    async with MemoryHost(root) as host, CompatAdapter(host, log_registrations=False) as adapter:
        for i in range(4):
            # Distinct command lines: Claude runs an identical command once.
            await adapter.register_hook("claude", "PermissionRequest", "Bash",
                                        {"type": "command", "command": f"sleep {SLEEP_S}; : {i}"})
        agent = await host.create_agent(script=[])
        for i in range(reps + 1):
            request = ApprovalRequest(agent, "bash", f"call-{i}", "bench")
            t0 = time.perf_counter()
            outcome = await host.waterfall("approval/request", request,
                                           lambda r=request: host.default_approval(r))
            wall = time.perf_counter() - t0
            assert outcome is ApprovalOutcome.UNAVAILABLE, outcome
            if i:
                walls.append(wall)
        assert len(adapter.audit) == 4 * (reps + 1), len(adapter.audit)
    wall = _median(walls)
    return {"parallel_wall_s": wall, "parallel_ratio": wall / SLEEP_S}


#: Route → (vendor, event, matcher) of a PreToolUse row.
_PRETOOL = {
    "official_claude": ("claude", "PreToolUse", "Bash"),
    "native_claude": ("claude", "PreToolUse", "Bash"),
    "native": ("opencode", "tool.execute.before", None),
    "builtin": ("copilot", "preToolUse", "bash"),
}


async def bench_pretool(root: Path, reps: int = 3) -> dict[str, float]:
    figures = {}
    for route, (vendor, event, matcher) in _PRETOOL.items():
        walls = []
        where = root / route
        where.mkdir()
        prefer = "official" if route.startswith("official") else "fidelity"
        async with MemoryHost(where) as host, CompatAdapter(host, log_registrations=False, prefer=prefer,
                                                            state_dir=str(where / "state")) as adapter:
            async with adapter.batch():
                for i in range(4):
                    # Distinct command lines: Claude runs an identical command once.
                    await adapter.register_hook(vendor, event, matcher,
                                                {"type": "command", "command": f"sleep {SLEEP_S}; : {i}"})
            execution = ToolExecution("call-1", "bash", {"command": "ls -la"}, None)
            for i in range(reps + 1):
                t0 = time.perf_counter()
                verdict = await host.waterfall("tools/pre-execute", execution, _allow_default)
                wall = time.perf_counter() - t0
                assert verdict == PreToolDecision("allow"), verdict
                assert wall >= SLEEP_S, f"{route}: the hooks did not run ({wall:.3f} s)"
                if i:
                    walls.append(wall)
        figures[f"pretool_{route}_ratio"] = _median(walls) / SLEEP_S
    return figures


# ── registration ────────────────────────────────────────────────────────────────────────────────

async def _register_native(root: Path, n: int) -> float:
    async with MemoryHost(root) as host, CompatAdapter(host, log_registrations=False) as adapter:
        t0 = time.perf_counter()
        for i in range(n):
            await adapter.register_hook("copilot", "preToolUse", "bash", f"echo {i}")
        elapsed = time.perf_counter() - t0
        assert sum(h.running for h in adapter.status().hooks) == n
    return elapsed


async def _register_bridge(root: Path, n: int, state: Path) -> float:
    async with MemoryHost(root) as host, CompatAdapter(host, log_registrations=False, prefer="official",
                                                       state_dir=str(state)) as adapter:
        t0 = time.perf_counter()
        async with adapter.batch():
            for i in range(n):
                await adapter.register_hook("claude", "PreToolUse", "Bash",
                                            {"type": "command", "command": f"echo {i}"})
        elapsed = time.perf_counter() - t0
        assert sum(h.running for h in adapter.status().hooks) == n
    return elapsed


async def bench_register(root: Path, reps: int = 7) -> dict[str, float]:
    one, two, bridge = [], [], []
    await _register_native(root, 1000)  # warm up: lazy imports, caches, allocator
    for _ in range(reps):
        one.append(await _register_native(root, 1000))
        two.append(await _register_native(root, 2000))
        bridge.append(await _register_bridge(root, 1000, root / "state"))
    t1, t2 = _median(one), _median(two)
    return {"register_1000_s": t1, "register_2000_s": t2, "register_scaling": t2 / t1,
            "register_1000_bridge_s": _median(bridge)}


# ── subprocesses: import, CLI, memory ───────────────────────────────────────────────────────────

def _wall_ms(argv: Sequence[str], *, cwd: Path = REPO, check: bool = True,
             env: dict[str, str] | None = None) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=env)
    wall = (time.perf_counter() - t0) * 1000
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-500:]}")
    return wall


def _cli() -> list[str]:
    script = Path(sys.executable).parent / "compat-adapter"
    return [str(script)] if script.exists() else [sys.executable, "-m", "compat_adapter.cli"]


def bench_import(reps: int = 7) -> dict[str, Any]:
    py = sys.executable
    bare, full = [], []
    for _ in range(reps):
        bare.append(_wall_ms([py, "-c", "pass"]))
        full.append(_wall_ms([py, "-c", "import compat_adapter"]))
    probe = ("import sys, json, compat_adapter; "
             f"print(json.dumps([m for m in {list(HEAVY)!r} if m in sys.modules]))")
    done = subprocess.run([py, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True)
    heavy = json.loads(done.stdout)
    return {"import_ms": _median(full) - _median(bare), "python_startup_ms": _median(bare),
            "heavy_modules_imported": heavy}


def bench_cli(reps: int = 5) -> dict[str, Any]:
    cli = _cli()
    settings = "tests/fixtures/importers/claude/webapp/.claude/settings.json"
    matrix = [_wall_ms([*cli, "matrix", "--format", "json"]) for _ in range(reps)]
    # The same command with its bytecode cached, as an installed copy runs (pip compiles it at
    # install): in a throw-away cache folder, warmed once, so nothing is written in the checkout.
    with tempfile.TemporaryDirectory() as pycache:
        cached_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        cached_env["PYTHONPYCACHEPREFIX"] = pycache
        _wall_ms([*cli, "matrix", "--format", "json"], env=cached_env)
        cached = [_wall_ms([*cli, "matrix", "--format", "json"], env=cached_env) for _ in range(reps)]
    # grade exits 0 here (no --strict), whatever it grades. It grades what a user who trusted the
    # file sees (every hook graded, not held back as untrusted), with a throw-away trust store.
    before = os.environ.get("COMPAT_ADAPTER_STATE_HOME")
    with tempfile.TemporaryDirectory() as home:
        os.environ["COMPAT_ADAPTER_STATE_HOME"] = home
        try:
            _wall_ms([*cli, "trust", "--yes", "--vendor", "claude", settings])
            grade = [_wall_ms([*cli, "grade", "--vendor", "claude", settings]) for _ in range(reps)]
        finally:
            if before is None:
                os.environ.pop("COMPAT_ADAPTER_STATE_HOME", None)
            else:
                os.environ["COMPAT_ADAPTER_STATE_HOME"] = before
    return {"matrix_cli_ms": _median(matrix), "grade_cli_ms": _median(grade),
            "matrix_cli_cached_ms": _median(cached),
            "cli_compiles_every_start": bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))}


#: What both memory probes start with: the imports they share and a resident-size reader.
_PROBE_HEAD = r"""
import gc, json, os, shlex, subprocess, sys, tempfile
from pathlib import Path
import anyio
from compat_adapter import CompatAdapter
from compat_adapter.host.embedded.memory import MemoryHost

def rss_kb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")
"""

_RSS_PROBE = _PROBE_HEAD + r"""

async def main():
    root = Path(tempfile.mkdtemp())
    async with MemoryHost(root) as host, CompatAdapter(host, log_registrations=False) as adapter:
        # One registration first: lazy imports (dialects, routing) are not the hooks' cost.
        await adapter.register_hook("copilot", "preToolUse", "bash", "echo warm")
        gc.collect()
        before = rss_kb()
        for i in range(1000):
            await adapter.register_hook("copilot", "preToolUse", "bash", f"echo {i}")
        gc.collect()
        after = rss_kb()
        assert sum(h.running for h in adapter.status().hooks) == 1001
    print(json.dumps({"before_kb": before, "after_kb": after}))

anyio.run(main)
"""


def bench_rss() -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", _RSS_PROBE], cwd=REPO, capture_output=True,
                          text=True, check=True)
    data = json.loads(done.stdout)
    return {"rss_1000_hooks_mb": (data["after_kb"] - data["before_kb"]) / 1024.0}


DISPOSE_WARMUP = 3
DISPOSE_CYCLES = 8

_DISPOSE_PROBE = _PROBE_HEAD + r"""
from compat_adapter.host.script import call
from compat_adapter.testing.live.harness import all_rows

def starts(marker):
    return marker.read_text().count("start") if marker.exists() else 0

async def cycle(host, root, n):
    adapter = CompatAdapter(host, state_dir=str(root / "state"))
    marker = root / f"starts-{n}"
    command = f"echo start >> {shlex.quote(str(marker))}; cat > /dev/null"
    prefer = "official" if n % 2 == 0 else "fidelity"
    for spec, row in all_rows():  # outside batch(): each bridged row remounts its bridge
        await adapter.register_hook(spec.id, row.event, None, command, prefer=prefer)
    await adapter.register_rules("claude", "CLAUDE.md", base_dir=root)
    agent = await host.create_agent(script=[call("bash", command="echo hi"),
                                            call("write", path="m.py", content="x = 1\n"), "done"])
    await agent.run_turn("work")
    await adapter.dispose()
    started = starts(marker)
    await agent.dispose()
    await host.settle()
    await anyio.sleep(0.5)
    return starts(marker) - started

async def main(warmup, cycles):
    root = Path(tempfile.mkdtemp())
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "CLAUDE.md").write_text("Keep the tests green.\n")
    # A small log ring, full after one cycle: the steady state of a long-lived host.
    async with MemoryHost(root, max_records=100) as host:
        for n in range(warmup):
            await cycle(host, root, n)
        gc.collect()
        rss = [rss_kb()]
        late = 0
        for n in range(warmup, warmup + cycles):
            late += await cycle(host, root, n)
            gc.collect()
            rss.append(rss_kb())
        print(json.dumps({"rss_kb": rss, "late": late, "mounts": len(host.mounts),
                          "services": len(host.services_in_use())}))

anyio.run(main, int(sys.argv[1]), int(sys.argv[2]))
"""


def bench_dispose() -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", _DISPOSE_PROBE, str(DISPOSE_WARMUP), str(DISPOSE_CYCLES)],
                          cwd=REPO, capture_output=True, text=True, check=True)
    data = json.loads(done.stdout.strip().splitlines()[-1])
    rss = data["rss_kb"]
    # The median step: one allocator arena grown in one cycle is not a growth per cycle.
    return {"dispose_cycle_rss_kb": _median([b - a for a, b in zip(rss, rss[1:], strict=False)]),
            "dispose_rss_growth_kb": rss[-1] - rss[0],
            "dispose_mounts_left": data["mounts"], "dispose_services_left": data["services"],
            "dispose_hook_starts_after": data["late"]}


# ── fs watch ────────────────────────────────────────────────────────────────────────────────────

async def _wait_for(path: Path, limit_s: float) -> float | None:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit_s:
        if path.exists():
            return time.perf_counter()
        await anyio.sleep(0.002)
    return None


async def bench_fswatch(root: Path, reps: int = 5) -> dict[str, float]:
    watched = root / "watched"
    watched.mkdir()
    markers = root / "markers"  # outside the watched tree: the marker write is no change
    markers.mkdir()
    marker = markers / "fired"
    latencies = []
    async with MemoryHost(watched) as host, CompatAdapter(host, log_registrations=False) as adapter:
        hook = {"type": "command", "command": f"cat >/dev/null; touch {marker}"}
        await adapter.register_hook("claude", "FileChanged", None, hook)
        for i in range(reps + 1):
            marker.unlink(missing_ok=True)
            t0 = time.perf_counter()
            (watched / f"file-{i}.txt").write_text(f"change {i}\n")
            seen = await _wait_for(marker, 10.0)
            if seen is None:
                raise RuntimeError("the FileChanged hook did not fire within 10 s")
            if i:
                latencies.append((seen - t0) * 1000 - DEBOUNCE_MS)
            # Let the run finish and the debounce window close before the next write.
            await anyio.sleep(0.4)
        assert adapter.audit, "no FileChanged run was audited"
    return {"fswatch_latency_ms": _median(latencies)}


# ── report ──────────────────────────────────────────────────────────────────────────────────────

def _met(figures: dict[str, Any], *, every: bool = True) -> tuple[dict[str, str], dict[str, bool]]:
    """Each goal and whether it is met; a figure missing from a full run is a goal missed, and
    under ``--only`` the goals of the parts not run are left out."""
    goals: dict[str, str] = {}
    met: dict[str, bool] = {}
    for name, (goal, op) in GOALS.items():
        if not every and name not in figures:
            continue
        goals[name] = f"{op} {goal:g}"
        value = figures.get(name)
        met[name] = value is not None and (value <= goal if op == "<=" else value < goal)
    if every or "heavy_modules_imported" in figures:
        goals["heavy_modules_imported"] = "== []"
        met["heavy_modules_imported"] = figures.get("heavy_modules_imported") == []
    return goals, met


ASYNC_STEPS = ("nomatch", "spawn_ratio", "parallel", "pretool", "register", "fswatch", "plugin_host", "vendor", "port")
SYNC_STEPS = ("import", "cli", "rss", "dispose", "dsh")


async def _async_benches(root: Path, progress: Callable[[str], None],
                         only: frozenset[str] | None = None) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    steps: list[tuple[str, Callable[[Path], Any]]] = [
        ("nomatch", bench_nomatch_all),
        ("spawn_ratio", bench_spawn_ratio),
        ("parallel", bench_parallel),
        ("pretool", bench_pretool),
        ("register", bench_register),
        ("fswatch", bench_fswatch),
        ("plugin_host", bench_plugin_host),
        ("vendor", bench_vendor),
        ("port", bench_port),
    ]
    for name, fn in steps:
        if only is not None and name not in only:
            continue
        progress(name)
        where = root / name
        where.mkdir()
        result = await fn(where)
        figures.update(result if isinstance(result, dict) else {f"{name}_us": result})
    return figures


def run(progress: Callable[[str], None], only: frozenset[str] | None = None) -> dict[str, Any]:
    """Every benchmark, or those named in `only` (a step of ASYNC_STEPS or SYNC_STEPS); the goals
    of steps not run are left out."""
    started = time.perf_counter()
    load_start = os.getloadavg()[0]
    root = Path(tempfile.mkdtemp(prefix="compat-bench-"))
    try:
        figures = anyio.run(_async_benches, root, progress, only)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    sync: dict[str, Callable[[], dict[str, Any]]] = {
        "import": bench_import, "cli": bench_cli, "rss": bench_rss, "dispose": bench_dispose,
        "dsh": bench_dsh}
    for name in SYNC_STEPS:
        if only is None or name in only:
            progress(name)
            figures.update(sync[name]())
    goals, met = _met(figures, every=only is None)
    figures["total_s"] = time.perf_counter() - started
    figures["load_start"], figures["load_end"] = load_start, os.getloadavg()[0]
    return {**{k: (round(v, 3) if isinstance(v, float) else v) for k, v in figures.items()},
            "goals": goals, "met": met}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--only", action="append", choices=ASYNC_STEPS + SYNC_STEPS,
                        help="run only this step (repeatable), e.g. --only spawn_ratio")
    args = parser.parse_args(argv)

    def progress(step: str) -> None:
        print(f"… {step}", file=sys.stderr, flush=True)

    report = run(progress, frozenset(args.only) if args.only else None)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    goals, met = report["goals"], report["met"]
    width = max(len(k) for k in report)
    print(f"{'figure':<{width}}  {'value':>12}  goal")
    for key, value in report.items():
        if key in ("goals", "met"):
            continue
        goal = goals.get(key, "")
        mark = ("  ok" if met[key] else "  MISSED") if key in met else ""
        shown = value if not isinstance(value, float) else f"{value:.3f}"
        print(f"{key:<{width}}  {str(shown):>12}  {goal}{mark}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
