"""What a ported hook costs under the target's real CLI, against the same hook written natively.

One scripted session of ``CALLS`` shell calls (``true``) runs under the real target CLI of the
vendor lane four ways: with no hook, with the team's guard (``guard.sh``, a POSIX shell script)
as a native hook of the target, and with the same guard as a Claude PreToolUse hook ported to the
target by ``compat-adapter port``, its entry running ``compat-adapter shim`` or the compiled client.
A session gives the gaps between its consecutive model requests (one tool call with its hooks
each). The sessions of a round run in an order that turns every round. The guard is Claude's for
Codex and Codex's for Claude. Where the CLI has a tool call that no hook sees (Codex's
``update_plan``: the lane's ``inert_call``), each shell call is followed by one, and those gaps are
the session's own reference. How a hook's added time is read from the gaps (:func:`added_times`):

* one mode with the reference (Codex): per kind, the median of all its measured gaps less the
  median of all its inert ones, less the same for the bare sessions (a session's gaps move
  together by a few ms, and its inert ones with them);
* one mode without it: per round, the hooked session's median gap minus the bare one's; the median
  over the rounds;
* two modes (Claude Code: its step takes about 30 or about 75 ms, in one session, and a hook moves
  calls from one mode to the other, so a median jumps between the modes): per mode, the median of
  the kind's gaps in it minus the bare sessions'; the modes weighed by their gaps.

* ``port_<target>_native_ms``, ``port_<target>_ported_ms`` — the added time of the native and of
  the ported hook;
* ``port_<target>_hook_ratio`` — ported / native: the goal (issue 38) is ≤ 1.5; null (a goal
  missed) when either added time reads zero or less, which only the noise gives;
* ``port_<target>_fast_ms``, ``port_<target>_fast_ratio`` — the same ported hook as ``port`` writes it
  by default: the compiled shim client named bare (placed beside compat-adapter), behind its test for
  the client; no Python started per call while the server is up, the hook started by the client;
* ``port_<target>_fast_ratio_band`` — the 10th and 90th percentiles of ``fast_ratio`` over the
  rounds resampled (:func:`ratio_band`): how much of the figure is the rounds this run drew;
* ``port_<target>_read`` — which reading was used, and for two modes each kind's split and its
  modes' medians and sizes;
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

__all__ = ("TARGETS", "added_times", "bench_port", "ratio", "ratio_band", "session", "split_modes")

#: Targets whose CLI takes a long run of identical calls (Gemini 0.61.0 stops one as a loop after
#: a few: measured, 6 model requests of 9), each with the vendor whose guard is ported to it.
TARGETS = ("codex", "claude")
SOURCES = {"codex": "claude", "claude": "codex"}
SOURCE_FILES = {"claude": ".claude/settings.json", "codex": ".codex/hooks.json"}
#: Calls per session (``COMPAT_ADAPTER_BENCH_PORT_CALLS``): a target's own step varies by several ms
#: (Claude Code's: 33 to 103 ms, measured), so more calls give a steadier median.
CALLS = int(os.environ.get("COMPAT_ADAPTER_BENCH_PORT_CALLS") or 30)
#: Rounds (``COMPAT_ADAPTER_BENCH_PORT_ROUNDS``). The native guard's added time moves between runs by
#: more than the goal's margin (Codex: 3.7 to 4.7 ms), so a ratio needs many rounds: 3 rounds of 8
#: calls read Codex at 2.31x with a band of 1.08 to 9.25 in the same hour as 16 rounds of 30 calls
#: read 1.35x with a band of 1.19 to 1.53 (2026-12-06, before the inert reference). About 5 minutes
#: for both targets.
ROUNDS = 12
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
    # Where the CLI has a call no hook sees, each measured call is followed by one: the session's
    # own reference (added_times).
    step = ((("shell", STEP), ("inert", "")) if cli.inert_call is not None else (("shell", STEP),))
    steps = (*(step * CALLS), ("text", "done"))
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


def session(target: str, kind: str, root: Path) -> tuple[list[float], list[float]]:
    """The gaps (ms) between the session's consecutive model requests: those that held one shell
    call each, and those that held the CLI's inert call (none where it has none)."""
    from compat_adapter.testing.lane.run import run_vendor
    from compat_adapter.testing.lane.vendors import cli_for

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
        raise RuntimeError(f"{target} {kind} exited {record.result['rc']}: {record.result['stderr'][-400:]}")
    stamps = [r["at"] for r in record.requests if r["step"]]
    gaps = [(b - a) * 1000.0 for a, b in zip(stamps, stamps[1:], strict=False)]
    paired = cli_for(target).inert_call is not None
    if len(gaps) < CALLS * (2 if paired else 1):
        raise RuntimeError(f"{target} {kind}: expected {CALLS * (2 if paired else 1) + 1} model requests, "
                           f"saw {len(stamps)}")
    return (gaps[0:2 * CALLS:2], gaps[1:2 * CALLS:2]) if paired else (gaps[:CALLS], [])


def split_modes(gaps: list[float]) -> float | None:
    """Where a session kind's gaps part into two modes, or None when they form one.

    Claude Code's shell step is bimodal (gaps of about 30 or about 75 ms in one session, measured),
    and the share of each mode moves with what a hook costs: a median then jumps between the modes
    and reads nothing of the hook. Two modes: the two groups of a 1-D two-means split each hold at
    least a tenth of the gaps and their medians lie further apart than eight times the spread
    within either (median absolute deviation, at least 0.5 ms): Codex's step, one mode, never
    splits so (its session-to-session drift is a few ms against a spread of about one)."""
    if len(gaps) < 10:
        return None
    cut = statistics.fmean(gaps)
    for _ in range(50):
        low, high = [g for g in gaps if g < cut], [g for g in gaps if g >= cut]
        if not low or not high:
            return None
        moved = (statistics.fmean(low) + statistics.fmean(high)) / 2
        if moved == cut:
            break
        cut = moved
    if min(len(low), len(high)) < len(gaps) / 10:
        return None
    spread = max(_mad(low), _mad(high), 0.5)
    return cut if statistics.median(high) - statistics.median(low) > 8 * spread else None


def _mad(values: list[float]) -> float:
    middle = statistics.median(values)
    return float(statistics.median(abs(v - middle) for v in values))


#: Gaps a mode needs, in the bare sessions and in the kind, to be read.
MODE_MIN = 5


def added_times(rounds: list[dict[str, list[float]]], kinds: tuple[str, ...],
                inert: list[dict[str, list[float]]] | None = None) -> tuple[dict[str, float], dict[str, Any]]:
    """Each hooked kind's added ms per call over the bare sessions, from ``rounds`` (per round, each
    kind's gaps) and, where the CLI has a call no hook sees, ``inert`` (per round, each kind's gaps
    of those calls, made between the measured ones), and how it was read.

    One mode with inert calls: the session's own reference. A session's gaps move together by a
    few ms from one session to the next (Codex: the bare sessions' median gap has a standard
    deviation of 1.5 ms between sessions, where one session's 30 gaps span about 2 ms between their
    quartiles); the inert calls of the same session move with them. Each kind's added time is its
    median measured gap less its median inert gap, all its rounds pooled, less the same difference
    of the bare sessions. On 12 rounds of Codex (30 pairs
    of calls a session, 2026-12-06) the ratio's 10-90 % band over resampled rounds was 0.14 wide
    this way, against 0.25 pooled without the reference and 0.64 for the median of round
    differences (below) on the same gaps.

    One mode without them (the bare sessions' gaps do not split, :func:`split_modes`): per round the kind's
    median gap minus the bare session's, the median over the rounds (the sessions of one round ran
    back to back). Two modes: each kind's gaps are parted where they split, or where the bare ones
    do when a kind's do not (a hook can move nearly every call into one mode: the Python client's
    under Claude Code, measured); per mode with at least :data:`MODE_MIN` gaps on both sides, the
    median of the kind's gaps in it minus the bare sessions' (all rounds pooled), the modes weighed
    by the fewer of their two counts."""
    pooled = {k: [g for r in rounds for g in r[k]] for k in kinds}
    bare_cut = split_modes(pooled["bare"])
    if bare_cut is None and inert and all(r[k] for r in inert for k in kinds):
        quiet = {k: statistics.median([g for r in inert for g in r[k]]) for k in kinds}
        own = {k: statistics.median(pooled[k]) - quiet[k] for k in kinds}
        added = {k: float(own[k] - own["bare"]) for k in kinds if k != "bare"}
        # Each kind's inert median is shown: a hook whose cost reached the inert calls too (they
        # should cost the same in every kind) would be read as cheaper by as much.
        return added, {"estimator": "pooled median less the session's inert calls' median",
                       "inert_ms": {k: round(v, 2) for k, v in quiet.items()},
                       "measured_less_inert_ms": {k: round(v, 2) for k, v in own.items()}}
    if bare_cut is None:
        added = {k: float(statistics.median(statistics.median(r[k]) - statistics.median(r["bare"]) for r in rounds))
                 for k in kinds if k != "bare"}
        return added, {"estimator": "median of round differences"}
    cuts = {k: bare_cut if k == "bare" else split_modes(pooled[k]) or bare_cut for k in kinds}
    modes = {k: {"low": [g for g in pooled[k] if g < cuts[k]], "high": [g for g in pooled[k] if g >= cuts[k]]}
             for k in kinds}
    added = {}
    for k in kinds:
        if k == "bare":
            continue
        parts = [(statistics.median(modes[k][m]) - statistics.median(modes["bare"][m]),
                  min(len(modes[k][m]), len(modes["bare"][m])))
                 for m in ("low", "high") if min(len(modes[k][m]), len(modes["bare"][m])) >= MODE_MIN]
        added[k] = sum(d * w for d, w in parts) / sum(w for _, w in parts) if parts else float("nan")
    how = {"estimator": "two modes", "split_ms": {k: round(c, 1) for k, c in cuts.items()},
           "modes": {k: {m: [round(statistics.median(v), 2) if v else None, len(v)] for m, v in modes[k].items()}
                     for k in kinds}}
    return added, how


def ratio(added: float, native: float) -> float | None:
    """``added`` over the native hook's added time; None when either reads as no cost or less (a
    hook takes time: a reading of zero or below is the noise's, not the hook's)."""
    if not added > 0 or not native > 0:
        return None
    return added / max(native, 1.0)


def ratio_band(rounds: list[dict[str, list[float]]], kinds: tuple[str, ...], kind: str,
               draws: int = 400, inert: list[dict[str, list[float]]] | None = None) -> tuple[float, float] | None:
    """The 10th and 90th percentiles of ``kind``'s ratio to the native hook over resamples of the
    rounds (drawn with replacement): how far the figure moves with the rounds this run happened to
    get, on a machine whose load moves it by tens of per cent between runs. None when most
    resamples cannot be read (:func:`ratio`)."""
    import random

    draw = random.Random(38)
    ratios = []
    for _ in range(draws):
        picks = [draw.randrange(len(rounds)) for _ in rounds]
        added, _ = added_times([rounds[i] for i in picks], kinds, [inert[i] for i in picks] if inert else None)
        read = ratio(added[kind], added["native"])
        if read is not None:
            ratios.append(read)
    if len(ratios) < draws / 2:
        return None
    deciles = statistics.quantiles(ratios, n=10)
    return deciles[0], deciles[-1]


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
                seen: list[dict[str, list[float]]] = []
                inert: list[dict[str, list[float]]] = []
                for r in range(rounds + 1):
                    order = kinds[r % len(kinds):] + kinds[:r % len(kinds)]
                    gaps, quiet = {}, {}
                    for kind in order:
                        gaps[kind], quiet[kind] = await anyio.to_thread.run_sync(session, target, kind, root)
                    if r:  # the first round warms the CLI's files and caches
                        seen.append(gaps)
                        inert.append(quiet)
                added, how = added_times(seen, kinds, inert)
                out[f"port_{target}_native_ms"] = added["native"]
                out[f"port_{target}_ported_ms"] = added["ported"]
                out[f"port_{target}_hook_ratio"] = ratio(added["ported"], added["native"])
                out[f"port_{target}_fast_ms"] = added["fast"]
                out[f"port_{target}_fast_ratio"] = ratio(added["fast"], added["native"])
                band = ratio_band(seen, kinds, "fast", inert=inert)
                out[f"port_{target}_fast_ratio_band"] = None if band is None else [round(x, 3) for x in band]
                out[f"port_{target}_read"] = how
        finally:
            if before is None:
                os.environ.pop("COMPAT_ADAPTER_STATE_HOME", None)
            else:
                os.environ["COMPAT_ADAPTER_STATE_HOME"] = before
    return out
