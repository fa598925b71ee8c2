"""What a ported hook costs under the target's real CLI, against the same hook written natively.

One scripted session of ``CALLS`` shell calls (``true``) runs under the real target CLI of the
vendor lane four ways: with no hook, with the team's guard (``guard.sh``, a POSIX shell script)
as a native hook of the target, and with the same guard as a Claude PreToolUse hook ported to the
target by ``compat-adapter port``, its entry running ``compat-adapter shim`` or the compiled client. A session's figure is
the median gap between consecutive model requests (one tool call with its hooks); per round, a
hook's added time is the hooked session's figure minus the bare one's. The sessions of a round run
in an order that turns every round. The guard is Claude's for Codex and Codex's for Claude.

* ``port_<target>_native_ms``, ``port_<target>_ported_ms`` — the added time of the native and of
  the ported hook (median over the rounds);
* ``port_<target>_hook_ratio`` — ported / native: the goal (issue 38) is ≤ 1.5;
* ``port_<target>_fast_ms``, ``port_<target>_fast_ratio`` — the same ported hook as ``port`` writes it
  by default: the compiled shim client named bare (placed beside compat-adapter), behind its test for
  the client; no Python started per call while the server is up, the hook started by the client;
* ``port_rounds``.

The entries of ``fast`` are what ``compat-adapter port`` writes by default (where a C compiler builds
the client); those of ``ported`` are its fallback without one. The shim server a ported session's
calls reach is started, and warm, before the session (``COMPAT_ADAPTER_BENCH_PORT_WARM=0``: not,
as before 2026-12-05): the lane gives every session a TMPDIR of its own, so each session's first calls
found no server, ran cold and each started one, the start-ups racing the measured calls; a user's
server outlives the session (five idle minutes). The figures are a call's cost once it is up.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
from pathlib import Path
from typing import Any

__all__ = ("TARGETS", "bench_port")

#: Targets whose CLI takes a long run of identical calls (Gemini 0.61.0 stops one as a loop after
#: a few: measured, 6 model requests of 9), each with the vendor whose guard is ported to it.
TARGETS = ("codex", "claude")
SOURCES = {"codex": "claude", "claude": "codex"}
SOURCE_FILES = {"claude": ".claude/settings.json", "codex": ".codex/hooks.json"}
#: Calls per session (``COMPAT_ADAPTER_BENCH_PORT_CALLS``): a target's own step varies by several ms
#: (Claude Code's: 33 to 103 ms, measured), so more calls give a steadier median.
CALLS = int(os.environ.get("COMPAT_ADAPTER_BENCH_PORT_CALLS") or 8)
ROUNDS = 3
STEP = "true"
GUARD = '#!/bin/sh\ninput=$(cat)\ncase "$input" in\n  *"rm -r"*) echo "refused" >&2; exit 2;;\nesac\nexit 0\n'


def _case(target: str, kind: str, root: Path) -> Any:
    from compat_adapter.catalog import unit_of
    from compat_adapter.importers.gate import trust_files
    from compat_adapter.port.files import write_port
    from compat_adapter.port.plan import plan_port
    from compat_adapter.testing.lane.porting import launcher
    from compat_adapter.testing.lane.scenarios import Case
    from compat_adapter.testing.lane.vendors import cli_for

    cli = cli_for(target)
    files = {"guard.sh": GUARD}
    event = unit_of(target).host.events["tools/pre-execute"]  # type: ignore[union-attr]
    if kind == "native":
        files[cli.hooks_file] = json.dumps({"hooks": {event: [{"hooks": [{"type": "command", "command": "./guard.sh"}]}]}})
    elif kind in ("ported", "fast"):
        proj = Path(tempfile.mkdtemp(prefix="port-bench-", dir=root))
        source = SOURCES[target]
        config = proj / SOURCE_FILES[source]
        config.parent.mkdir()
        config.write_text(json.dumps({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}]}}))
        trust_files(source, [config], command="scripts/bench_port.py: its own hook file")
        # "fast": the entries port writes by default: the compiled client placed as compat-adapter-shim
        # beside compat-adapter and named bare, each guard behind its test for the client.
        start = _placed_client(root) if kind == "fast" else launcher()
        plan = plan_port(proj, target, launcher=start, sources=[source])
        if kind == "fast" and start == ["compat-adapter-shim"]:
            from dataclasses import replace

            from compat_adapter.port.clientname import guard_absent_client

            plan = replace(plan, entries=guard_absent_client(target, plan.entries)[0])
        write_port(proj, unit_of(target).host, plan)  # type: ignore[arg-type]
        files[plan.file] = (proj / plan.file).read_text()
    steps = (*((("shell", STEP),) * CALLS), ("text", "done"))
    return Case(target, f"bench_port_{kind}", steps=steps, prompt="run the lane steps", installed=True, files=files)


def _placed_client(root: Path) -> list[str]:
    """The client as ``compat-adapter port`` places it (the install's scripts folder, put on PATH
    for the session as an installed compat-adapter's is), or its built path where it cannot be."""
    from compat_adapter.port.clientname import choose_client, scripts_folder
    from compat_adapter.port.fastclient import build_client

    scripts = str(scripts_folder())
    if scripts not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = scripts + os.pathsep + os.environ.get("PATH", "")
    return list(choose_client(build_client(root / "bin"), install=True).launcher)


def _warm_server(run: Path) -> Any:
    """The shim server a ported call of this session finds, started and warm before the session
    (a user's server is up for all but the first call after five idle minutes; the lane gives each
    session a TMPDIR of its own, where every session's first calls would start one, each, racing)."""
    import subprocess
    import sys
    import time

    from compat_adapter.port.client import server_path

    (run / "tmp").mkdir(parents=True, exist_ok=True)
    path = server_path({"TMPDIR": str(run / "tmp")})
    assert path is not None
    server = subprocess.Popen([sys.executable, "-m", "compat_adapter.port.server", path], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    end = time.monotonic() + 120.0
    while not os.path.exists(path + ".pid"):
        if time.monotonic() > end or server.poll() is not None:
            server.kill()
            server.wait()
            raise RuntimeError("the shim server did not start")
        time.sleep(0.05)
    return server


def _session(target: str, kind: str, root: Path) -> float:
    from compat_adapter.testing.lane.run import run_vendor

    run = Path(tempfile.mkdtemp(prefix=f"{target}-{kind}-", dir=root))
    warm = kind in ("ported", "fast") and os.environ.get("COMPAT_ADAPTER_BENCH_PORT_WARM", "1") != "0"
    server = _warm_server(run) if warm else None
    try:
        record = run_vendor(_case(target, kind, root), run)
    finally:
        if server is not None:
            server.kill()
            server.wait()
    if record.result["rc"] != 0:
        raise RuntimeError(f"{target} exited {record.result['rc']}: {record.result['stderr'][-400:]}")
    stamps = [r["at"] for r in record.requests if r["step"]]
    gaps = [(b - a) * 1000.0 for a, b in zip(stamps, stamps[1:], strict=False)]
    if len(gaps) < CALLS:
        raise RuntimeError(f"{target} {kind}: expected {CALLS + 1} model requests, saw {len(stamps)}")
    return float(statistics.median(gaps[:CALLS]))


async def bench_port(root: Path, rounds: int | None = None) -> dict[str, Any]:
    import anyio.to_thread

    rounds = rounds or int(os.environ.get("COMPAT_ADAPTER_BENCH_PORT_ROUNDS", ROUNDS))
    kinds = ("bare", "native", "ported", "fast")
    out: dict[str, Any] = {"port_rounds": rounds}
    before = os.environ.get("COMPAT_ADAPTER_STATE_HOME")
    with tempfile.TemporaryDirectory(prefix="compat-bench-port-") as home:
        os.environ["COMPAT_ADAPTER_STATE_HOME"] = home
        try:
            for target in TARGETS:
                seen: dict[str, list[float]] = {k: [] for k in kinds}
                for r in range(rounds + 1):
                    order = kinds[r % len(kinds):] + kinds[:r % len(kinds)]
                    for kind in order:
                        ms = await anyio.to_thread.run_sync(_session, target, kind, root)
                        if r:  # the first round warms the CLI's files and caches
                            seen[kind].append(ms)
                native = [n - b for n, b in zip(seen["native"], seen["bare"], strict=True)]
                ported = [p - b for p, b in zip(seen["ported"], seen["bare"], strict=True)]
                out[f"port_{target}_native_ms"] = float(statistics.median(native))
                out[f"port_{target}_ported_ms"] = float(statistics.median(ported))
                out[f"port_{target}_hook_ratio"] = (out[f"port_{target}_ported_ms"] /
                                                    max(out[f"port_{target}_native_ms"], 1.0))
                fast = [f - b for f, b in zip(seen["fast"], seen["bare"], strict=True)]
                out[f"port_{target}_fast_ms"] = float(statistics.median(fast))
                out[f"port_{target}_fast_ratio"] = (out[f"port_{target}_fast_ms"] /
                                                    max(out[f"port_{target}_native_ms"], 1.0))
        finally:
            if before is None:
                os.environ.pop("COMPAT_ADAPTER_STATE_HOME", None)
            else:
                os.environ["COMPAT_ADAPTER_STATE_HOME"] = before
    return out
