"""`compat-adapter explain` (issue 18): real hook processes replayed against real config files, read
the vendor's way and the host's way, with lints, JSON validated against the published schemas."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from conftest import trust

from compat_adapter.cli.reports import schemas
from compat_adapter.explain import Question, explain

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "docs" / "schema"


def cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "compat_adapter", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=180)


def schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / name).read_text())


def claude_project(tmp_path: Path, hooks: dict[str, Any], name: str = "settings.json") -> Path:
    config = tmp_path / ".claude" / name
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"hooks": hooks}))
    trust("claude", config)
    return config


def command(text: str, **extra: Any) -> dict[str, Any]:
    return {"hooks": [{"type": "command", "command": text, **extra}]}


def test_published_schemas_are_generated_from_the_models() -> None:
    for name, generated in schemas().items():
        committed = json.loads((SCHEMAS / name).read_text())
        assert committed == json.loads(json.dumps(generated)), \
            f"docs/schema/{name} drifted from the models: run python scripts/write_schemas.py"


def test_a_claude_exit2_deny_runs_for_real_and_reads_the_same_on_both_sides(tmp_path: Path) -> None:
    config = claude_project(tmp_path, {"PreToolUse": [
        {"matcher": "Bash", **command("cat > seen.json; echo 'no rm here' >&2; exit 2", timeout=10)}]})
    done = cli("explain", "--vendor", "claude", "--tool", "Bash", "--input", '{"command": "rm -rf build"}',
               "--json", "--in-place", str(config), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    jsonschema.validate(report, schema("explain.schema.json"))
    [hook] = report["hooks"]
    assert hook["matcher"]["engine"] == "exact-names" and hook["matcher"]["matched"]
    run = hook["run"]
    assert (run["exit_code"], run["stderr"], run["timeout_s"]) == (2, "no rm here\n", 10.0)
    # The bytes on stdin are what the hook really read (it saved them).
    assert (tmp_path / "seen.json").read_text() == run["stdin"]
    assert json.loads(run["stdin"])["tool_input"] == {"command": "rm -rf build"}
    vendor, host = report["vendor_view"], report["host_view"]
    said = f"PreToolUse:Bash hook error: [{hook['handler']}]: no rm here\n"  # Claude keeps stderr's newline
    assert vendor["tool_runs"] is False and vendor["reads"] == [{"place": "tool_result", "text": said}]
    assert host["verdict"] == "PreToolDecision(deny)" and host["reads"] == vendor["reads"]
    assert report["differences"] == []


def test_the_same_matcher_is_read_by_each_vendors_engine(tmp_path: Path) -> None:
    """"Bas": a Claude exact name (no match), an unanchored CodeBuddy regex (match), an anchored
    Copilot regex (no match)."""
    outcomes = {}
    for vendor, path, tool in (("claude", ".claude/settings.json", "Bash"),
                               ("workbuddy", ".codebuddy/settings.json", "Bash"),
                               ("copilot", ".github/hooks/h.json", "bash")):
        config = tmp_path / vendor / path
        config.parent.mkdir(parents=True)
        if vendor == "copilot":
            config.write_text(json.dumps({"version": 1, "hooks": {"preToolUse": [
                {"type": "command", "bash": "exit 0", "matcher": "Bas"}]}}))
        else:
            config.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bas", **command("exit 0")}]}}))
        trust(vendor, config)
        report = anyio.run(explain, Question(vendor, tool=tool, tool_input={"command": "ls"}, files=(config,),
                                             root=config.parents[1]))
        [hook] = report.hooks
        outcomes[vendor] = (hook.matcher.engine, hook.matcher.matched, hook.fires)
    assert outcomes == {"claude": ("exact-names", False, False), "workbuddy": ("js-regex", True, True),
                        "copilot": ("anchored-regex", False, False)}


def test_if_rules_admit_only_the_calls_they_name(tmp_path: Path) -> None:
    config = claude_project(tmp_path, {"PreToolUse": [{"matcher": "Bash", **command("echo ok", **{"if": "Bash(git *)"})}]})
    admitted = anyio.run(explain, Question("claude", tool="Bash", tool_input={"command": "git status"},
                                           files=(config,), root=tmp_path))
    refused = anyio.run(explain, Question("claude", tool="Bash", tool_input={"command": "rm x"},
                                          files=(config,), root=tmp_path))
    assert admitted.hooks[0].if_rule.admitted and admitted.hooks[0].fires
    assert not refused.hooks[0].if_rule.admitted and not refused.hooks[0].fires
    assert "does not admit Bash(rm x)" in refused.hooks[0].why_not
    assert refused.vendor_view is None and refused.host_view is None


def test_a_rewrite_runs_on_the_native_route_and_is_no_difference(tmp_path: Path) -> None:
    answer = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                                "updatedInput": {"command": "ls -la"}}})
    config = claude_project(tmp_path, {"PreToolUse": [{"matcher": "Bash", **command(f"echo '{answer}'", timeout=5)}]})
    done = cli("explain", "--vendor", "claude", "--tool", "Bash", "--input", '{"command": "ls"}', str(config),
               "--json", cwd=tmp_path)
    report = json.loads(done.stdout)
    assert report["vendor_view"]["input_rewritten"] is True
    # The native route runs the rewritten input as a nested call (routing/rewrite.py), as Claude does.
    assert not any("rewritten input" in d for d in report["differences"]), report["differences"]


def test_lints_found_on_the_way(tmp_path: Path) -> None:
    config = claude_project(tmp_path, {
        "PreToolUse": [{"matcher": "Bash", **command("exit 2")},
                       {"matcher": "Wirte", **command("true", timeout=5000)},
                       {"matcher": "Bash", **command("pwsh -File guard.ps1", timeout=5)}]})
    report = anyio.run(explain, Question("claude", tool="Bash", tool_input={"command": "ls"}, files=(config,),
                                         root=tmp_path))
    codes = {(lint.code, lint.origin.rsplit("[", 2)[1][0]) for lint in report.lints}
    assert ("exit2-empty-stderr", "0") in codes and ("guard-no-timeout", "0") in codes
    assert ("matcher-matches-no-tool", "1") in codes and ("timeout-milliseconds", "1") in codes
    assert ("powershell-exit", "2") in codes
    assert len(codes) == 5
    ms = next(lint for lint in report.lints if lint.code == "timeout-milliseconds")
    assert "write 5" in ms.text


def test_no_files_discovers_the_project_and_flags_a_hook_that_loads_twice(tmp_path: Path) -> None:
    hooks = {"UserPromptSubmit": [command("echo remember-the-tests", timeout=5)]}
    claude_project(tmp_path, hooks)
    claude_project(tmp_path, hooks, name="settings.local.json")
    done = cli("explain", "--vendor", "claude", "--prompt", "hello", "--json", "--project", str(tmp_path))
    report = json.loads(done.stdout)
    # Claude runs the same command once: the second copy is explained, not run.
    assert [h["fires"] for h in report["hooks"]] == [True, False]
    assert "runs it once" in report["hooks"][1]["why_not"]
    assert [lint["code"] for lint in report["lints"]].count("loads-twice") == 1
    assert report["vendor_view"]["reads"] == [
        {"place": "message:system", "text": "UserPromptSubmit hook success: remember-the-tests"}]
    # The embedded host gives Claude's context the system role: no difference. DSH 0.2.1 puts the
    # same words in its system prompt: a difference the grade lists (context-cost).
    assert report["host_view"]["reads"] == report["vendor_view"]["reads"] and report["differences"] == []
    done = cli("explain", "--vendor", "claude", "--prompt", "hello", "--json", "--project", str(tmp_path),
               "--host", "dsh")
    dsh = json.loads(done.stdout)
    assert [r["place"] for r in dsh["host_view"]["reads"]] == ["system-prompt"]
    assert any("[context-cost]" in d for d in dsh["differences"])


def test_a_payload_file_and_a_timeout(tmp_path: Path) -> None:
    config = tmp_path / ".codex" / "hooks.json"
    config.parent.mkdir()
    config.write_text(json.dumps({"hooks": {"Stop": [command("sleep 30", timeout=1)]}}))
    trust("codex", config)
    payload = tmp_path / "stop.json"
    payload.write_text(json.dumps({"hook_event_name": "Stop", "stop_hook_active": False,
                                   "last_assistant_message": "done"}))
    report = anyio.run(explain, Question("codex", payload=json.loads(payload.read_text()), files=(config,),
                                         root=tmp_path))
    assert report.event == "Stop" and report.payload["last_assistant_message"] == "done"
    run = report.hooks[0].run
    assert run is not None and run.exit_code is None and run.cause == "timeout"
    assert report.vendor_view is not None and report.vendor_view.turn_continues is False
    assert report.vendor_view.failed


def test_errors_are_json_under_json(tmp_path: Path) -> None:
    done = cli("explain", "--vendor", "kiro", "--prompt", "x", "--json", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("UNKNOWN_VENDOR: ")
    error = json.loads(done.stdout)
    jsonschema.validate(error, schema("error.schema.json"))
    assert error["error"]["code"] == "UNKNOWN_VENDOR"
    done = cli("explain", "--vendor", "claude", "--tool", "Bash", "--input", "[1]", "--json", cwd=tmp_path)
    # A bad command-line value is a usage error, not a broken file to fix.
    assert done.returncode == 2 and json.loads(done.stdout)["error"]["code"] == "BAD_ARGUMENT"
    done = cli("explain", "--vendor", "claude", "--event", "NoSuchEvent", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("UNKNOWN_EVENT: ") and not done.stdout


@pytest.mark.parametrize("vendor", ["claude", "copilot"])
def test_an_event_with_no_hook_says_so(tmp_path: Path, vendor: str) -> None:
    done = cli("explain", "--vendor", vendor, "--prompt", "hi", "--project", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert f"no {vendor} hook is configured for" in done.stdout


def test_codebuddy_and_qwen_runs_fire_no_session_end_while_the_host_does(tmp_path: Path) -> None:
    # codebuddy -p and qwen -p exit without SessionEnd (lane cases workbuddy:session_end, qwen's observe);
    # CodeBuddy fires it on /clear, /exit and SIGTERM (read in 2.163.0), as the host does when the agent goes.
    for vendor, path in (("workbuddy", ".codebuddy/settings.json"), ("qwen", ".qwen/settings.json")):
        config = tmp_path / vendor / path
        config.parent.mkdir(parents=True)
        config.write_text(json.dumps({"hooks": {"SessionEnd": [command("echo bye")]}}))
        trust(vendor, config)
        report = anyio.run(explain, Question(vendor, event="SessionEnd", files=(config,), root=config.parents[1]))
        [hook] = report.hooks
        assert hook.fires and hook.vendor_view is not None and not hook.vendor_view.fires
        assert "never fires SessionEnd" in hook.vendor_view.effect
        assert report.host_view is not None and report.host_view.capability == "ADAPTED"
