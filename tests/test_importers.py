"""Importers: real-world shaped vendor configs become exactly the declarations, rules and
refusals they stand for; every unreadable file fails naming the file and the place."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest
from conftest import trust, trust_project

from compat_adapter.catalog import resolve_vendor
from compat_adapter.errors import (
    ConfigParseError,
    NoSuchPath,
    UnknownVendor,
)
from compat_adapter.importers import (
    REFUSAL_CODES,
    ImportedRules,
    ImportResult,
    import_files,
    import_project,
    register_import,
)
from compat_adapter.importers.common import Slot, accept, in_sequence
from compat_adapter.importers.loaders import strip_jsonc
from compat_adapter.trust import project_root

FIX = Path(__file__).parent / "fixtures" / "importers"


def hooks_of(result: ImportResult) -> list[tuple[str, str | None, str, str]]:
    """(event, matcher, command, place) for each imported hook."""
    rows = []
    for h in result.hooks:
        command = h.handler if isinstance(h.handler, str) else (
            h.handler.get("command") or h.handler.get("bash"))
        rows.append((h.event, h.matcher, command, h.origin.split(":", 1)[1]))
    return rows


def refused_of(result: ImportResult) -> list[tuple[str, str]]:
    """(code, place) for each refusal; a whole-file refusal has the file as its place."""
    return [(r.code, r.origin.split(":", 1)[1] if ":" in r.origin else Path(r.origin).name)
            for r in result.refused]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def write_json(path: Path, data: Any) -> Path:
    return write(path, json.dumps(data, indent=2))


def trusted_import(vendor: str, paths: list[Any]) -> ImportResult:
    """``import_files`` of files the test first trusted explicitly (the real store, conftest.trust):
    these tests read what the files declare, which is what a user who trusted them gets."""
    trust(vendor, *paths)
    return import_files(vendor, paths)


def trusted_project(vendor: str, root: Path) -> ImportResult:
    """``import_project`` of a folder whose default files the test first trusted explicitly."""
    trust_project(vendor, root)
    return import_project(vendor, root)


# ── Claude ──────────────────────────────────────────────────────────────────────────────────────

def test_claude_webapp_settings() -> None:
    path = FIX / "claude/webapp/.claude/settings.json"
    result = trusted_import("claude", [path])
    P = '"$CLAUDE_PROJECT_DIR"'
    assert hooks_of(result) == [
        ("PreToolUse", "Bash", f"{P}/.claude/hooks/block-dangerous.sh", "hooks.PreToolUse[0].hooks[0]"),
        ("PreToolUse", "Bash", f"jq -r '.tool_input.command' >> {P}/.claude/bash.log",
         "hooks.PreToolUse[0].hooks[1]"),
        ("PreToolUse", "Edit|Write", 'python3 "$CLAUDE_PROJECT_DIR/.claude/hooks/protect_files.py"',
         "hooks.PreToolUse[1].hooks[0]"),
        ("PreToolUse", "mcp__.*", f"{P}/.claude/hooks/audit-mcp.sh", "hooks.PreToolUse[2].hooks[0]"),
        ("PostToolUse", "Edit|Write", "npx prettier --write \"$(jq -r '.tool_input.file_path')\"",
         "hooks.PostToolUse[0].hooks[0]"),
        ("PostToolUse", "Edit|Write", f"{P}/.claude/hooks/eslint-fix.sh", "hooks.PostToolUse[0].hooks[1]"),
        ("PostToolUse", "Edit|Write", None, "hooks.PostToolUse[0].hooks[2]"),  # http
        ("UserPromptSubmit", None, f"{P}/.claude/hooks/inject-branch-context.sh",
         "hooks.UserPromptSubmit[0].hooks[0]"),
        ("Stop", None, f"{P}/.claude/hooks/require-green-tests.sh", "hooks.Stop[0].hooks[0]"),
        ("Stop", None, None, "hooks.Stop[0].hooks[1]"),  # prompt
        ("SessionStart", "startup|resume", f"git status --short && cat {P}/.claude/context.md",
         "hooks.SessionStart[0].hooks[0]"),
        ("SessionStart", "compact", f"cat {P}/.claude/after-compact.md", "hooks.SessionStart[1].hooks[0]"),
        ("Notification", "permission_prompt|idle_prompt",
         "notify-send 'Claude Code' \"$(jq -r .message)\"", "hooks.Notification[0].hooks[0]"),
    ]
    # Every handler kind is read (compat_adapter.handlers) and graded, not refused at import.
    assert refused_of(result) == []
    http, prompt = result.hooks[6].declared, result.hooks[9].declared
    assert http.handler_kind == "http" and http.handler.url == "https://hooks.example.com/claude/post-edit"
    assert http.handler.headers == (("Authorization", "Bearer $HOOK_TOKEN"),)
    assert http.handler.allowed_env == ("HOOK_TOKEN",)
    assert prompt.handler_kind == "prompt" and "$ARGUMENTS" in prompt.handler.prompt
    assert result.rules == ()
    first = result.hooks[0]
    assert first.vendor == "claude"
    assert first.origin == f"{path}:hooks.PreToolUse[0].hooks[0]"
    # The handler is the file's object, unchanged: timeout and statusMessage travel with it.
    assert dict(first.handler) == {"type": "command", "timeout": 10,
                                   "command": f"{P}/.claude/hooks/block-dangerous.sh"}
    assert result.hooks[2].handler["statusMessage"] == "Checking protected paths"


def test_claude_pyservice_settings_reads_every_field_and_refuses_what_claude_skips() -> None:
    path = FIX / "claude/pyservice/.claude/settings.json"
    result = trusted_import("claude-code", [str(path)])  # an alias; a str path
    assert {h.vendor for h in result.hooks} == {"claude"}
    assert hooks_of(result) == [
        ("PreToolUse", "Bash", '"$CLAUDE_PROJECT_DIR"/scripts/hooks/pre-push-check.sh',
         "hooks.PreToolUse[0].hooks[0]"),
        ("PreToolUse", "Bash", '"$CLAUDE_PROJECT_DIR"/scripts/hooks/deny-rm-rf.py',
         "hooks.PreToolUse[0].hooks[1]"),
        ("PreToolUse", "Write|Edit|MultiEdit",
         'uv run python "$CLAUDE_PROJECT_DIR"/scripts/hooks/no_secrets.py', "hooks.PreToolUse[1].hooks[0]"),
        ("PostToolUse", "Write|Edit|MultiEdit",
         "uv run ruff format --quiet \"$(jq -r '.tool_input.file_path')\"", "hooks.PostToolUse[0].hooks[0]"),
        ("PostToolUse", "Write|Edit|MultiEdit",
         "uv run ruff check --fix --quiet \"$(jq -r '.tool_input.file_path')\"",
         "hooks.PostToolUse[0].hooks[1]"),
        ("PostToolUseFailure", "Bash", '"$CLAUDE_PROJECT_DIR"/scripts/hooks/explain-failure.sh',
         "hooks.PostToolUseFailure[0].hooks[0]"),
        ("UserPromptSubmit", None, "date '+Today is %A %Y-%m-%d'", "hooks.UserPromptSubmit[0].hooks[0]"),
        ("UserPromptSubmit", None, '"$CLAUDE_PROJECT_DIR"/scripts/hooks/log-prompt.sh',
         "hooks.UserPromptSubmit[0].hooks[1]"),
        ("SubagentStop", "code-reviewer", '"$CLAUDE_PROJECT_DIR"/scripts/hooks/review-summary.sh',
         "hooks.SubagentStop[0].hooks[0]"),
        ("PreCompact", "auto", 'cp "$(jq -r .transcript_path)" "$CLAUDE_PROJECT_DIR"/.claude/transcripts/',
         "hooks.PreCompact[0].hooks[0]"),
        ("Notification", None, None, "hooks.Notification[0].hooks[0]"),  # mcp_tool
    ]
    # Only what Claude itself never runs is refused: `if` on an event without a tool call.
    assert refused_of(result) == [("SKIPPED_BY_VENDOR", "hooks.SessionEnd[0].hooks[0]")]
    assert "SessionEnd" in result.refused[0].reason
    by_place = {h.origin.split(":", 1)[1]: h.declared for h in result.hooks}
    assert by_place["hooks.PreToolUse[0].hooks[0]"].handler.if_rule == "Bash(git push*)"
    assert by_place["hooks.UserPromptSubmit[0].hooks[1]"].handler.run_async is True
    mcp = by_place["hooks.Notification[0].hooks[0]"]
    assert (mcp.handler_kind, mcp.handler.server, mcp.handler.tool) == ("mcp_tool", "slack", "post_message")
    assert json.loads(mcp.handler.input_json) == {"channel": "#dev", "text": "Claude needs you"}


def test_claude_plugin_hooks_json_reads_exec_form_shell_and_undocumented_keys() -> None:
    result = trusted_import("claude", [FIX / "claude/plugin/hooks/hooks.json"])
    assert hooks_of(result) == [
        ("PostToolUse", "Write|Edit", "${CLAUDE_PLUGIN_ROOT}/scripts/format.sh",
         "hooks.PostToolUse[0].hooks[0]"),
        ("PreToolUse", "Bash", "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/commit_guard.py",
         "hooks.PreToolUse[0].hooks[0]"),
        ("PreToolUse", "Bash", "node", "hooks.PreToolUse[0].hooks[1]"),
        ("SessionStart", None, "${CLAUDE_PLUGIN_ROOT}/scripts/welcome.sh", "hooks.SessionStart[0].hooks[0]"),
        ("SessionStart", None, "${CLAUDE_PLUGIN_ROOT}/scripts/welcome.sh", "hooks.SessionStart[0].hooks[1]"),
    ]
    assert result.hooks[1].handler["rewakeMessage"] == "commit guard fired"
    assert refused_of(result) == []
    guard, scan, welcome = (h.declared.handler for h in result.hooks[1:4])
    # rewakeMessage only means something with asyncRewake; rewakeSummary is listed as not honoured.
    assert guard.ignored == ("rewakeMessage", "rewakeSummary") and not guard.run_async
    assert scan.args == ("${CLAUDE_PLUGIN_ROOT}/hooks/scan.js", "--strict")  # exec form, no shell
    assert welcome.shell == "powershell"


def test_claude_rules_files_are_carried_by_absolute_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIX / "claude/webapp")
    result = import_files("claude", ["CLAUDE.md", Path(".claude/rules/testing.md")])
    assert result.hooks == () and result.refused == ()
    root = (FIX / "claude/webapp").resolve()
    # The base is the project the file is named in (here the repository holding the fixtures): the
    # bound a symlinked rules file must stay inside, as for a config file.
    project = str(project_root(root / "CLAUDE.md", follow=False))
    assert result.rules == (
        ImportedRules(vendor="claude", sources=(str(root / "CLAUDE.md"),), base_dir=project,
                      origin="CLAUDE.md", trusted=False),
        ImportedRules(vendor="claude", sources=(str(root / ".claude/rules/testing.md"),),
                      base_dir=project, origin=".claude/rules/testing.md", trusted=False),
    )
    # Rules are carried whether trusted or not; trusting the file is what the flag reports.
    trust("claude", "CLAUDE.md")
    assert [r.trusted for r in import_files("claude", ["CLAUDE.md", ".claude/rules/testing.md"]).rules] == [
        True, False]


def test_handlers_are_read_only() -> None:
    result = trusted_import("claude", [FIX / "claude/webapp/.claude/settings.json"])
    with pytest.raises(TypeError):
        result.hooks[0].handler["command"] = "rm -rf /"  # type: ignore[index]


# ── Codex ───────────────────────────────────────────────────────────────────────────────────────

def test_codex_hooks_json() -> None:
    result = trusted_import("codex", [FIX / "codex/tooling/.codex/hooks.json"])
    top = '"$(git rev-parse --show-toplevel)"'
    assert hooks_of(result) == [
        ("SessionStart", "startup|resume",
         'python3 "$(git rev-parse --show-toplevel)/.codex/hooks/session_context.py"',
         "hooks.SessionStart[0].hooks[0]"),
        ("PreToolUse", "Bash", f"{top}/.codex/hooks/deny-force-push.sh", "hooks.PreToolUse[0].hooks[0]"),
        ("PreToolUse", "Bash", f"{top}/.codex/hooks/log-command.sh", "hooks.PreToolUse[0].hooks[1]"),
        ("PreToolUse", "apply_patch|Edit|Write",
         'python3 "$(git rev-parse --show-toplevel)/.codex/hooks/protect_lockfiles.py"',
         "hooks.PreToolUse[1].hooks[0]"),
        ("PermissionRequest", "Bash", f"{top}/.codex/hooks/auto-approve-readonly.sh",
         "hooks.PermissionRequest[0].hooks[0]"),
        ("PostToolUse", "Bash", f"{top}/.codex/hooks/summarize-test-output.sh",
         "hooks.PostToolUse[0].hooks[0]"),
        ("UserPromptSubmit", None, f"{top}/.codex/hooks/redact-prompt.sh",
         "hooks.UserPromptSubmit[0].hooks[0]"),
        ("Stop", None, f"{top}/.codex/hooks/require-tests.sh", "hooks.Stop[0].hooks[0]"),
        ("SubagentStop", "explorer", f"{top}/.codex/hooks/subagent-report.sh",
         "hooks.SubagentStop[0].hooks[0]"),
        ("SessionEnd", None, f"{top}/.codex/hooks/flush-logs.sh", "hooks.SessionEnd[0].hooks[0]"),
    ]
    assert refused_of(result) == [
        ("SKIPPED_BY_VENDOR", "hooks.Stop[0].hooks[1]"),          # async: true
        ("SKIPPED_BY_VENDOR", "hooks.Stop[0].hooks[2]"),          # prompt
        ("SKIPPED_BY_VENDOR", "hooks.Notification[0].hooks[0]"),  # a Claude-only event
    ]
    assert "async" in result.refused[0].reason
    assert "never dispatches" in result.refused[2].reason


def test_codex_config_toml_hook_tables() -> None:
    path = FIX / "codex/ci/.codex/config.toml"
    result = trusted_import("openai-codex", [path])
    assert hooks_of(result) == [
        ("PreToolUse", "Bash", "python3 .codex/hooks/guard_bash.py", "hooks.PreToolUse[0].hooks[0]"),
        ("PreToolUse", "^mcp__docs__.*", ".codex/hooks/audit_mcp.sh", "hooks.PreToolUse[1].hooks[0]"),
        ("PostToolUse", "apply_patch", ".codex/hooks/format_changed.sh", "hooks.PostToolUse[0].hooks[0]"),
        ("PreCompact", None, ".codex/hooks/save_transcript.sh", "hooks.PreCompact[0].hooks[0]"),
        ("SubagentStart", "worker", ".codex/hooks/subagent_context.sh", "hooks.SubagentStart[0].hooks[0]"),
        ("Interrupt", None, ".codex/hooks/on_interrupt.sh", "hooks.Interrupt[0].hooks[0]"),
    ]
    assert refused_of(result) == [("INVALID_HANDLER", "hooks.PreToolUse[0].hooks[1]"),
                                  ("SKIPPED_BY_VENDOR", "hooks.Stop[0].hooks[0]")]
    assert result.hooks[0].handler["timeout"] == 20
    assert result.hooks[0].origin == f"{path}:hooks.PreToolUse[0].hooks[0]"


def test_codex_features_hooks_false_switches_every_hook_of_the_import_off(tmp_path: Path) -> None:
    hooks = tmp_path / ".codex/hooks.json"
    shutil.copy(FIX / "codex/tooling/.codex/hooks.json", write(hooks, ""))
    config = write(tmp_path / ".codex/config.toml", "[features]\nhooks = false\n\n"
                   "[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ncommand = 'true'\n")
    result = trusted_import("codex", [hooks, config])
    assert result.hooks == ()
    switched = [r for r in result.refused if "switched off" in r.reason]
    assert len(switched) == 11 and {r.code for r in switched} == {"SKIPPED_BY_VENDOR"}
    assert f"{config}:features.hooks" in switched[0].reason


def test_codex_rejects_an_unknown_top_level_key_as_codex_does(tmp_path: Path) -> None:
    # Codex 0.169.0 runs none of the file's hooks (vendor lane); the file imports, one row per hook.
    path = write_json(tmp_path / "hooks.json", {"$schema": "x", "hooks": {
        "Stop": [{"hooks": [{"command": "a"}, {"command": "b"}]}]}})
    result = trusted_import("codex", [path])
    assert not result.hooks
    assert refused_of(result) == [("SKIPPED_BY_VENDOR", "hooks.Stop[0].hooks[0]"),
                                  ("SKIPPED_BY_VENDOR", "hooks.Stop[0].hooks[1]")]
    assert all("$schema" in r.reason for r in result.refused)


def test_codex_invalid_matcher_drops_its_group_as_codex_does(tmp_path: Path) -> None:
    path = write_json(tmp_path / "hooks.json", {"hooks": {"PreToolUse": [
        {"matcher": "Bash(", "hooks": [{"command": "a"}, {"command": "b"}]},
        {"matcher": "Bash", "hooks": [{"command": "c"}]},
    ]}})
    result = trusted_import("codex", [path])
    assert hooks_of(result) == [("PreToolUse", "Bash", "c", "hooks.PreToolUse[1].hooks[0]")]
    assert refused_of(result) == [("SKIPPED_BY_VENDOR", "hooks.PreToolUse[0]")]



def test_a_refusal_names_the_event_and_matcher_it_was_written_under(tmp_path: Path) -> None:
    # Which hook a refusal is (the vendor lane asks: could this entry have made that difference?).
    result = trusted_import("openai-codex", [FIX / "codex/ci/.codex/config.toml"])
    assert [(r.code, r.event, r.matcher) for r in result.refused] == [
        ("INVALID_HANDLER", "PreToolUse", "Bash"), ("SKIPPED_BY_VENDOR", "Stop", None)]
    group = write_json(tmp_path / "hooks.json", {"hooks": {"PreToolUse": [
        {"matcher": "Bash(", "hooks": [{"command": "a"}]}], "Notification": [{"hooks": [{"command": "b"}]}]}})
    assert [(r.event, r.matcher) for r in trusted_import("codex", [group]).refused] == [
        ("PreToolUse", "Bash("), ("Notification", None)]
    # What is not one event's (a whole file Copilot would not read) names none.
    other = write_json(tmp_path / ".github/hooks/v2.json", {"version": 2, "hooks": {}})
    [whole] = trusted_import("copilot", [other]).refused
    assert (whole.code, whole.event, whole.matcher) == ("SKIPPED_BY_VENDOR", None, None)

def test_codex_both_windows_command_spellings_are_an_error(tmp_path: Path) -> None:
    path = write_json(tmp_path / "hooks.json", {"hooks": {"Stop": [{"hooks": [
        {"command": "x", "commandWindows": "y", "command_windows": "z"}]}]}})
    result = trusted_import("codex", [path])
    assert refused_of(result) == [("INVALID_ENTRY", "hooks.Stop[0].hooks[0]")]
    assert "commandWindows and command_windows" in result.refused[0].reason


# ── Copilot ─────────────────────────────────────────────────────────────────────────────────────

def test_copilot_security_hooks_file() -> None:
    path = FIX / "copilot/api/.github/hooks/security.json"
    result = trusted_import("copilot", [path])
    assert hooks_of(result) == [
        ("sessionStart", None, "./scripts/hooks/session-banner.sh", "hooks.sessionStart[0]"),
        ("preToolUse", "bash", "./scripts/hooks/deny-dangerous.sh", "hooks.preToolUse[0]"),
        ("preToolUse", "edit|create", "python3 scripts/hooks/protect_paths.py", "hooks.preToolUse[1]"),
        ("permissionRequest", "bash", "./scripts/hooks/approve-readonly.sh", "hooks.permissionRequest[0]"),
        ("postToolUse", "bash", "./scripts/hooks/log-result.sh", "hooks.postToolUse[0]"),
        ("userPromptSubmitted", None, "./scripts/hooks/log-prompt.sh", "hooks.userPromptSubmitted[0]"),
        ("agentStop", None, "./scripts/hooks/require-tests.sh", "hooks.agentStop[0]"),
        ("errorOccurred", None, "./scripts/hooks/report-error.sh", "hooks.errorOccurred[0]"),
        ("sessionEnd", None, "./scripts/hooks/cleanup.sh", "hooks.sessionEnd[0]"),
    ]
    assert refused_of(result) == [("INVALID_HANDLER", "hooks.sessionStart[1]"),   # prompt entry
                                  ("INVALID_HANDLER", "hooks.preToolUse[2]")]     # powershell only
    assert "powershell" in result.refused[1].reason
    gate = result.hooks[1].handler
    # Copilot's own shape goes through unchanged: cwd, env and timeoutSec included.
    assert gate["cwd"] == "scripts" and gate["timeoutSec"] == 15
    assert dict(gate["env"]) == {"HOOK_MODE": "strict", "LOG_DIR": "${HOME}/.copilot/logs"}


def test_copilot_nested_groups_and_command_fallback() -> None:
    result = trusted_import("github-copilot", [FIX / "copilot/frontend/.github/hooks/quality.json"])
    jq = "\"$(jq -r '.toolArgs | fromjson | .path')\""
    assert hooks_of(result) == [
        ("postToolUse", "edit|create", f"npx prettier --write {jq}", "hooks.postToolUse[0].hooks[0]"),
        ("postToolUse", "edit|create", f"npx eslint --fix {jq}", "hooks.postToolUse[0].hooks[1]"),
        ("preToolUse", "bash", "node scripts/hooks/check-command.mjs", "hooks.preToolUse[0]"),
        ("preToolUse", "web_fetch", None, "hooks.preToolUse[1]"),  # http over https
        ("preToolUse", "task", None, "hooks.preToolUse[2]"),  # exec form
        ("subagentStart", "reviewer", "cat docs/review-checklist.md | jq -Rs '{additionalContext: .}'",
         "hooks.subagentStart[0]"),
        ("subagentStop", None, "./scripts/hooks/subagent-summary.sh", "hooks.subagentStop[0]"),
        ("preCompact", "auto", "./scripts/hooks/save-transcript.sh", "hooks.preCompact[0]"),
        ("notification", "permission_prompt", "./scripts/hooks/notify.sh", "hooks.notification[0]"),
        ("userPromptTransformed", None, "./scripts/hooks/expand-aliases.sh",
         "hooks.userPromptTransformed[0]"),
    ]
    assert refused_of(result) == []
    http, exec_form = result.hooks[3].declared.handler, result.hooks[4].declared.handler
    assert http.url == "https://policy.example.com/copilot/pre-tool" and http.timeout_s == 5
    assert (exec_form.command, exec_form.args) == ("node", ("scripts/hooks/task-guard.mjs",))
    assert {h.vendor for h in result.hooks} == {"copilot"}


def test_copilot_inline_settings_hooks_and_instructions() -> None:
    api = FIX / "copilot/api/.github"
    result = trusted_import("copilot", [api / "copilot/settings.json", api / "copilot-instructions.md"])
    assert hooks_of(result) == [("postToolUseFailure", None, "./scripts/hooks/explain-failure.sh",
                                 "hooks.postToolUseFailure[0]")]
    assert [r.sources for r in result.rules] == [(str((api / "copilot-instructions.md").resolve()),)]


def test_copilot_bad_version_rejects_the_file(tmp_path: Path) -> None:
    path = write_json(tmp_path / "hooks.json", {"version": 2, "hooks": {"sessionStart": [{"bash": "x"}]}})
    result = trusted_import("copilot", [path])
    assert not result.hooks
    assert refused_of(result) == [("SKIPPED_BY_VENDOR", "version")]
    assert "version 1" in result.refused[0].reason


# ── CodeBuddy / WorkBuddy ───────────────────────────────────────────────────────────────────────

def test_codebuddy_shop_settings() -> None:
    result = trusted_import("codebuddy", [FIX / "codebuddy/shop/.codebuddy/settings.json"])
    D = '"$CODEBUDDY_PROJECT_DIR"'
    assert {h.vendor for h in result.hooks} == {"workbuddy"}
    assert hooks_of(result) == [
        ("PreToolUse", "Bash|execute_command", "rtk hook codebuddy", "hooks.PreToolUse[0].hooks[0]"),
        ("PreToolUse", "^(Write|Edit)$", 'python3 "$CODEBUDDY_PROJECT_DIR/.codebuddy/hooks/guard_paths.py"',
         "hooks.PreToolUse[1].hooks[0]"),
        ("PostToolUse", "Write|Edit|MultiEdit", "npx prettier --write \"$(jq -r '.tool_input.file_path')\"",
         "hooks.PostToolUse[0].hooks[0]"),
        ("PostToolUse", "mcp__.*", f"{D}/.codebuddy/hooks/log-mcp.sh", "hooks.PostToolUse[1].hooks[0]"),
        ("UserPromptSubmit", None, f"{D}/.codebuddy/hooks/add-ticket-context.sh",
         "hooks.UserPromptSubmit[0].hooks[0]"),
        ("Stop", None, f"{D}/.codebuddy/hooks/run-tests.sh", "hooks.Stop[0].hooks[0]"),
        ("Stop", None, None, "hooks.Stop[0].hooks[1]"),  # a prompt hook: CodeBuddy runs them on Stop
        ("SessionStart", "startup", "git log --oneline -5", "hooks.SessionStart[0].hooks[0]"),
        ("SessionEnd", "logout|other", '"$CLAUDE_PROJECT_DIR"/.codebuddy/hooks/cleanup.sh',
         "hooks.SessionEnd[0].hooks[0]"),
        ("PreCompact", "auto", f"{D}/.codebuddy/hooks/backup-transcript.sh", "hooks.PreCompact[0].hooks[0]"),
    ]
    assert refused_of(result) == []
    prompt = result.hooks[6].declared
    assert (prompt.handler_kind, prompt.handler.continue_on_block) == ("prompt", True)


def test_codebuddy_infra_settings_and_local_settings() -> None:
    folder = FIX / "codebuddy/infra/.codebuddy"
    result = trusted_import("workbuddy", [folder / "settings.json", folder / "settings.local.json"])
    assert hooks_of(result) == [
        ("SubagentStart", "reviewer", "cat .codebuddy/review-guide.md", "hooks.SubagentStart[0].hooks[0]"),
        ("SubagentStop", None, ".codebuddy/hooks/subagent-done.sh", "hooks.SubagentStop[0].hooks[0]"),
        ("PostToolUseFailure", "Bash", ".codebuddy/hooks/failure-hint.sh",
         "hooks.PostToolUseFailure[0].hooks[0]"),
        ("TaskCompleted", None, ".codebuddy/hooks/task-done.sh", "hooks.TaskCompleted[0].hooks[0]"),
        ("WorktreeRemove", None, ".codebuddy/hooks/worktree-cleanup.sh", "hooks.WorktreeRemove[0].hooks[0]"),
        ("PreToolUse", "Bash", "terraform fmt -check", "hooks.PreToolUse[0].hooks[0]"),
        ("Stop", None, "say done", "hooks.Stop[0].hooks[0]"),
    ]
    assert result.hooks[-1].origin.startswith(str(folder / "settings.local.json"))
    assert refused_of(result) == [("INVALID_HANDLER", "hooks.PreToolUse[0].hooks[1]")]
    assert "'http'" in result.refused[0].reason and "frontmatter" in result.refused[0].reason


def test_codebuddy_rules_accept_mdc() -> None:
    rules = FIX / "codebuddy/shop/.codebuddy/rules/security.mdc"
    result = import_files("workbuddy", [rules])
    assert result.rules[0].sources == (str(rules.resolve()),)


# ── OpenCode ────────────────────────────────────────────────────────────────────────────────────

def test_opencode_json_instructions_and_plugins() -> None:
    path = FIX / "opencode/app/opencode.json"
    result = import_files("opencode", [path])
    assert result.hooks == ()
    # Rules are context, not code: carried from an untrusted file, which they say.
    assert result.rules == (ImportedRules(
        vendor="opencode", sources=("CONTRIBUTING.md", "docs/guidelines/*.md", "packages/*/AGENTS.md"),
        base_dir=str((FIX / "opencode/app").resolve()), origin=f"{path}:instructions", trusted=False),)
    # Plugins are code: from an untrusted file they are refused like hooks, never loaded.
    assert refused_of(result) == [("REMOTE_SOURCE", "instructions[3]"),
                                  ("SOURCE_MISSING", "instructions[4]"),
                                  ("UNTRUSTED", "plugin[0]"),
                                  ("UNTRUSTED", "plugin[1]")]
    assert "never fetched" in result.refused[0].reason
    assert [r.what for r in result.refused[2:]] == ["plugin opencode-wakatime",
                                                   "plugin @example-org/opencode-guard"]
    assert result.refused[2].reason.startswith("untrusted") and result.plugins == ()
    trust("opencode", path)
    trusted = import_files("opencode", [path])
    assert refused_of(trusted) == [("REMOTE_SOURCE", "instructions[3]"), ("SOURCE_MISSING", "instructions[4]")]
    root = str((FIX / "opencode/app").resolve())
    assert [(p.kind, p.name, p.root, p.origin) for p in trusted.plugins] == [
        ("npm", "opencode-wakatime", root, f"{path}:plugin[0]"),
        ("npm", "@example-org/opencode-guard", root, f"{path}:plugin[1]")]
    assert trusted.plugins[0].options is None and dict(trusted.plugins[1].options or {}) == {"strict": True}


def test_opencode_instructions_resolve_the_way_the_adapter_will() -> None:
    from compat_adapter.rules import resolve_sources

    result = import_files("opencode", [FIX / "opencode/app/opencode.json"])
    rules = result.rules[0]
    found = [p.relative_to(Path(rules.base_dir).resolve()).as_posix()
             for p in resolve_sources(rules.sources, rules.base_dir)]
    assert found == ["CONTRIBUTING.md", "docs/guidelines/errors.md", "docs/guidelines/naming.md",
                     "packages/api/AGENTS.md", "packages/web/AGENTS.md"]


def test_opencode_jsonc_with_comments_trailing_commas_and_experimental_hooks() -> None:
    path = FIX / "opencode/svc/opencode.jsonc"
    result = import_files("opencode", [path])
    assert [(r.sources, r.origin) for r in result.rules] == [((".cursor/rules/*.md",),
                                                             f"{path}:instructions")]
    assert refused_of(result) == [
        ("REMOTE_SOURCE", "instructions[1]"),
        ("SOURCE_MISSING", "instructions[2]"),
        ("UNSUPPORTED_CONFIG", "experimental.hook.file_edited['.ts'][0]"),
        ("UNSUPPORTED_CONFIG", "experimental.hook.file_edited['.go'][0]"),
        ("UNSUPPORTED_CONFIG", "experimental.hook.session_completed[0]"),
        ("UNTRUSTED", "plugin[0]"),
    ]
    assert result.refused[2].what == "experimental file_edited command npx prettier --write"


def test_opencode_plugin_files_are_imported_for_the_plugin_host_from_trusted_files_only() -> None:
    ts = FIX / "opencode/app/.opencode/plugin/env-guard.ts"
    js = FIX / "opencode/svc/.opencode/plugins/notify.js"
    result = import_files("opencode", [ts, js])
    assert [(r.code, r.what, r.origin) for r in result.refused] == [
        ("UNTRUSTED", "plugin env-guard.ts", str(ts)),
        ("UNTRUSTED", "plugin notify.js", str(js)),
    ]
    assert result.hooks == () and result.rules == () and result.plugins == ()
    trust("opencode", ts, js)
    trusted = import_files("opencode", [ts, js])
    assert trusted.refused == ()
    assert [(p.kind, p.name, p.root, p.origin) for p in trusted.plugins] == [
        ("file", str(ts.absolute()), str((FIX / "opencode/app").absolute()), str(ts)),
        ("file", str(js.absolute()), str((FIX / "opencode/svc").absolute()), str(js)),
    ]


def test_opencode_plugin_kinds_its_folders_do_not_load_keep_the_runtime_reason(tmp_path: Path) -> None:
    write(tmp_path / ".opencode/plugin/old.mjs", "export const O = async () => ({})\n")
    result = import_files("opencode", [tmp_path / ".opencode/plugin/old.mjs"])
    assert [(r.code, r.what) for r in result.refused] == [("PLUGIN_RUNTIME", "plugin file old.mjs")]


def test_strip_jsonc_keeps_strings_and_positions() -> None:
    text = '{\n  "url": "http://x//y", // note\n  "a": "/* not */",\n  /* block\n  */ "b": [1, 2,],\n}'
    stripped = strip_jsonc(text)
    assert json.loads(stripped) == {"url": "http://x//y", "a": "/* not */", "b": [1, 2]}
    assert len(stripped) == len(text) and stripped.count("\n") == text.count("\n")


@pytest.mark.parametrize("group, sequential", [(None, False), ({"sequential": False}, False),
                                               ({"sequential": "yes"}, False), ({"sequential": True}, True)])
def test_only_a_group_that_says_sequential_true_runs_its_hook_in_sequence(
        group: dict[str, Any] | None, sequential: bool) -> None:
    # A slot from a flat list (Copilot, Cursor) or a refused one has no group: Slot's default.
    spec = resolve_vendor("gemini")
    extra = {} if group is None else {"group": group}
    slot = Slot("BeforeTool", spec.row("BeforeTool"), "run_shell_command",
                {"type": "command", "command": "true"}, "hooks.BeforeTool[0].hooks[0]",
                "hooks.BeforeTool[0]", **extra)
    imported = accept(spec, slot, "settings.json")
    marked = in_sequence(slot, imported)
    assert (slot.group is None) == (group is None)
    assert marked.declared.handler is not None and marked.declared.handler.sequential is sequential
    assert (marked is imported) is not sequential


# ── Errors ──────────────────────────────────────────────────────────────────────────────────────

@pytest.mark.parametrize("vendor, name", [("claude", "settings.json"), ("codex", "config.toml"),
                                           ("copilot", "hooks.json"), ("workbuddy", "settings.json"),
                                           ("opencode", "opencode.json"), ("claude", "CLAUDE.md")])
def test_missing_file_names_the_file(tmp_path: Path, vendor: str, name: str) -> None:
    path = tmp_path / "nowhere" / name
    with pytest.raises(NoSuchPath) as err:
        import_files(vendor, [path])
    assert str(path) in str(err.value) and "no such file" in str(err.value)


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path / "settings.json", '{\n  "hooks": {\n    "Stop": [}\n  }\n}\n')
    with pytest.raises(ConfigParseError) as err:
        import_files("claude", [path])
    message = str(err.value)
    assert str(path) in message and "line 3 column 14" in message
    assert err.value.context["line"] == 3


def test_invalid_jsonc_positions_survive_comment_stripping(tmp_path: Path) -> None:
    path = write(tmp_path / "opencode.jsonc", '// header\n{\n  /* c */ "plugin": [,]\n}\n')
    with pytest.raises(ConfigParseError, match="line 3 column 22"):
        import_files("opencode", [path])


def test_invalid_toml_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path / "config.toml", 'model = "x"\n[[hooks.Stop]\n')
    with pytest.raises(ConfigParseError) as err:
        import_files("codex", [path])
    assert str(path) in str(err.value) and "line 2" in str(err.value)


@pytest.mark.parametrize("data, place", [
    ({"hooks": []}, "hooks: expected an object"),
    ({"hooks": {"Stop": {"hooks": []}}}, "hooks.Stop: expected a list"),
    ({"hooks": {"Stop": [{"matcher": "x"}]}}, "hooks.Stop[0]: a matcher group needs"),
    ({"hooks": {"PreToolUse": [{"matcher": ["Bash"], "hooks": []}]}},
     "hooks.PreToolUse[0].matcher: expected a string, found a list"),
    ({"hooks": {"Stop": [{"hooks": {"type": "command"}}]}}, "hooks.Stop[0].hooks: expected a list"),
    ({"hooks": {"Stop": [{"hooks": ["echo hi"]}]}}, "hooks.Stop[0].hooks[0]: expected a handler object"),
    ({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "  "}]}]}},
     "hooks.Stop[0].hooks[0]: a command handler needs"),
    ({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": -1}]}]}},
     "hooks.Stop[0].hooks[0]: timeout must be"),
    ({"hooks": {"Stop": [{"hooks": [{"type": "webhook", "url": "x"}]}]}},
     "hooks.Stop[0].hooks[0]: unknown handler type 'webhook'"),
    ({"disableAllHooks": "yes"}, "disableAllHooks: expected true or false"),
])
def test_wrong_shape_names_file_and_json_path(tmp_path: Path, data: Any, place: str) -> None:
    # One bad entry is one refused row at its place; a good hook beside it still imports.
    where, what = place.split(": ", 1)
    data = {**data, "hooks": data["hooks"]} if "hooks" in data else data
    good = {"SessionEnd": [{"hooks": [{"command": "echo bye"}]}]}
    if isinstance(data.get("hooks"), dict):
        data = {**data, "hooks": {**data["hooks"], **good}}
    elif "hooks" not in data:
        data = {**data, "hooks": good}
    path = write_json(tmp_path / "settings.json", data)
    result = trusted_import("claude", [path])
    assert [(r.origin, what in r.reason) for r in result.refused] == [(f"{path}:{where}", True)]
    assert result.refused[0].code in ("INVALID_ENTRY", "INVALID_MATCHER")
    if where != "hooks":
        assert [h.event for h in result.hooks] == ["SessionEnd"]


def test_unknown_event_names_file_and_place(tmp_path: Path) -> None:
    path = write_json(tmp_path / "settings.json", {"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"command": "true"}]}],
        "PreToolUsee": [{"hooks": [{"command": "true"}]}]}})
    result = trusted_import("claude", [path])
    assert [h.event for h in result.hooks] == ["PreToolUse"]
    assert refused_of(result) == [("UNKNOWN_EVENT", "hooks.PreToolUsee[0].hooks[0]")]
    assert "no hook event 'PreToolUsee'" in result.refused[0].reason


def test_codex_unknown_event_that_no_vendor_has_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "config.toml", "[[hooks.BeforeShell]]\n[[hooks.BeforeShell.hooks]]\n"
                 "command = 'true'\n")
    result = trusted_import("codex", [path])
    assert refused_of(result) == [("UNKNOWN_EVENT", "hooks.BeforeShell[0].hooks[0]")]


def test_matcher_that_does_not_compile_names_the_place(tmp_path: Path) -> None:
    path = write_json(tmp_path / "settings.json", {"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"command": "true"}]},
        {"matcher": "Edit(", "hooks": [{"command": "true"}]}]}})
    result = trusted_import("claude", [path])
    assert [h.matcher for h in result.hooks] == ["Bash"]
    assert refused_of(result) == [("INVALID_MATCHER", "hooks.PreToolUse[1].hooks[0]")]


def test_unknown_vendor_and_unknown_file_kind(tmp_path: Path) -> None:
    path = write(tmp_path / "hooks.yaml", "hooks: {}\n")
    with pytest.raises(UnknownVendor):
        import_files("nosuchagent", [path])
    with pytest.raises(ConfigParseError, match="not a claude file"):
        import_files("claude", [path])


def test_top_level_must_be_an_object(tmp_path: Path) -> None:
    path = write(tmp_path / "hooks.json", "[1, 2]")
    with pytest.raises(ConfigParseError, match="top level must be an object, not a list"):
        import_files("copilot", [path])


# ── Nothing guessed across vendors ──────────────────────────────────────────────────────────────

def test_a_claude_settings_file_imported_as_copilot_reads_the_claude_compatible_format() -> None:
    # Copilot CLI runs a repository's Claude settings in its PascalCase (Claude-compatible) format;
    # a Claude event Copilot does not have is one row saying so.
    path = FIX / "claude/webapp/.claude/settings.json"
    result = trusted_import("copilot", [path])
    assert result.hooks and all(h.event[0].isupper() for h in result.hooks)
    # Its permission rules are listed as not enforced by Copilot (measured on Copilot CLI 1.0.102).
    assert {r.code for r in result.refused} <= {"UNKNOWN_EVENT", "INVALID_HANDLER", "UNSUPPORTED_FIELD",
                                                "SKIPPED_BY_VENDOR"}
    assert all("--deny-tool" in r.reason for r in result.refused if r.code == "SKIPPED_BY_VENDOR")


def test_a_copilot_hooks_file_imported_as_claude_is_an_unknown_event() -> None:
    path = FIX / "copilot/api/.github/hooks/security.json"
    result = trusted_import("claude", [path])
    assert not result.hooks
    assert "UNKNOWN_EVENT" in {r.code for r in result.refused}
    assert any(r.origin.startswith(f"{path}:hooks.sessionStart") for r in result.refused)


def test_a_copilot_hooks_file_imported_as_codex_is_an_unknown_event() -> None:
    # Codex refuses the file for its `version` key at the top level: nothing of it runs.
    result = trusted_import("codex", [FIX / "copilot/api/.github/hooks/security.json"])
    assert not result.hooks
    assert result.refused and all(r.code in ("SKIPPED_BY_VENDOR", "UNKNOWN_EVENT") for r in result.refused)


# ── Switches ────────────────────────────────────────────────────────────────────────────────────

def test_disable_all_hooks_turns_the_import_off_and_the_last_file_decides(tmp_path: Path) -> None:
    shared = tmp_path / ".claude/settings.json"
    shutil.copy(FIX / "claude/webapp/.claude/settings.json", write(shared, ""))
    off = write_json(tmp_path / ".claude/settings.local.json", {"disableAllHooks": True})
    result = trusted_import("claude", [shared, off])
    assert result.hooks == ()
    skipped = [r for r in result.refused if r.code == "SKIPPED_BY_VENDOR"]
    assert len(skipped) == 13  # the http and prompt handlers too
    assert skipped[0].origin == f"{shared}:hooks.PreToolUse[0].hooks[0]"
    assert f"{off}:disableAllHooks" in skipped[0].reason
    # The same switch set back to false by a later (higher-precedence) file.
    on = write_json(tmp_path / "managed.json", {"disableAllHooks": False})
    assert len(trusted_import("claude", [shared, off, on]).hooks) == 13


# ── import_project ──────────────────────────────────────────────────────────────────────────────

def origins(result: ImportResult, root: Path) -> list[str]:
    """Every origin file (hooks, rules, refusals) relative to root, in result order, once."""
    seen: dict[str, None] = {}
    for item in (*result.hooks, *result.rules, *result.refused):
        file = item.origin.rsplit(":", 1)[0] if ":" in Path(item.origin).name else item.origin
        seen.setdefault(Path(file).relative_to(root).as_posix(), None)
    return list(seen)


def test_import_project_claude(tmp_path: Path) -> None:
    hook = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}
    write_json(tmp_path / ".claude/settings.local.json", hook)
    write_json(tmp_path / ".claude/settings.json", hook)
    write(tmp_path / "CLAUDE.local.md", "local\n")
    write(tmp_path / "CLAUDE.md", "main\n")
    write(tmp_path / ".claude/rules/z.md", "z\n")
    write(tmp_path / ".claude/rules/api/a.md", "a\n")
    write(tmp_path / ".claude/rules/notes.txt", "not a rule\n")
    write(tmp_path / "AGENTS.md", "Claude does not read this\n")
    write_json(tmp_path / ".github/hooks/x.json", {"version": 1, "hooks": {}})
    result = trusted_project("claude", tmp_path)
    assert [h.origin for h in result.hooks] == [
        f"{tmp_path / '.claude/settings.json'}:hooks.Stop[0].hooks[0]",
        f"{tmp_path / '.claude/settings.local.json'}:hooks.Stop[0].hooks[0]"]
    assert [Path(r.sources[0]).relative_to(tmp_path).as_posix() for r in result.rules] == [
        "CLAUDE.md", "CLAUDE.local.md", ".claude/rules/api/a.md", ".claude/rules/z.md"]


def test_import_project_codex(tmp_path: Path) -> None:
    write(tmp_path / ".codex/config.toml", "[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ncommand = 'b'\n")
    write_json(tmp_path / ".codex/hooks.json", {"hooks": {"Stop": [{"hooks": [{"command": "a"}]}]}})
    write(tmp_path / "AGENTS.override.md", "")  # empty: Codex skips it
    write(tmp_path / "AGENTS.md", "agents\n")
    write(tmp_path / ".codex/rules/default.rules", "prefix_rule(pattern=['ls'], decision='allow')\n")
    result = trusted_project("codex", tmp_path)
    assert [h.handler["command"] for h in result.hooks] == ["a", "b"]
    assert origins(result, tmp_path) == [".codex/hooks.json", ".codex/config.toml", "AGENTS.md",
                                         ".codex/rules/default.rules"]
    write(tmp_path / "AGENTS.override.md", "override\n")
    assert "AGENTS.override.md" in origins(trusted_project("codex", tmp_path), tmp_path)
    assert "AGENTS.md" not in origins(trusted_project("codex", tmp_path), tmp_path)


def test_import_project_copilot(tmp_path: Path) -> None:
    entry = {"version": 1, "hooks": {"agentStop": [{"type": "command", "bash": "true"}]}}
    write_json(tmp_path / ".github/hooks/b.json", entry)
    write_json(tmp_path / ".github/hooks/a.json", entry)
    write_json(tmp_path / ".github/copilot/settings.json", {"model": "x"})
    write(tmp_path / ".github/copilot-instructions.md", "repo\n")
    write(tmp_path / ".github/instructions/py/python.instructions.md", "py\n")
    write(tmp_path / ".github/instructions/readme.md", "not an instructions file\n")
    write(tmp_path / "AGENTS.md", "agents\n")
    write(tmp_path / "CLAUDE.md", "only without AGENTS.md\n")
    write_json(tmp_path / ".claude/settings.json", {"hooks": {"Stop": []}})
    result = trusted_project("copilot", tmp_path)
    assert origins(result, tmp_path) == [".github/hooks/a.json", ".github/hooks/b.json",
                                         ".github/copilot-instructions.md",
                                         ".github/instructions/py/python.instructions.md",
                                         "AGENTS.md"]


def test_import_project_workbuddy_uses_agents_md_only_without_codebuddy_md(tmp_path: Path) -> None:
    write_json(tmp_path / ".codebuddy/settings.json",
               {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"command": "true"}]}]}})
    write(tmp_path / "AGENTS.md", "agents\n")
    write(tmp_path / "CLAUDE.md", "CodeBuddy does not read this\n")
    write(tmp_path / ".codebuddy/rules/x.mdc", "x\n")
    result = trusted_project("codebuddy", tmp_path)
    assert origins(result, tmp_path) == [".codebuddy/settings.json", "AGENTS.md",
                                         ".codebuddy/rules/x.mdc"]
    write(tmp_path / ".codebuddy/CODEBUDDY.md", "memory\n")
    assert origins(trusted_project("workbuddy", tmp_path), tmp_path) == [
        ".codebuddy/settings.json", ".codebuddy/CODEBUDDY.md", ".codebuddy/rules/x.mdc"]


def test_import_project_opencode(tmp_path: Path) -> None:
    write(tmp_path / "CLAUDE.md", "only without AGENTS.md\n")
    write(tmp_path / "AGENTS.md", "agents\n")
    write(tmp_path / "docs/style.md", "style\n")
    write_json(tmp_path / "opencode.json", {"instructions": ["docs/*.md"], "plugin": ["p"]})
    write(tmp_path / ".opencode/plugins/guard.ts", "export const G = async () => ({})\n")
    write(tmp_path / ".opencode/plugins/README.md", "not a plugin\n")
    result = import_project("opencode", tmp_path)
    assert [r.sources for r in result.rules] == [(str(tmp_path / "AGENTS.md"),), ("docs/*.md",)]
    assert [(r.code, r.what) for r in result.refused] == [("UNTRUSTED", "plugin p"),
                                                         ("UNTRUSTED", "plugin guard.ts")]


def test_import_project_on_the_fixtures_finds_every_default_file() -> None:
    result = trusted_project("claude", FIX / "claude/webapp")
    assert (len(result.hooks), len(result.rules), len(result.refused)) == (13, 2, 0)
    result = trusted_project("opencode", FIX / "opencode/svc")
    # the config's plugin entry and the plugin file are the plugin host's now, not refusals
    assert len(result.rules) == 2 and len(result.refused) == 5 and len(result.plugins) == 2


def test_import_project_needs_a_folder(tmp_path: Path) -> None:
    with pytest.raises(NoSuchPath, match="no such project folder"):
        import_project("claude", tmp_path / "missing")


def test_refusal_codes_are_documented() -> None:
    codes = set()
    for vendor, root in [("claude", "claude/webapp"), ("claude", "claude/pyservice"),
                         ("codex", "codex/tooling"), ("codex", "codex/ci"),
                         ("copilot", "copilot/api"), ("copilot", "copilot/frontend"),
                         ("workbuddy", "codebuddy/shop"), ("workbuddy", "codebuddy/infra"),
                         ("opencode", "opencode/app"), ("opencode", "opencode/svc")]:
        codes |= {r.code for r in import_project(vendor, FIX / root).refused}
    assert codes <= set(REFUSAL_CODES) and len(codes) >= 6


# ── End to end: an imported deny really blocks ──────────────────────────────────────────────────

async def test_register_import_runs_an_imported_deny_and_carries_rules(tmp_path: Path) -> None:
    from compat_adapter import CompatAdapter
    from compat_adapter.host.embedded.memory import MemoryHost
    from compat_adapter.host.script import call
    from compat_adapter.model import Capability

    project = tmp_path / "project"
    guard = write(project / ".claude/hooks/deny.sh",
                  "#!/bin/sh\necho 'touching files is not allowed here' >&2\nexit 2\n")
    guard.chmod(guard.stat().st_mode | stat.S_IXUSR)
    write_json(project / ".claude/settings.json", {"permissions": {"allow": []}, "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/deny.sh'},
            # Nothing listens on the discard port: a non-blocking error, the deny still decides.
            {"type": "http", "url": "http://127.0.0.1:9/hook"}]}]}})
    write(project / "CLAUDE.md", "Always answer in French.\n")
    result = trusted_project("claude", project)
    assert result.refused == () and [h.declared.handler_kind for h in result.hooks] == ["command", "http"]

    async with MemoryHost(project) as host:
        adapter = CompatAdapter(host, state_dir=str(tmp_path / "state"))
        async with adapter:
            graded = await register_import(adapter, result)
            command, http, rules = graded
            assert [(g.event, g.capability) for g in (command, rules)] == [
                ("PreToolUse", Capability.ADAPTED), ("rules", Capability.CARRY)]
            assert http.event == "PreToolUse"  # graded on its route; it cannot undo the deny
            agent = await host.create_agent(script=[call("bash", command="touch marker"), "done"])
            await agent.run_turn("make a marker file")
            await host.settle()
            results = [e.data for e in agent.session.of_type("tool/result")]
            injected = [e.data["text"] for e in agent.session.of_type("user/message")]
    assert not (project / "marker").exists()
    assert results and results[0]["isError"] is True
    assert "touching files is not allowed here" in results[0]["text"]
    assert any("Always answer in French." in text for text in injected)
