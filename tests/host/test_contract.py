"""The host contract suite: one set of tests, run on every host (as anyio runs one suite per backend).

``embedded`` is the Python host (``MemoryHost``); ``dsh`` is a real DeepSeek Harness 0.2.1-rc.2
from PyPI, its ``sdk`` profile with the bundle added by ``dsh plugin add``, driven by the official
Python SDK against a scripted model on loopback. Nothing below knows which host it runs on: each
:class:`Lane` only says how to start an agent on a scripted model and how to read its real session
log, the way anyio's backends each say how to run a coroutine. Vendor tables, grading and routes
are the same objects on both. 0.2.1 bundles no official hook bridge, so the tests of the official
route run where a bridge is (``BRIDGED``), and one test pins what ``dsh`` says instead.

The DSH lane needs ``bash scripts/dsh_lane.sh`` (``.ci/run`` runs it); without it the dsh tests
fail with that instruction rather than skip.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
from conftest import trust_project, write_script

from compat_adapter.host.protocol import Host, PreToolDecision
from compat_adapter.host.script import Reply, call
from compat_adapter.model import Capability, Route
from compat_adapter.service import CompatAdapter

REPO = Path(__file__).resolve().parents[2]
LANE_DIR = Path(os.environ.get("COMPAT_ADAPTER_DSH_DIR") or REPO / ".cache" / "dsh")
HOSTS = ("embedded", "dsh")
#: The hosts with the official bridges (DSH 0.2.1 no longer bundles them; the embedded host keeps
#: its copies).
BRIDGED = ("embedded",)


@pytest.fixture(scope="session")
def dsh_lane() -> Path:
    """The DSH lane, installed by the project's own script: a no-op check when it is there
    (``.ci/run`` installs it first), an npm install from a fresh clone. Never a skip."""
    done = subprocess.run(["bash", str(REPO / "scripts" / "dsh_lane.sh")], capture_output=True,
                          text=True, env={**os.environ, "COMPAT_ADAPTER_DSH_DIR": str(LANE_DIR)},
                          timeout=900)
    assert done.returncode == 0, f"scripts/dsh_lane.sh failed:\n{done.stdout}\n{done.stderr}"
    return LANE_DIR


class Lane:
    """One host under test: the host, a way to run scripted turns, and its log in one vocabulary."""

    name: str
    host: Host

    async def agent(self, script: Sequence[Any]) -> Any: ...
    async def run(self, agent: Any, prompt: str) -> tuple[str | None, int]: ...
    async def log(self, agent: Any) -> list[dict[str, Any]]: ...

    def adapter(self, tmp_path: Path, **options: Any) -> CompatAdapter:
        # Each host is graded on its own surface; nothing else about the adapter changes.
        return CompatAdapter(self.host, target_host_version=self.host.surface.version,
                             state_dir=str(tmp_path / "state"), **options)

    # ── one vocabulary over both logs ──
    @staticmethod
    def messages(log: list[dict[str, Any]]) -> list[tuple[str, str, str | None]]:
        """Every user/message as (text, source kind, source name)."""
        out = []
        for e in log:
            if e["type"] != "user/message":
                continue
            d = e["data"]
            text = d["text"] if "text" in d else "".join(
                b.get("text", "") for b in d.get("content", ()) if b.get("type") == "text")
            source = d.get("source") or {}
            kind = source.get("plugin") if source.get("kind") == "plugin" else source.get("kind")
            out.append((text, str(kind), source.get("name")))
        return out

    @staticmethod
    def tool_results(log: list[dict[str, Any]]) -> list[tuple[bool, str]]:
        """Every tool/result as (is_error, text)."""
        out = []
        for e in log:
            if e["type"] != "tool/result":
                continue
            d = e["data"]
            if "text" in d:
                out.append((bool(d.get("isError")), str(d["text"])))
                continue
            message = d["message"]
            if "toolCallId" in message:  # DSH 0.2.1 (v4): one tool-role message per call
                text = "".join(b.get("text", "") for b in message.get("content", ()) if b.get("type") == "text")
                out.append((bool(message.get("isError")), text))
                continue
            for block in message["content"]:
                text = "".join(b.get("text", "") for b in block.get("content", ()) if b.get("type") == "text")
                out.append((bool(block.get("isError")), text))
        return out

    @staticmethod
    def hook_pairs(log: list[dict[str, Any]], point: str) -> list[tuple[str, str]]:
        """(record type, decision or dialect) of the hook/* records of one point, in log order."""
        return [(e["type"], e["data"].get("decision") or e["data"].get("dialect"))
                for e in log if e["type"] in ("hook/invoked", "hook/result")
                and e["data"].get("point") == point]


class EmbeddedLane(Lane):
    name = "embedded"

    async def start(self, stack: AsyncExitStack, tmp_path: Path) -> None:
        from compat_adapter.host.embedded.memory import MemoryHost

        self.host = await stack.enter_async_context(MemoryHost(tmp_path))

    async def agent(self, script: Sequence[Any]) -> Any:
        return await self.host.create_agent(script=script)

    async def run(self, agent: Any, prompt: str) -> tuple[str | None, int]:
        result = await agent.run_turn(prompt)
        await self.host.settle()
        return result.reason, result.steps

    async def log(self, agent: Any) -> list[dict[str, Any]]:
        from compat_adapter.jsondata import thaw

        return [{"type": e.type, "data": thaw(e.data)} for e in agent.session.events]


class DshLane(Lane):
    name = "dsh"

    async def start(self, stack: AsyncExitStack, tmp_path: Path, **options: Any) -> None:
        from compat_adapter.host.dsh.lane import launch

        self.runner = await stack.enter_async_context(launch(tmp_path, lane_root=LANE_DIR, **options))
        self.model = self.runner.model
        self.host = self.runner.host

    async def agent(self, script: Sequence[Any]) -> Any:
        return await self.runner.create_agent(script)

    async def run(self, agent: Any, prompt: str) -> tuple[str | None, int]:
        outcome = await self.runner.run_turn(agent, prompt)
        return outcome.reason, outcome.steps

    async def log(self, agent: Any) -> list[dict[str, Any]]:
        return await self.runner.events(agent)


@pytest.fixture(params=HOSTS)
async def lane(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Lane]:
    async for chosen in _lane(request, tmp_path):
        yield chosen


@pytest.fixture(params=BRIDGED)
async def bridged(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Lane]:
    """A host with the official bridges."""
    async for chosen in _lane(request, tmp_path):
        yield chosen


async def _lane(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Lane]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    if request.param == "dsh":
        request.getfixturevalue("dsh_lane")
    chosen: Lane = EmbeddedLane() if request.param == "embedded" else DshLane()
    async with AsyncExitStack() as stack:
        await chosen.start(stack, workspace)
        yield chosen


# ── helpers ──

def bash(command: str, call_id: str | None = None) -> Any:
    # DSH's bash tool requires a description; the embedded one ignores it.
    return call("bash", call_id=call_id, command=command, description="run a command")


def printing(tmp_path: Path, name: str, output: dict[str, Any] | str, *, exit_code: int = 0) -> str:
    text = output if isinstance(output, str) else json.dumps(output)
    body = f"cat > '{tmp_path}/{name}.stdin'\nprintf '%s' '{text}'\n"
    if exit_code:
        body = f"cat > '{tmp_path}/{name}.stdin'\nprintf '%s' '{text}' >&2\nexit {exit_code}\n"
    return str(write_script(tmp_path / f"{name}.sh", body))


def claude_deny(reason: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": reason}}


# ── the contract ──

async def test_a_claude_pretooluse_deny_through_the_official_bridge_blocks_bash(
        bridged: Lane, tmp_path: Path) -> None:
    ws = bridged.host.cwd
    async with bridged.adapter(tmp_path) as adapter:
        result = await adapter.register_hook("claude", "PreToolUse", "Bash",
                                             printing(tmp_path, "cc", claude_deny("json-deny")), prefer="official")
        assert (result.capability, result.route) == (Capability.ADAPTED, Route.OFFICIAL_BRIDGE)
        assert adapter.status().hooks[0].running
        agent = await bridged.agent([Reply("trying", (bash(f"touch {ws}/ran"),)), "gave up"])
        reason, steps = await bridged.run(agent, "please run it")
        log = await bridged.log(agent)
    assert reason == "completed" and steps == 2
    assert not (ws / "ran").exists(), "the denied command must not have run"
    [(is_error, text)] = bridged.tool_results(log)
    assert is_error and "json-deny" in text
    payload = json.loads((tmp_path / "cc.stdin").read_text())
    assert payload["hook_event_name"] == "PreToolUse" and payload["tool_name"] == "bash"
    assert payload["tool_input"]["command"] == f"touch {ws}/ran"
    pairs = bridged.hook_pairs(log, "PreToolUse")
    assert pairs[0][0] == "hook/invoked" and pairs[1] == ("hook/result", "deny")


async def test_a_claude_pretooluse_deny_on_the_native_route_reads_as_claude_says_it(
        lane: Lane, tmp_path: Path) -> None:
    ws = lane.host.cwd
    async with lane.adapter(tmp_path) as adapter:
        result = await adapter.register_hook("claude", "PreToolUse", "Bash",
                                             printing(tmp_path, "cc", claude_deny("native-deny")))
        assert (result.capability, result.route) == (Capability.ADAPTED, Route.NATIVE_TRANSLATE)
        agent = await lane.agent([Reply("trying", (bash(f"touch {ws}/ran"),)), "gave up"])
        reason, steps = await lane.run(agent, "please run it")
        log = await lane.log(agent)
    assert reason == "completed" and steps == 2
    assert not (ws / "ran").exists(), "the denied command must not have run"
    [(is_error, text)] = lane.tool_results(log)
    # Claude's words exactly: the host's "Error: " envelope is put right on post-execute, while
    # the host's own pre-execute deny (and its hook pair) stands.
    assert is_error and text == "PreToolUse:Bash hook error: native-deny"
    assert lane.hook_pairs(log, "PreToolUse")[1] == ("hook/result", "deny")
    payload = json.loads((tmp_path / "cc.stdin").read_text())
    assert payload["tool_name"] == "Bash" and payload["tool_input"]["command"] == f"touch {ws}/ran"


async def test_a_copilot_pretooluse_deny_through_the_builtin_bridge_blocks_bash(
        lane: Lane, tmp_path: Path) -> None:
    ws = lane.host.cwd
    async with lane.adapter(tmp_path) as adapter:
        result = await adapter.register_hook(
            "copilot", "preToolUse", "bash",
            printing(tmp_path, "cp", {"permissionDecision": "deny",
                                      "permissionDecisionReason": "copilot says no"}))
        assert (result.capability, result.route) == (Capability.ADAPTED, Route.BUILTIN_BRIDGE)
        agent = await lane.agent([Reply(None, (bash(f"touch {ws}/ran"),)), "ok"])
        await lane.run(agent, "go")
        log = await lane.log(agent)
        audit = adapter.audit
    assert not (ws / "ran").exists()
    [(is_error, text)] = lane.tool_results(log)
    assert is_error and text == "Denied by preToolUse hook: copilot says no"
    payload = json.loads((tmp_path / "cp.stdin").read_text())
    assert payload["toolName"] == "bash" and payload["toolArgs"]["command"] == f"touch {ws}/ran"
    assert [(a.decision, a.honoured) for a in audit] == [("deny", True)]
    assert lane.hook_pairs(log, "preToolUse") == [("hook/invoked", "copilot"), ("hook/result", "deny")]


async def test_an_official_preference_on_dsh_names_the_bridge_0_2_1_no_longer_bundles(
        lane: Lane, tmp_path: Path) -> None:
    """0.2.1 ships no official hook bridge: asked for the official route, a host without it refuses
    that route, names the missing package (never a stand-in of ours) and names the native route
    that runs here instead; nothing is mounted."""
    async with lane.adapter(tmp_path) as adapter:
        result = await adapter.register_hook("claude", "PreToolUse", "Bash",
                                             printing(tmp_path, "cc", claude_deny("x")), prefer="official")
        running = [h.running for h in adapter.status().hooks]
    if "@deepseek-ai/dsh-hooks-claude-code" in lane.host.surface.bridge_packages:
        assert result.route is Route.OFFICIAL_BRIDGE
    else:
        assert lane.name == "dsh" and result.route is Route.UNSUPPORTED and running == [False]
        assert "@deepseek-ai/dsh-hooks-claude-code" in (result.reason or "")
        assert (result.alternative or "").startswith("native-translate runs here instead, losing: ")


def rewrite_to(command: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                   "updatedInput": {"command": command}}}


async def test_a_claude_input_rewrite_runs_the_new_command_as_a_nested_call(lane: Lane, tmp_path: Path) -> None:
    """updatedInput runs, as in Claude Code: the host dispatches the call's tool again as a nested
    call (tools/execute, the way a composite tool does); the log keeps the model's own call."""
    ws = lane.host.cwd
    async with lane.adapter(tmp_path) as adapter:
        await adapter.register_hook("claude", "PreToolUse", "Bash",
                                    printing(tmp_path, "rw", rewrite_to(f"touch {ws}/rewritten; echo rewritten-out")))
        agent = await lane.agent([Reply("trying", (bash(f"touch {ws}/original"),)), "done"])
        reason, steps = await lane.run(agent, "please run it")
        log = await lane.log(agent)
        audit = [(a.decision, a.honoured, a.note) for a in adapter.audit]
    assert (reason, steps) == ("completed", 2)
    assert (ws / "rewritten").exists() and not (ws / "original").exists()
    [(is_error, text)] = lane.tool_results(log)
    assert not is_error and "rewritten-out" in text
    # The hook ran once: the nested call passes the host's pipeline, not our hooks again.
    assert lane.hook_pairs(log, "PreToolUse") == [("hook/invoked", "claude"), ("hook/result", "allow")]
    assert audit == [("allow", True, "allow does not pre-approve; input rewritten")]
    [logged] = [e["data"] for e in log if e["type"] == "tool/call"]
    assert f"touch {ws}/original" in json.dumps(logged)


async def test_a_rewritten_input_still_passes_the_hosts_other_policy(lane: Lane, tmp_path: Path) -> None:
    """The nested call goes through tools/pre-execute again: another policy listener that refuses
    the new command denies it, so a rewrite cannot slip a command past the host's policy."""
    ws = lane.host.cwd
    judged: list[str] = []

    async def policy(execution: Any, next: Any) -> Any:
        command = str(execution.arguments.get("command", ""))
        judged.append(command)
        if "forbidden" in command:
            return PreToolDecision("deny", "policy: forbidden")
        return await next()

    off = lane.host.on("tools/pre-execute", policy)
    try:
        async with lane.adapter(tmp_path) as adapter:
            await adapter.register_hook("claude", "PreToolUse", "Bash",
                                        printing(tmp_path, "rw", rewrite_to(f"touch {ws}/forbidden")))
            agent = await lane.agent([Reply("trying", (bash(f"touch {ws}/original"),)), "done"])
            await lane.run(agent, "please run it")
            log = await lane.log(agent)
    finally:
        off()
    assert not (ws / "forbidden").exists() and not (ws / "original").exists()
    assert judged == [f"touch {ws}/original", f"touch {ws}/forbidden"]
    [(is_error, text)] = lane.tool_results(log)
    assert is_error and text == "Error: policy: forbidden"


async def test_an_allowing_hook_lets_the_real_command_run(lane: Lane, tmp_path: Path) -> None:
    ws = lane.host.cwd
    async with lane.adapter(tmp_path) as adapter:
        await adapter.register_hook("copilot", "preToolUse", "bash",
                                    printing(tmp_path, "ok", {"permissionDecision": "allow"}))
        await adapter.register_hook("claude", "PreToolUse", "Bash", printing(tmp_path, "cc", "{}"))
        agent = await lane.agent([Reply(None, (bash(f"echo from-model > {ws}/ran"),)), "done"])
        await lane.run(agent, "go")
        log = await lane.log(agent)
    assert (ws / "ran").read_text() == "from-model\n"
    [(is_error, _)] = lane.tool_results(log)
    assert not is_error


async def test_carried_rules_appear_as_user_messages_in_the_session_log(lane: Lane,
                                                                        tmp_path: Path) -> None:
    rules = tmp_path / "AGENTS.md"
    rules.write_text("Rule 7: never push on Fridays.\n")
    async with lane.adapter(tmp_path) as adapter:
        result = await adapter.register_rules("codex", str(rules))
        assert result.capability is Capability.CARRY
        agent = await lane.agent(["noted"])
        await lane.run(agent, "hello")
        log = await lane.log(agent)
    carried = [m for m in lane.messages(log) if m[1] == "compat-adapter-rules"]
    assert len(carried) == 1
    text, _, name = carried[0]
    assert "Rule 7: never push on Fridays." in text and name == result.id
    # The carried context comes before the prompt the turn was started with.
    texts = [m[0] for m in lane.messages(log)]
    assert texts.index(text) < texts.index("hello")


async def test_a_claude_stop_block_forces_another_step(bridged: Lane, tmp_path: Path) -> None:
    flag = tmp_path / "blocked-once"
    stop = write_script(tmp_path / "stop.sh",
                        f"cat > /dev/null\nif [ -e {flag} ]; then exit 0; fi\ntouch {flag}\n"
                        "echo 'keep going: tests are red' >&2\nexit 2\n")
    async with bridged.adapter(tmp_path) as adapter:
        result = await adapter.register_hook("claude", "Stop", None, str(stop), prefer="official")
        assert result.route is Route.OFFICIAL_BRIDGE
        agent = await bridged.agent(["first answer", "second answer"])
        reason, steps = await bridged.run(agent, "finish up")
        log = await bridged.log(agent)
    assert reason == "completed" and steps == 2
    assert any("keep going: tests are red" in text for text, _, _ in bridged.messages(log))
    pairs = bridged.hook_pairs(log, "Stop")
    assert [p for p in pairs if p[0] == "hook/result"] == [("hook/result", "block"), ("hook/result", "pass")]


async def test_a_copilot_agentstop_block_continues_the_turn_with_a_sourced_message(
        lane: Lane, tmp_path: Path) -> None:
    flag = tmp_path / "once"
    stop = write_script(tmp_path / "stop.sh",
                        f"cat > /dev/null\nif [ -e {flag} ]; then exit 0; fi\ntouch {flag}\n"
                        "printf '%s' '{\"decision\":\"block\",\"reason\":\"write the changelog\"}'\n")
    async with lane.adapter(tmp_path) as adapter:
        await adapter.register_hook("copilot", "agentStop", None, str(stop))
        agent = await lane.agent(["first", "second"])
        reason, steps = await lane.run(agent, "go")
        log = await lane.log(agent)
    assert (reason, steps) == ("completed", 2)
    steered = [m for m in lane.messages(log) if m[0] == "write the changelog"]
    assert steered and steered[0][1] == "compat-adapter-hook"
    assert [p[1] for p in lane.hook_pairs(log, "agentStop") if p[0] == "hook/result"] == ["block", "none"]


async def test_posttooluse_context_reaches_the_model_as_a_user_message(bridged: Lane,
                                                                        tmp_path: Path) -> None:
    context = {"hookSpecificOutput": {"hookEventName": "PostToolUse",
                                      "additionalContext": "remember to lint"}}
    async with bridged.adapter(tmp_path) as adapter:
        await adapter.register_hook("claude", "PostToolUse", "Bash", printing(tmp_path, "post", context),
                                    prefer="official")
        agent = await bridged.agent([Reply(None, (bash("echo hi"),)), "done"])
        await bridged.run(agent, "go")
        log = await bridged.log(agent)
    # The bridge's own wording around the context differs by version (0.2 adds an untrusted-context
    # notice); the hook's text and the bridge's source are the contract.
    assert [kind for text, kind, _ in bridged.messages(log) if "remember to lint" in text] == ["hooks-claude-code"]
    assert bridged.hook_pairs(log, "PostToolUse")[-1] == ("hook/result", "pass")


async def test_a_codex_pretooluse_deny_through_the_official_bridge_blocks_bash(
        bridged: Lane, tmp_path: Path) -> None:
    ws = bridged.host.cwd
    deny = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": "codex-deny"}}
    async with bridged.adapter(tmp_path) as adapter:
        result = await adapter.register_hook("codex", "PreToolUse", "Bash", printing(tmp_path, "cx", deny),
                                             prefer="official")
        assert result.route is Route.OFFICIAL_BRIDGE
        agent = await bridged.agent([Reply(None, (bash(f"touch {ws}/ran"),)), "ok"])
        await bridged.run(agent, "go")
        log = await bridged.log(agent)
    assert not (ws / "ran").exists()
    [(is_error, text)] = bridged.tool_results(log)
    assert is_error and "codex-deny" in text
    payload = json.loads((tmp_path / "cx.stdin").read_text())
    assert payload["tool_input"] == {"command": f"touch {ws}/ran"}


async def test_rows_grade_through_the_host_surface_never_the_host_name(lane: Lane,
                                                                        tmp_path: Path) -> None:
    surface = lane.host.surface
    async with lane.adapter(tmp_path) as adapter:
        elicitation = await adapter.register_hook("claude", "Elicitation", None, "true")
        # A seam the composition has but whose moment it never produces (no tool asks the person
        # anything) is graded UNSUPPORTED, its reason naming the seam, as a missing one is.
        if "user-questions/request" in surface.seams and "user-questions/request" not in surface.unserved:
            assert elicitation.capability is Capability.ADAPTED
        else:
            assert elicitation.capability is Capability.UNSUPPORTED
            assert "user-questions/request" in (elicitation.reason or "")
        watch = await adapter.register_hook("claude", "FileChanged", None, "true")
        if "fs.watch" in surface.services:
            assert watch.capability is Capability.ADAPTED
        else:
            assert watch.capability is Capability.UNSUPPORTED and "fs.watch" in (watch.reason or "")
        status = adapter.status()
    assert status.host == surface.host and status.version == surface.version
    assert [h.running for h in status.hooks] == [e.capability is not Capability.UNSUPPORTED
                                                 for e in (elicitation, watch)]


async def test_a_rejected_claude_prompt_ends_the_turn_without_a_step(lane: Lane, tmp_path: Path) -> None:
    async with lane.adapter(tmp_path) as adapter:
        await adapter.register_hook("claude", "UserPromptSubmit", None,
                                    printing(tmp_path, "ups", "no secrets in prompts", exit_code=2))
        agent = await lane.agent(["never said"])
        reason, steps = await lane.run(agent, "here is my password")
        log = await lane.log(agent)
    # DSH ends such a turn as its own `aborted` (cause `hook`), the word its SDK events and
    # `headless --json` print with the block's reason; the embedded host calls it `blocked`.
    assert (reason, steps) == ({"dsh": "aborted"}.get(lane.name, "blocked"), 0)
    assert not [e for e in log if e["type"] == "assistant/message"]
    assert json.loads((tmp_path / "ups.stdin").read_text())["prompt"] == "here is my password"


async def test_an_ask_no_approval_channel_answers_reads_as_copilot_says_it(lane: Lane, tmp_path: Path) -> None:
    """The host's approval has no channel (unavailable): the host denies in its own words, and the
    model reads Copilot's, on both hosts (the same DSH wording is what gets replaced)."""
    ws = lane.host.cwd
    async with lane.adapter(tmp_path) as adapter:
        await adapter.register_hook("copilot", "preToolUse", "bash",
                                    printing(tmp_path, "cp", {"permissionDecision": "ask",
                                                              "permissionDecisionReason": "check first"}))
        agent = await lane.agent([Reply(None, (bash(f"touch {ws}/ran"),)), "ok"])
        await lane.run(agent, "go")
        log = await lane.log(agent)
    assert not (ws / "ran").exists()
    assert [e["data"]["outcome"] for e in log if e["type"] == "approval/decided"] == ["unavailable"]
    [(is_error, text)] = lane.tool_results(log)
    assert is_error and text == "Denied by preToolUse hook (unable to ask user for confirmation): check first"


async def test_an_ask_goes_to_the_host_approval_and_a_permissionrequest_hook_answers_it(
        lane: Lane, tmp_path: Path) -> None:
    ws = lane.host.cwd
    allow = {"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                    "decision": {"behavior": "allow"}}}
    async with lane.adapter(tmp_path) as adapter:
        await adapter.register_hook("copilot", "preToolUse", "bash",
                                    printing(tmp_path, "ask", {"permissionDecision": "ask",
                                                               "permissionDecisionReason": "sure?"}))
        perm = await adapter.register_hook("claude", "PermissionRequest", "Bash",
                                           printing(tmp_path, "perm", allow))
        assert perm.route is Route.NATIVE_TRANSLATE
        agent = await lane.agent([Reply(None, (bash(f"echo approved > {ws}/ran"),)), "done"])
        await lane.run(agent, "go")
        log = await lane.log(agent)
    assert (ws / "ran").read_text() == "approved\n"
    decided = [e["data"]["outcome"] for e in log if e["type"] == "approval/decided"]
    assert decided == ["allowed-once"]
    assert json.loads((tmp_path / "perm.stdin").read_text())["tool_name"] == "Bash"


async def test_a_denied_approval_blocks_the_tool(lane: Lane, tmp_path: Path) -> None:
    ws = lane.host.cwd
    deny = {"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                   "decision": {"behavior": "deny", "message": "not today"}}}
    async with lane.adapter(tmp_path) as adapter:
        await adapter.register_hook("copilot", "preToolUse", "bash",
                                    printing(tmp_path, "ask", {"permissionDecision": "ask"}))
        await adapter.register_hook("claude", "PermissionRequest", None, printing(tmp_path, "perm", deny))
        agent = await lane.agent([Reply(None, (bash(f"touch {ws}/ran"),)), "done"])
        await lane.run(agent, "go")
        log = await lane.log(agent)
    assert not (ws / "ran").exists()
    assert [e["data"]["outcome"] for e in log if e["type"] == "approval/decided"] == ["rejected"]
    [(is_error, _)] = lane.tool_results(log)
    assert is_error


async def test_copilot_posttooluse_context_is_added_after_the_downstream_verdict(
        lane: Lane, tmp_path: Path) -> None:
    async with lane.adapter(tmp_path) as adapter:
        await adapter.register_hook("copilot", "postToolUse", "bash",
                                    printing(tmp_path, "post", {"additionalContext": "check the exit code"}))
        agent = await lane.agent([Reply(None, (bash("echo out"),)), "done"])
        await lane.run(agent, "go")
        log = await lane.log(agent)
    [(is_error, text)] = lane.tool_results(log)
    # Copilot appends postToolUse context to the result the model reads (vendor lane).
    assert not is_error and text.startswith("out")
    assert text.endswith('\n\nTool "bash" succeeded. Additional guidance from postToolUse hooks:\ncheck the exit code')
    assert not [m for m in lane.messages(log) if "check the exit code" in m[0]]
    assert json.loads((tmp_path / "post.stdin").read_text())["toolResult"]["textResultForLlm"].startswith("out")


async def test_a_transformed_prompt_replaces_what_the_model_is_sent(lane: Lane, tmp_path: Path) -> None:
    async with lane.adapter(tmp_path) as adapter:
        await adapter.register_hook("copilot", "userPromptTransformed", None,
                                    printing(tmp_path, "tr", {"modifiedTransformedPrompt": "expanded: deploy"}))
        agent = await lane.agent(["ok"])
        await lane.run(agent, "dp")
        log = await lane.log(agent)
    users = [m for m in lane.messages(log) if m[1] == "user"]
    assert [m[0] for m in users] == ["expanded: deploy"]


async def test_an_opencode_plugin_runs_in_the_plugin_host_on_every_host(lane: Lane, tmp_path: Path) -> None:
    ws = lane.host.cwd
    (ws / ".opencode/plugin").mkdir(parents=True)
    (ws / ".opencode/plugin/guard.ts").write_text(
        'import type { Plugin } from "@opencode-ai/plugin"\n'
        'export const Guard: Plugin = async () => ({\n'
        '  "tool.execute.before": async (input, output) => {\n'
        '    if (input.tool === "bash" && String(output.args.command).includes(".env")) throw new Error("no .env here")\n'
        '  },\n'
        '  "shell.env": async (input, output) => { output.env.DSH_PLUGIN_GUARD = "on" },\n'
        '})\n')
    trust_project("opencode", ws)  # the user trusted the workspace's plugin
    async with lane.adapter(tmp_path) as adapter:
        results = {r.event: r for r in await adapter.register_plugins(ws)}
        agent = await lane.agent([Reply("reading", (bash("cat .env"),)),
                                  Reply("env", (bash("echo guard=${DSH_PLUGIN_GUARD:-unset}"),)), "done"])
        reason, _ = await lane.run(agent, "go")
        log = await lane.log(agent)
    assert reason == "completed"
    assert (results["tool.execute.before"].capability, results["tool.execute.before"].route) == (
        Capability.ADAPTED, Route.PLUGIN_HOST)
    (denied, denied_text), (_, env_text) = lane.tool_results(log)
    # OpenCode's model reads the thrown message bare, on both hosts.
    assert denied and denied_text == "no .env here"
    env = results["shell.env"]
    if "shellEnv" in lane.host.surface.services:
        assert env.capability is Capability.ADAPTED and "guard=on" in env_text
    else:
        assert env.capability is Capability.UNSUPPORTED and "shellEnv" in (env.reason or "")
        assert "guard=unset" in env_text


# One row of every vendor, checked end to end by the live harness on each host: the same driver,
# the same checks, the records read back in one vocabulary (the full sweep is
# tests/test_verify_live_dsh.py and scripts/verify_live.py).
EVERY_VENDOR = (
    ("claude", "PostToolUseFailure"),  # bash's exit code read from the result on rc.8
    ("codex", "PreToolUse"),           # the official Codex bridge
    ("workbuddy", "UserPromptSubmit"),
    ("opencode", "tool.execute.before"),
    ("copilot", "postToolUse"),        # fires for successes only, on both hosts
)


@pytest.mark.parametrize("host", HOSTS)
@pytest.mark.parametrize(("vendor", "event"), EVERY_VENDOR)
async def test_a_row_of_every_vendor_passes_the_live_check_on_every_host(
        host: str, vendor: str, event: str, request: pytest.FixtureRequest) -> None:
    from compat_adapter.testing.live import verify_row

    if host == "dsh":
        request.getfixturevalue("dsh_lane")
    check = await verify_row(vendor, event, host=host)
    assert check.passed, check.detail
