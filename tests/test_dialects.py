"""Unit tests of the five dialects: payload shapes, tool translation, matchers, decoding, merging.

The dialects are pure, so these tests build `ProcessOutcome` values directly; the conformance
vectors (tests/test_conformance.py) run real processes.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from compat_adapter.capability import PluginRuntime, capability
from compat_adapter.catalog import unit_of, vendors
from compat_adapter.dialects import Dialect, HookAnswer, Moment, dialect_for
from vendors.workbuddy.dialect import overlay_input
from vendors.codex.dialect import patch_text
from compat_adapter.dialects.common import host_call, vendor_call
from compat_adapter.errors import UnknownVendor
from compat_adapter.runtime.process import ProcessOutcome

CLAUDE = dialect_for("claude")
CODEX = dialect_for("codex")
WORKBUDDY = dialect_for("workbuddy")
COPILOT = dialect_for("copilot")
OPENCODE = dialect_for("opencode")


def run(code: int | None = 0, stdout: str = "", stderr: str = "", *, cause: str | None = None,
        timed_out: bool = False, signal: int | None = None) -> ProcessOutcome:
    if timed_out:
        cause = "timeout"
    return ProcessOutcome(exit_code=code, stdout=stdout, stderr=stderr, timed_out=timed_out,
                          truncated=False, cause=cause, duration_ms=1.0, signal=signal)


def js(value: Any) -> str:
    return json.dumps(value)


def hso(event: str, **fields: Any) -> str:
    return js({"hookSpecificOutput": {"hookEventName": event, **fields}})


WRITE = {"tool_name": "write", "tool_input": {"path": "/w/a.txt", "content": "one\ntwo"},
         "tool_use_id": "call_1"}


def moment(event: str, turn: int | None = 3, **fields: Any) -> Moment:
    return Moment(event=event, session_id="sess-1", cwd="/w", transcript_path="/t/s.jsonl", turn=turn,
                  fields={"timestamp": 1_755_700_000.0, **fields})


# ── registry ────────────────────────────────────────────────────────────────────────────────────

@pytest.mark.parametrize(("name", "vendor"), [
    ("claude", "claude"), ("claude-code", "claude"), ("cc", "claude"), ("codex", "codex"),
    ("openai-codex", "codex"), ("workbuddy", "workbuddy"), ("codebuddy", "workbuddy"),
    ("opencode", "opencode"), ("copilot", "copilot"), ("github-copilot", "copilot"),
])
def test_dialect_for_resolves_ids_and_aliases(name: str, vendor: str) -> None:
    dialect = dialect_for(name)
    assert dialect.vendor == vendor
    assert isinstance(dialect, Dialect)


def test_dialect_for_refuses_unknown_vendors() -> None:
    with pytest.raises(UnknownVendor):
        dialect_for("nosuchagent")


def test_trailing_newline_per_vendor() -> None:
    # Measured per vendor (the vendor lane's recorded stdin); a vendor added later says its own.
    measured = {"claude": True, "codex": False, "workbuddy": True, "opencode": True, "copilot": False}
    assert {v: dialect_for(v).trailing_newline for v in measured} == measured
    assert all(isinstance(dialect_for(s.id).trailing_newline, bool) for s in vendors())
    payload = {"prompt": "héllo ✓", "n": 1}
    assert CLAUDE.encode(payload) == '{"prompt":"héllo ✓","n":1}\n'.encode()
    assert CODEX.encode(payload) == '{"prompt":"héllo ✓","n":1}'.encode()
    assert COPILOT.encode(payload).endswith(b"}")


def test_answers_are_frozen() -> None:
    answer = HookAnswer()
    with pytest.raises(AttributeError):
        answer.decision = "deny"  # type: ignore[misc]
    assert answer.env == {} and answer.decision == "none"


def test_matcher_subjects_agree_with_the_vendor_tables() -> None:
    """Every row that names a matcher subject reads that payload key; rows without one ignore matchers."""
    facts = {"tool_name": "bash", "tool_input": {"command": "ls"}, "source": "startup",
             "agent_type": "general", "agent_name": "helper", "trigger": "auto",
             "notification_type": "idle_prompt", "reason": "other", "load_reason": "session_start",
             "command_name": "review", "error": "rate_limit", "file_path": "/a/b.txt",
             "mcp_server_name": "srv"}
    for spec in vendors():
        if capability(unit_of(spec.id), PluginRuntime):
            continue  # OpenCode (and Kilo, its fork) has no matchers; our contract is documented in the dialect
        dialect = dialect_for(spec.id)
        for row in spec.events:
            m = moment(row.event, **facts)
            if row.matcher_subject is None:
                if spec.id == "kimi":
                    # matchHooks.ts tests every matcher against the trigger's matcherValue, "" where the
                    # event has none: a matcher there still filters (only "" or a pattern matching "" runs).
                    assert not dialect.matches(row.event, "zz_never_zz", None), (spec.id, row.event)
                    assert dialect.matches(row.event, "", None), (spec.id, row.event)
                    continue
                assert dialect.matches(row.event, "zz_never_zz", "x"), (spec.id, row.event)
                continue
            payload = dialect.payload(m)
            fixed = getattr(dialect, "fixed_subjects", {}).get(row.event)
            if fixed is not None:
                # A value the vendor's docs name (Cursor's stop matches against "Stop"): no payload key holds it.
                assert dialect.subject(m) == fixed and row.matcher_subject not in payload, (spec.id, row.event)
                continue
            assert row.matcher_subject in payload, (spec.id, row.event)
            subject = dialect.subject(m)
            expected = payload[row.matcher_subject]
            if row.event == "FileChanged":
                expected = expected.rsplit("/", 1)[-1]
            if isinstance(expected, list):  # a prompt as content parts (Kimi): matched on its text parts
                expected = " ".join(p["text"] for p in expected if p.get("type") == "text")
            assert subject == expected, (spec.id, row.event)


# ── tool translation ────────────────────────────────────────────────────────────────────────────

def test_tool_translation_both_ways() -> None:
    assert vendor_call("claude", "write", {"path": "/w/a", "content": "x"}) == (
        "Write", {"file_path": "/w/a", "content": "x"})
    assert host_call("claude", "Write", {"file_path": "/w/a", "content": "x"}) == (
        "write", {"path": "/w/a", "content": "x"})
    assert vendor_call("copilot", "write", {"path": "a"})[0] == "create"
    assert host_call("copilot", "view", {"path": "a"})[0] == "read"
    assert vendor_call("opencode", "bash", {"command": "ls"}) == ("bash", {"command": "ls"})
    # A tool the vendor has no name for keeps the host's; a vendor tool the host lacks maps to None.
    assert vendor_call("claude", "lsp", {"q": 1}) == ("lsp", {"q": 1})
    assert host_call("claude", "WebSearch", {"query": "x"}) == (None, {"query": "x"})


# ── Claude ──────────────────────────────────────────────────────────────────────────────────────

def test_claude_pre_tool_payload() -> None:
    payload = CLAUDE.payload(moment("PreToolUse", **WRITE))
    assert payload == {
        "session_id": "sess-1", "transcript_path": "/t/s.jsonl", "cwd": "/w",
        "permission_mode": "default", "effort": {"level": "medium"}, "hook_event_name": "PreToolUse",
        "tool_name": "Write", "tool_input": {"file_path": "/w/a.txt", "content": "one\ntwo"}, "tool_use_id": "call_1"}
    assert CLAUDE.subject(moment("PreToolUse", **WRITE)) == "Write"
    assert CLAUDE.encode(payload).endswith(b"}\n")


def test_claude_event_payloads() -> None:
    post = CLAUDE.payload(moment("PostToolUse", tool_name="bash", tool_input={"command": "ls"},
                                 tool_use_id="c", tool_response="a.txt\n"))
    assert post["tool_name"] == "Bash"
    assert post["tool_response"] == {"stdout": "a.txt\n", "stderr": "", "interrupted": False,
                                      "isImage": False, "noOutputExpected": False}
    perm = CLAUDE.payload(moment("PermissionRequest", tool_name="bash", tool_input={"command": "ls"}))
    assert "tool_use_id" not in perm and perm["permission_suggestions"] == []
    stop = CLAUDE.payload(moment("Stop", last_assistant_message="done"))
    assert stop["stop_hook_active"] is False and stop["last_assistant_message"] == "done"
    assert stop["background_tasks"] == [] and stop["session_crons"] == []
    sub = CLAUDE.payload(moment("SubagentStop", agent_id="a1", agent_type="reviewer"))
    assert (sub["agent_id"], sub["agent_type"]) == ("a1", "reviewer")
    start = CLAUDE.payload(moment("SessionStart", source="compact", model={"previous": "a", "current": "b"}))
    assert start["source"] == "compact" and start["model"] == "b"
    note = CLAUDE.payload(moment("Notification", notification={"message": "hi", "notification_type":
                                                                 "idle_prompt"}))
    assert note["message"] == "hi" and note["notification_type"] == "idle_prompt"
    assert CLAUDE.payload(moment("PostCompact", summary="s"))["compact_summary"] == "s"
    assert CLAUDE.payload(moment("UserPromptSubmit", prompt="go"))["prompt"] == "go"
    assert CLAUDE.subject(moment("FileChanged", file_path="/w/src/.env")) == ".env"
    assert CLAUDE.subject(moment("Stop")) is None


CLAUDE_MATCHERS = [
    ("PreToolUse", None, "Bash", True),
    ("PreToolUse", "", "Bash", True),
    ("PreToolUse", "*", "Bash", True),
    ("PreToolUse", "Bash", "Bash", True),
    ("PreToolUse", "Bash", "BashOutput", False),  # literal is exact
    ("PreToolUse", "bash", "Bash", False),  # case-sensitive
    ("PreToolUse", "Edit|Write", "Write", True),
    ("PreToolUse", "Edit, Write", "Write", True),  # comma lists, trimmed
    ("PreToolUse", "Edit.*", "NotebookEdit", True),  # regex is unanchored
    ("PreToolUse", "^Notebook", "NotebookEdit", True),
    ("PreToolUse", "^Notebook", "Edit", False),
    ("PreToolUse", "mcp__memory", "mcp__memory__create_entities", False),
    ("PreToolUse", "mcp__memory__.*", "mcp__memory__create_entities", True),
    ("SubagentStart", "code-reviewer", "senior-code-reviewer", False),  # hyphens stay literal
    ("SubagentStart", "code-reviewer", "code-reviewer", True),
    ("FileChanged", "a-b", "xa-by", True),  # narrow set: a hyphen means regex here
    ("FileChanged", ".env|package.json", "package.json", True),
    ("Stop", "anything", None, True),  # Stop has no matcher: ignored
    ("PreToolUse", "(", "Bash", False),  # invalid: never matches
]


@pytest.mark.parametrize(("event", "matcher", "subject", "hit"), CLAUDE_MATCHERS)
def test_claude_matchers(event: str, matcher: str | None, subject: str | None, hit: bool) -> None:
    assert CLAUDE.matches(event, matcher, subject) is hit


def test_claude_invalid_matcher_is_reported() -> None:
    problem = CLAUDE.validate_matcher("PreToolUse", "(")
    assert problem is not None and "(" in problem
    assert CLAUDE.validate_matcher("PreToolUse", "Edit.*") is None
    assert CLAUDE.validate_matcher("Stop", "(") is None  # ignored on events without matchers


def test_claude_decodes_exit_zero_json() -> None:
    deny = CLAUDE.decode("PreToolUse", run(0, hso("PreToolUse", permissionDecision="deny",
                                                 permissionDecisionReason="no")))
    assert (deny.decision, deny.reason, deny.failed) == ("deny", "no", None)
    rewrite = CLAUDE.decode("PreToolUse", run(0, hso("PreToolUse", permissionDecision="allow",
                                                    updatedInput={"command": "ls -a"})))
    assert rewrite.decision == "allow" and rewrite.updated_input == {"command": "ls -a"}
    spaced = CLAUDE.decode("PreToolUse", run(0, "  \n" + hso("PreToolUse", permissionDecision="ask")))
    assert spaced.decision == "ask"
    legacy = CLAUDE.decode("PreToolUse", run(0, js({"decision": "approve"})))
    assert legacy.decision == "allow"
    # hookSpecificOutput wins over the deprecated top-level decision.
    both = CLAUDE.decode("PreToolUse", run(0, js({"decision": "block", "hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "ask"}})))
    assert both.decision == "ask"
    stop = CLAUDE.decode("PreToolUse", run(0, js({"continue": False, "stopReason": "halt",
                                                  "systemMessage": "careful"})))
    assert stop.stop and stop.stop_reason == "halt" and stop.system_message == "careful"
    assert CLAUDE.decode("PreToolUse", run(0, "")) == HookAnswer()
    defer = CLAUDE.decode("PreToolUse", run(0, hso("PreToolUse", permissionDecision="defer")))
    assert defer.decision == "none" and "permissionDecision:defer" in defer.ignored


def test_claude_hook_event_name_must_match() -> None:
    missing = CLAUDE.decode("PreToolUse", run(0, js({"hookSpecificOutput": {"permissionDecision": "deny"}})))
    assert missing.decision == "none" and missing.failed and "hookEventName" in missing.failed
    wrong = CLAUDE.decode("PreToolUse", run(0, hso("PostToolUse", permissionDecision="deny")))
    assert wrong.decision == "none" and wrong.failed


def test_claude_ignores_copilot_style_top_level_decision() -> None:
    answer = CLAUDE.decode("PreToolUse", run(0, js({"permissionDecision": "deny"})))
    assert answer.decision == "none" and answer.failed is None
    assert "permissionDecision (top level)" in answer.ignored


def test_claude_schema_errors_are_non_blocking() -> None:
    bad = CLAUDE.decode("PreToolUse", run(0, hso("PreToolUse", permissionDecision="maybe")))
    assert bad.decision == "none" and bad.failed and "hook error" in bad.failed
    assert CLAUDE.decode("Stop", run(0, js({"continue": "no"}))).failed
    assert CLAUDE.decode("PreToolUse", run(0, hso("PreToolUse", updatedInput="x"))).failed


def test_claude_plain_stdout() -> None:
    assert CLAUDE.decode("UserPromptSubmit", run(0, "[1, 2]\n")).additional_context == ("[1, 2]",)
    assert CLAUDE.decode("SessionStart", run(0, "{not json")).additional_context == ("{not json",)
    ignored = CLAUDE.decode("PreToolUse", run(0, "deny\n"))
    assert ignored.decision == "none" and ignored.additional_context == ()
    assert "plain stdout" in ignored.ignored


def test_claude_exit_two() -> None:
    deny = CLAUDE.decode("PreToolUse", run(2, hso("PreToolUse", permissionDecision="allow"), "nope\n"))
    # Blocks even when the JSON allows; stderr as written, its newline kept (Claude Code 2.1.332,
    # lane cases deny_exit2_newline, stop_block_exit2_newline).
    assert (deny.decision, deny.reason, deny.json_reason) == ("deny", "nope\n", False)
    with_reason = CLAUDE.decode("Stop", run(2, js({"decision": "block", "reason": "tests"}), "noise"))
    assert (with_reason.decision, with_reason.reason, with_reason.json_reason) == ("block", "tests", True)
    # A JSON deny on exit 2 is the JSON's reason, worded as a JSON answer (lane case deny_exit2_json).
    json_deny = CLAUDE.decode("PreToolUse", run(2, hso("PreToolUse", permissionDecision="deny",
                                                       permissionDecisionReason="policy"), "noise\n"))
    assert (json_deny.decision, json_deny.reason, json_deny.json_reason) == ("deny", "policy", True)
    invalid = CLAUDE.decode("PreToolUse", run(2, js({"continue": "x"}), "why"))
    assert (invalid.decision, invalid.reason) == ("deny", "why")
    assert CLAUDE.decode("PostToolUse", run(2, "", "slow\n")).decision == "block"
    assert CLAUDE.decode("PermissionRequest", run(2, "", "no")).decision == "none"
    assert CLAUDE.decode("Notification", run(2, "", "no")) == HookAnswer(ignored=("exit code 2",))
    start = CLAUDE.decode("SessionStart", run(2, "", "shown"))
    assert start.decision == "none" and start.system_message == "shown"
    elicit = CLAUDE.decode("Elicitation", run(2, hso("Elicitation", action="accept"), "no"))
    assert elicit.decision == "deny" and elicit.answers == {"action": "decline"}


def test_claude_other_exit_codes() -> None:
    failed = CLAUDE.decode("PreToolUse", run(1, "", "jq: not found\nmore\n"))
    assert failed.decision == "none"
    assert failed.failed == "Failed with non-blocking status code: jq: not found"
    assert CLAUDE.decode("PreToolUse", run(127, "", "sh: x: not found")).decision == "none"
    # A schema-valid object decides whatever the exit code.
    valid = CLAUDE.decode("PreToolUse", run(1, hso("PreToolUse", permissionDecision="deny")))
    assert valid.decision == "deny"
    timeout = CLAUDE.decode("PreToolUse", run(None, timed_out=True))
    assert timeout.decision == "none" and timeout.failed == "hook timed out"
    assert CLAUDE.decode("WorktreeCreate", run(1, "", "disk full")).decision == "block"
    assert CLAUDE.decode("WorktreeCreate", run(0, "log\n/w/tree\n")).updated_output == "/w/tree"


def test_claude_event_specific_outputs() -> None:
    perm = CLAUDE.decode("PermissionRequest", run(0, hso("PermissionRequest", decision={
        "behavior": "deny", "message": "no", "interrupt": True})))
    assert (perm.decision, perm.reason, perm.stop) == ("deny", "no", True)
    post = CLAUDE.decode("PostToolUse", run(0, hso("PostToolUse", updatedToolOutput="short",
                                                   additionalContext="ctx")))
    assert post.updated_output == "short" and post.additional_context == ("ctx",)
    feedback = CLAUDE.decode("Stop", run(0, hso("Stop", additionalContext="run tests")))
    assert feedback.decision == "block" and feedback.additional_context == ("run tests",)
    elicit = CLAUDE.decode("Elicitation", run(0, hso("Elicitation", action="accept", content={"a": 1})))
    assert elicit.decision == "allow" and elicit.answers == {"action": "accept", "content": {"a": 1}}
    title = CLAUDE.decode("SessionStart", run(0, hso("SessionStart", sessionTitle="t",
                                                     additionalContext="c")))
    assert title.additional_context == ("c",) and "hookSpecificOutput.sessionTitle" in title.ignored


def test_claude_merge() -> None:
    allow = HookAnswer(decision="allow", additional_context=("a",), updated_input={"n": 1})
    ask = HookAnswer(decision="ask", reason="check", additional_context=("b",))
    deny = HookAnswer(decision="deny", reason="no")
    assert CLAUDE.merge("PreToolUse", [allow, ask]).decision == "ask"
    merged = CLAUDE.merge("PreToolUse", [allow, ask, deny, HookAnswer(decision="deny", reason="never")])
    assert (merged.decision, merged.reason) == ("deny", "no\nnever")
    assert merged.additional_context == ("a", "b") and merged.updated_input == {"n": 1}
    later = CLAUDE.merge("PreToolUse", [allow, HookAnswer(decision="allow", updated_input={"n": 2})])
    assert later.updated_input == {"n": 2}
    assert CLAUDE.merge("PreToolUse", []) == HookAnswer()
    failures = CLAUDE.merge("Stop", [HookAnswer(failed="x"), HookAnswer(decision="block", reason="r")])
    assert failures.decision == "block" and failures.failed == "x"


# ── Codex ───────────────────────────────────────────────────────────────────────────────────────

def test_codex_payloads() -> None:
    bash = CODEX.payload(moment("PreToolUse", tool_name="bash",
                                tool_input={"command": "ls", "timeout": 5}, tool_use_id="c1"))
    assert bash == {"session_id": "sess-1", "transcript_path": "/t/s.jsonl", "cwd": "/w",
                    "hook_event_name": "PreToolUse", "model": "", "permission_mode": "default",
                    "turn_id": "3", "tool_name": "Bash", "tool_use_id": "c1",
                    "tool_input": {"command": "ls"}}
    write = CODEX.payload(moment("PreToolUse", **WRITE))
    assert write["tool_name"] == "apply_patch"
    assert set(write["tool_input"]) == {"command"}
    assert "*** Add File: /w/a.txt\n+one\n+two" in write["tool_input"]["command"]
    edit = CODEX.payload(moment("PostToolUse", tool_name="edit",
                                tool_input={"path": "a.py", "old": "x = 1", "new": "x = 2"},
                                tool_response="ok"))
    edit_args = {"path": "a.py", "old": "x = 1", "new": "x = 2"}
    assert edit["tool_input"]["command"] == patch_text("edit", edit_args)
    assert "*** Update File: a.py" in edit["tool_input"]["command"] and edit["tool_response"] == "ok"
    start = CODEX.payload(Moment(event="SessionStart", session_id="s", cwd="/w", fields={"source": "resume"}))
    assert start["transcript_path"] is None and "turn_id" not in start and start["source"] == "resume"
    stop = CODEX.payload(moment("Stop", turn=None, model={"current": "gpt-5"}))
    assert stop["turn_id"] == "0" and stop["model"] == "gpt-5" and stop["last_assistant_message"] is None
    perm = CODEX.payload(moment("PermissionRequest", tool_name="bash", tool_input={"command": "curl x"},
                                reason="network access"))
    assert perm["tool_input"] == {"command": "curl x", "description": "network access"}
    assert "tool_use_id" not in perm
    assert CODEX.subject(moment("PreToolUse", **WRITE)) == "apply_patch"
    assert not CODEX.encode(bash).endswith(b"\n")


CODEX_MATCHERS = [
    ("PreToolUse", "Bash", "Bash", True),
    ("PreToolUse", "Bash", "BashOutput", False),  # exact
    ("PreToolUse", "^Bash", "BashOutput", True),  # regex is unanchored
    ("PreToolUse", "Edit", "apply_patch", True),  # aliases
    ("PreToolUse", "Write", "apply_patch", True),
    ("PreToolUse", "Edit|Write", "apply_patch", True),
    ("PreToolUse", "E.it", "apply_patch", True),
    ("PreToolUse", "Edit", "Bash", False),
    ("SubagentStart", "code-reviewer", "senior-code-reviewer", True),  # hyphen forces regex
    ("PreToolUse", "Bash,Edit", "Bash", False),  # a comma is regex here, not a list
    ("PreToolUse", "[", "Bash", False),
    ("PreToolUse", "(?=Bash)Bash", "Bash", False),  # look-around: invalid in Rust regex
    ("UserPromptSubmit", "anything", None, True),  # ignored
    ("PreCompact", "manual", "auto", True),  # ignored in the source
    ("PreToolUse", "*", "mcp__x__y", True),
]


@pytest.mark.parametrize(("event", "matcher", "subject", "hit"), CODEX_MATCHERS)
def test_codex_matchers(event: str, matcher: str, subject: str | None, hit: bool) -> None:
    assert CODEX.matches(event, matcher, subject) is hit


def test_codex_invalid_matchers_are_reported() -> None:
    assert "regex parse error" in (CODEX.validate_matcher("PreToolUse", "[") or "")
    assert CODEX.validate_matcher("PreToolUse", "(?<!x)y") is not None
    assert CODEX.validate_matcher("PreToolUse", "mcp__.*") is None


def test_codex_exit_codes() -> None:
    empty = CODEX.decode("PreToolUse", run(2, "", ""))
    assert empty.decision == "none"
    assert empty.failed == "PreToolUse hook exited with code 2 but did not write a blocking reason to stderr"
    deny = CODEX.decode("PreToolUse", run(2, "", "nope\n"))
    assert (deny.decision, deny.reason) == ("deny", "nope")
    post = CODEX.decode("PostToolUse", run(2, "", "withheld"))
    assert post.decision == "block" and post.updated_output == "withheld"
    assert CODEX.decode("Stop", run(2, "", "keep going")).decision == "block"
    one = CODEX.decode("PreToolUse", run(1, hso("PreToolUse", permissionDecision="deny")))
    assert one.decision == "none" and one.failed == "hook exited with code 1"
    assert CODEX.decode("PreToolUse", run(None, timed_out=True)).failed == "hook timed out"


@pytest.mark.parametrize("stdout", [
    hso("PreToolUse", permissionDecision="ask"),
    js({"decision": "approve"}),
    js({"continue": False}),
    js({"stopReason": "x"}),
    js({"suppressOutput": True}),
    hso("PreToolUse", updatedInput={"command": "ls"}),  # updatedInput needs allow
    hso("PreToolUse", permissionDecision="allow", updatedInput={"command": ["ls"]}),
    js({"hookSpecificOutput": {"permissionDecision": "deny"}}),  # no hookEventName
    hso("PostToolUse", permissionDecision="deny"),  # another event's output
    "{oops",
    "[1, 2]",
])
def test_codex_unsupported_output_fails_open(stdout: str) -> None:
    answer = CODEX.decode("PreToolUse", run(0, stdout))
    assert answer.decision == "none" and answer.failed


def test_codex_supported_output() -> None:
    legacy = CODEX.decode("PreToolUse", run(0, js({"decision": "block", "reason": "no"})))
    assert (legacy.decision, legacy.reason) == ("deny", "no")
    rewrite = CODEX.decode("PreToolUse", run(0, hso("PreToolUse", permissionDecision="allow",
                                                   updatedInput={"command": "ls -a"},
                                                   additionalContext="ctx")))
    assert rewrite.updated_input == {"command": "ls -a"} and rewrite.additional_context == ("ctx",)
    post = CODEX.decode("PostToolUse", run(0, js({"decision": "block", "reason": "secret",
                                                  "hookSpecificOutput": {"hookEventName": "PostToolUse",
                                                                         "additionalContext": "c"}})))
    assert (post.decision, post.updated_output, post.additional_context) == ("block", "secret", ("c",))
    assert CODEX.decode("PostToolUse", run(0, hso("PostToolUse", updatedMCPToolOutput={}))).failed
    stop = CODEX.decode("Stop", run(0, js({"decision": "block", "reason": "tests", "continue": False})))
    assert stop.decision == "none" and stop.stop  # stopping beats continuing
    assert CODEX.decode("Stop", run(0, js({"decision": "block"}))).failed  # a reason is required
    # A reserved field makes the run a failed hook whose answer is void, allow and deny alike
    # (Codex 0.171.0, vendor lane permission_reserved): its automatic reviewer decides instead.
    for answer in ({"behavior": "allow", "updatedPermissions": []}, {"behavior": "allow", "updatedInput": {}},
                   {"behavior": "deny", "message": "no", "interrupt": True}):
        reserved = CODEX.decode("PermissionRequest", run(0, hso("PermissionRequest", decision=answer)))
        assert reserved.decision == "none" and reserved.failed and not reserved.stop, answer


def test_codex_plain_stdout() -> None:
    assert CODEX.decode("SessionStart", run(0, "ctx\n")).additional_context == ("ctx",)
    assert CODEX.decode("UserPromptSubmit", run(0, "ctx")).additional_context == ("ctx",)
    assert CODEX.decode("Stop", run(0, "done")).failed
    assert CODEX.decode("PreToolUse", run(0, "deny")).decision == "none"


def test_codex_merge() -> None:
    allow = HookAnswer(decision="allow")
    deny = HookAnswer(decision="deny", reason="policy")
    assert CODEX.merge("PermissionRequest", [allow, deny]).decision == "deny"
    stopped = CODEX.merge("Stop", [HookAnswer(decision="block", reason="more"), HookAnswer(stop=True)])
    assert stopped.decision == "none" and stopped.stop


# ── WorkBuddy / CodeBuddy ───────────────────────────────────────────────────────────────────────

def test_workbuddy_tool_payload_is_what_codebuddy_sends() -> None:
    # CodeBuddy Code 2.163.0 (vendor lane) sends tool_use_id and call_id, both the model's call id,
    # where the older reference said it sends no tool_use_id.
    payload = WORKBUDDY.payload(moment("PreToolUse", tool_name="bash", tool_input={"command": "ls"},
                                       tool_use_id="c1"))
    assert payload["tool_name"] == "Bash" and payload["tool_use_id"] == payload["call_id"] == "c1"
    assert payload["permission_mode"] == "default" and WORKBUDDY.encode(payload).endswith(b"\n")
    assert (payload["agent_type"], payload["client"], payload["version"]) == ("cli", "CLI", "2.163.0")
    assert re.fullmatch(r"[0-9a-f]{32}", payload["generation_id"]) and payload["model"] == ""
    assert "prompt_id" not in payload and "effort" not in payload


WORKBUDDY_MATCHERS = [
    ("PreToolUse", "Write", "NotebookWrite", True),  # always a substring regex
    ("PreToolUse", "^Write$", "NotebookWrite", False),
    ("PreToolUse", "Bash", "execute_command", True),  # CLI ↔ IDE aliases
    ("PreToolUse", "execute_command", "Bash", True),
    ("PreToolUse", "Edit|Write", "write_to_file", True),
    ("PreToolUse", "bash", "Bash", False),
    ("PreToolUse", "(", "Bash", False),
    ("SubagentStop", "zz", "reviewer", True),  # no matcher on SubagentStop
]


@pytest.mark.parametrize(("event", "matcher", "subject", "hit"), WORKBUDDY_MATCHERS)
def test_workbuddy_matchers(event: str, matcher: str, subject: str, hit: bool) -> None:
    assert WORKBUDDY.matches(event, matcher, subject) is hit


def test_workbuddy_exit_two_prefers_stdout() -> None:
    plain = WORKBUDDY.decode("PreToolUse", run(2, "Refusing\n", "[debug]\n"))
    assert (plain.decision, plain.reason) == ("deny", "Refusing")
    reason = WORKBUDDY.decode("PreToolUse", run(2, js({"reason": "policy"}), "noise"))
    assert reason.reason == "policy"
    stop_reason = WORKBUDDY.decode("Stop", run(2, js({"stopReason": "more"}), "noise"))
    assert (stop_reason.decision, stop_reason.reason) == ("block", "more")
    fallback = WORKBUDDY.decode("PreToolUse", run(2, "", "from stderr\n"))
    assert fallback.reason == "from stderr"
    # Unlike Claude, a non-2 exit never lets the JSON decide.
    one = WORKBUDDY.decode("PreToolUse", run(1, hso("PreToolUse", permissionDecision="deny"), "oops"))
    assert one.decision == "none" and one.failed and "oops" in one.failed


def test_workbuddy_continue_false_blocks() -> None:
    # On Stop it is a plain stop, as in Claude (CodeBuddy 2.163.0, vendor lane workbuddy:stop_halt:
    # Stop fired once and the turn ended), never a block that keeps the agent working.
    stop = WORKBUDDY.decode("Stop", run(0, js({"continue": False, "reason": "tests failing"})))
    assert (stop.decision, stop.stop, stop.stop_reason) == ("none", True, "tests failing")
    claude = CLAUDE.decode("Stop", run(0, js({"continue": False, "reason": "tests failing"})))
    assert claude.decision == "none" and claude.stop
    # SubagentStop keeps the documented reading (it cannot be fired in -p): block, tell the agent why.
    sub = WORKBUDDY.decode("SubagentStop", run(0, js({"continue": False, "reason": "not yet"})))
    assert (sub.decision, sub.reason, sub.stop) == ("block", "not yet", False)
    prompt = WORKBUDDY.decode("UserPromptSubmit", run(0, js({"continue": False, "stopReason": "no"})))
    assert (prompt.decision, prompt.reason) == ("block", "no")
    end = WORKBUDDY.decode("SessionEnd", run(0, js({"continue": False})))
    assert end.stop and end.decision == "none"


def test_workbuddy_output_fields() -> None:
    # Measured on CodeBuddy 2.163: updatedInput is applied over the original, modifiedInput is not.
    partial = WORKBUDDY.decode("PreToolUse", run(0, hso("PreToolUse", permissionDecision="allow",
                                                      modifiedInput={"command": "x"},
                                                      updatedInput={"command": "npm ci"})))
    assert partial.updated_input == {"command": "npm ci"}
    assert any(i.startswith("hookSpecificOutput.modifiedInput") for i in partial.ignored)
    only_modified = WORKBUDDY.decode("PreToolUse", run(0, hso("PreToolUse", permissionDecision="allow",
                                                            modifiedInput={"command": "x"})))
    assert only_modified.decision == "allow" and only_modified.updated_input is None
    assert overlay_input({"command": "npm i", "requires_approval": False}, partial.updated_input) == {
        "command": "npm ci", "requires_approval": False}
    unnamed = js({"hookSpecificOutput": {"permissionDecision": "deny"}})
    lenient = WORKBUDDY.decode("PreToolUse", run(0, unnamed))
    assert lenient.decision == "deny" and lenient.failed is None
    foreign = WORKBUDDY.decode("PreToolUse", run(0, hso("PostToolUse", permissionDecision="deny")))
    assert foreign.decision == "none" and foreign.failed is None and foreign.ignored
    post = WORKBUDDY.decode("PostToolUse", run(0, js({"decision": "block", "reason": "x"})))
    assert post.decision == "none"
    merged = WORKBUDDY.merge("PreToolUse", [HookAnswer(decision="allow", updated_input={"a": 1}),
                                            HookAnswer(decision="allow", updated_input={"b": 2})])
    assert merged.updated_input == {"a": 1, "b": 2}


# ── Copilot ─────────────────────────────────────────────────────────────────────────────────────

def test_copilot_camel_case_payloads() -> None:
    pre = COPILOT.payload(moment("preToolUse", **WRITE))
    assert pre == {"sessionId": "sess-1", "timestamp": 1_755_700_000_000, "cwd": "/w",
                   "toolName": "create", "toolArgs": {"path": "/w/a.txt", "file_text": "one\ntwo"}}
    # An object, as Copilot CLI 1.0.102 sends it (vendor lane), not the JSON string the docs describe.
    assert isinstance(pre["toolArgs"], dict) and pre["toolArgs"]["path"] == "/w/a.txt"
    post = COPILOT.payload(moment("postToolUse", tool_name="read", tool_input={"path": "R"},
                                  tool_response="# Readme"))
    assert post["toolName"] == "view"
    assert post["toolResult"] == {"resultType": "success", "textResultForLlm": "# Readme"}
    failure = COPILOT.payload(moment("postToolUseFailure", tool_name="bash", tool_input={"command": "x"},
                                     error="Exit code 1"))
    assert failure["error"] == "Exit code 1"
    perm = COPILOT.payload(moment("permissionRequest", tool_name="read", tool_input={"path": "R"}))
    assert perm["toolInput"] == {"path": "R"}
    # The keys Copilot CLI 1.0.102 sends (vendor lane, samples/copilot/payloads/permissionRequest.json).
    assert list(perm) == ["hookName", "sessionId", "timestamp", "cwd", "toolName", "toolInput",
                          "permissionSuggestions"]
    assert perm["hookName"] == "permissionRequest" and perm["permissionSuggestions"] == []
    stop = COPILOT.payload(moment("agentStop"))
    assert stop["stop_hook_active"] is False and stop["stopReason"] == "end_turn"
    assert stop["transcriptPath"] == "/t/s.jsonl"
    assert COPILOT.payload(moment("sessionStart", source="clear"))["source"] == "new"
    error = COPILOT.payload(moment("errorOccurred", error="boom"))
    assert error["error"] == {"message": "boom", "name": "Error", "stack": ""}
    assert COPILOT.subject(moment("preToolUse", **WRITE)) == "create"
    assert COPILOT.encode(pre).endswith(b"}")


def test_copilot_pascal_case_payload() -> None:
    pre = COPILOT.payload(moment("PreToolUse", tool_name="bash", tool_input={"command": "ls"}))
    assert pre["hook_event_name"] == "PreToolUse" and pre["session_id"] == "sess-1"
    assert pre["tool_name"] == "Bash" and pre["tool_input"] == {"command": "ls"}
    assert pre["timestamp"] == "2025-08-20T14:26:40.000Z"
    assert COPILOT.subject(moment("PreToolUse", **WRITE)) == "Write"


COPILOT_MATCHERS = [
    ("preToolUse", "bash|edit", "bash", True),
    ("preToolUse", "bash|edit", "edit", True),
    ("preToolUse", "bas", "bash", False),  # anchored
    ("preToolUse", "bash", "bash", True),
    ("preToolUse", "b.*", "bash", True),
    ("preToolUse", "Bash", "bash", False),
    ("preToolUse", "(bash", "bash", False),  # invalid: skipped, never match-all
    ("preToolUse", "*", "bash", False),  # `^(?:*)$` does not compile
    ("preToolUse", None, "bash", True),
    ("preToolUse", "", "bash", True),
    ("subagentStart", "review.*", "reviewer", True),
    ("agentStop", "zz", None, True),  # no matcher on agentStop
    ("PreToolUse", "Bash", "Bash", True),  # Claude rules for PascalCase
    ("PreToolUse", "bash", "Bash", True),  # a runtime name also matches
    ("PreToolUse", "*", "Bash", True),
    ("PreToolUse", "Ba", "Bash", False),
    ("PreToolUse", "B.*", "Bash", True),
    ("PreToolUse", "as.*", "Bash", False),  # anchored even in Claude format
]


@pytest.mark.parametrize(("event", "matcher", "subject", "hit"), COPILOT_MATCHERS)
def test_copilot_matchers(event: str, matcher: str | None, subject: str | None, hit: bool) -> None:
    assert COPILOT.matches(event, matcher, subject) is hit


def test_copilot_invalid_matcher_is_reported() -> None:
    assert COPILOT.validate_matcher("preToolUse", "(bash") is not None
    assert COPILOT.validate_matcher("preToolUse", "bash|edit") is None


def test_copilot_pre_tool_is_fail_closed() -> None:
    crash = COPILOT.decode("preToolUse", run(1, js({"permissionDecision": "allow"}), "boom"))
    # The reason is Copilot's "hook errored" (the voice names the hook's file, as Copilot CLI
    # 1.0.102 does); the exit code stays in the failure the audit keeps.
    assert crash.decision == "deny" and crash.reason == "hook errored" and "exit code 1" in (crash.failed or "")
    missing = COPILOT.decode("preToolUse", run(127, "", "not found"))
    assert missing.decision == "deny" and "127" in (missing.failed or "")
    two = COPILOT.decode("preToolUse", run(2, js({"permissionDecision": "allow"}), "policy violation\n"))
    # Measured (vendor lane, Copilot 1.0.102): the reason is the vendor's, not the hook's stderr.
    assert (two.decision, two.reason) == ("deny", "hook exited with code 2")
    spawn = COPILOT.decode("preToolUse", run(None, "", "no shell", cause="spawn-failed"))
    assert spawn.decision == "deny"
    killed = COPILOT.decode("preToolUse", run(None, cause="signal", signal=9))
    assert killed.decision == "deny"
    timeout = COPILOT.decode("preToolUse", run(None, timed_out=True))
    assert timeout.decision == "none" and timeout.failed  # timeouts fail open


def test_copilot_stdout_parsing() -> None:
    two = run(0, js({"permissionDecision": "allow"}) + "\n" + js({"permissionDecision": "deny"}) + "\n")
    assert COPILOT.decode("preToolUse", two) == HookAnswer()
    progress = js({"type": "progress", "message": "working"}) + "\n" + js({"permissionDecision": "deny",
                                                                         "permissionDecisionReason": "r"})
    assert COPILOT.decode("preToolUse", run(0, progress)).decision == "deny"
    assert COPILOT.decode("preToolUse", run(0, "not json")) == HookAnswer()
    claude_style = COPILOT.decode("preToolUse", run(0, hso("PreToolUse", permissionDecision="deny")))
    assert claude_style.decision == "none" and "hookSpecificOutput" in claude_style.ignored
    rewrite = COPILOT.decode("preToolUse", run(0, js({"permissionDecision": "allow",
                                                      "modifiedArgs": {"command": "ls"},
                                                      "additionalContext": "ctx"})))
    assert rewrite.updated_input == {"command": "ls"} and rewrite.additional_context == ("ctx",)


def test_copilot_other_events() -> None:
    post = COPILOT.decode("postToolUse", run(0, js({"modifiedResult": {"resultType": "success",
                                                                       "textResultForLlm": "x"},
                                                    "additionalContext": "c"})))
    assert post.updated_output == {"resultType": "success", "textResultForLlm": "x"}
    assert post.additional_context == ("c",)
    assert COPILOT.decode("postToolUse", run(1, "", "log")).failed
    warning = COPILOT.decode("postToolUse", run(2, "", "careful"))
    assert warning.decision == "none" and warning.system_message == "careful"
    perm = COPILOT.decode("permissionRequest", run(2, js({"message": "why"}), "ignored"))
    assert (perm.decision, perm.reason) == ("deny", "why")
    assert COPILOT.decode("permissionRequest", run(0, js({"behavior": "allow"}))).decision == "allow"
    # Documented as "exit 2 appends stdout"; measured on Copilot 1.0.102: the stdout is dropped.
    dropped = COPILOT.decode("postToolUseFailure", run(2, "hint\n"))
    assert dropped.additional_context == () and dropped.decision == "none"
    stop = COPILOT.decode("agentStop", run(0, js({"decision": "block", "reason": "run tests"})))
    assert (stop.decision, stop.reason) == ("block", "run tests")
    response = COPILOT.decode("subagentStop", run(0, js({"modifiedResponse": "short"})))
    assert response.updated_output == "short"
    dropped = COPILOT.decode("subagentStop", run(0, js({"decision": "block", "reason": "r",
                                                        "modifiedResponse": "short"})))
    assert dropped.updated_output is None
    prompt = COPILOT.decode("userPromptTransformed", run(0, js({"modifiedTransformedPrompt": "new"})))
    assert prompt.replacement_prompt == "new"
    empty = COPILOT.decode("userPromptTransformed", run(0, js({"modifiedTransformedPrompt": ""})))
    assert empty.replacement_prompt is None
    # Copilot CLI 1.0.102 appends a userPromptSubmitted additionalContext to the prompt, blocks the
    # prompt on decision "block" and reads modifiedPrompt as the prompt (vendor lane: prompt_context,
    # prompt_block, prompt_modified).
    submitted = COPILOT.decode("userPromptSubmitted", run(0, js({"additionalContext": "x", "decision": "block",
                                                                 "reason": "no", "other": 1})))
    assert submitted.additional_context == ("x",) and submitted.ignored == ("other",)
    assert (submitted.decision, submitted.reason) == ("block", "no")
    modified = COPILOT.decode("userPromptSubmitted", run(0, js({"modifiedPrompt": "new"})))
    assert modified.replacement_prompt == "new" and modified.decision == "none"
    pascal = COPILOT.decode("UserPromptSubmit", run(0, js({"additionalContext": "x", "decision": "block"})))
    assert pascal.decision == "none" and pascal.ignored == ("decision",)  # not measured in this format
    assert COPILOT.decode("sessionStart", run(0, js({"additionalContext": None}))) == HookAnswer()


def test_copilot_reads_hook_specific_output_on_pascal_pre_tool_use_alone() -> None:
    """Copilot CLI 1.0.102 (vendor lane, issue 34): a PascalCase PreToolUse answer nested in Claude's
    hookSpecificOutput counts (deny_json_pascal, pre_context_pascal_nested); on SessionStart,
    UserPromptSubmit, PostToolUse and Stop the nesting is ignored and only the top level counts
    (session_context_pascal_nested, stop_block_pascal_nested, …)."""
    pre = COPILOT.decode("PreToolUse", run(0, hso("PreToolUse", permissionDecision="deny",
                                                  permissionDecisionReason="r", additionalContext="c")))
    assert (pre.decision, pre.reason, pre.additional_context) == ("deny", "r", ("c",))
    for event, fields in (("SessionStart", {"additionalContext": "c"}), ("UserPromptSubmit", {"additionalContext": "c"}),
                          ("PostToolUse", {"additionalContext": "c"}), ("Stop", {"decision": "block", "reason": "r"})):
        nested = COPILOT.decode(event, run(0, hso(event, **fields)))
        assert nested.decision == "none" and nested.additional_context == (), event
        assert "hookSpecificOutput" in nested.ignored, event
        top = COPILOT.decode(event, run(0, js(fields)))
        assert top.additional_context == (("c",) if "additionalContext" in fields else ()), event
    stop = COPILOT.decode("Stop", run(0, js({"decision": "block", "reason": "r"})))
    assert (stop.decision, stop.reason) == ("block", "r")


def test_copilot_merge() -> None:
    allow = HookAnswer(decision="allow")
    deny = HookAnswer(decision="deny", reason="no")
    assert COPILOT.merge("preToolUse", [deny, allow]).decision == "deny"
    assert COPILOT.merge("permissionRequest", [deny, allow]).decision == "allow"  # later overrides
    stops = COPILOT.merge("agentStop", [HookAnswer(decision="block", reason="a"),
                                        HookAnswer(decision="block", reason="b")])
    assert stops.reason == "a\n\nb"
    blocked = COPILOT.merge("subagentStop", [HookAnswer(updated_output="r"),
                                             HookAnswer(decision="block", reason="x")])
    assert blocked.updated_output is None


# ── OpenCode ────────────────────────────────────────────────────────────────────────────────────

def test_opencode_payloads() -> None:
    before = OPENCODE.payload(moment("tool.execute.before", tool_name="read", tool_input={"path": ".env"},
                                     tool_use_id="call_7"))
    assert before == {"hook": "tool.execute.before",
                      "input": {"tool": "read", "sessionID": "sess-1", "callID": "call_7"},
                      "output": {"args": {"filePath": ".env"}}}
    after = OPENCODE.payload(moment("tool.execute.after", tool_name="bash", tool_input={"command": "ls"},
                                    tool_use_id="c", tool_response="a\n"))
    assert after["input"]["args"] == {"command": "ls"} and after["output"]["output"] == "a\n"
    idle = OPENCODE.payload(Moment(event="session.idle", session_id="ses_1", cwd="/w"))
    assert idle == {"hook": "event", "input": {"event": {"type": "session.idle",
                                                         "properties": {"sessionID": "ses_1"}}},
                    "output": None}
    edited = OPENCODE.payload(moment("file.edited", file_path="/w/a.py"))
    assert edited["input"]["event"]["properties"]["filePath"] == "/w/a.py"
    env = OPENCODE.payload(moment("shell.env"))
    assert env["input"]["cwd"] == "/w" and env["output"] == {"env": {}}
    perm = OPENCODE.payload(moment("permission", tool_name="bash", reason="network"))
    assert perm["input"]["permission"] == "bash" and perm["output"] == {"status": "ask"}
    assert OPENCODE.subject(moment("tool.execute.before", tool_name="bash")) == "bash"
    assert OPENCODE.encode(before).endswith(b"\n")


@pytest.mark.parametrize(("event", "matcher", "subject", "hit"), [
    ("tool.execute.before", None, "bash", True),
    ("tool.execute.before", "bash", "bash", True),
    ("tool.execute.before", "^b", "bash", True),
    ("tool.execute.before", "Bash", "bash", False),  # ids are lowercase
    ("tool.execute.before", "(", "bash", False),
    ("session.idle", "anything", None, True),
])
def test_opencode_matchers(event: str, matcher: str | None, subject: str | None, hit: bool) -> None:
    assert OPENCODE.matches(event, matcher, subject) is hit


def test_opencode_decoding() -> None:
    thrown = OPENCODE.decode("tool.execute.before", run(1, "", "Do not read .env files\n"))
    assert (thrown.decision, thrown.reason) == ("deny", "Do not read .env files")
    elsewhere = OPENCODE.decode("tool.execute.after", run(1, "", "boom"))
    assert elsewhere.decision == "none" and elsewhere.failed
    assert OPENCODE.decode("tool.execute.before", run(0, js({"throw": "no"}))).decision == "deny"
    deny = OPENCODE.decode("tool.execute.before", run(0, js({"decision": "deny", "reason": "r"})))
    assert (deny.decision, deny.reason) == ("deny", "r")
    args = OPENCODE.decode("tool.execute.before", run(0, js({"args": {"command": "ls -a"}})))
    assert args.updated_input == {"command": "ls -a"}
    out = OPENCODE.decode("tool.execute.after",
                          run(0, js({"output": "short", "additionalContext": ["a", "b"]})))
    assert out.updated_output == "short" and out.additional_context == ("a", "b")
    env = OPENCODE.decode("shell.env", run(0, js({"env": {"A": "1", "B": 2}})))
    assert env.env == {"A": "1"} and "env.B" in env.ignored
    assert OPENCODE.decode("permission", run(0, js({"status": "deny"}))).decision == "deny"
    assert OPENCODE.decode("permission.asked", run(0, js({"reply": "always"}))).decision == "allow"
    assert OPENCODE.decode("tool.execute.before", run(0, "hello")).decision == "none"
    assert OPENCODE.decode("tool.execute.before", run(0, "{oops")).failed
    timeout = OPENCODE.decode("tool.execute.before", run(None, timed_out=True))
    assert timeout.decision == "none" and timeout.failed
    idle = OPENCODE.decode("session.idle", run(0, js({"decision": "deny"})))
    assert idle.decision == "none" and idle.failed


def test_opencode_merge() -> None:
    merged = OPENCODE.merge("tool.execute.before", [
        HookAnswer(updated_input={"a": 1}), HookAnswer(decision="deny", reason="first"),
        HookAnswer(decision="deny", reason="second"), HookAnswer(updated_input={"b": 2})])
    assert (merged.decision, merged.reason) == ("deny", "first")
    assert merged.updated_input == {"a": 1, "b": 2}
    env = OPENCODE.merge("shell.env", [HookAnswer(env={"A": "1", "B": "1"}), HookAnswer(env={"B": "2"})])
    assert env.env == {"A": "1", "B": "2"}


def test_workbuddy_stop_context_does_not_continue() -> None:
    stop = WORKBUDDY.decode("Stop", run(0, hso("Stop", additionalContext="note")))
    assert stop.decision == "none" and stop.additional_context == ("note",)
    assert CLAUDE.decode("Stop", run(0, hso("Stop", additionalContext="note"))).decision == "block"


def test_workbuddy_stop_payload_is_what_codebuddy_sends() -> None:
    # CodeBuddy Code 2.163.0 sends Claude's background_tasks and session_crons on Stop (vendor lane).
    stop = WORKBUDDY.payload(moment("Stop", last_assistant_message="done"))
    assert stop["background_tasks"] == [] and stop["session_crons"] == []
    assert stop["is_truncation_recovery"] is False and stop["agent_type"] == "cli"
    assert "effort" not in stop and "effort" in CLAUDE.payload(moment("Stop", last_assistant_message="done"))


def test_codex_post_tool_continue_false_goes_on_with_a_reason_to_show() -> None:
    # Codex 0.171.0 goes on after a PostToolUse continue:false, and its terminal UI still shows
    # "Hook stopped" with the reason (lane case codex:post_halt, read off the screen).
    answer = CODEX.decode("PostToolUse", run(0, js({"continue": False, "stopReason": "review me"})))
    assert not answer.stop and answer.stop_reason == "review me" and "continue" in answer.ignored
    merged = CODEX.merge("PostToolUse", [CODEX.decode("PostToolUse", run(0, "")), answer])
    assert not merged.stop and merged.stop_reason == "review me"
    # A stopping hook's reason is the one a merge keeps.
    stops = CODEX.decode("Stop", run(0, js({"continue": False, "stopReason": "halt"})))
    assert CODEX.merge("Stop", [answer, stops]).stop_reason == "halt"


@pytest.mark.parametrize(("dialect", "defer_problem"), [(CLAUDE, None), (WORKBUDDY, "is not allow, deny or ask")])
def test_a_pre_tool_defer_is_claude_s_alone(dialect: Dialect, defer_problem: str | None) -> None:
    """CodeBuddy reads permissionDecision with Claude's code but knows no defer: there it is a schema
    break, where Claude takes it as no decision; an unknown value names the values each knows."""
    def read(value: str) -> Any:
        return dialect.read_json("PreToolUse", {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                                                      "permissionDecision": value}})
    deferred = read("defer")
    assert deferred.decision == "none"
    if defer_problem is None:
        assert deferred.problems == [] and deferred.ignored == ["permissionDecision:defer"]
    else:
        assert deferred.problems == [f"permissionDecision 'defer' {defer_problem}"]
    known = "allow, deny, ask or defer" if defer_problem is None else "allow, deny or ask"
    assert read("maybe").problems == [f"permissionDecision 'maybe' is not {known}"]
