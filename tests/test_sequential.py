"""Gemini's and Qwen's ``sequential: true``: real hook processes on the embedded host.

Both planners make an event's whole run sequential when any matching group asks
(``some(entry => entry.sequential === true)``), and each hook then reads the input as the hooks
before it changed it (``applyHookOutputToInput``: Gemini 0.61.0 BeforeAgent/BeforeTool, Qwen 0.24.4
UserPromptSubmit/PreToolUse). Without it the hooks run at once and all read the same input.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio
import pytest
from conftest import trust, write_script

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.host.script import Reply, call
from compat_adapter.importers import import_files, register_import
from compat_adapter.testing.lane.drivers import embedded_outcome, vendor_outcome
from compat_adapter.testing.lane.scenarios import Case

ROOT = Path(__file__).resolve().parents[1]


def settings(tmp: Path, vendor: str, table: dict) -> Path:
    path = tmp / f".{vendor}" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": table}))
    trust(vendor, path)
    return path


def first(tmp: Path, answer: dict) -> str:
    """Sleeps, notes that it finished, answers ``answer``: a hook run after it sees the note."""
    return str(write_script(tmp / "first.sh", f"cat >/dev/null\nsleep 1\ntouch '{tmp}/first-done'\n"
                                             f"printf '%s\\n' '{json.dumps(answer)}'\n"))


def second(tmp: Path) -> str:
    """Keeps its stdin and whether the first hook had finished when it started."""
    return str(write_script(tmp / "second.sh",
                            f"cat > '{tmp}/second.json'\n"
                            f"if [ -e '{tmp}/first-done' ]; then echo after > '{tmp}/order'; "
                            f"else echo during > '{tmp}/order'; fi\n"))


def seen(tmp: Path) -> tuple[dict, str]:
    return json.loads((tmp / "second.json").read_text()), (tmp / "order").read_text().strip()


async def run(tmp: Path, vendor: str, path: Path, script: list) -> None:
    async with MemoryHost(tmp) as host, CompatAdapter(host) as adapter:
        await register_import(adapter, import_files(vendor, [path]))
        agent = await host.create_agent(script=script)
        await agent.run_turn("go")
        await host.settle()


BASH = [Reply(calls=(call("bash", command="echo original"),)), "done"]


@pytest.mark.parametrize("sequential", [True, False])
async def test_gemini_before_tool_hooks_chain_their_tool_input_only_when_sequential(
        tmp_path: Path, sequential: bool) -> None:
    rewrite = {"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": "echo changed"}}}
    # The group that asks need not be the first: one asking makes the event's run sequential.
    path = settings(tmp_path, "gemini", {"BeforeTool": [
        {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": first(tmp_path, rewrite)}]},
        {"matcher": ".*", "sequential": sequential, "hooks": [{"type": "command", "command": second(tmp_path)}]},
    ]})
    await run(tmp_path, "gemini", path, BASH)
    payload, order = seen(tmp_path)
    assert order == ("after" if sequential else "during")
    assert payload["tool_input"]["command"] == ("echo changed" if sequential else "echo original")


async def test_gemini_before_agent_context_extends_the_next_hooks_prompt(tmp_path: Path) -> None:
    context = {"hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": "CTX-1"}}
    path = settings(tmp_path, "gemini", {"BeforeAgent": [
        {"sequential": True, "hooks": [{"type": "command", "command": first(tmp_path, context)},
                                       {"type": "command", "command": second(tmp_path)}]}]})
    await run(tmp_path, "gemini", path, ["done"])
    payload, order = seen(tmp_path)
    assert (order, payload["prompt"]) == ("after", "go\n\nCTX-1")


async def test_a_failed_hook_changes_nothing_for_the_next(tmp_path: Path) -> None:
    """Only a run that succeeded (exit 0) feeds the next hook, in both vendors."""
    rewrite = {"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": "echo changed"}}}
    failing = write_script(tmp_path / "fail.sh",
                           f"cat >/dev/null\nprintf '%s\\n' '{json.dumps(rewrite)}'\nexit 1\n")
    path = settings(tmp_path, "gemini", {"BeforeTool": [
        {"sequential": True, "hooks": [{"type": "command", "command": str(failing)},
                                       {"type": "command", "command": second(tmp_path)}]}]})
    await run(tmp_path, "gemini", path, BASH)
    payload, _ = seen(tmp_path)
    assert payload["tool_input"]["command"] == "echo original"


@pytest.mark.parametrize("sequential", [True, False])
async def test_qwen_prompt_context_reaches_the_next_hook_only_when_sequential(
        tmp_path: Path, sequential: bool) -> None:
    context = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "a <b> & c"}}
    path = settings(tmp_path, "qwen", {"UserPromptSubmit": [
        {"sequential": sequential, "hooks": [{"type": "command", "command": first(tmp_path, context)},
                                             {"type": "command", "command": second(tmp_path)}]}]})
    await run(tmp_path, "qwen", path, ["done"])
    payload, order = seen(tmp_path)
    assert order == ("after" if sequential else "during")
    # Qwen appends the context as written (its escaping is for the model's copy, not the next hook's).
    assert payload["prompt"] == ("go\n\na <b> & c" if sequential else "go")


async def test_qwen_pre_tool_use_chains_tool_input(tmp_path: Path) -> None:
    rewrite = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "tool_input": {"command": "echo changed"}}}
    path = settings(tmp_path, "qwen", {"PreToolUse": [
        {"matcher": "run_shell_command", "sequential": True,
         "hooks": [{"type": "command", "command": first(tmp_path, rewrite)},
                   {"type": "command", "command": second(tmp_path)}]}]})
    await run(tmp_path, "qwen", path, BASH)
    payload, order = seen(tmp_path)
    assert (order, payload["tool_input"]["command"]) == ("after", "echo changed")


def test_sequential_other_than_true_leaves_the_group_parallel(tmp_path: Path) -> None:
    """`entry.sequential === true`: a string "true" is not a request."""
    path = settings(tmp_path, "gemini", {"BeforeTool": [
        {"sequential": "true", "hooks": [{"type": "command", "command": "true"}]},
        {"sequential": True, "hooks": [{"type": "command", "command": "true"}]}]})
    hooks = import_files("gemini", [path]).hooks
    assert [h.declared.handler.sequential for h in hooks] == [False, True]


# ── against the real CLIs (the vendor lane, offline): the second hook reads what they hand it ────

def lane_case(vendor: str, event: str, first_answer: dict, steps: tuple = ()) -> Case:
    """Two hooks of one sequential group, installed as the vendor loads them; each side runs them
    in its own run folder, and the second hook's stdin is what the two sides must agree on."""
    one = (f"#!/bin/sh\ncat >/dev/null\nsleep 1\ntouch \"$CLAUDE_PROJECT_DIR/first-done\"\n"
           f"printf '%s\\n' '{json.dumps(first_answer)}'\n")
    two = ("#!/bin/sh\ncat > \"$CLAUDE_PROJECT_DIR/second.json\"\n"
           "if [ -e \"$CLAUDE_PROJECT_DIR/first-done\" ]; then echo after; else echo during; fi"
           " > \"$CLAUDE_PROJECT_DIR/order\"\n")
    group: dict = {"sequential": True, "hooks": [
        {"type": "command", "command": f'"$CLAUDE_PROJECT_DIR"/.{vendor}/hooks/{n}.sh'} for n in ("one", "two")]}
    if "Tool" in event:
        group["matcher"] = ".*"
    files = {f".{vendor}/settings.json": json.dumps({"hooks": {event: [group]}}),
             f".{vendor}/hooks/one.sh": one, f".{vendor}/hooks/two.sh": two}
    return Case(vendor, f"sequential-{event}", installed=True, files=files, **({"steps": steps} if steps else {}))


LANE_CASES = {
    "gemini-BeforeTool": ("gemini", "BeforeTool",
                          {"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"description": "CHAINED"}}}),
    "gemini-BeforeAgent": ("gemini", "BeforeAgent",
                           {"hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": "CHAINED"}}),
    "qwen-UserPromptSubmit": ("qwen", "UserPromptSubmit",
                              {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "CHAINED"}}),
    "qwen-PreToolUse": ("qwen", "PreToolUse",
                        {"hookSpecificOutput": {"hookEventName": "PreToolUse", "tool_input": {"description": "CHAINED"}}}),
}


@pytest.fixture(scope="module")
def vendor_cli_lane(tmp_path_factory: pytest.TempPathFactory) -> None:
    done = subprocess.run(["bash", str(ROOT / "scripts" / "vendor_lane.sh")], capture_output=True, text=True)
    assert done.returncode == 0, f"scripts/vendor_lane.sh failed:\n{done.stdout}\n{done.stderr}"


@pytest.mark.parametrize("name", sorted(LANE_CASES))
async def test_the_real_cli_chains_as_we_do(name: str, tmp_path: Path, vendor_cli_lane: None,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPAT_ADAPTER_STATE_HOME", str(tmp_path / "state-home"))
    case = lane_case(*LANE_CASES[name])
    await anyio.to_thread.run_sync(lambda: vendor_outcome(case, tmp_path / "vendor"))
    await embedded_outcome(case, tmp_path / "ours")
    sides = {}
    for side in ("vendor", "ours"):
        proj = tmp_path / side / "proj"
        payload = json.loads((proj / "second.json").read_text())
        sides[side] = ((proj / "order").read_text().strip(), payload.get("prompt"),
                       (payload.get("tool_input") or {}).get("description"))
    assert sides["vendor"][0] == "after", sides  # the real CLI ran them one after the other
    assert "CHAINED" in str(sides["vendor"]), sides  # and fed the second what the first said
    assert sides["ours"] == sides["vendor"]
