"""The services a DSH 0.2.1 ``sdk`` profile lacks, brought by the bundle, on the real runtime.

No shipped profile composes a language server or a worktree service, and DSH's ``fs`` watch is one
directory deep with no event of its own; the service side runs its file watcher, worktree poller
and language-server link itself. DSH's ``shellEnv`` registry is asked synchronously inside the
shell tool, so the plugin relays what a hook answers from ``tools/execute``. DSH's own
workspace-changes recorder (composed by the plugin) says which files a turn changed. Each test
fires a real hook through the real runtime and reads what the hook received or what the shell saw.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from conftest import write_script
from test_contract import LANE_DIR, bash, dsh_lane

from compat_adapter.host.dsh.lane import launch
from compat_adapter.host.dsh.surface import DSH_VERSION
from compat_adapter.host.script import Reply, call
from compat_adapter.model import Capability
from compat_adapter.service import CompatAdapter
from compat_adapter.testing.live.repo import git, make_repo

__all__ = ("dsh_lane",)


@pytest.fixture(autouse=True)
def _installed(dsh_lane: Path) -> None:
    """Every test here runs on the lane."""


def _recorder(tmp_path: Path, answer: str = "") -> tuple[Path, Path]:
    """A command hook that appends each payload (one line) to a file and prints ``answer``."""
    seen = tmp_path / "payloads.jsonl"
    script = write_script(tmp_path / "hook.sh", (
        f"{{ cat; echo; }} >> '{seen}'\n" + (f"printf '%s' '{answer}'\n" if answer else "")))
    return script, seen


async def _payloads(seen: Path, count: int = 1, timeout_s: float = 30.0, naming: str = "") -> list[dict]:
    """The payloads the hook got, once there are ``count`` (and one names ``naming``), or at the timeout."""
    def read() -> list[dict]:
        text = seen.read_text() if seen.exists() else ""
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    with anyio.move_on_after(timeout_s):
        while len(read()) < count or naming not in json.dumps(read()):
            await anyio.sleep(0.1)
    return read()


async def test_a_file_changed_hook_fires_on_dsh_when_a_workspace_file_is_written(tmp_path: Path) -> None:
    ws = await make_repo(tmp_path / "ws")
    (ws / "src").mkdir()
    hook, seen = _recorder(tmp_path)
    async with launch(ws, lane_root=LANE_DIR) as r:
        async with CompatAdapter(r.host, target_host_version=DSH_VERSION,
                                 state_dir=str(tmp_path / "state")) as adapter:
            result = await adapter.register_hook("claude", "FileChanged", None, str(hook))
            assert result.capability is Capability.ADAPTED, result.reason
            # The watcher runs on the service side, held by this adapter.
            assert adapter.id in r.host.services_in_use()["fs.watch"]
            (ws / "src" / "deep.txt").write_text("written from outside the agent\n")
            payloads = await _payloads(seen, naming="deep.txt")
        # The adapter is gone: what it opened on the service side is closed with it.
        assert "fs.watch" not in r.host.services_in_use()
    # A file in a folder of the workspace (DSH's own fs watch is one directory deep).
    assert [(p["hook_event_name"], p["file_path"]) for p in payloads] == [("FileChanged", str(ws / "src" / "deep.txt"))]


async def test_worktree_hooks_fire_on_dsh_when_git_adds_and_removes_one(tmp_path: Path) -> None:
    ws = await make_repo(tmp_path / "ws")
    hook, seen = _recorder(tmp_path)
    tree = tmp_path / "feature-tree"
    async with launch(ws, lane_root=LANE_DIR) as r:
        async with CompatAdapter(r.host, target_host_version=DSH_VERSION,
                                 state_dir=str(tmp_path / "state")) as adapter:
            for event in ("WorktreeCreate", "WorktreeRemove"):
                result = await adapter.register_hook("claude", event, None, str(hook))
                assert result.capability is Capability.ADAPTED, result.reason
            await anyio.sleep(1.0)  # the poller's baseline is the tree before the change
            await git(ws, "worktree", "add", "-q", str(tree), "-b", "feature")
            [created] = await _payloads(seen, 1)
            await git(ws, "worktree", "remove", str(tree))
            payloads = await _payloads(seen, 2)
    assert created["hook_event_name"] == "WorktreeCreate" and created["name"] == "feature-tree"
    assert [p["hook_event_name"] for p in payloads] == ["WorktreeCreate", "WorktreeRemove"]
    assert payloads[1]["worktree_path"] == str(tree)


async def test_an_lsp_diagnostics_hook_on_dsh_gets_the_language_servers_diagnostics(tmp_path: Path) -> None:
    ws = await make_repo(tmp_path / "ws")
    hook, seen = _recorder(tmp_path)
    broken = "import os\n\n\ndef f(x):\n    return os.path.join(x, 'y'\n"  # an unclosed call
    async with launch(ws, lane_root=LANE_DIR) as r:
        async with CompatAdapter(r.host, target_host_version=DSH_VERSION,
                                 state_dir=str(tmp_path / "state")) as adapter:
            result = await adapter.register_hook("opencode", "lsp.client.diagnostics", None, str(hook))
            assert result.capability is Capability.ADAPTED, result.reason
            # DSH's own write tool changes the file; DSH's workspace-changes recorder lists it.
            agent = await r.create_agent([Reply(None, (call("write", file_path="mod.py", content=broken),)), "ok"])
            await r.run_turn(agent, "write the module")
            [payload] = await _payloads(seen, 1, timeout_s=60.0)
            changes = [e for e in await r.events(agent) if e.get("type") == "workspace/changes"]
    assert (ws / "mod.py").read_text() == broken
    assert len(changes) == 1
    props = payload["input"]["event"]["properties"]
    assert props["path"] == "mod.py"
    assert "SyntaxError" in json.dumps(props["diagnostics"]) or "'(' was never closed" in json.dumps(props)


async def test_a_shell_env_hook_on_dsh_sets_dsh_variables_for_the_bash_tool(tmp_path: Path) -> None:
    ws = await make_repo(tmp_path / "ws")
    hook, seen = _recorder(tmp_path, json.dumps({"env": {"DSH_TEAM_TOKEN": "from-the-hook",
                                                          "PLAIN_NAME": "not-a-dsh-name"}}))
    command = 'echo "token=$DSH_TEAM_TOKEN plain=${PLAIN_NAME:-unset} session=${DSH_SESSION_ID:+set}"'
    async with launch(ws, lane_root=LANE_DIR) as r:
        async with CompatAdapter(r.host, target_host_version=DSH_VERSION,
                                 state_dir=str(tmp_path / "state")) as adapter:
            result = await adapter.register_hook("opencode", "shell.env", None, str(hook))
            assert result.capability is Capability.ADAPTED, result.reason
            agent = await r.create_agent([Reply(None, (bash(command),)), "ok"])
            await r.run_turn(agent, "print the token")
            log = await r.events(agent)
            [payload] = await _payloads(seen)
        # Without the hook, the next shell call has no such variable.
        again = await r.create_agent([Reply(None, (bash(command),)), "ok"])
        await r.run_turn(again, "print it again")
        after = await r.events(again)

    def shell_output(events: list[dict]) -> str:
        return json.dumps([e for e in events if e.get("type") == "tool/result"])

    assert "token=from-the-hook" in shell_output(log)
    assert "plain=unset" in shell_output(log)       # only DSH_* names reach DSH's shell
    assert "session=set" in shell_output(log)       # DSH's own built-ins are untouched
    assert "token= " in shell_output(after)
    # OpenCode's shell.env input: the session and its folder.
    assert payload["input"]["sessionID"] == agent.id and payload["input"]["cwd"] == str(ws)


async def test_a_question_asked_through_dshs_own_service_reaches_a_host_listener_and_is_answered(
        tmp_path: Path) -> None:
    """The plugin forwards user-questions/request; no sdk tool asks one, so the lane asks as DSH's
    ask_user_question tool would, and the Elicitation rows say why they cannot fire here."""
    from compat_adapter.host.dsh.surface import DSH_SURFACE
    from compat_adapter.host.protocol import AskUserQuestionAnswer, QuestionAnswer
    from compat_adapter.matrix import build_matrix

    asked: list = []

    async def answer(request, next_):
        asked.append(request)
        return AskUserQuestionAnswer(tuple(QuestionAnswer(q.id, (q.options[-1],)) for q in request.questions))

    async with launch(await make_repo(tmp_path / "ws"), lane_root=LANE_DIR) as r:
        off = r.host.on("user-questions/request", answer)
        agent = await r.create_agent(["ok"])
        await r.run_turn(agent, "hi")  # DSH creates the agent on its first prompt
        reply = await r.runtime.control("ask", {"agent": agent.id, "questions": [
            {"id": "q1", "question": "Which database?", "options": [{"label": "postgres"}, {"label": "sqlite"}]}]})
        off()
        unanswered = await r.runtime.control("ask", {"agent": agent.id, "questions": [
            {"id": "q2", "question": "Anyone?", "options": [{"label": "yes"}]}]})
    assert reply == {"answer": {"answers": [{"id": "q1", "selected": ["sqlite"]}]}}
    [request] = asked
    assert request.agent.id == agent.id and request.questions[0].options == ("postgres", "sqlite")
    assert unanswered["code"] == "NO_PROVIDER"   # DSH's own refusal once nobody answers
    rows = {(h.vendor, h.event): h for h in build_matrix(DSH_SURFACE).hooks}
    assert "ask_user_question is not composed" in (rows[("claude", "Elicitation")].reason or "")
