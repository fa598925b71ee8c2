"""Grading is pure and host-aware: the same declaration grades differently on different surfaces."""

from __future__ import annotations

import pytest

from compat_adapter.catalog import vendors
from compat_adapter.declare import declare_hook
from compat_adapter.errors import InvalidDeclaration, InvalidHandler, InvalidMatcher, UnknownEvent, UnknownVendor
from compat_adapter.grading import grade, grade_rules, grade_runtime
from compat_adapter.host.surfaces import CLAUDE_BRIDGE, EMBEDDED_SURFACE
from compat_adapter.model import Capability, DegradationCode, Route

FULL = EMBEDDED_SURFACE
NO_SHELL = EMBEDDED_SURFACE.without(services=["shell"])
NO_BRIDGE = EMBEDDED_SURFACE.without(bridges=[CLAUDE_BRIDGE])
NO_QUESTIONS = EMBEDDED_SURFACE.without(seams=["user-questions/request"])


def hook(vendor: str, event: str, matcher: str | None = None, handler: object = "true"):
    return declare_hook(vendor, event, matcher, handler)


def test_full_surface_adapts_with_the_rows_losses() -> None:
    r = grade(hook("claude", "PreToolUse", "Bash"), FULL)
    assert r.capability is Capability.ADAPTED
    assert r.route is Route.NATIVE_TRANSLATE and r.point == "tools/pre-execute"
    assert r.seams == ("tools/pre-execute",)
    # An input rewrite runs (as a nested call), so the native route lists no ignored rewrite.
    assert not any(d.code is DegradationCode.INPUT_REWRITE_IGNORED for d in r.degradations)
    assert any(d.code is DegradationCode.DECISION_NARROWED and "nested call" in d.text for d in r.degradations)
    # The grade names the other route and what it would lose that this one does not.
    assert r.alternative and r.alternative.startswith("official-bridge would lose more: ")
    assert "timing-differs" in r.alternative and "exit-code-differs" in r.alternative
    official = grade(hook("claude", "PreToolUse", "Bash"), FULL, prefer="official")
    assert official.route is Route.OFFICIAL_BRIDGE and official.point == "PreToolUse"
    assert official.alternative and official.alternative.startswith("native-translate would lose more: ")
    assert {d.code for d in official.degradations} >= {DegradationCode.TIMING_DIFFERS,
                                                       DegradationCode.EXIT_CODE_DIFFERS}
    with pytest.raises(ValueError):
        grade(hook("claude", "PreToolUse", "Bash"), FULL, prefer="bridge")


def test_no_shell_refuses_command_hooks_but_rules_still_carry() -> None:
    r = grade(hook("copilot", "preToolUse"), NO_SHELL)
    assert r.capability is Capability.UNSUPPORTED
    assert "no shell executor" in (r.reason or "")
    assert not r.mounted
    assert grade_rules("copilot", NO_SHELL).capability is Capability.CARRY


def test_missing_bridge_package_is_named_never_replaced() -> None:
    r = grade(hook("claude", "Stop"), NO_BRIDGE, prefer="official")
    assert r.capability is Capability.UNSUPPORTED
    assert CLAUDE_BRIDGE in (r.reason or "")
    # By default Stop is translated natively and needs no bridge; the grade says the bridge is missing.
    native = grade(hook("claude", "Stop"), NO_BRIDGE)
    assert native.capability is Capability.ADAPTED and native.route is Route.NATIVE_TRANSLATE
    assert native.alternative and CLAUDE_BRIDGE in native.alternative
    # A natively translated row of the same vendor does not need the bridge.
    assert grade(hook("claude", "Notification"), NO_BRIDGE).capability is Capability.ADAPTED
    # Codex's bridge is still there.
    assert grade(hook("codex", "Stop"), NO_BRIDGE).capability is Capability.ADAPTED


def test_missing_seam_is_named() -> None:
    r = grade(hook("claude", "Elicitation"), NO_QUESTIONS)
    assert r.capability is Capability.UNSUPPORTED
    assert "user-questions/request" in (r.reason or "")


def test_missing_service_is_named() -> None:
    r = grade(hook("claude", "FileChanged"), FULL.without(services=["fs.watch"]))
    assert r.capability is Capability.UNSUPPORTED and "fs.watch" in (r.reason or "")


def test_callable_handler_is_unsupported_not_an_error() -> None:
    r = grade(hook("opencode", "tool.execute.before", handler=lambda *a: None), FULL)
    assert r.capability is Capability.UNSUPPORTED
    assert "foreign code" in (r.reason or "")


@pytest.mark.parametrize("kind", ["http", "mcp_tool", "prompt", "agent"])
def test_malformed_non_command_handlers_raise(kind: str) -> None:
    # Every kind is run here (tests/test_handlers.py); one that lacks what it needs (a http:// url,
    # a server and tool, a prompt) is a malformed handler.
    with pytest.raises(InvalidHandler) as err:
        hook("claude", "PreToolUse", handler={"type": kind, "url": "x"})
    assert err.value.code == "INVALID_HANDLER"


@pytest.mark.parametrize("handler", ["", "   ", {"type": "command"}, {"type": "command", "command": 3},
                                     {"type": "command", "command": "x", "timeout": -1}, 42, None,
                                     {"type": "carrier-pigeon", "command": "x"}])
def test_bad_handlers_raise(handler: object) -> None:
    with pytest.raises(InvalidHandler):
        hook("claude", "PreToolUse", handler=handler)


def test_handler_shapes() -> None:
    d = hook("claude", "PreToolUse", handler={"type": "command", "command": "echo hi", "timeout": 5})
    assert d.handler and d.handler.command == "echo hi" and d.handler.timeout_s == 5
    c = hook("copilot", "preToolUse", handler={"bash": "./guard.sh", "cwd": "scripts",
                                                 "env": {"A": "1"}, "timeoutSec": 9})
    assert c.handler and c.handler.command == "./guard.sh" and c.handler.cwd == "scripts"
    assert c.handler.env == (("A", "1"),) and c.handler.timeout_s == 9
    with pytest.raises(InvalidHandler, match="powershell"):
        hook("copilot", "preToolUse", handler={"powershell": "guard.ps1"})


@pytest.mark.parametrize("matcher", [3, ["Bash"], {"tool": "Bash"}, True])
def test_non_string_matcher_raises(matcher: object) -> None:
    with pytest.raises(InvalidMatcher):
        hook("claude", "PreToolUse", matcher=matcher)


def test_uncompilable_matcher_raises_where_it_would_break_a_bridge_config() -> None:
    with pytest.raises(InvalidMatcher):
        hook("claude", "PreToolUse", matcher="Bash(")
    with pytest.raises(InvalidMatcher):
        hook("codex", "PreToolUse", matcher="[")
    # Copilot itself skips such a hook; the built-in bridge reproduces that instead of raising.
    assert hook("copilot", "preToolUse", matcher="[").matcher == "["


def test_unknown_vendor_and_event_raise() -> None:
    with pytest.raises(UnknownVendor):
        hook("kiro", "PreToolUse")
    with pytest.raises(UnknownEvent):
        hook("claude", "BeforeEverything")


def test_bad_id_raises() -> None:
    with pytest.raises(InvalidDeclaration):
        declare_hook("claude", "Stop", None, "true", id="  ")


def test_matcher_naming_a_tool_without_host_counterpart_is_a_listed_loss() -> None:
    r = grade(hook("claude", "PreToolUse", "Bash|WebFetch"), FULL)
    narrowed = [d for d in r.degradations if d.code is DegradationCode.MATCHER_NARROWED]
    assert any("WebFetch" in d.text for d in narrowed)


def test_plugin_runtimes_are_unsupported_with_a_reason() -> None:
    for vendor in (s.id for s in vendors()):
        r = grade_runtime(vendor)
        assert r.capability is Capability.UNSUPPORTED and r.reason


def test_grading_is_deterministic_and_pure() -> None:
    d = hook("codex", "PreToolUse", "Bash")
    assert grade(d, FULL) == grade(d, FULL)


def test_a_matcher_on_an_event_without_matchers_is_a_listed_loss() -> None:
    r = grade(hook("opencode", "tool.execute.before", "read"), FULL)
    assert any(d.code is DegradationCode.MATCHER_NARROWED and "is ignored" in d.text for d in r.degradations)
    plain = grade(hook("opencode", "tool.execute.before"), FULL)
    assert not any("is ignored" in d.text for d in plain.degradations)


def test_a_host_with_other_seam_modes_grades_with_that_loss() -> None:
    from compat_adapter.host.protocol import SeamMode

    emit_created = FULL.model_copy(update={"seams": {**FULL.seams, "agent/created": SeamMode.EMIT}})
    r = grade(hook("copilot", "sessionStart"), emit_created)
    assert r.capability is Capability.ADAPTED
    assert any("emit seam, not serial" in d.text for d in r.degradations)
    assert not any("emit seam" in d.text for d in grade(hook("copilot", "sessionStart"), FULL).degradations)
    rules = grade_rules("claude", emit_created)
    assert rules.capability is Capability.CARRY and rules.degradations
    emit_pre = FULL.model_copy(update={"seams": {**FULL.seams, "tools/pre-execute": SeamMode.EMIT}})
    refused = grade(hook("copilot", "preToolUse"), emit_pre)
    assert refused.capability is Capability.UNSUPPORTED and "no answer can reach it" in (refused.reason or "")
    observed = grade(hook("copilot", "sessionEnd"), emit_created)
    assert not any("emit seam" in d.text for d in observed.degradations)


@pytest.mark.parametrize("vendor, event", [("claude", "SubagentStop"), ("codex", "SubagentStop"),
                                           ("copilot", "subagentStop")])
def test_a_host_whose_subagents_run_beside_the_parent_lists_when_a_subagent_ends(vendor: str, event: str) -> None:
    """DSH 0.2.1's subagent tool returns at once: a child ends in whatever turn its parent is in by
    then, so a subagent-end row there lists timing-differs (a Codex turn_id names that turn); the
    embedded host, whose parent waits for its child, lists nothing of it."""
    from compat_adapter.host.dsh.surface import DSH_SURFACE

    def timing(surface: object) -> list[str]:
        return [d.text for d in grade(hook(vendor, event), surface).degradations  # type: ignore[arg-type]
                if d.code is DegradationCode.TIMING_DIFFERS and "beside its parent" in d.text]

    [text] = timing(DSH_SURFACE)
    assert text.startswith("On dsh 0.2.1-rc.2 a subagent runs beside its parent") and "a turn the payload" in text
    assert timing(FULL) == []
