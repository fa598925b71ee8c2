"""The OpenCode plugin host: a project's real plugins loaded in a Bun sidecar, graded one row per hook
key, and run through the embedded host's scripted loop (real tools, real processes, real git).

The runtime comes from the set-up step (`bash scripts/plugin_lane.sh`, run by `.ci/run`)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import anyio
import pytest
from conftest import trust_project

from compat_adapter.host.embedded.memory import MemoryHost
from compat_adapter.host.script import Reply, call
from compat_adapter.model import Capability, Route
from vendors.opencode.plugin_host.host import PluginHost, grade_plugins
from vendors.opencode.plugin_host.lane import lane
from vendors.opencode.plugin_host.sidecar import Sidecar, pid_alive
from vendors.opencode.plugin_host.sources import project_sources
from compat_adapter.service import CompatAdapter
from vendors.surface import TABLE_SURFACE

REPO = Path(__file__).resolve().parents[1]

ENV_PROTECTION = """\
export const EnvProtection = async ({ project, client, $, directory, worktree }) => {
  return {
    "tool.execute.before": async (input, output) => {
      if (input.tool === "read" && output.args.filePath.includes(".env")) {
        throw new Error("Do not read .env files")
      }
    },
  }
}
"""

GUARD = """\
import type { Plugin } from "@opencode-ai/plugin"
import { appendFileSync } from "node:fs"

type Seen = { type: string }

export const Guard: Plugin = async ({ directory, worktree, $ }) => {
  const branch = (await $`git rev-parse --abbrev-ref HEAD`.quiet().text()).trim()
  return {
    "tool.execute.before": async (input, output) => {
      if (input.tool === "bash" && /\\brm\\s+-rf\\b/.test(output.args.command)) {
        throw new Error(`guard: no rm -rf on ${branch}`)
      }
    },
    "shell.env": async (input, output) => {
      output.env.DSH_GUARD_BRANCH = branch
      output.env.GUARD_PLAIN = "set-by-guard"
    },
    event: async ({ event }: { event: Seen }) => {
      appendFileSync(`${worktree}/.guard-events.log`, event.type + "\\n")
    },
  }
}
"""


#: The plugin runtime from the set-up step (conftest.plugin_runtime): never a skip.
pytestmark = pytest.mark.usefixtures("plugin_runtime")


@pytest.fixture
def project(git_repo: Path) -> Path:
    folder = git_repo / ".opencode/plugin"
    folder.mkdir(parents=True)
    (folder / "env-protection.js").write_text(ENV_PROTECTION)
    (folder / "guard.ts").write_text(GUARD)
    (git_repo / ".env").write_text("API_TOKEN=do-not-leak\n")
    return git_repo


def kinds(results: tuple) -> list[tuple[str, Capability, Route]]:
    return [(r.event, r.capability, r.route) for r in results]


async def test_grading_lists_one_adapted_row_per_hook_key(project: Path) -> None:
    trust_project("opencode", project)  # the user trusted these plugins
    graded = await grade_plugins(project, TABLE_SURFACE)
    rows = [(g.plugin, g.result.event, g.result.capability, g.result.route) for g in graded]
    assert rows == [
        (".opencode/plugin/env-protection.js#EnvProtection", "tool.execute.before", Capability.ADAPTED,
         Route.PLUGIN_HOST),
        (".opencode/plugin/guard.ts#Guard", "tool.execute.before", Capability.ADAPTED, Route.PLUGIN_HOST),
        (".opencode/plugin/guard.ts#Guard", "shell.env", Capability.ADAPTED, Route.PLUGIN_HOST),
        (".opencode/plugin/guard.ts#Guard", "event", Capability.ADAPTED, Route.PLUGIN_HOST),
    ]
    before = graded[0].result
    codes = [d.code.value for d in before.degradations]
    # output.args mutations run (a nested call), and the history keeps the model's own call
    assert {"decision-narrowed", "message-provenance", "timeout-differs"} <= set(codes)
    assert "input-rewrite-ignored" not in codes
    assert before.seams == ("tools/pre-execute",)


async def test_a_plugin_that_throws_at_load_is_one_unsupported_row_with_the_error(tmp_path: Path) -> None:
    folder = tmp_path / ".opencode/plugins"
    folder.mkdir(parents=True)
    (folder / "broken.ts").write_text('export const Broken = async () => { throw new Error("no config found") }\n')
    (folder / "syntax.js").write_text("export const = ;\n")
    (folder / "keys.ts").write_text(
        'export const Keys = async () => ({ "chat.params": async () => {}, "made.up": async () => {} })\n')
    trust_project("opencode", tmp_path)  # the user trusted these plugins
    graded = await grade_plugins(tmp_path, TABLE_SURFACE)
    by_source = {(g.source.id, g.result.event): g.result for g in graded}
    broken = by_source[(".opencode/plugins/broken.ts", "plugin-load")]
    assert broken.capability is Capability.UNSUPPORTED
    assert broken.reason == "the plugin threw at load: no config found"
    syntax = by_source[(".opencode/plugins/syntax.js", "plugin-load")]
    assert syntax.capability is Capability.UNSUPPORTED and "did not load" in (syntax.reason or "")
    params = by_source[(".opencode/plugins/keys.ts", "chat.params")]
    assert params.capability is Capability.UNSUPPORTED and "temperature" in (params.reason or "")
    made_up = by_source[(".opencode/plugins/keys.ts", "made.up")]
    assert "no plugin hook named 'made.up'" in (made_up.reason or "")


async def test_a_missing_seam_makes_the_row_unsupported(project: Path) -> None:
    smaller = TABLE_SURFACE.without(services=("shellEnv",))
    trust_project("opencode", project)  # the user trusted these plugins
    graded = await grade_plugins(project, smaller)
    env = next(g.result for g in graded if g.result.event == "shell.env")
    assert env.capability is Capability.UNSUPPORTED and "shellEnv" in (env.reason or "")


async def test_the_scripted_loop_runs_the_plugins_end_to_end(project: Path) -> None:
    async with MemoryHost(project) as host, CompatAdapter(host) as adapter:
        trust_project("opencode", project)  # the user trusted these plugins
        results = await adapter.register_plugins(project)
        assert [r.capability for r in results] == [Capability.ADAPTED] * 4
        agent = await host.create_agent(script=[
            Reply(calls=(call("read", path=".env"),)),
            Reply(calls=(call("bash", command='echo "branch=$DSH_GUARD_BRANCH plain=${GUARD_PLAIN:-unset}"'),)),
            Reply(calls=(call("bash", command="rm -rf build"),)),
            Reply(calls=(call("read", path="README.md"),)),
            "done",
        ])
        await agent.run_turn("look around")
        await host.settle()
        results_log = [e.data for e in agent.session.events if e.type == "tool/result"]
        status = adapter.status()
        sidecar = adapter._plugins.plugins.sidecar  # noqa: SLF001 - the test checks the process group
        assert sidecar is not None and sidecar.pid is not None
        pid = sidecar.pid
    # the .env read is denied with the plugin's own message, the file never read
    assert results_log[0]["isError"] and results_log[0]["text"] == "Do not read .env files"
    assert "do-not-leak" not in json.dumps([dict(r) for r in results_log])
    # the DSH_* variable reaches the bash tool; the plain name is dropped by the host (listed loss)
    assert results_log[1]["text"] == "branch=main plain=unset"
    assert results_log[2]["isError"] and results_log[2]["text"] == "guard: no rm -rf on main"
    assert not results_log[3]["isError"] and "hello" in results_log[3]["text"]
    # the event callback saw the host's bus events, in order
    seen = (project / ".guard-events.log").read_text().split()
    assert seen == ["session.created", "message.updated", "session.status", "session.status", "session.idle"]
    assert all(h.running for h in status.hooks)
    audit = [(a.event, a.decision) for a in adapter.audit if a.point == "tools/pre-execute"]
    assert ("tool.execute.before", "deny") in audit
    # disposing the adapter killed the sidecar's process group
    assert not pid_alive(pid)


async def test_args_mutation_runs_as_the_new_input_and_the_hook_runs_once(tmp_path: Path) -> None:
    folder = tmp_path / ".opencode/plugin"
    folder.mkdir(parents=True)
    (folder / "rewrite.ts").write_text(
        'export const R = async () => ({ "tool.execute.before": async (i, o) => '
        '{ o.args.command = "echo rewritten" } })\n')
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        trust_project("opencode", tmp_path)  # the user trusted these plugins
        await adapter.register_plugins(tmp_path)
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="echo original"),)), "ok"])
        await agent.run_turn("go")
        texts = [e.data["text"] for e in agent.session.events if e.type == "tool/result"]
        audit = [a for a in adapter.audit if a.event == "tool.execute.before"]
    # OpenCode runs the mutated args: so does the host, through one nested call
    assert texts == ["rewritten"]
    assert len(audit) == 1, "tool.execute.before ran again on the nested call"
    assert audit[0].note == "args mutated; the call runs with them" and audit[0].honoured


async def test_tool_execute_after_rewrites_what_the_model_reads(tmp_path: Path) -> None:
    folder = tmp_path / ".opencode/plugin"
    folder.mkdir(parents=True)
    (folder / "after.ts").write_text(
        'export const A = async () => ({ "tool.execute.after": async (i, o) => '
        '{ o.output = o.output + "\\n[checked by plugin for " + i.tool + "]" } })\n')
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        trust_project("opencode", tmp_path)  # the user trusted these plugins
        await adapter.register_plugins(tmp_path)
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="echo hi"),)), "ok"])
        await agent.run_turn("go")
        texts = [e.data["text"] for e in agent.session.events if e.type == "tool/result"]
    assert texts == ["hi\n[checked by plugin for bash]"]


async def test_chat_message_rewrites_and_adds_prompt_parts(tmp_path: Path) -> None:
    folder = tmp_path / ".opencode/plugin"
    folder.mkdir(parents=True)
    (folder / "chat.ts").write_text(
        'export const C = async () => ({ "chat.message": async (i, o) => {\n'
        '  o.parts[0].text = o.parts[0].text.toUpperCase()\n'
        '  o.parts.push({ id: "prt_extra", type: "text", text: "plugin context" })\n'
        '  o.parts.push({ type: "text", text: "no id: dropped" })\n'
        '} })\n')
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        trust_project("opencode", tmp_path)  # the user trusted these plugins
        await adapter.register_plugins(tmp_path)
        agent = await host.create_agent(script=["ok"])
        await agent.run_turn("hello there")
        users = [e.data["text"] for e in agent.session.events if e.type == "user/message"]
    assert users == ["HELLO THERE\n\nplugin context"]  # one user message, as OpenCode's parts are; a part a paragraph


async def test_a_hanging_callback_times_out_and_a_blocked_sidecar_is_replaced(tmp_path: Path) -> None:
    folder = tmp_path / ".opencode/plugin"
    folder.mkdir(parents=True)
    (folder / "slow.ts").write_text(
        'export const S = async () => ({\n'
        '  "tool.execute.before": async (i) => { if (i.tool === "wait") await new Promise(() => {});'
        ' if (i.tool === "spin") { while (true) {} } },\n'
        '})\n')
    sidecar = Sidecar(lane(), tmp_path)
    await sidecar.start()
    try:
        sources = project_sources(tmp_path)
        reply = await sidecar.load({"directory": str(tmp_path), "worktree": str(tmp_path),
                                    "sources": [s.wire() for s in sources], "timeoutMs": 5000}, timeout_s=10)
        plugin = reply["plugins"][0]["exports"][0]["id"]
        hung = await sidecar.call([plugin], "tool.execute.before", {"tool": "wait"}, {"args": {}}, timeout_s=0.5)
        assert hung.error is not None and "did not finish within 0.5 s" in hung.error and hung.plugin == plugin
        first = sidecar.pid
        assert first is not None and pid_alive(first) and sidecar.restarts == 0  # an await holds nothing up
        ok = await sidecar.call([plugin], "tool.execute.before", {"tool": "read"}, {"args": {}}, timeout_s=5)
        assert ok.error is None
        spun = await sidecar.call([plugin], "tool.execute.before", {"tool": "spin"}, {"args": {}}, timeout_s=0.5)
        assert spun.error is not None and "did not finish" in spun.error
        assert not pid_alive(first)  # deaf: its group was killed
        again = await sidecar.call([plugin], "tool.execute.before", {"tool": "read"}, {"args": {}}, timeout_s=5)
        assert again.error is None and sidecar.restarts == 1 and sidecar.pid != first
    finally:
        await sidecar.close()


async def test_closing_kills_what_plugins_started(tmp_path: Path) -> None:
    folder = tmp_path / ".opencode/plugin"
    folder.mkdir(parents=True)
    (folder / "bg.ts").write_text(
        'import { writeFileSync } from "node:fs"\n'
        'export const B = async ({ directory }) => {\n'
        '  const child = Bun.spawn(["sleep", "300"])\n'
        '  writeFileSync(`${directory}/child.pid`, String(child.pid))\n'
        '  return { dispose: async () => {} }\n'
        '}\n')
    host = PluginHost(tmp_path)
    trust_project("opencode", tmp_path)  # the user trusted these plugins
    reports = await host.load(tmp_path)
    assert reports[0].error is None and reports[0].exports[0].keys == ("dispose",)
    child = int((tmp_path / "child.pid").read_text())
    assert pid_alive(child)
    await host.close()
    with anyio.fail_after(5):
        while pid_alive(child):
            # a killed child of the group is reaped by its (dead) parent's reaper: init
            await anyio.sleep(0.05)
    with pytest.raises(ProcessLookupError):
        os.kill(child, signal.SIGCONT)


async def test_client_parts_the_host_cannot_serve_throw_and_are_reported(tmp_path: Path) -> None:
    folder = tmp_path / ".opencode/plugin"
    folder.mkdir(parents=True)
    (folder / "client.ts").write_text(
        'export const K = async ({ client }) => {\n'
        '  await client.app.log({ body: { service: "k", level: "info", message: "loaded" } })\n'
        '  let text = "none"\n'
        '  try { await client.session.list() } catch (e) { text = e.message }\n'
        '  return { "tool.execute.before": async () => { throw new Error(text) } }\n'
        '}\n')
    host = PluginHost(tmp_path)
    try:
        trust_project("opencode", tmp_path)  # the user trusted these plugins
        await host.load(tmp_path)
        plugin = ".opencode/plugin/client.ts#K"
        result = await host.call([plugin], "tool.execute.before", {"tool": "bash"}, {"args": {}}, timeout_s=5)
    finally:
        await host.close()
    assert result.error == "compat-adapter plugin host: client.session.list is not available on this host"
    assert host.missing == ["session.list"]
    assert host.logs[0]["message"] == "loaded"


async def test_import_project_offers_the_plugins_of_trusted_files_only(project: Path) -> None:
    from conftest import trust_project

    from compat_adapter.importers import import_project, register_import
    from compat_adapter.importers.gate import review

    seen = review("opencode", project / ".opencode/plugin/guard.ts")
    assert seen.plugins == (f"file {project / '.opencode/plugin/guard.ts'}",) and seen.verdict.state == "untrusted"
    untrusted = import_project("opencode", project)
    assert untrusted.plugins == ()
    assert [(r.code, r.what) for r in untrusted.refused] == [("UNTRUSTED", "plugin env-protection.js"),
                                                            ("UNTRUSTED", "plugin guard.ts")]
    trust_project("opencode", project)
    imported = import_project("opencode", project)
    async with MemoryHost(project) as host, CompatAdapter(host) as adapter:
        results = await register_import(adapter, imported)
        agent = await host.create_agent(script=[Reply(calls=(call("read", path=".env"),)), "done"])
        await agent.run_turn("read the env")
        texts = [e.data["text"] for e in agent.session.events if e.type == "tool/result"]
    assert [(r.event, r.capability) for r in results] == [
        ("tool.execute.before", Capability.ADAPTED), ("tool.execute.before", Capability.ADAPTED),
        ("shell.env", Capability.ADAPTED), ("event", Capability.ADAPTED)]
    assert texts == ["Do not read .env files"]


async def test_npm_plugins_the_config_lists_load_from_installed_packages_only(tmp_path: Path) -> None:
    package = tmp_path / ".opencode/node_modules/opencode-team-guard"
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"name": "opencode-team-guard", "type": "module",
                                                      "main": "index.js"}))
    (package / "index.js").write_text(
        'export const TeamGuard = async (ctx, options) => ({\n'
        '  "tool.execute.before": async () => { throw new Error(`team says ${options?.word ?? "nothing"}`) },\n'
        '})\n')
    (tmp_path / "opencode.json").write_text(json.dumps(
        {"plugin": [["opencode-team-guard", {"word": "stop"}], "opencode-not-installed"]}))
    host = PluginHost(tmp_path)
    try:
        trust_project("opencode", tmp_path)  # the user trusted the config that names these plugins
        reports = await host.load(tmp_path)
        result = await host.call(["opencode-team-guard#TeamGuard"], "tool.execute.before", {"tool": "bash"},
                                 {"args": {}}, timeout_s=5)
    finally:
        await host.close()
    assert [(r.source.id, r.error is None) for r in reports] == [("opencode-team-guard", True),
                                                                 ("opencode-not-installed", False)]
    assert "npm plugin opencode-not-installed is not installed" in (reports[1].error or "")
    assert "scripts/plugin_lane.sh --project" in (reports[1].error or "")
    assert result.error == "team says stop"  # the [name, options] pair's options reach the plugin


def test_the_grade_command_loads_a_plugin_file_and_lists_one_row_per_key(project: Path) -> None:
    import sys

    from conftest import trust

    plugin = project / ".opencode/plugin/guard.ts"
    trust("opencode", plugin)
    done = subprocess.run([sys.executable, "-m", "compat_adapter.cli", "grade", "--vendor", "opencode", "--json",
                           str(plugin)], capture_output=True, text=True, cwd=project, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["rows"]
    assert [(r["origin"], r["event"], r["capability"], r["route"]) for r in rows] == [
        (f"{plugin}#Guard", key, "ADAPTED", "plugin-host")  # the file as given, then the plugin
        for key in ("tool.execute.before", "shell.env", "event")]
