"""Factory Droid's unit: its project files found and read as Droid 0.215.0 reads them, its tool names
in matchers and payloads, and a real ``explain`` that a Droid deny refuses Droid's shell tool."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from compat_adapter.catalog import unit_of
from compat_adapter.importers import import_project

ROOT = Path(__file__).resolve().parents[1]


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def hooks(matcher: str) -> dict[str, Any]:
    return {"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [{"type": "command", "command": "exit 2"}]}]}}


def test_its_hooks_files_settings_and_rules_are_found_and_read(tmp_path: Path) -> None:
    write(tmp_path / ".factory/hooks.json", hooks("Execute")["hooks"])  # the flat table Droid reads
    write(tmp_path / ".factory/settings.json", {"customModels": [], **hooks("Create")})
    write(tmp_path / "AGENTS.md", "Be careful.\n")
    write(tmp_path / ".claude/settings.json", hooks("Bash"))  # Claude's, not Droid's
    found = [p.relative_to(tmp_path).as_posix() for p in unit_of("droid").importer.project_files(tmp_path)]
    assert found == [".factory/hooks.json", ".factory/settings.json", "AGENTS.md"]
    result = import_project("factory", tmp_path, trust_all=True)
    assert sorted(str(h.matcher) for h in result.hooks) == ["Create", "Execute"]
    assert [r.vendor for r in result.rules] == ["factory"]


def test_matchers_and_payloads_carry_droids_tool_names() -> None:
    dialect = unit_of("factory").dialect
    assert dialect.matches("PreToolUse", "Execute", "Execute")
    assert not dialect.matches("PreToolUse", "Bash", "Execute")
    from compat_adapter.dialects.base import Moment

    payload = dialect.payload(Moment(event="PreToolUse", session_id="s", cwd="/p", fields={
        "tool_name": "bash", "tool_input": {"command": "ls"}, "tool_use_id": "c1"}))
    assert payload["tool_name"] == "Execute" and payload["tool_input"] == {"command": "ls"}
    assert not {"tool_use_id", "prompt_id", "effort"} & set(payload)


def test_explain_says_a_droid_exit_2_denies_its_shell_tool(tmp_path: Path) -> None:
    write(tmp_path / ".factory/settings.json", hooks("Execute"))
    done = subprocess.run([sys.executable, "-m", "compat_adapter", "explain", "--vendor", "factory", "--tool",
                           "Execute", "--input", '{"command": "ls"}', "--json", "--trust-all"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    told = json.loads(done.stdout)
    assert told["measured_on"] == "0.215.0"
    assert "deny" in json.dumps(told).lower()


def test_hooks_json_is_a_flat_event_table_and_claudes_wrapper_never_runs(tmp_path: Path) -> None:
    """Measured on droid 0.215.0 (lane cases factory:hooks_json_flat and factory:hooks_json_wrapped):
    a hook in .factory/hooks.json fires only when the file is the event table itself."""
    flat = write(tmp_path / "flat/.factory/hooks.json", hooks("Execute")["hooks"])
    wrapped = write(tmp_path / "wrapped/.factory/hooks.json", hooks("Execute"))
    read = import_project("factory", flat.parents[1], trust_all=True)
    assert [(h.event, h.matcher) for h in read.hooks] == [("PreToolUse", "Execute")] and not read.refused
    never = import_project("factory", wrapped.parents[1], trust_all=True)
    assert never.hooks == () and [r.code for r in never.refused] == ["SKIPPED_BY_VENDOR"]
    assert "event named hooks" in never.refused[0].reason
    # The same table under `hooks` of settings.json is Droid's other place, and runs.
    write(tmp_path / "settings/.factory/settings.json", hooks("Execute"))
    assert len(import_project("factory", tmp_path / "settings", trust_all=True).hooks) == 1


async def test_a_session_end_hook_has_droids_60_s_not_claudes_1_5_s(tmp_path: Path) -> None:
    # Droid 0.215.0 runs every hook with its own timeout, else 60 s (executeHooks: `timeout||60`),
    # and awaits its SessionEnd hooks at the end of `droid exec`: a SessionEnd hook slower than
    # Claude's 1.5 s default runs to its end here too (on a loaded machine the lane's recorder did not).
    from conftest import write_script

    from compat_adapter import CompatAdapter, MemoryHost

    spec = unit_of("factory").spec
    assert spec.default_timeout_s == 60.0 and {r.timeout_s for r in spec.events} == {None}
    end = spec.row("SessionEnd")
    assert end is not None and "timeout-differs" not in {d.code.value for d in end.degradations}
    done = tmp_path / "ended"
    hook = write_script(tmp_path / "end.sh", f"cat >/dev/null\nsleep 2\ntouch {done}\n")
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("factory", "SessionEnd", None, str(hook))
        agent = await host.create_agent(script=["done"])
        await agent.run_turn("go")
        await agent.dispose()
        await host.settle()
    assert done.exists()


def test_a_prompt_decision_block_blocks_nothing_under_droid_but_exit_2_and_continue_false_do() -> None:
    """Droid 0.215.0 rejects a prompt on exit 2 or ``continue: false`` and reads no ``decision`` there
    (lane case factory:prompt_block, ``droid exec -o stream-jsonrpc``); Claude's block still blocks."""
    from compat_adapter.runtime.process import ProcessOutcome

    def run(code: int, stdout: str = "", stderr: str = "") -> ProcessOutcome:
        return ProcessOutcome(exit_code=code, stdout=stdout, stderr=stderr, timed_out=False, truncated=False,
                              cause=None, duration_ms=1.0, signal=None)

    droid, claude = unit_of("factory").dialect, unit_of("claude").dialect
    said = json.dumps({"decision": "block", "reason": "no"})
    assert claude.decode("UserPromptSubmit", run(0, said)).decision == "block"
    ignored = droid.decode("UserPromptSubmit", run(0, said))
    assert ignored.decision != "block" and not ignored.stop
    assert droid.decode("UserPromptSubmit", run(2, stderr="no")).decision == "block"
    assert droid.decode("UserPromptSubmit", run(0, json.dumps({"continue": False}))).stop
    # Elsewhere Droid keeps Claude's top-level block (lane cases stop_block_json agree).
    assert droid.decode("Stop", run(0, said)).decision == "block"


def test_the_prompt_row_says_a_decision_block_rejects_nothing_and_keeps_no_claude_wording_that_it_does() -> None:
    """The row Droid derives from Claude's words its own output loss: Claude's says a block rejects
    the prompt, which under Droid (and this dialect) it does not."""
    row = unit_of("factory").spec.row("UserPromptSubmit")
    assert row is not None
    ignored = [d.text for d in row.degradations if d.code.value == "output-field-ignored"]
    assert len(ignored) == 1 and ignored[0].startswith("A decision:block rejects nothing")
    claude = unit_of("claude").spec.row("UserPromptSubmit")
    assert claude is not None
    assert any(d.text.startswith("A block or continue:false rejects the prompt") for d in claude.degradations)
