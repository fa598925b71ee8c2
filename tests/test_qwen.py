"""Qwen Code's unit: its settings file read the way Qwen 0.24.4 reads it (discovery, one bad entry one
refused row, seconds-or-milliseconds timeouts, context.fileName), its matcher engine, and a real
``explain`` and ``grade`` on a project holding every vendor's files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import trust, trust_project, write_script

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.catalog import units
from compat_adapter.host.script import Reply, call
from compat_adapter.importers import import_project
from vendors.qwen.importer import seconds
from vendors.qwen.matchers import TOOL_ALIASES, matches_pattern, pattern_problem

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "compat_adapter", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=180)


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def group(*handlers: dict[str, Any], matcher: str | None = None) -> dict[str, Any]:
    return {**({"matcher": matcher} if matcher is not None else {}), "hooks": list(handlers)}


def test_discovery_finds_settings_and_context_files(tmp_path: Path) -> None:
    write(tmp_path / ".qwen/settings.json", {"hooks": {"Stop": [group({"type": "command", "command": "true"})]}})
    write(tmp_path / "QWEN.md", "rules\n")
    write(tmp_path / "AGENTS.md", "agents\n")
    write(tmp_path / "CLAUDE.md", "Qwen does not read this\n")
    trust_project("qwen", tmp_path)
    result = import_project("qwen", tmp_path)
    assert [h.event for h in result.hooks] == ["Stop"]
    assert [Path(r.sources[0]).name for r in result.rules] == ["QWEN.md", "AGENTS.md"]
    # context.fileName names the context files instead of Qwen's defaults.
    write(tmp_path / ".qwen/settings.json", {"context": {"fileName": ["TEAM.md"]}, "hooks": {}})
    write(tmp_path / "TEAM.md", "team\n")
    trust_project("qwen", tmp_path)
    assert [Path(r.sources[0]).name for r in import_project("qwen", tmp_path).rules] == ["TEAM.md"]


def test_one_bad_entry_is_one_refused_row_and_the_rest_imports(tmp_path: Path) -> None:
    config = write(tmp_path / ".qwen/settings.json", {"hooks": {
        "PreToolUse": [group({"type": "command", "command": "echo ok"},
                             {"type": "function", "id": "in-process"},
                             {"type": "script", "command": "x"},
                             {"type": "command"}, matcher="Bash")],
        "NoSuchEvent": [group({"type": "command", "command": "true"})],
        "WorktreeCreate": [group({"type": "command", "command": "true"})],
    }})
    trust("qwen", config)
    result = import_project("qwen", tmp_path)
    assert [(h.event, h.handler["command"]) for h in result.hooks] == [("PreToolUse", "echo ok")]
    codes = sorted(r.code for r in result.refused)
    assert codes.count("INVALID_HANDLER") == 3 and len(codes) == 5, [(r.code, r.reason) for r in result.refused]
    newer = next(r for r in result.refused if "WorktreeCreate" in r.what or "WorktreeCreate" in r.origin)
    assert "0.24.4" in newer.reason


@pytest.mark.parametrize(("given", "want"), [(10, 10.0), ("30", 30.0), (1000, 1.0), (60000, 60.0),
                                             (0, None), (-5, None), ("30s", None), (True, None)])
def test_timeouts_are_seconds_with_the_legacy_milliseconds(given: Any, want: float | None) -> None:
    assert seconds(given) == want


def test_an_imported_timeout_is_the_one_qwen_applies(tmp_path: Path) -> None:
    config = write(tmp_path / ".qwen/settings.json", {"hooks": {"Stop": [
        group({"type": "command", "command": "a", "timeout": 5000}, {"type": "command", "command": "b", "timeout": 3},
              {"type": "command", "command": "c", "timeout": "soon"})]}})
    trust("qwen", config)
    result = import_project("qwen", tmp_path)
    assert [h.declared.handler.timeout_s for h in result.hooks] == [5.0, 3, None]


@pytest.mark.parametrize(("matcher", "subject", "matched"), [
    ("Bash", "run_shell_command", True),            # Claude's name, an exact alias
    ("^Bash$", "run_shell_command", False),         # a regex never tests an alias
    ("Write|Edit", "write_file", True),             # list entries compared exactly
    ("read", "read_file", True),                    # unanchored regex
    ("^run_shell_command$", "run_shell_command", True),
    ("edit", "notebook_edit", True),
    (".*", "anything", True), ("*", "x", True), ("  ", "x", True),
    ("|", "x", False),                              # a list with no entry matches nothing
    ("read_(file|edit)|", "write_file", False),     # a stray | is dropped from the list
    ("^write_file|", "anything", True),             # compiled as written: the empty branch matches
    ("(unclosed", "x", False),                      # does not compile: that hook is skipped
])
def test_the_matcher_engine(matcher: str, subject: str, matched: bool) -> None:
    assert matches_pattern(matcher, subject, TOOL_ALIASES.get(subject, ())) is matched


def test_a_matcher_that_does_not_compile_is_named() -> None:
    assert pattern_problem("(unclosed") is not None
    assert pattern_problem("Bash|Write") is None


def test_explain_runs_a_qwen_deny_for_real(tmp_path: Path) -> None:
    config = write(tmp_path / ".qwen/settings.json", {"hooks": {"PreToolUse": [group(
        {"type": "command", "command": "cat > seen.json; echo 'no rm' >&2; exit 2", "timeout": 10},
        matcher="Bash")]}})
    trust("qwen", config)
    done = cli("explain", "--vendor", "qwen", "--tool", "bash", "--input", '{"command": "rm -rf build"}',
               "--json", "--in-place", str(config), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    [hook] = report["hooks"]
    assert hook["matcher"]["matched"] and hook["run"]["exit_code"] == 2
    seen = json.loads((tmp_path / "seen.json").read_text())
    # Qwen's payload: its tool id, its timestamp, its toolu_ id beside the host's call id.
    assert seen["tool_name"] == "run_shell_command" and seen["tool_input"] == {"command": "rm -rf build"}
    assert seen["timestamp"].endswith("Z") and seen["tool_use_id"].startswith("toolu_")
    assert report["vendor_view"]["tool_runs"] is False
    assert report["vendor_view"]["reads"] == [{"place": "tool_result", "text": "no rm"}]


async def test_todo_events_fire_once_per_item_after_the_write_told_apart_by_text(tmp_path: Path) -> None:
    """TodoCreated and TodoCompleted on the host's todo tool, with the losses their rows list: one run
    per item after the write (Qwen: validation, then postWrite), a block refuses nothing, an item whose
    text changes is new, one written completed is a completion too, and no todo_id/phase/all_todos."""
    seen = tmp_path / "seen"
    seen.mkdir()
    block = json.dumps({"decision": "block", "reason": "no todos"})
    hook = str(write_script(tmp_path / "todo.sh", f"cat > '{seen}'/$$.json\nprintf '%s\\n' '{block}'\n"))

    def todos(*items: tuple[str, str]) -> Reply:
        return Reply(calls=(call("todo", todos=[{"content": c, "status": s} for c, s in items]),))

    script = [todos(("write the tests", "pending")),
              todos(("write the tests", "completed"), ("ship it", "pending")),
              todos(("write the tests", "completed"), ("ship it now", "completed")), "done"]
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        for event in ("TodoCreated", "TodoCompleted"):
            await adapter.register_hook("qwen", event, None, hook)
        agent = await host.create_agent(script=script)
        result = await agent.run_turn("plan the work")
        await host.settle()
        snapshots = [e.data["todos"] for e in agent.session.events if e.type == "todo/write"]
    payloads = [json.loads(f.read_text()) for f in seen.iterdir()]
    runs = sorted((p["hook_event_name"], p["todo_content"]) for p in payloads)
    # "ship it" renamed as it is completed is a new item here, so its completion is the new item's,
    # which (written completed) fires TodoCompleted besides TodoCreated; Qwen, keeping the item's id,
    # fires only TodoCompleted for it. Each runs once, and the block answer refused no write.
    assert runs == [("TodoCompleted", "ship it now"), ("TodoCompleted", "write the tests"),
                    ("TodoCreated", "ship it"), ("TodoCreated", "ship it now"),
                    ("TodoCreated", "write the tests")], payloads
    assert result.reason == "completed" and len(snapshots) == 3
    for p in payloads:
        assert not {"todo_id", "phase", "all_todos", "previous_status"} & set(p), p
    assert {p["todo_status"] for p in payloads if p["hook_event_name"] == "TodoCreated"} == {"pending", "completed"}


#: One hook file per vendor: the eight the project knows of (registered units and those still to come).
EIGHT = {
    "claude": (".claude/settings.json", {"hooks": {"Stop": [group({"type": "command", "command": "true"})]}}),
    "codex": (".codex/hooks.json", {"hooks": {"Stop": [group({"type": "command", "command": "true"})]}}),
    "workbuddy": (".codebuddy/settings.json", {"hooks": {"Stop": [group({"type": "command", "command": "true"})]}}),
    "copilot": (".github/hooks/h.json", {"version": 1, "hooks": {"agentStop": [{"type": "command", "bash": "true"}]}}),
    "opencode": ("opencode.json", {"plugin": ["some-plugin"]}),
    "qwen": (".qwen/settings.json", {"hooks": {"Stop": [group({"type": "command", "command": "true"})]}}),
    "gemini": (".gemini/settings.json", {"hooks": {"AfterAgent": [group({"type": "command", "command": "true"})]}}),
    "cursor": (".cursor/hooks.json", {"version": 1, "hooks": {"stop": [{"command": "true"}]}}),
}


def test_grade_names_every_vendors_file_in_one_project(tmp_path: Path) -> None:
    for path, data in EIGHT.values():
        write(tmp_path / path, data)
    done = cli("grade", "--json", "--trust-all", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["rows"]
    registered = {u.spec.id for u in units()}
    for vendor, (path, _) in EIGHT.items():
        mine = [r for r in rows if r["vendor"] == vendor and path in r["origin"]]
        assert mine, f"{vendor}: {path} not graded"
        if vendor in registered and vendor != "opencode":
            assert all(r["capability"] != "UNSUPPORTED" or "UNSUPPORTED_VENDOR" not in r["reason"] for r in mine)
        elif vendor not in registered:
            assert all(r["reason"].startswith("UNSUPPORTED_VENDOR") for r in mine), mine
    qwen = [r for r in rows if r["vendor"] == "qwen" and r["origin"].endswith(".qwen/settings.json:hooks.Stop[0].hooks[0]")]
    assert [r["capability"] for r in qwen] == ["ADAPTED"], [r for r in rows if r["vendor"] == "qwen"]


def test_qwen_reads_no_settings_local_json(tmp_path: Path) -> None:
    # Measured on Qwen Code 0.24.4 (lane case qwen:perm_deny_local): a deny rule there lets the call run.
    from compat_adapter.importers import import_files
    from compat_adapter.importers.gate import trust_files

    (tmp_path / ".qwen").mkdir()
    local = tmp_path / ".qwen/settings.local.json"
    local.write_text(json.dumps({"permissions": {"deny": ["Bash(rm -rf *)"]},
                                 "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}))
    trust_files("qwen", [local], command="tests/test_qwen.py")
    done = import_files("qwen", [local])
    assert not done.permissions and not done.hooks
    assert [(r.code, r.what) for r in done.refused] == [("SKIPPED_BY_VENDOR", "Stop hook"),
                                                        ("SKIPPED_BY_VENDOR", "permission rule Bash(rm -rf *)")]
    assert all("reads no settings.local.json" in r.reason for r in done.refused)
