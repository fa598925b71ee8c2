"""OpenCode plugins on both hosts: the same plugin file, loaded in the adapter's Bun sidecar, runs on
the embedded host and on the real DSH through the seams each one really has (``agent/pre-step``,
``tools/pre-execute``), and the sidecar's process group dies with the adapter.

Needs the plugin host runtime (`bash scripts/plugin_lane.sh`) and, for the DSH lane, the DSH lane
(`bash scripts/dsh_lane.sh`); `.ci/run` installs both."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import trust_project
from test_contract import Lane, bash, dsh_lane, lane

from compat_adapter.host.script import Reply
from vendors.opencode.plugin_host.sidecar import pid_alive

REPO = Path(__file__).resolve().parents[2]
__all__ = ("dsh_lane", "lane")  # the contract suite's fixtures, used here

PLUGIN = """\
import { appendFileSync } from "node:fs"
export const Guard = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    if (input.tool === "bash" && /\\brm\\s+-rf\\b/.test(output.args.command)) throw new Error("guard: no rm -rf")
  },
  "experimental.chat.system.transform": async (input, output) => {
    appendFileSync(`${directory}/transform.log`, "call\\n")
    output.system.push("GUARD-SYSTEM-LINE")
  },
})
"""


def system_texts(log: list[dict[str, Any]]) -> list[str]:
    """The text of every system-role record: the embedded host's ``developer/message`` of role
    system, and DSH's ``system/message`` (its system prompt, as content blocks)."""
    out = []
    for e in log:
        d = e["data"]
        if e["type"] == "developer/message" and d.get("role") == "system":
            out.append(str(d.get("text", "")))
        elif e["type"] == "system/message":
            blocks = (d.get("message") or {}).get("content") or ()
            texts = (b.get("text", "") for b in blocks if b.get("type") == "text")
            out.append(d["text"] if "text" in d else "".join(texts))
    return out


#: The plugin runtime from the set-up step (conftest.plugin_runtime): never a skip.
pytestmark = pytest.mark.usefixtures("plugin_runtime")


async def test_a_plugin_denies_and_transforms_each_request_on_both_hosts(lane: Lane, tmp_path: Path) -> None:
    ws = lane.host.cwd
    (ws / ".opencode/plugins").mkdir(parents=True)
    (ws / ".opencode/plugins/guard.js").write_text(PLUGIN)
    trust_project("opencode", ws)  # the user trusted this plugin
    async with lane.adapter(tmp_path) as adapter:
        results = await adapter.register_plugins(ws)
        assert [(r.event, str(r.capability)) for r in results] == [
            ("tool.execute.before", "ADAPTED"), ("experimental.chat.system.transform", "ADAPTED")]
        agent = await lane.agent([Reply(None, (bash(f"rm -rf {ws}/build; touch {ws}/ran"),)), "ok"])
        reason, steps = await lane.run(agent, "go")
        log = await lane.log(agent)
        sidecar = adapter._plugins.plugins.sidecar  # noqa: SLF001 - the test checks the process group
        assert sidecar is not None and sidecar.pid is not None
        pid = sidecar.pid
    assert steps == 2 and not (ws / "ran").exists()
    ((denied, text),) = Lane.tool_results(log)
    assert denied and "guard: no rm -rf" in text
    # before each of the two model requests, and once for OpenCode's session-title request
    assert (ws / "transform.log").read_text().split() == ["call"] * 3
    # OpenCode puts the pushed lines in the system prompt of each request; both hosts have a system
    # role, so since the laneb merge they arrive as system text (vendors/opencode/plugin_host/router.py, lane case
    # opencode:session_context): the embedded host logs one system-role developer/message, the DSH
    # appends them to the system prompt it logs. Never user text, and given once: later calls repeat it.
    assert not [m for m in Lane.messages(log) if "GUARD-SYSTEM-LINE" in m[0]]
    given = [text for text in system_texts(log) if "GUARD-SYSTEM-LINE" in text]
    assert len(given) == 1 and given[0].count("GUARD-SYSTEM-LINE") == 1
    assert given[0] == "GUARD-SYSTEM-LINE" if lane.name == "embedded" else given[0].endswith("\n\nGUARD-SYSTEM-LINE")
    assert not pid_alive(pid)  # the adapter's close killed the sidecar's process group
