"""Nothing grows: what is kept per session, per agent or per adapter goes with it, or is bounded.

Two long lives on one embedded host, 200 cycles each, with real hook processes and a real plugin
sidecar. Sizes of structures are compared, never times or resident memory (that figure is
``dispose_cycle_rss_kb`` in ``scripts/bench.py --json``):

* one adapter through 200 sessions: every hook that remembers something between dispatches fires
  (a ``once`` hook, a stop hook that keeps blocking, a session-start halt and session-start context
  for a prompt that never comes, todos, the model of each request, a system transform), and each
  session's agent is disposed. What the adapter keeps for sessions and agents is empty again;
* 200 adapters, one after another: the host keeps no listener, mount, service, shell-environment
  entry or session of theirs beyond its own bounds.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest
from conftest import trust_project, write_script

from compat_adapter import CompatAdapter
from compat_adapter.host.embedded.memory import MemoryHost
from compat_adapter.host.script import Reply, SwitchModel, call

pytestmark = pytest.mark.anyio

CYCLES = 200

TRANSFORM = """\
export const Lines = async () => ({
  "experimental.chat.system.transform": async (input, output) => { output.system.push(`for ${input.sessionID}`) },
})
"""


def hook(root: Path, name: str, body: str) -> str:
    return shlex.quote(str(write_script(root / f"{name}.sh", "cat > /dev/null\n" + body)))


@pytest.mark.usefixtures("plugin_runtime")
async def test_one_adapter_through_200_sessions_keeps_nothing_of_the_ones_gone(git_repo: Path) -> None:
    halting = git_repo / "halting"
    halting.mkdir()
    (halting / "halt").write_text("", encoding="utf-8")
    (git_repo / ".opencode/plugins").mkdir(parents=True)
    (git_repo / ".opencode/plugins/lines.js").write_text(TRANSFORM, encoding="utf-8")
    trust_project("opencode", git_repo)
    async with MemoryHost(git_repo, max_steps_per_turn=2, max_records=100) as host, \
            CompatAdapter(host, state_dir=str(git_repo / "state"), log_registrations=False) as adapter:
        await adapter.register_hook("codex", "SessionStart", None, {
            "type": "command", "once": True,
            "command": hook(git_repo, "halt", """[ -e halt ] && printf '{"continue": false}'\nexit 0\n""")})
        await adapter.register_hook("workbuddy", "SessionStart", None, hook(
            git_repo, "context", """printf '{"hookSpecificOutput": {"hookEventName": "SessionStart", """
                                 """"additionalContext": "waits for the first prompt"}}'\n"""))
        await adapter.register_hook("claude", "Stop", None, hook(git_repo, "stop", "echo 'once more' >&2\nexit 2\n"))
        await adapter.register_hook("claude", "PostToolUse", "Bash", hook(git_repo, "post", "exit 0\n"))
        await adapter.register_hook("claude", "TaskCreated", None, hook(git_repo, "task", "exit 0\n"))
        await adapter.register_plugins(git_repo)
        seen: list[dict[str, Any]] = []
        for n in range(CYCLES):
            # A works a turn: a shell call, a todo list, a model switch; its stop hook keeps
            # blocking until the host's step cap ends the turn.
            worker = await host.create_agent(script=[
                Reply(calls=(call("bash", command="true"), call("todo", todos=[
                    {"content": f"task {n}", "status": "pending"}]))),
                SwitchModel("scripted/model-b"), "done", "done"])
            await worker.run_turn("work")
            # B starts (its session-start hook halts it, its context waits) and never prompts.
            idle = await host.create_agent(session=host.create_session(halting))
            await host.settle()
            seen.append(adapter.kept())
            await worker.dispose()
            await idle.dispose()
            await host.settle()
        # Each kind of memory was really used while the agents lived …
        used = {key for sizes in seen for key, size in sizes.items() if size}
        assert {"halts", "prompt_parts", "stop_blocks", "todos", "models", "spent", "system_given",
                "titled", "audit"} <= used, used
        # … and nothing of a session or agent that is gone is kept.
        kept = adapter.kept()
        assert kept.pop("audit") == adapter.config.max_audit  # a ring, full long ago
        assert kept == dict.fromkeys(kept, 0), kept
        # While they lived, no more was kept than for the two sessions and agents alive then.
        most = {key: max(sizes[key] for sizes in seen) for key in seen[0] if key != "audit"}
        assert all(size <= 2 for size in most.values()), most
        assert len(host.records) <= 100


async def test_200_adapters_on_one_host_leave_no_trace_in_it(git_repo: Path) -> None:
    marker = git_repo / "ran"
    command = hook(git_repo, "mark", f"echo x >> {shlex.quote(str(marker))}\n")
    async with MemoryHost(git_repo, max_records=100, max_detached_sessions=8) as host:
        listeners = sum(host.listener_count(seam) for seam in host.surface.seams)
        for _ in range(CYCLES):
            adapter = CompatAdapter(host, state_dir=str(git_repo / "state"))
            await adapter.register_hook("claude", "PreToolUse", "Bash", command)
            await adapter.register_hook("copilot", "preToolUse", "bash", command)
            await adapter.register_hook("claude", "PostToolUse", "Bash", command, prefer="official")
            await adapter.register_hook("claude", "SessionStart", None, command)
            agent = await host.create_agent(script=[call("bash", command="true"), "done"])
            await agent.run_turn("go")
            await adapter.dispose()
            await agent.dispose()
            await host.settle()
            assert sum(host.listener_count(seam) for seam in host.surface.seams) == listeners
            assert host.mounts == () and dict(host.services_in_use()) == {}
        assert marker.read_text(encoding="utf-8").count("x") >= 4 * CYCLES
        assert len(host.records) <= 100
        assert len(host.sessions) == 8  # the newest sessions, kept for a resume
