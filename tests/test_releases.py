"""Keeping up with the vendors (issue 27): each table follows the release the vendor lane pins, says
so where it grades, and does what that release was measured to do.

The behaviours here were measured on the real CLIs in the vendor lane (the cases named in each test;
``tests/test_vendor_lane.py`` runs them); these tests pin that the embedded host does the same with
real hook processes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import trust, write_script
from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.catalog import resolve_vendor
from compat_adapter.host.script import Reply, call
from compat_adapter.importers import import_files, register_import
from compat_adapter.matrix import build_matrix
from compat_adapter.matrixdoc import summary_markdown, to_markdown
from compat_adapter.testing.lane.vendors import cli_for, lane_vendors

REPO = Path(__file__).resolve().parents[1]
BASH_THEN_DONE = [Reply(calls=(call("bash", command="echo ran > ran.txt"),)), "done"]


def cli(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "compat_adapter.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=180)


def hook(tmp: Path, name: str, stdout: str = "", *, code: int = 0, sleep: float = 0) -> str:
    body = "cat >/dev/null\n" + (f"sleep {sleep:g}\n" if sleep else "")
    if stdout:
        body += f"printf '%s\\n' '{stdout}'\n"
    return str(write_script(tmp / f"{name}.sh", body + f"exit {code}\n"))


# ── the release each table follows ───────────────────────────────────────────────────────────────

def test_each_table_states_the_release_the_lane_pins() -> None:
    want = subprocess.run(["bash", str(REPO / "scripts" / "vendor_lane.sh"), "--want"], capture_output=True,
                          text=True, check=True).stdout
    # "claude\t@anthropic-ai/claude-code@2.1.332", "codebuddy\tcodebuddy-agent-sdk==0.3.274" …
    pinned = {folder: stamp.split()[0].rsplit("@", 1)[-1].rsplit("==", 1)[-1]
              for folder, stamp in (line.split("\t") for line in want.splitlines())}
    for vendor in lane_vendors():
        lane = cli_for(vendor)
        assert pinned[lane.folder] == (lane.package_version or lane.version), vendor
        # The rows follow the release the lane runs: a pin bump without the table's is a failure here.
        assert resolve_vendor(vendor).measured_on == lane.version, vendor


def test_grade_explain_and_the_matrix_say_the_release(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "true"}]}]}}))
    trust("claude", settings)
    graded = cli("grade", "--vendor", "claude", str(settings), "--json")
    assert graded.returncode == 0, graded.stderr
    assert {r["measured_on"] for r in json.loads(graded.stdout)["rows"]} == {"2.1.332"}
    text = cli("grade", "--vendor", "claude", str(settings))
    assert "graded as claude 2.1.332 behaves" in " ".join(text.stdout.split()), text.stdout
    explained = cli("explain", "--vendor", "claude", "--tool", "Bash", "--input", '{"command": "ls"}', "--json",
                    cwd=tmp_path)
    assert explained.returncode == 0, explained.stderr
    assert json.loads(explained.stdout)["measured_on"] == "2.1.332"
    matrix = build_matrix()
    assert {c.vendor: c.measured_on for c in matrix.counts}["workbuddy"] == "2.163.0"
    assert "**copilot 1.0.102**" in summary_markdown(matrix)
    assert "Every row follows codex 0.171.0" in to_markdown(matrix)


# ── Claude Code 2.1.332 ───────────────────────────────────────────────────────────────────────────

def test_claude_pre_skill_shell_command_is_unsupported_for_its_true_reason(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"hooks": {
        "PreSkillShellCommand": [{"hooks": [{"type": "command", "command": "true"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}))
    imported = import_files("claude", [settings], trust_all=True)
    assert [h.event for h in imported.hooks] == ["PreToolUse"]
    [refused] = imported.refused
    # Never "claude has no hook event": the event is real, the host has nothing for it to guard.
    assert refused.code == "UNSERVED_EVENT"
    assert "has no hook event" not in refused.reason
    for said in ("Claude Code 2.1.332", "tool_input.command", "invoked_by", "any updatedInput",
                 "PreToolUse does not fire for it", "no skill loader"):
        assert said in refused.reason, said


# ── CodeBuddy Code 2.163.0 ────────────────────────────────────────────────────────────────────────

async def test_codebuddy_stop_continue_false_ends_the_turn(tmp_path: Path) -> None:
    """Lane case workbuddy:stop_halt: Stop fires once and the turn ends (we used to loop to the cap)."""
    halt = hook(tmp_path, "halt", json.dumps({"continue": False, "stopReason": "halt"}))
    async with MemoryHost(tmp_path, max_steps_per_turn=20) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("workbuddy", "Stop", None, halt)
        agent = await host.create_agent(script=[f"answer {i}" for i in range(20)])
        result = await agent.run_turn("go")
    assert result.steps == 1 and result.last_assistant_message == "answer 0"
    assert [r.decision for r in adapter.audit] == ["none"]


async def test_codebuddy_guard_that_outlives_its_timeout_denies_the_call(tmp_path: Path) -> None:
    """Lane cases workbuddy:pre_timeout (2 s) and workbuddy:pre_timeout_default (60 s): the call does
    not run and the model reads CodeBuddy's words, naming the timeout."""
    deny = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}})
    late = hook(tmp_path, "late", deny, sleep=30)
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("workbuddy", "PreToolUse", ".*", {"type": "command", "command": late,
                                                                    "timeout": 1})
        agent = await host.create_agent(script=BASH_THEN_DONE)
        await agent.run_turn("go")
    assert not (tmp_path / "ran.txt").exists()
    assert [e.data["text"] for e in agent.session.of_type("tool/result")] == ["Error: Hook timed out after 1000ms"]


# ── Copilot CLI 1.0.102 ───────────────────────────────────────────────────────────────────────────

async def test_copilot_prompt_block_blocks_and_modified_prompt_replaces(tmp_path: Path) -> None:
    """Lane cases copilot:prompt_block (no model call) and copilot:prompt_modified (the model reads
    the hook's prompt, the context after it)."""
    block = hook(tmp_path, "block", json.dumps({"decision": "block", "reason": "not today"}))
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("copilot", "userPromptSubmitted", None, block)
        agent = await host.create_agent(script=BASH_THEN_DONE)
        result = await agent.run_turn("run it")
    assert result.reason == "blocked" and result.steps == 0 and not (tmp_path / "ran.txt").exists()
    modified = hook(tmp_path, "modify", json.dumps({"modifiedPrompt": "say hi", "additionalContext": "CTX"}))
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("copilot", "userPromptSubmitted", None, modified)
        agent = await host.create_agent(script=["hi"])
        await agent.run_turn("run it")
    texts = [e.data["text"] for e in agent.session.of_type("user/message")]
    assert texts == ["say hi\n\n<system_reminder>\nCTX\n</system_reminder>"]


async def test_copilot_guard_that_errors_is_denied_naming_its_file(tmp_path: Path) -> None:
    """Lane cases copilot:pre_error and copilot:pre_crash: the text names the hook file relative to
    the project, never the exit code (a timeout lets the call run, copilot:pre_timeout: the Copilot
    dialect's tests)."""
    failing = write_script(tmp_path / "fail.sh", "cat >/dev/null\necho oops >&2\nexit 1\n")
    config = tmp_path / ".github" / "hooks" / "guard.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": str(failing)}]}}))
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await register_import(adapter, import_files("copilot", [config], trust_all=True))
        agent = await host.create_agent(script=BASH_THEN_DONE)
        await agent.run_turn("go")
    assert not (tmp_path / "ran.txt").exists()
    assert [e.data["text"] for e in agent.session.of_type("tool/result")] == [
        'Denied by preToolUse hook from ".github/hooks/guard.json" (hook errored)']


# ── explain says what the release does ──────────────────────────────────────────────────────────────

def test_explain_predicts_the_measured_prompt_rewrite_and_permission_refusal(tmp_path: Path) -> None:
    """explain's vendor side for two answers measured on the pinned releases: Copilot's
    modifiedPrompt (copilot:prompt_modified) and a Codex PermissionRequest deny (codex:permission_deny)."""
    copilot = tmp_path / ".github" / "hooks" / "hooks.json"
    copilot.parent.mkdir(parents=True)
    modify = hook(tmp_path, "modify", json.dumps({"modifiedPrompt": "say hi", "additionalContext": "CTX"}))
    copilot.write_text(json.dumps({"version": 1, "hooks": {"userPromptSubmitted": [{"type": "command",
                                                                                     "bash": modify}]}}))
    codex = tmp_path / ".codex" / "hooks.json"
    codex.parent.mkdir()
    refuse = hook(tmp_path, "refuse", json.dumps({"hookSpecificOutput": {
        "hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "not here"}}}))
    codex.write_text(json.dumps({"hooks": {"PermissionRequest": [{"matcher": ".*", "hooks": [
        {"type": "command", "command": refuse}]}]}}))
    trust("copilot", copilot)
    trust("codex", codex)
    prompt = cli("explain", "--vendor", "copilot", "--event", "userPromptSubmitted", "--prompt", "run it", "--json",
                 cwd=tmp_path)
    assert prompt.returncode in (0, 1), prompt.stderr  # 1: the host differs somewhere (listed)
    reads = json.loads(prompt.stdout)["vendor_view"]["reads"]
    assert reads[0] == {"place": "message:user", "text": "say hi"}
    assert reads[1]["text"] == "<system_reminder>\nCTX\n</system_reminder>"
    permission = cli("explain", "--vendor", "codex", "--event", "PermissionRequest", "--tool", "Bash", "--input",
                     '{"command": "ls"}', "--json", cwd=tmp_path)
    assert permission.returncode in (0, 1), permission.stderr
    view = json.loads(permission.stdout)["vendor_view"]
    assert view["tool_runs"] is False
    assert view["reads"] == [{"place": "tool_result",
                              "text": 'exec_command failed: CreateProcess { message: "Rejected(\\"not here\\")" }'}]
