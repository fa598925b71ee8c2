"""Gemini CLI's permission rules (settings ``tools.*`` and TOML policy files), judged as Gemini CLI
0.61.0 judges them. The texts and outcomes pinned here were measured on the real CLI in the vendor
lane (``gemini -p … --yolo``), each noted where it is used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.host.script import Reply, call
from compat_adapter.importers import import_files, import_project, register_import
from compat_adapter.importers.discover import discover
from compat_adapter.model import Capability
from vendors.gemini.permissions import (
    ADMIN_TIER,
    USER_TIER,
    check,
    hidden_tools,
    merge_tools,
    settings_rules,
    toml_rules,
)

LANE_COMMAND = "echo ran > tool-ran.txt; echo hello-from-tool"
SHELL = "run_shell_command"
DENY_ECHO = '''
[[rule]]
toolName = "run_shell_command"
commandPrefix = "echo ran"
decision = "deny"
priority = 100
denyMessage = "LANE-POLICY no echo"
'''


def _tools(**tools: object) -> tuple:
    return settings_rules(merge_tools([{"tools": tools}]))


def test_an_excluded_tool_is_taken_from_the_model_and_denied() -> None:
    # Measured: the model's call reads `Tool "run_shell_command" not found. Did you mean …?`.
    rules = _tools(exclude=[SHELL])
    assert hidden_tools(rules, [SHELL, "read_file"]) == {SHELL}
    ruling = check(rules, SHELL, {"command": LANE_COMMAND})
    assert ruling is not None and ruling.decision == "deny"


def test_an_exclude_entry_with_arguments_names_no_tool_and_excludes_nothing() -> None:
    # Measured: tools.exclude ["run_shell_command(echo)"] and the command ran.
    rules = _tools(exclude=[f"{SHELL}(echo)"])
    assert check(rules, SHELL, {"command": LANE_COMMAND}) is None
    assert hidden_tools(rules, [SHELL]) == frozenset()


def test_core_is_an_allowlist_that_hides_every_other_tool() -> None:
    # Measured: tools.core ["read_file"]: the shell was not found.
    rules = _tools(core=["read_file"])
    assert hidden_tools(rules, [SHELL, "read_file", "write_file"]) == {SHELL, "write_file"}
    assert check(rules, "read_file", {"file_path": "a"}).decision == "allow"


def test_an_allowed_command_narrows_the_shell_and_denies_the_rest() -> None:
    # Measured: tools.allowed ["run_shell_command(git)"]: `echo …` read "Tool execution denied by policy."
    rules = _tools(allowed=[f"{SHELL}(git)"])
    ruling = check(rules, SHELL, {"command": LANE_COMMAND})
    assert ruling is not None and (ruling.decision, ruling.text) == ("deny", "Tool execution denied by policy.")
    assert check(rules, SHELL, {"command": "git status"}).decision == "allow"
    assert check(rules, SHELL, {"command": "git status; rm -rf build"}).decision == "deny"
    assert check(rules, SHELL, {"command": "gitk"}).decision == "deny"  # a word boundary, not a prefix
    assert hidden_tools(rules, [SHELL]) == frozenset()


def test_a_user_policy_file_denies_with_its_message() -> None:
    # Measured: ~/.gemini/policies/lane.toml; the model read this text exactly.
    rules, problems = toml_rules(DENY_ECHO, USER_TIER, "lane.toml")
    assert problems == ()
    ruling = check(rules, SHELL, {"command": LANE_COMMAND})
    assert ruling is not None and ruling.text == "Tool execution denied by policy. LANE-POLICY no echo"
    assert ruling.rule is not None and ruling.rule.source == "User: lane.toml"
    assert check(rules, SHELL, {"command": "echo random"}) is None


def test_a_later_part_of_the_script_is_judged_on_its_own() -> None:
    rules, _ = toml_rules(DENY_ECHO.replace("echo ran", "rm -rf"), USER_TIER, "team.toml")
    assert check(rules, SHELL, {"command": "ls && rm -rf build"}).decision == "deny"
    assert check(rules, SHELL, {"command": 'bash -c "rm -rf build"'}).decision == "deny"
    assert check(rules, SHELL, {"command": "ls -la"}) is None


def test_the_higher_priority_decides_not_the_stricter() -> None:
    text = '''
[[rule]]
toolName = "run_shell_command"
decision = "deny"
priority = 10
[[rule]]
toolName = "run_shell_command"
commandPrefix = "git"
decision = "allow"
priority = 500
'''
    rules, _ = toml_rules(text, USER_TIER, "team.toml")
    assert check(rules, SHELL, {"command": "git status"}).decision == "allow"
    assert check(rules, SHELL, {"command": "ls"}).decision == "deny"
    # An admin rule outranks any user rule whatever its own priority.
    admin, _ = toml_rules(text.replace("priority = 10\n", "priority = 0\n", 1), ADMIN_TIER, "org.toml")
    assert check((*rules, *admin[:1]), SHELL, {"command": "git status"}).decision == "deny"


def test_ask_user_cannot_be_answered_in_a_non_interactive_run() -> None:
    rules = _tools(confirmationRequired=["write_file"])
    ruling = check(rules, "write_file", {"file_path": "a", "content": "x"})
    assert ruling is not None and ruling.decision == "ask_user"
    assert "not supported in non-interactive mode" in ruling.text


def test_args_pattern_sees_sorted_keys_between_nul_characters() -> None:
    text = '''
[[rule]]
toolName = "write_file"
argsPattern = '\\x00"file_path":".env"\\x00'
decision = "deny"
priority = 1
'''
    rules, problems = toml_rules(text, USER_TIER, "team.toml")
    assert problems == ()
    assert check(rules, "write_file", {"content": "x", "file_path": ".env"}).decision == "deny"
    assert check(rules, "write_file", {"content": "x", "file_path": ".envrc"}) is None


def test_exclude_is_a_union_across_scopes_and_core_is_replaced() -> None:
    merged = merge_tools([{"tools": {"exclude": ["a"], "core": ["x"]}}, {"tools": {"exclude": ["b", "a"], "core": ["y"]}}])
    assert merged == {"exclude": ["a", "b"], "core": ["y"]}


@pytest.mark.parametrize(("text", "problem"), [
    ("[[rule]]\ntoolName = 'x'\ndecision = 'deny'\n", "priority"),
    ("[[rule]]\ntoolName = 'x'\ndecision = 'maybe'\npriority = 1\n", "decision"),
    ("[[rule]]\ntoolName = 'x'\ndecision = 'deny'\npriority = 1000\n", "priority"),
    ("[[rule\n", "TOML parsing failed"),
])
def test_a_file_gemini_refuses_gives_no_rule_and_says_why(text: str, problem: str) -> None:
    rules, problems = toml_rules(text, USER_TIER, "bad.toml")
    assert rules == () and problem in problems[0]


def test_command_prefix_on_another_tool_is_reported() -> None:
    rules, problems = toml_rules("[[rule]]\ntoolName = 'read_file'\ncommandPrefix = 'x'\ndecision = 'deny'\n"
                                 "priority = 1\n", USER_TIER, "team.toml")
    assert problems and "commandPrefix" in problems[0]


# ── imported from the project and enforced on the embedded host ──────────────────────────────────

def _project(root: Path, tools: object, **extra: object) -> Path:
    (root / ".gemini").mkdir(parents=True, exist_ok=True)
    (root / ".gemini/settings.json").write_text(json.dumps({"tools": tools, **extra}))
    (root / "build").mkdir(exist_ok=True)
    (root / "build/keep.txt").write_text("x\n")
    return root


async def _run(root: Path, calls: list[tuple[str, dict[str, str]]]) -> tuple[tuple, list[str]]:
    async with MemoryHost(root) as host, CompatAdapter(host) as adapter:
        results = await register_import(adapter, import_project("gemini", root))
        agent = await host.create_agent(script=[*(Reply(calls=(call(t, **a),)) for t, a in calls), "done"])
        await agent.run_turn("go")
    return results, [e.data["text"] for e in agent.session.of_type("tool/result")]


def test_the_import_reads_the_tools_block_and_lists_what_gemini_ignores(tmp_path: Path) -> None:
    root = _project(tmp_path, {"exclude": ["write_file"], "allowed": ["run_shell_command(git)"], "core": 5},
                    policyPaths=["team.toml"])
    (root / ".gemini/policies").mkdir()
    (root / ".gemini/policies/team.toml").write_text(DENY_ECHO)
    imported = import_project("gemini", root)
    assert [(r.behavior, r.tool, r.origin.rsplit(":", 1)[1]) for r in imported.permissions] == [
        ("deny", "write_file", "tools.exclude[0]"),
        ("allow", SHELL, "tools.allowed[0]"),
        ("deny", SHELL, "tools.allowed")]  # the narrowing Gemini adds
    codes = sorted(r.code for r in imported.refused)
    assert codes == ["INVALID_ENTRY", "SKIPPED_BY_VENDOR", "UNSUPPORTED_CONFIG"]


async def test_gemini_rules_are_enforced_with_geminis_words(tmp_path: Path) -> None:
    root = _project(tmp_path, {"exclude": ["write_file"], "allowed": ["run_shell_command(git)"]})
    results, texts = await _run(root, [("bash", {"command": "rm -rf build"}),
                                       ("write", {"path": "a.txt", "content": "x"}),
                                       ("bash", {"command": "git --version > v.txt"})])
    assert texts[0] == "Tool execution denied by policy."
    # Gemini's did-you-mean: the three closest of the tools still offered (here the host's).
    assert texts[1] == 'Tool "write_file" not found. Did you mean one of: "read_file", "replace", "activate_skill"?'
    assert (root / "build/keep.txt").is_file() and not (root / "a.txt").exists()
    assert (root / "v.txt").read_text().startswith("git version")
    excluded = next(r for r in results if r.matcher == "exclude write_file")
    assert excluded.capability == Capability.ADAPTED
    assert "scope-differs" in {str(d.code) for d in excluded.degradations}


async def test_a_hooks_allow_lifts_no_policy_deny(tmp_path: Path) -> None:
    # Measured: a BeforeTool hook answering allow fired, and the call was still denied by policy.
    log = tmp_path / "hooks.log"
    answer = json.dumps({"decision": "allow", "reason": "ok"})
    hooks = {"BeforeTool": [{"matcher": ".*", "hooks": [{"type": "command",
                                                          "command": f"echo fired >> {log}; echo '{answer}'"}]}]}
    root = _project(tmp_path / "p", {"allowed": ["run_shell_command(git)"]}, hooks=hooks)
    async with MemoryHost(root) as host, CompatAdapter(host) as adapter:
        await register_import(adapter, import_project("gemini", root, trust_all=True))
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="rm -rf build"),)), "done"])
        await agent.run_turn("go")
    assert [e.data["text"] for e in agent.session.of_type("tool/result")] == ["Tool execution denied by policy."]
    assert log.read_text() == "fired\n" and (root / "build").is_dir()


def test_an_extensions_exclude_tools_are_read_and_an_entry_with_arguments_is_listed(tmp_path: Path) -> None:
    ext = tmp_path / "guard-ext"
    ext.mkdir()
    (ext / "gemini-extension.json").write_text(json.dumps(
        {"name": "guard", "version": "1.0.0", "excludeTools": ["write_file", "run_shell_command(rm -rf)"]}))
    # Found as the grade command finds an extension's files (discover: the layout's extra files).
    assert discover(ext)["gemini"] == [ext / "gemini-extension.json"]
    imported = import_files("gemini", [ext / "gemini-extension.json"])
    assert [(r.text, r.behavior, r.origin.rsplit(":", 1)[1]) for r in imported.permissions] == [
        ("excludeTools write_file", "deny", "excludeTools[0]")]
    [skipped] = imported.refused
    assert skipped.code == "SKIPPED_BY_VENDOR" and "run_shell_command(rm -rf)" in skipped.what


async def test_an_extensions_exclusion_outranks_an_allowed_tool(tmp_path: Path) -> None:
    ext = _project(tmp_path, {"allowed": ["write_file"]})
    (ext / "gemini-extension.json").write_text(json.dumps({"name": "g", "excludeTools": ["write_file"]}))
    imported = import_files("gemini", [ext / ".gemini/settings.json", ext / "gemini-extension.json"])
    async with MemoryHost(ext) as host, CompatAdapter(host) as adapter:
        await register_import(adapter, imported)
        agent = await host.create_agent(script=[Reply(calls=(call("write", path="a.txt", content="x"),)), "done"])
        await agent.run_turn("go")
    texts = [e.data["text"] for e in agent.session.of_type("tool/result")]
    assert texts == ['Tool "write_file" not found. Did you mean one of: "read_file", "replace", "activate_skill"?']
    assert not (ext / "a.txt").exists()


def test_a_hidden_tools_error_names_the_closest_tools_still_offered_as_gemini_does(tmp_path: Path) -> None:
    # Measured on Gemini CLI 0.61.0 (vendor lane perm_core): tools.core ["read_file"] leaves one tool,
    # and the model's shell call reads exactly this.
    from compat_adapter.permissions.model import RuleCall
    from vendors.gemini.permission_language import LANGUAGE

    def refusal(tools: object, where: str) -> str:
        root = _project(tmp_path / where, tools)
        rules = import_files("gemini", [root / ".gemini/settings.json"]).permissions
        ruling = LANGUAGE.decide(rules, RuleCall(SHELL, {"command": LANE_COMMAND}, "bash", str(root), str(tmp_path)))
        assert ruling is not None and ruling.behavior == "deny"
        return ruling.text

    assert refusal({"core": ["read_file"]}, "core") == 'Tool "run_shell_command" not found. Did you mean "read_file"?'
    # perm_excluded: Gemini names its own update_topic first, a tool the host lacks, never named here
    # (the rule's listed text-differs).
    assert refusal({"exclude": [SHELL]}, "exclude") == ('Tool "run_shell_command" not found. Did you mean one of: '
                                                         '"grep_search", "replace", "invoke_agent"?')
