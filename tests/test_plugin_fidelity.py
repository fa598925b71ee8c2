"""The plugin host behaves as the real OpenCode 1.18.33 does (vendor lane facts), on real Bun
sidecars and the embedded host's scripted loop: when the system transform is called, in which order
plugin files load, and what every OpenCode plugin of the real-config corpus grades as.

The runtime comes from the set-up step (`bash scripts/plugin_lane.sh`, run by `.ci/run`)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import trust_project

from compat_adapter.host.embedded.memory import MemoryHost
from compat_adapter.host.script import Reply, call
from vendors.opencode.plugin_host.sources import project_sources
from compat_adapter.service import CompatAdapter

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests/fixtures/real-configs/opencode"

#: A system transform that counts its calls in a file and pushes the lines it is told to.
COUNTING = """\
import { appendFileSync, readFileSync } from "node:fs"
export const Counting = async ({ directory }) => ({
  "experimental.chat.system.transform": async (input, output) => {
    appendFileSync(`${directory}/calls.log`, `${input.sessionID}\\n`)
    const calls = readFileSync(`${directory}/calls.log`, "utf8").trim().split("\\n").length
    output.system.push(MODE === "same" ? "PLUGIN-LINE" : `PLUGIN-LINE ${calls}`)
  },
})
const MODE = "%s"
"""


#: The plugin runtime from the set-up step (conftest.plugin_runtime): never a skip.
pytestmark = pytest.mark.usefixtures("plugin_runtime")


async def run_counting(root: Path, mode: str) -> tuple[list[str], list[str]]:
    folder = root / ".opencode/plugins"
    folder.mkdir(parents=True)
    (folder / "counting.js").write_text(COUNTING % mode)
    async with MemoryHost(root) as host, CompatAdapter(host) as adapter:
        trust_project("opencode", root)  # the user trusted this plugin
        await adapter.register_plugins(root)
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="echo hi"),)),
                                                Reply(calls=(call("bash", command="echo again"),)), "done"])
        await agent.run_turn("go")
        await host.settle()
        # The system lines come as system messages (OpenCode's system text), after the prompt.
        users = [e.data["text"] for e in agent.session.events if e.type == "user/message"
                 or (e.type == "developer/message" and e.data.get("role") == "system")]
    return (root / "calls.log").read_text().split(), users


async def test_the_system_transform_runs_before_every_model_request(tmp_path: Path) -> None:
    # Three model requests, plus the session-title request OpenCode makes on a session's first
    # prompt (vendor lane: three calls for two requests); the same lines reach the model once.
    calls, users = await run_counting(tmp_path, "same")
    assert len(calls) == 4 and len(set(calls)) == 1
    assert users == ["go", "PLUGIN-LINE"]


async def test_system_lines_that_change_reach_the_model_again(tmp_path: Path) -> None:
    calls, users = await run_counting(tmp_path, "changing")
    assert len(calls) == 4
    # the title call's line (1) reaches no model; each request's new lines follow as a message
    assert users == ["go", "PLUGIN-LINE 2", "PLUGIN-LINE 3", "PLUGIN-LINE 4"]


def test_plugin_files_load_in_opencodes_order(tmp_path: Path) -> None:
    # OpenCode globs {plugin,plugins}/*.{ts,js} and sorts the paths (then loads them concurrently).
    for place in (".opencode/plugins/a.ts", ".opencode/plugin/z.ts", ".opencode/plugin/b.js", ".opencode/plugins/c.md"):
        (tmp_path / place).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / place).write_text("export const P = async () => ({})\n")
    assert [s.id for s in project_sources(tmp_path)] == [".opencode/plugin/b.js", ".opencode/plugin/z.ts",
                                                         ".opencode/plugins/a.ts"]
    from vendors.opencode.importer import project_files

    assert [p.relative_to(tmp_path).as_posix() for p in project_files(tmp_path)] == [
        ".opencode/plugin/b.js", ".opencode/plugin/z.ts", ".opencode/plugins/a.ts"]


def grade_json(folder: Path, *files: str) -> list[dict]:
    done = subprocess.run([sys.executable, "-m", "compat_adapter.cli", "grade", "--vendor", "opencode", "--json",
                           "--trust-all", *files], capture_output=True, text=True, cwd=folder, timeout=180)
    assert done.returncode == 0, done.stderr
    assert "--trust-all is on" in done.stderr  # every file it let through warns, plugins included
    return json.loads(done.stdout)["rows"]


def test_every_corpus_plugin_loads_or_is_one_unsupported_row_with_its_load_error(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".opencode/plugins").mkdir(parents=True)
    shutil.copy(CORPUS / "opencode.json", project / "opencode.json")
    for plugin in (CORPUS / "plugins").iterdir():
        shutil.copy(plugin, project / ".opencode/plugins" / plugin.name)
    (tmp_path / "mastra").mkdir()
    shutil.copy(CORPUS / "opencode.mastra.json", tmp_path / "mastra/opencode.json")
    rows = [r for r in grade_json(project, ".") + grade_json(tmp_path / "mastra", "opencode.json")
            if not r["event"].startswith(("instructions", "permissions."))]
    got = [(r["origin"].split(":", 1)[-1] if r["origin"].startswith("opencode.json") else r["origin"], r["event"],
            r["capability"]) for r in rows]
    assert got == [
        ("plugin[0]", "plugin-load", "UNSUPPORTED"),  # opencode-wakatime: npm, not installed at set-up
        ("plugin[1]", "plugin-load", "UNSUPPORTED"),  # @my-org/policy-plugin: npm, not installed
        (".opencode/plugins/env-protection.js#EnvProtection", "tool.execute.before", "ADAPTED"),
        (".opencode/plugins/guard.ts#Guard", "tool.execute.before", "ADAPTED"),
        (".opencode/plugins/guard.ts#Guard", "shell.env", "ADAPTED"),
        (".opencode/plugins/guard.ts#Guard", "event", "ADAPTED"),
        ("plugin[0]", "plugin-load", "UNSUPPORTED"),  # mastra: a file:// URL of another machine
    ]
    reasons = [r["reason"] for r in rows if r["capability"] == "UNSUPPORTED"]
    assert reasons[0].startswith("the plugin did not load: npm plugin opencode-wakatime is not installed")
    assert reasons[1].startswith("the plugin did not load: npm plugin @my-org/policy-plugin is not installed")
    assert reasons[2] == ("the plugin did not load: the plugin file "
                          "/Users/abhiramaiyer/.superset/worktrees/mastra/om-opencode/integrations/opencode "
                          "does not exist")
    adapted = [r for r in rows if r["capability"] == "ADAPTED"]
    assert all(r["route"] == "plugin-host" and r["losses"] for r in adapted)


def test_the_matrix_grades_each_plugin_hook_key_as_a_loaded_plugin_is_graded() -> None:
    from compat_adapter.host.surfaces import EMBEDDED_SURFACE
    from compat_adapter.matrix import build_matrix
    from compat_adapter.matrixdoc import summary_markdown, to_markdown
    from compat_adapter.model import Capability, Route
    from vendors.opencode.plugin_host.keys import grade_key

    matrix = build_matrix()
    adapted = [h.event for h in matrix.plugins if h.capability is Capability.ADAPTED]
    assert adapted == ["tool.execute.before", "tool.execute.after", "shell.env", "chat.message", "permission.ask",
                       "event", "experimental.chat.system.transform", "dispose"]
    assert all(h.route is Route.PLUGIN_HOST and h.degradations for h in matrix.plugins if h.event in adapted)
    refused = {h.event: h.reason for h in matrix.plugins if h.capability is Capability.UNSUPPORTED}
    assert "chat.params" in refused and all(refused.values())
    for h in matrix.plugins:  # the same grade a loaded plugin's key gets
        assert grade_key(f"opencode:plugin:{h.event}", h.event, EMBEDDED_SURFACE) == h
    system = next(h for h in matrix.plugins if h.event == "experimental.chat.system.transform")
    assert system.seams == ("agent/pre-step",)
    page = to_markdown(matrix)
    assert "## OpenCode plugins, as written: the plugin host" in page and "out of scope" not in page.split(
        "## Vendor runtimes embedded in the host")[0].split("## OpenCode plugins")[1]
    assert "**opencode plugins, as written**: 8 hook keys ADAPTED" in summary_markdown(matrix)
    assert build_matrix(vendor="claude").plugins == ()


#: A plugin whose chat.message or tool.execute.after throws, as it is told.
THROWING = """\
export const Throwing = async () => ({
  "chat.message": async () => { if ("%s" === "message") throw new Error("no prompt today") },
  "tool.execute.after": async () => { if ("%s" === "after") throw new Error("no result today") },
})
"""


async def run_throwing(root: Path, where: str) -> tuple[list[str], int]:
    folder = root / ".opencode/plugins"
    folder.mkdir(parents=True)
    (folder / "throwing.js").write_text(THROWING % (where, where))
    async with MemoryHost(root) as host, CompatAdapter(host) as adapter:
        trust_project("opencode", root)
        await adapter.register_plugins(root)
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="echo ran > ran.txt"),)), "done"])
        await agent.run_turn("go")
        await host.settle()
    results = [e.data["text"] for e in agent.session.of_type("tool/result")]
    return results, len(agent.session.of_type("assistant/message"))


async def test_a_throw_in_chat_message_refuses_the_prompt(tmp_path: Path) -> None:
    # OpenCode 1.18.33 calls no model (lane case opencode:prompt_block).
    results, calls = await run_throwing(tmp_path, "message")
    assert (results, calls) == ([], 0) and not (tmp_path / "ran.txt").exists()


async def test_a_throw_in_tool_execute_after_is_the_result_the_model_reads(tmp_path: Path) -> None:
    # OpenCode 1.18.33: the call fails with the thrown message (lane case opencode:post_block).
    results, calls = await run_throwing(tmp_path, "after")
    assert (results, calls) == (["no result today"], 2) and (tmp_path / "ran.txt").exists()
