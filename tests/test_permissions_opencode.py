"""OpenCode's ``permission`` rules, judged as OpenCode 1.18.33 judges them. The texts and outcomes
pinned here were measured on the real CLI in the vendor lane (``opencode run``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.host.script import Reply, call
from compat_adapter.importers import import_project, register_import
from compat_adapter.host.embedded.tools import TOOLS
from compat_adapter.host.offer import ToolOffer
from vendors.opencode.permissions import REJECTED, evaluate, from_config, hidden_tools, judge, matches, unavailable

LANE_COMMAND = "echo ran > tool-ran.txt; echo hello-from-tool"
WORKTREE = "/work/proj"
DENIED = "The user has specified a rule which prevents you from using this specific tool call. "


def test_a_denied_command_reads_the_rules_that_name_its_permission() -> None:
    # Measured, byte for byte: the agent's `*` allow comes first, then the config's bash rules.
    rules = from_config({"bash": {"*": "allow", "echo hello*": "deny"}})
    ruling = judge(rules, "bash", {"command": LANE_COMMAND}, WORKTREE)
    assert ruling is not None and ruling.action == "deny"
    assert ruling.text == DENIED + ('Here are some of the relevant rules [{"permission":"*","action":"allow",'
                                    '"pattern":"*"},{"permission":"bash","pattern":"*","action":"allow"},'
                                    '{"permission":"bash","pattern":"echo hello*","action":"deny"}]')


def test_the_last_matching_rule_wins_not_the_strictest() -> None:
    # Measured: {"echo hello*": "deny", "*": "allow"} let the command run.
    rules = from_config({"bash": {"echo hello*": "deny", "*": "allow"}})
    assert judge(rules, "bash", {"command": LANE_COMMAND}, WORKTREE).action == "allow"


def test_an_ask_is_rejected_without_a_person() -> None:
    # Measured: `opencode run` printed "permission requested: bash (echo ran > tool-ran.txt, echo
    # hello-from-tool); auto-rejecting" and made no further model call.
    ruling = judge(from_config({"bash": "ask"}), "bash", {"command": LANE_COMMAND}, WORKTREE)
    assert ruling is not None and (ruling.action, ruling.text) == ("ask", REJECTED)


def test_a_whole_tool_denied_is_not_offered_to_the_model() -> None:
    # Measured: "bash": "deny" left bash out of the tools; "edit": "deny" left edit and write out;
    # "*": "deny" with "read": "allow" left only read.
    assert hidden_tools(from_config({"bash": "deny"}), ["bash", "read"]) == {"bash"}
    assert hidden_tools(from_config({"edit": "deny"}), ["bash", "edit", "write"]) == {"edit", "write"}
    assert hidden_tools(from_config({"*": "deny", "read": "allow"}), ["bash", "edit", "read"]) == {"bash", "edit"}
    assert hidden_tools(from_config({"bash": {"rm *": "deny"}}), ["bash"]) == frozenset()


def test_an_edit_pattern_is_the_path_relative_to_the_worktree() -> None:
    # Measured on the write tool with {"edit": {"*.txt": "deny"}}.
    rules = from_config({"edit": {"*.txt": "deny"}})
    ruling = judge(rules, "write", {"filePath": "notes.txt"}, WORKTREE)
    assert ruling is not None and ruling.text.endswith('[{"permission":"*","action":"allow","pattern":"*"},'
                                                      '{"permission":"edit","pattern":"*.txt","action":"deny"}]')
    assert judge(rules, "edit", {"filePath": f"{WORKTREE}/src/a.py"}, WORKTREE).action == "allow"


def test_env_files_ask_by_default_when_read() -> None:
    assert judge((), "read", {"filePath": ".env"}, WORKTREE).action == "ask"
    assert judge((), "read", {"filePath": ".env.example"}, WORKTREE).action == "allow"


@pytest.mark.parametrize(("subject", "pattern", "hit"), [
    ("ls", "ls *", True), ("ls -la", "ls *", True), ("lsof", "ls *", False),
    ("git push origin", "git push*", True), ("a\nb", "a*", True), ("abc", "a?c", True),
    ("rm -rf build", "rm -rf*", True), ("x.(y)", "x.(y)", True), ("xay", "x.y", False),
])
def test_wildcards_cover_the_whole_subject(subject: str, pattern: str, hit: bool) -> None:
    assert matches(subject, pattern) is hit


def test_no_rule_is_an_ask_and_home_is_expanded() -> None:
    assert evaluate("websearch", "x", ()).action == "ask"
    rules = from_config({"external_directory": {"~/notes/*": "allow"}}, home="/home/u")
    assert rules[0].pattern == "/home/u/notes/*"


def test_cd_is_not_asked_about() -> None:
    rules = from_config({"bash": {"cd *": "deny"}})
    assert judge(rules, "bash", {"command": "cd x && ls"}, WORKTREE).action == "allow"


@pytest.mark.parametrize("config", [{"bash": "maybe"}, {"bash": {"*": "nope"}}, {"bash": 3}])
def test_an_action_opencode_refuses_is_an_error(config: dict) -> None:
    with pytest.raises(ValueError, match="permission.bash"):
        from_config(config)


# ── imported from the project and enforced on the embedded host ──────────────────────────────────

def _project(root: Path, config: dict) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "opencode.json").write_text(json.dumps(config))
    (root / "build").mkdir(exist_ok=True)
    (root / "build/keep.txt").write_text("x\n")
    return root


async def _run(root: Path, calls: list[tuple[str, dict[str, str]]]) -> tuple[tuple, list[str]]:
    async with MemoryHost(root) as host, CompatAdapter(host) as adapter:
        results = await register_import(adapter, import_project("opencode", root))
        agent = await host.create_agent(script=[*(Reply(calls=(call(t, **a),)) for t, a in calls), "done"])
        await agent.run_turn("go")
    return results, [e.data["text"] for e in agent.session.of_type("tool/result")]


def test_the_import_reads_the_permission_block_and_the_build_agents(tmp_path: Path) -> None:
    root = _project(tmp_path, {"permission": {"bash": {"*": "allow", "rm *": "deny"}, "edit": "maybe"},
                               "agent": {"build": {"permission": {"webfetch": "deny"}},
                                         "plan": {"permission": {"bash": "deny"}}}})
    imported = import_project("opencode", root)
    assert [(r.tool, r.specifier, r.behavior) for r in imported.permissions] == [
        ("bash", "*", "allow"), ("bash", "rm *", "deny"), ("webfetch", None, "deny")]
    assert sorted(r.code for r in imported.refused) == ["INVALID_ENTRY", "UNSUPPORTED_CONFIG"]


async def test_opencode_rules_are_enforced_in_order_with_opencodes_words(tmp_path: Path) -> None:
    root = _project(tmp_path, {"permission": {"bash": {"*": "allow", "rm *": "deny", "rm -rf tmp*": "allow"},
                                              "edit": {"*.lock": "deny"}}})
    results, texts = await _run(root, [("bash", {"command": "rm -rf build"}),
                                       ("bash", {"command": "rm -rf tmpdir; echo ok > ok.txt"}),
                                       ("write", {"path": "yarn.lock", "content": "x"})])
    assert texts[0] == DENIED + ('Here are some of the relevant rules [{"permission":"*","action":"allow","pattern":"*"},'
                                 '{"permission":"bash","pattern":"*","action":"allow"},'
                                 '{"permission":"bash","pattern":"rm *","action":"deny"},'
                                 '{"permission":"bash","pattern":"rm -rf tmp*","action":"allow"}]')
    assert (root / "build/keep.txt").is_file()
    assert (root / "ok.txt").read_text() == "ok\n"  # the later allow won for that command
    assert texts[2].startswith(DENIED) and not (root / "yarn.lock").exists()
    assert all(r.mounted for r in results)


async def test_a_refused_ask_ends_the_turn_as_opencode_run_does(tmp_path: Path) -> None:
    # OpenCode 1.18.33 breaks its loop on a rejected ask (lane case opencode:perm_bash_ask): the call
    # reads OpenCode's words, and no model call, no second tool call follows.
    root = _project(tmp_path, {"permission": {"bash": "ask"}})
    async with MemoryHost(root) as host, CompatAdapter(host) as adapter:
        await register_import(adapter, import_project("opencode", root))
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="rm -rf build"),)),
                                                Reply(calls=(call("bash", command="echo no > no.txt"),)), "done"])
        await agent.run_turn("go")
    texts = [e.data["text"] for e in agent.session.of_type("tool/result")]
    assert texts == [REJECTED] and (root / "build").is_dir() and not (root / "no.txt").exists()
    assert len(agent.session.of_type("assistant/message")) == 1


async def test_a_call_to_a_tool_denied_whole_still_runs_the_after_hooks(tmp_path: Path) -> None:
    # OpenCode hands it to its `invalid` tool, whose tool.execute.after runs (lane case
    # opencode:perm_bash_denied_whole); the model reads the unavailable-tool error.
    root = _project(tmp_path, {"permission": {"bash": "deny"}})
    seen: list[str] = []
    async with MemoryHost(root) as host, CompatAdapter(host) as adapter:
        await register_import(adapter, import_project("opencode", root))

        async def after(event: object, next: object) -> object:
            seen.append("after")
            return await next()  # type: ignore[operator]

        host.on("tools/post-execute", after)
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="rm -rf build"),)), "done"])
        await agent.run_turn("go")
    texts = [e.data["text"] for e in agent.session.of_type("tool/result")]
    # The list is of the tools the host offered (bash not among them), in OpenCode's names where it
    # has them (todo is todowrite, subagent is task), sorted, with OpenCode's own `invalid`; the host's
    # ask_user_question is OpenCode's question, which `opencode run` denies its session: not offered.
    # Measured (real-config lane, opencode.workers-sdk.json, 1.18.33, webfetch denied there too):
    # `… Available tools: edit, glob, grep, invalid, read, skill, task, todowrite, write.`
    assert texts == ["The arguments provided to the tool are invalid: Model tried to call unavailable tool 'bash'. "
                     "Available tools: edit, glob, grep, invalid, read, skill, task, todowrite, write."]
    assert seen == ["after"] and (root / "build").is_dir()


async def test_a_tool_denied_whole_is_not_offered_to_the_model(tmp_path: Path) -> None:
    # OpenCode drops such a tool from the request's tools (its LLM layer filters Permission.disabled
    # before the call); here the guard keeps it out of the host's tools/offer.
    root = _project(tmp_path, {"permission": {"bash": "deny", "edit": {"*": "allow", "secrets/*": "deny"}}})
    offers: list[tuple[str, ...]] = []
    async with MemoryHost(root) as host, CompatAdapter(host) as adapter:
        await register_import(adapter, import_project("opencode", root))

        async def seen(offer: ToolOffer, next: object) -> object:
            offered = await next()  # type: ignore[operator]
            offers.append(offered)
            return offered

        host.on("tools/offer", seen)  # after the guard: it sees the catalogue before the guard's cut
        agent = await host.create_agent(script=["done"])
        await agent.run_turn("go")
        offered = agent.offered
    assert offers == [tuple(TOOLS)]
    # The edit tools stay: edit's last rule denies one pattern, not `*`.
    assert offered is not None and "bash" not in offered and {"edit", "write", "read"} <= set(offered)
    # `opencode run` denies its session the question tool (run.ts), whatever the config says.
    assert "ask_user_question" not in offered and {"glob", "grep", "todo", "subagent"} <= set(offered)


async def test_a_config_allowing_questions_does_not_lift_the_run_sessions_deny(tmp_path: Path) -> None:
    # OpenCode merges the session's rules after the agent's (its config's included) where it picks the
    # request's tools, so `question: allow` in opencode.json still leaves `opencode run` without it.
    from vendors.opencode.permissions import from_config, hidden_tools

    assert hidden_tools(from_config({"question": "allow"}), ["question", "bash"]) == {"question"}
    assert hidden_tools(from_config({"bash": "deny"}), ["question", "bash", "todowrite"]) == {"question", "bash"}
    root = _project(tmp_path, {"permission": {"question": "allow", "bash": "deny"}})
    async with MemoryHost(root) as host, CompatAdapter(host) as adapter:
        await register_import(adapter, import_project("opencode", root))
        agent = await host.create_agent(script=["done"])
        await agent.run_turn("go")
    assert agent.offered is not None and not {"ask_user_question", "bash"} & set(agent.offered)


def test_the_unavailable_tool_error_lists_the_offered_tools_sorted_with_invalid() -> None:
    # As the 1.18.33 binary builds it: the AI SDK's NoSuchToolError over the sorted tool object.
    assert unavailable("bash", ["write", "edit", "read"]) == (
        "The arguments provided to the tool are invalid: Model tried to call unavailable tool 'bash'. "
        "Available tools: edit, invalid, read, write.")
    assert unavailable("bash") == ("The arguments provided to the tool are invalid: Model tried to call "
                                   "unavailable tool 'bash'.")


def test_a_host_without_the_offer_seam_lists_the_offered_tool_as_a_loss(tmp_path: Path) -> None:
    from compat_adapter.host.surfaces import EMBEDDED_SURFACE, surface_named
    from compat_adapter.permissions.grade import grade_permission
    from vendors.opencode.permission_language import LANGUAGE

    rule = LANGUAGE.read({"bash": "deny"}, path=tmp_path / "opencode.json", shown="opencode.json",
                         place="permission", scope="project").rules[0]
    on_embedded = grade_permission(rule, LANGUAGE, EMBEDDED_SURFACE)
    on_dsh = grade_permission(rule, LANGUAGE, surface_named("dsh"))
    assert "scope-differs" not in {str(d.code) for d in on_embedded.degradations}
    assert "scope-differs" in {str(d.code) for d in on_dsh.degradations}
    assert "text-differs" in {str(d.code) for d in on_dsh.degradations}


def test_legacy_tool_switches_are_rules_before_the_permission_block(tmp_path: Path) -> None:
    # OpenCode 1.18.33 turns `tools: {"write": false}` into an edit deny ahead of `permission`.
    root = _project(tmp_path, {"tools": {"write": False, "bash": True}, "permission": {"edit": {"docs/*": "allow"}}})
    rules = import_project("opencode", root).permissions
    assert [(r.tool, r.specifier, r.behavior, r.origin.rsplit(":", 1)[1]) for r in rules] == [
        ("edit", None, "deny", "tools.edit"), ("bash", None, "allow", "tools.bash"),
        ("edit", "docs/*", "allow", "permission.edit['docs/*']")]


async def test_a_skill_rule_is_asked_by_the_skills_name(tmp_path: Path) -> None:
    # OpenCode's skill tool asks `skill` with the skill's name (1.18.33 binary); a deny of one name
    # refuses that skill in OpenCode's words and leaves the others loadable.
    root = _project(tmp_path, {"permission": {"skill": {"*": "allow", "deploy-*": "deny"}}})
    for name in ("deploy-prod", "lint"):
        (root / ".agents" / "skills" / name).mkdir(parents=True)
        (root / ".agents" / "skills" / name / "SKILL.md").write_text(f"---\nname: {name}\n---\nsteps for {name}\n")
    async with MemoryHost(root) as host, CompatAdapter(host) as adapter:
        await register_import(adapter, import_project("opencode", root))
        agent = await host.create_agent(script=[Reply(calls=(call("skill", name="deploy-prod"),)),
                                                Reply(calls=(call("skill", name="lint"),)), "done"])
        await agent.run_turn("go")
    texts = [e.data["text"] for e in agent.session.of_type("tool/result")]
    assert texts[0].startswith("The user has specified a rule which prevents you from using this specific tool call.")
    assert '"pattern":"deploy-*","action":"deny"' in texts[0]
    assert "<skill_instructions>\nsteps for lint\n</skill_instructions>" in texts[1]
