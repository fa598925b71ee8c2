"""Permission rules (Claude Code's ``permissions.allow / ask / deny``): read from the vendor's files,
graded like hooks, enforced on real tool calls of the embedded host with the vendor's semantics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.host.protocol import ApprovalOutcome
from compat_adapter.host.script import Reply, call
from compat_adapter.host.surfaces import surface_named
from compat_adapter.importers import import_project, register_import
from compat_adapter.model import Capability, DegradationCode, Route
from compat_adapter.permissions.engine import ruling
from compat_adapter.permissions.grade import grade_permission
from compat_adapter.permissions.read import language_of
from compat_adapter.permissions.model import PermissionRule, RuleCall

CLAUDE = language_of("claude")
assert CLAUDE is not None


def project(root: Path, permissions: object, *, local: object = None, hooks: object = None) -> Path:
    (root / ".claude").mkdir(parents=True, exist_ok=True)
    settings: dict[str, object] = {"permissions": permissions}
    if hooks is not None:
        settings["hooks"] = hooks
    (root / ".claude/settings.json").write_text(json.dumps(settings))
    if local is not None:
        (root / ".claude/settings.local.json").write_text(json.dumps({"permissions": local}))
    (root / "build").mkdir(exist_ok=True)
    (root / "build/keep.txt").write_text("x\n")
    return root


def rule(text: str, behavior: str = "deny", root: str = "/p") -> PermissionRule:
    tool, _, rest = text.partition("(")
    return PermissionRule(vendor="claude", behavior=behavior, text=text, tool=tool,  # type: ignore[arg-type]
                          specifier=rest[:-1] or None if rest else None, origin="t:permissions.deny[0]",
                          scope="project", root=root, settings_dir=root + "/.claude")


def bash(command: str, cwd: str = "/p") -> RuleCall:
    return RuleCall(tool="Bash", input={"command": command}, host_tool="bash", cwd=cwd, home="/home/u")


# ── the language, each case measured on Claude Code 2.1.332 (claude -p) ─────────────────────────

@pytest.mark.parametrize(("spec", "command", "refused"), [
    ("rm -rf *", "rm -rf build", True),
    ("rm -rf *", "rm -rf", True),                      # the trailing " *" also matches nothing
    ("rm -rf *", "rm  -rf build", True),               # read word by word
    ("rm -rf *", 'rm -rf "build"', True),
    ("rm -rf *", "rm -fr build", False),               # another command
    ("rm -rf *", "FOO=1 rm -rf build", True),          # variable prefixes are taken off
    ("rm -rf *", "timeout 5 rm -rf build", True),      # and process wrappers
    ("rm -rf *", "echo hi && rm -rf build", True),     # each part of a compound command
    ("rm -rf *", "echo a; rm -rf build", True),
    ("rm -rf *", "echo a | rm -rf build", True),
    ("rm -rf *", "(rm -rf build)", True),
    ("rm:*", "rm -rf build", True),                    # a legacy prefix, at a word boundary
    ("rm:*", "rmdir build", False),
    ("rm *", "rmdir build", False),
    ("rm*", "rmdir build", True),
    ("rm -rf build", "rm -rf build", True),            # no wildcard: the whole command
    ("rm -rf build", "rm -rf build x", False),
    ("git * main", "git push origin main", True),
])
def test_bash_rules_match_as_claude_code_matches_them(spec: str, command: str, refused: bool) -> None:
    assert CLAUDE.matches(rule(f"Bash({spec})"), bash(command)) is refused


def test_the_refusal_names_the_command_or_the_pipeline_part_as_claude_does() -> None:
    deny = rule("Bash(rm -rf *)")
    assert CLAUDE.refusal(deny, bash("rm -rf build")) == "Permission to use Bash with command rm -rf build has been denied."
    assert CLAUDE.refusal(deny, bash("echo hi && rm -rf build")) == \
        "Permission to use Bash with command echo hi && rm -rf build has been denied."
    assert CLAUDE.refusal(deny, bash("echo a | rm -rf build")) == \
        "Permission to use Bash with command rm -rf build has been denied."


def test_an_allow_rule_must_cover_every_part_of_a_compound_command() -> None:
    allow = rule("Bash(echo *)", "allow")
    assert CLAUDE.matches(allow, bash("echo a && echo b"))
    assert not CLAUDE.matches(allow, bash("echo a && rm -rf build"))


@pytest.mark.parametrize(("spec", "path", "covered"), [
    ("./.env", ".env", True), (".env", ".env", True), (".env", "config/.env", True), ("/.env", ".env", True),
    ("//**/.env", "/p/.env", True), ("**/*.env", "x/y.env", True), ("src/**", "src/a/b.txt", True),
    ("src/**", "other.txt", False), ("/.env", "config/.env", False), ("~/.ssh/**", "/home/u/.ssh/id", True),
    ("src", "src/a.txt", True),  # a pattern that matches a folder covers what is inside it
])
def test_path_rules_are_gitignore_patterns_from_claudes_roots(spec: str, path: str, covered: bool) -> None:
    call_ = RuleCall(tool="Read", input={"file_path": path}, host_tool="read", cwd="/p", home="/home/u")
    assert CLAUDE.matches(rule(f"Read({spec})"), call_) is covered


def test_an_edit_rule_covers_every_editing_tool_and_a_read_deny_keeps_files_from_being_written() -> None:
    write = RuleCall(tool="Write", input={"file_path": "src/a.txt"}, host_tool="write", cwd="/p", home="/h")
    assert CLAUDE.matches(rule("Edit(src/**)"), write)
    assert CLAUDE.matches(rule("Read(src/**)"), write)
    assert not CLAUDE.matches(rule("Read(src/**)", "allow"), write)
    assert "Read deny rule" in CLAUDE.refusal(rule("Read(src/**)"), write)


def test_deny_wins_over_ask_over_allow_whatever_the_order() -> None:
    rules = [rule("Bash(rm *)", "allow"), rule("Bash(rm -rf *)", "ask"), rule("Bash(rm -rf build)", "deny")]
    found = ruling(rules, bash("rm -rf build"), CLAUDE)
    assert found is not None and found.behavior == "deny" and found.rule.text == "Bash(rm -rf build)"
    found = ruling(rules, bash("rm -rf dist"), CLAUDE)
    assert found is not None and found.behavior == "ask"
    assert found.text == "Claude requested permissions to use Bash, but you haven't granted it yet."
    found = ruling(rules, bash("rm x"), CLAUDE)
    assert found is not None and found.behavior == "allow"


# ── grading ─────────────────────────────────────────────────────────────────────────────────────

def test_a_rule_on_a_tool_the_host_lacks_is_unsupported_with_its_reason() -> None:
    surface = surface_named("embedded")
    result = grade_permission(rule("WebFetch(domain:example.com)"), CLAUDE, surface)
    assert result.capability is Capability.UNSUPPORTED and "WebFetch" in (result.reason or "")
    result = grade_permission(rule("mcp__github__create_issue"), CLAUDE, surface)
    assert result.capability is Capability.UNSUPPORTED


def test_a_bash_deny_is_enforced_natively_with_its_losses_listed() -> None:
    result = grade_permission(rule("Bash(rm -rf *)"), CLAUDE, surface_named("embedded"))
    assert result.capability is Capability.ADAPTED and result.route is Route.NATIVE_TRANSLATE
    assert result.event == "permissions.deny" and result.matcher == "Bash(rm -rf *)"
    assert {d.code for d in result.degradations} == {DegradationCode.RULE_NARROWED}
    assert "tools/pre-execute" in result.seams


def test_no_pre_execute_seam_means_no_rule_runs() -> None:
    surface = surface_named("embedded").without(seams=["tools/pre-execute"])
    result = grade_permission(rule("Bash(rm -rf *)"), CLAUDE, surface)
    assert result.capability is Capability.UNSUPPORTED and "tools/pre-execute" in (result.reason or "")


def test_the_import_reads_every_project_scope_and_drops_nothing(tmp_path: Path) -> None:
    root = project(tmp_path, {"deny": ["Bash(rm -rf *)"], "defaultMode": "acceptEdits", "nonsense": 1,
                              "allow": [5]}, local={"ask": ["Bash(git push:*)"]})
    imported = import_project("claude", root)
    assert [(r.text, r.scope) for r in imported.permissions] == [("Bash(rm -rf *)", "project"),
                                                                 ("Bash(git push:*)", "local")]
    assert [s.key for s in imported.permission_settings] == ["defaultMode"]
    assert {r.code for r in imported.refused} == {"UNSUPPORTED_CONFIG", "INVALID_ENTRY"}


def test_a_vendor_with_no_rule_language_lists_its_rules_as_unread(tmp_path: Path) -> None:
    from compat_adapter.catalog import resolve_vendor
    from compat_adapter.importers.common import FileImport
    from compat_adapter.permissions.read import read_block

    out = FileImport()
    read_block(resolve_vendor("codex"), {"deny": ["Bash"]}, path=tmp_path / "x.json", shown="x.json",
               place="permissions", scope="project", out=out)
    assert [r.code for r in out.refused] == ["UNREAD_PERMISSIONS"] and not out.permissions


# ── enforcement on the embedded host ──────────────────────────────────────────────────────────────

async def test_a_deny_rule_alone_stops_rm_rf_build_on_the_embedded_host(tmp_path: Path) -> None:
    root = project(tmp_path, {"deny": ["Bash(rm -rf *)"]})
    async with MemoryHost(root) as host, CompatAdapter(host) as adapter:
        results = await register_import(adapter, import_project("claude", root))
        assert [r.event for r in results] == ["permissions.deny"] and results[0].mounted
        agent = await host.create_agent(script=[
            Reply(calls=(call("bash", command="rm -rf build"),)),
            Reply(calls=(call("bash", command="echo fine > ok.txt"),)),
            "done"])
        await agent.run_turn("go")
        assert [r.matcher for r in adapter.status().permissions] == ["Bash(rm -rf *)"]
    texts = [e.data["text"] for e in agent.session.of_type("tool/result")]
    assert texts[0] == "Permission to use Bash with command rm -rf build has been denied."
    assert (root / "build/keep.txt").is_file()
    assert (root / "ok.txt").read_text() == "fine\n"


def hook(answer: dict[str, object], log: Path, event: str = "PreToolUse") -> dict[str, object]:
    command = f"echo {event} >> {log}; echo '{json.dumps(answer)}'"
    return {event: [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]}


def allow_answer(decision: str) -> dict[str, object]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision,
                                   "permissionDecisionReason": f"hook says {decision}"}}


@pytest.mark.parametrize(("rules", "decision", "expected"), [
    # Measured on Claude Code 2.1.332: the hook fires first, and its allow lifts no rule.
    ({"deny": ["Bash(rm -rf *)"]}, "allow", "Permission to use Bash with command rm -rf build has been denied."),
    ({"deny": ["Bash(rm -rf *)"]}, "ask", "Permission to use Bash with command rm -rf build has been denied."),
    # A hook's deny stands over any rule, in the hook's words.
    ({"deny": ["Bash(rm -rf *)"]}, "deny", "PreToolUse:Bash hook error: hook says deny"),
    ({"allow": ["Bash(rm -rf *)"]}, "deny", "PreToolUse:Bash hook error: hook says deny"),
    ({"ask": ["Bash(rm -rf *)"]}, "deny", "PreToolUse:Bash hook error: hook says deny"),
    # An ask rule stands over a hook's allow; nobody can answer, so it is refused as `claude -p` does.
    ({"ask": ["Bash(rm -rf *)"]}, "allow", "Claude requested permissions to use Bash, but you haven't granted it yet."),
])
async def test_rules_and_hooks_combine_as_in_claude_code(tmp_path: Path, rules: dict[str, object], decision: str,
                                                         expected: str) -> None:
    log = tmp_path / "hooks.log"
    root = project(tmp_path / "p", rules, hooks=hook(allow_answer(decision), log))
    async with MemoryHost(root) as host, CompatAdapter(host) as adapter:
        await register_import(adapter, import_project("claude", root, trust_all=True))
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="rm -rf build"),)), "done"])
        await agent.run_turn("go")
    texts = [e.data["text"] for e in agent.session.of_type("tool/result")]
    assert texts == [expected]
    assert (root / "build").is_dir()
    assert log.read_text() == "PreToolUse\n"  # the hook fired before the rule was weighed


async def test_a_refused_call_runs_no_post_tool_hook(tmp_path: Path) -> None:
    log = tmp_path / "hooks.log"
    hooks = {**hook({}, log, "PostToolUse"), **hook({}, log, "PostToolUseFailure")}
    root = project(tmp_path / "p", {"deny": ["Bash(rm -rf *)"]}, hooks=hooks)
    async with MemoryHost(root) as host, CompatAdapter(host) as adapter:
        await register_import(adapter, import_project("claude", root, trust_all=True))
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="rm -rf build"),)), "done"])
        await agent.run_turn("go")
    assert not log.exists()


async def test_an_ask_rule_goes_to_the_hosts_approval(tmp_path: Path) -> None:
    root = project(tmp_path, {"ask": ["Bash(rm -rf *)"]})
    asked: list[str | None] = []

    def approver(request: object) -> ApprovalOutcome:
        asked.append(getattr(request, "reason", None))
        return ApprovalOutcome.REJECTED

    async with MemoryHost(root, approver=approver) as host, CompatAdapter(host) as adapter:
        results = await register_import(adapter, import_project("claude", root))
        assert results[0].services == ("approval",)
        assert {d.code for d in results[0].degradations} == {DegradationCode.RULE_NARROWED, DegradationCode.TEXT_DIFFERS}
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="rm -rf build"),)), "done"])
        await agent.run_turn("go")
    assert len(asked) == 1 and (root / "build").is_dir()


# ── CodeBuddy Code: Claude's language, derived, with what 2.163.0 does otherwise (measured) ─────────

CODEBUDDY = language_of("workbuddy")


def codebuddy_rule(text: str, behavior: str = "deny") -> PermissionRule:
    found = rule(text, behavior)
    return PermissionRule(**{**{f: getattr(found, f) for f in found.__slots__}, "vendor": "workbuddy",
                             "settings_dir": "/p/.codebuddy"})


@pytest.mark.parametrize(("spec", "command", "refused"), [
    ("rm -rf *", "rm -rf build", True), ("rm -rf *", "echo hi && rm -rf build", True),
    ("rm -rf *", "FOO=1 rm -rf build", False), ("rm -rf *", "timeout 5 rm -rf build", False),
    ("rm -rf *", "rm -rf", False), ("rm:*", "rmdir build", False),
])
def test_codebuddy_reads_commands_without_unwrapping_them(spec: str, command: str, refused: bool) -> None:
    assert CODEBUDDY is not None
    assert CODEBUDDY.matches(codebuddy_rule(f"Bash({spec})"), bash(command)) is refused


def test_codebuddy_words_its_refusals_its_own_way_and_reads_paths_as_written() -> None:
    assert CODEBUDDY is not None
    deny = codebuddy_rule("Bash(rm -rf *)")
    assert CODEBUDDY.refusal(deny, bash("echo a | rm -rf build")) == \
        "Error: Permission to use Bash with command echo a | rm -rf build has been denied."
    read = RuleCall(tool="Read", input={"file_path": ".env"}, host_tool="read", cwd="/p", home="/h")
    assert CODEBUDDY.matches(codebuddy_rule("Read(.env)"), read)
    assert not CODEBUDDY.matches(codebuddy_rule("Read(./.env)"), read)
    assert not CODEBUDDY.matches(codebuddy_rule("Read(/.env)"), read)
    assert CODEBUDDY.refusal(codebuddy_rule("Read(.env)"), read) == "Error: Permission to read .env has been denied."


def test_codebuddys_hook_allow_and_unattended_ask_are_listed_losses() -> None:
    assert CODEBUDDY is not None
    surface = surface_named("embedded")
    deny = grade_permission(codebuddy_rule("Bash(rm -rf *)"), CODEBUDDY, surface)
    assert any("lift a deny rule" in d.text for d in deny.degradations)
    # An ask goes to the host's approval; nobody to answer it, the call runs as in codebuddy -p: no loss.
    ask = grade_permission(codebuddy_rule("Bash(touch *)", "ask"), CODEBUDDY, surface)
    assert not any("asking" in d.text or "nobody answers" in d.text for d in ask.degradations)
    no_approval = grade_permission(codebuddy_rule("Bash(touch *)", "ask"), CODEBUDDY,
                                   surface.without(services=["approval"]))
    assert any("so the call runs" in d.text for d in no_approval.degradations)


class NoApproval(MemoryHost):
    """The embedded host composed without an approval service."""

    @property
    def surface(self):  # type: ignore[no-untyped-def]
        return super().surface.without(services=["approval"])


async def test_codebuddy_runs_an_ask_nobody_can_answer_as_its_p_run_does(tmp_path: Path) -> None:
    (tmp_path / ".codebuddy").mkdir()
    (tmp_path / ".codebuddy/settings.json").write_text(json.dumps({"permissions": {"ask": ["Bash(touch *)"],
                                                                                   "deny": ["Bash(rm -rf *)"]}}))
    (tmp_path / "build").mkdir()
    async with NoApproval(tmp_path) as host, CompatAdapter(host) as adapter:
        await register_import(adapter, import_project("workbuddy", tmp_path))
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="touch ran.txt"),)),
                                                Reply(calls=(call("bash", command="rm -rf build"),)), "done"])
        await agent.run_turn("go")
    texts = [e.data["text"] for e in agent.session.of_type("tool/result")]
    assert (tmp_path / "ran.txt").exists() and (tmp_path / "build").is_dir()
    assert texts[1] == "Error: Permission to use Bash with command rm -rf build has been denied."


async def test_codebuddy_runs_an_ask_the_hosts_approval_leaves_unanswered(tmp_path: Path) -> None:
    # The embedded host has an approval service and nobody behind it (``unavailable``), as in a
    # non-interactive run: an ask rule's call and a hook's ask both run, as under codebuddy -p
    # (lane cases workbuddy:perm_ask and workbuddy:ask); a person's refusal is never changed.
    log = tmp_path / "hooks.log"
    (tmp_path / ".codebuddy").mkdir()
    asking = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command":
              f"echo PreToolUse >> {log}; case \"$(cat)\" in *second*) echo '{json.dumps(allow_answer('ask'))}';; esac"}]}]}
    (tmp_path / ".codebuddy/settings.json").write_text(json.dumps({"permissions": {"ask": ["Bash(touch *)"]},
                                                                   "hooks": asking}))
    for approver, runs in ((None, True), (lambda request: ApprovalOutcome.REJECTED, False)):
        for name in ("first.txt", "second.txt"):
            (tmp_path / name).unlink(missing_ok=True)
        async with MemoryHost(tmp_path, approver=approver) as host, CompatAdapter(host) as adapter:
            await register_import(adapter, import_project("workbuddy", tmp_path, trust_all=True))
            agent = await host.create_agent(script=[Reply(calls=(call("bash", command="touch first.txt"),)),
                                                    Reply(calls=(call("bash", command="echo second > second.txt"),)),
                                                    "done"])
            await agent.run_turn("go")
        outcomes = [e.data["outcome"] for e in agent.session.of_type("approval/decided")]
        assert outcomes == (["allowed-once"] * 2 if runs else ["rejected"] * 2)
        assert (tmp_path / "first.txt").exists() is runs and (tmp_path / "second.txt").exists() is runs


async def test_a_codebuddy_hooks_allow_lifts_a_deny_rule_on_the_host_too(tmp_path: Path) -> None:
    # Measured on CodeBuddy Code 2.163.0 (lane case workbuddy:perm_deny_hook_allow): the call runs.
    log = tmp_path / "hooks.log"
    (tmp_path / ".codebuddy").mkdir()
    (tmp_path / "build").mkdir()
    (tmp_path / ".codebuddy/settings.json").write_text(json.dumps({
        "permissions": {"deny": ["Bash(rm -rf *)"]}, "hooks": hook(allow_answer("allow"), log)}))
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await register_import(adapter, import_project("workbuddy", tmp_path, trust_all=True))
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="rm -rf build"),)), "done"])
        await agent.run_turn("go")
    assert not (tmp_path / "build").exists() and log.read_text() == "PreToolUse\n"


# ── Qwen Code: Claude's language, derived, read as its PermissionManager reads it (0.24.4) ────────

QWEN = language_of("qwen")


def qwen_rule(text: str, behavior: str = "deny") -> PermissionRule:
    found = rule(text, behavior)
    return PermissionRule(**{**{f: getattr(found, f) for f in found.__slots__}, "vendor": "qwen",
                             "settings_dir": "/p/.qwen"})


def qwen_shell(command: str) -> RuleCall:
    return RuleCall(tool="run_shell_command", input={"command": command}, host_tool="bash", cwd="/p", home="/h")


@pytest.mark.parametrize(("text", "command", "refused"), [
    ("Bash(rm -rf *)", "rm -rf build", True), ("run_shell_command(rm -rf *)", "rm -rf build", True),
    ("Shell(rm -rf *)", "echo a && rm -rf build", True), ("Bash(rm -rf build)", "rm -rf build x", True),
    ("Bash(rm -rf *)", "FOO=1 rm -rf build", True), ("Bash(rm -rf *)", "timeout 5 rm -rf build", False),
    ("Bash(rm -rf *)", "rm -rf", True), ("Bash(rm:*)", "rmdir x", False), ("Bash(git * main)", "git main", True),
])
def test_qwen_reads_commands_as_its_permission_manager(text: str, command: str, refused: bool) -> None:
    assert QWEN is not None
    assert QWEN.matches(qwen_rule(text), qwen_shell(command)) is refused


def test_qwen_path_rules_are_anchored_picomatch_patterns_and_aliases_name_its_tools() -> None:
    assert QWEN is not None
    read = RuleCall(tool="read_file", input={"file_path": "/p/config/.env"}, host_tool="read", cwd="/p", home="/h")
    assert not QWEN.matches(qwen_rule("Read(.env)"), read)        # anchored at the session folder
    assert QWEN.matches(qwen_rule("Read(**/.env)"), read)
    assert not QWEN.matches(qwen_rule("Read(config)"), read)      # a folder does not cover its files
    grep = RuleCall(tool="grep_search", input={"path": "/p/src/a.py"}, host_tool="grep", cwd="/p", home="/h")
    assert QWEN.matches(qwen_rule("Read(src/**)"), grep)           # Read is a meta-category
    write = RuleCall(tool="write_file", input={"file_path": "src/a.py"}, host_tool="write", cwd="/p", home="/h")
    assert QWEN.matches(qwen_rule("Edit(src/**)"), write) and not QWEN.matches(qwen_rule("Read(src/**)"), write)
    assert QWEN.host_tools(qwen_rule("Read(x)")) == ("read", "grep", "glob", "bash")  # and shell commands


async def test_qwen_weighs_its_rules_before_its_hooks(tmp_path: Path) -> None:
    log = tmp_path / "hooks.log"
    (tmp_path / "p/.qwen").mkdir(parents=True)
    settings = {"permissions": {"deny": ["Bash(rm -rf *)"]},
                "hooks": {"PreToolUse": [{"matcher": "run_shell_command", "hooks": [
                    {"type": "command", "command": f"echo PreToolUse >> {log}"}]}]}}
    (tmp_path / "p/.qwen/settings.json").write_text(json.dumps(settings))
    (tmp_path / "p/build").mkdir()
    async with MemoryHost(tmp_path / "p") as host, CompatAdapter(host) as adapter:
        await register_import(adapter, import_project("qwen", tmp_path / "p", trust_all=True))
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="rm -rf build"),)), "done"])
        await agent.run_turn("go")
    texts = [e.data["text"] for e in agent.session.of_type("tool/result")]
    assert texts == ['This "run_shell_command" invocation was denied by permission rules. Matching deny rule: '
                     '"Bash(rm -rf *)". Other uses of this tool are still permitted.']
    assert not log.exists() and (tmp_path / "p/build").is_dir()


@pytest.mark.parametrize(("text", "command", "refused"), [
    # Measured on Claude Code 2.1.332: a Read or Edit rule reaches the files a shell command names.
    ("Read(./.env)", "cat .env", True), ("Read(./.env)", "head -n 1 .env", True), ("Read(./.env)", "ls .env", True),
    ("Read(./.env)", "grep SECRET .env", True), ("Read(./.env)", "cp .env x.txt", True),
    ("Read(./.env)", "echo .env", False), ("Edit(src/**)", "sed -i s/a/b/ src/a.txt", True),
    ("Edit(src/**)", "echo hi > src/a.txt", True), ("Edit(src/**)", "cat src/a.txt", False),
])
def test_claude_path_rules_reach_the_files_of_shell_commands(text: str, command: str, refused: bool) -> None:
    assert CLAUDE.matches(rule(text), bash(command)) is refused
    if refused:
        assert CLAUDE.refusal(rule(text), bash(command)) == f"Permission to use Bash with command {command} has been denied."
