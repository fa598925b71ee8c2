"""The five vendor tables: pure data, the reference figures, aliases and tool vocabularies."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

import vendors
from compat_adapter.catalog import host_tool, resolve_event, resolve_vendor, vendor_tool
from compat_adapter.errors import UnknownEvent, UnknownVendor
from compat_adapter.model import DegradationCode, Route

VENDOR_DIR = Path(vendors.__file__).parent
EXPECTED_EVENTS = {"claude": 33, "codex": 12, "workbuddy": 24, "opencode": 29, "copilot": 14}
APPROXIMATE = {
    ("claude", "MessageDisplay"), ("claude", "StopFailure"), ("codex", "Interrupt"),
    ("workbuddy", "Elicitation"), ("workbuddy", "ElicitationResult"),
    ("opencode", "installation.updated"), ("opencode", "server.connected"),
    ("opencode", "session.deleted"), ("opencode", "session.updated"), ("opencode", "tui.toast.show"),
}
ALLOWED_CALLS = {"EventRow", "VendorSpec", "RulesSpec", "ToolName", "Surface", "degrade"}


@pytest.mark.parametrize("path", sorted(VENDOR_DIR.glob("*.py")), ids=lambda p: p.name)
def test_vendor_modules_hold_data_only(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        assert not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda
                              | ast.ListComp | ast.DictComp | ast.SetComp | ast.GeneratorExp
                              | ast.With | ast.AsyncWith | ast.Global), (path.name, ast.dump(node)[:80])
        if isinstance(node, ast.ImportFrom):
            assert node.module == "compat_adapter.model" or (node.module or "").startswith("vendors"), node.module
        if isinstance(node, ast.Import):
            raise AssertionError(f"{path.name} imports {[a.name for a in node.names]}")
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "?")
            assert name in ALLOWED_CALLS, f"{path.name} calls {name}"


def test_event_counts_match_the_reference() -> None:
    counts = {spec.id: len(spec.events) for spec in vendors.VENDORS}
    assert counts == EXPECTED_EVENTS
    assert sum(counts.values()) == 112


def test_route_totals() -> None:
    routes = Counter(row.route for spec in vendors.VENDORS for row in spec.events)
    assert routes == {Route.OFFICIAL_BRIDGE: 17, Route.NATIVE_TRANSLATE: 80, Route.NATIVE_SEAM: 5,
                      Route.BUILTIN_BRIDGE: 10}


def test_approximate_rows_are_exactly_the_ten() -> None:
    found = {(spec.id, row.event) for spec in vendors.VENDORS for row in spec.events
             if any(d.code is DegradationCode.APPROXIMATE for d in row.degradations)}
    assert found == APPROXIMATE


def test_every_row_lists_losses_and_names_where_it_lands() -> None:
    for spec in vendors.VENDORS:
        for row in spec.events:
            assert row.degradations, (spec.id, row.event)
            assert row.seams or row.services, (spec.id, row.event)
            assert all(d.text.strip() for d in row.degradations)


def test_workbuddy_rows_all_say_there_is_no_public_api() -> None:
    spec = resolve_vendor("workbuddy")
    assert all(any(d.code is DegradationCode.NO_PUBLIC_API for d in r.degradations) for r in spec.events)


def test_copilot_and_opencode_own_translation_markers() -> None:
    assert all(any(d.code is DegradationCode.OWN_TRANSLATION for d in r.degradations)
               for r in resolve_vendor("copilot").events)
    assert all(any(d.code is DegradationCode.REAUTHORED for d in r.degradations)
               for r in resolve_vendor("opencode").events)


@pytest.mark.parametrize(("alias", "vendor"), [
    ("claude", "claude"), ("claude-code", "claude"), ("cc", "claude"), ("codex", "codex"),
    ("openai-codex", "codex"), ("workbuddy", "workbuddy"), ("codebuddy", "workbuddy"),
    ("opencode", "opencode"), ("copilot", "copilot"), ("github-copilot", "copilot"),
    ("Claude-Code", "claude"),
])
def test_aliases(alias: str, vendor: str) -> None:
    assert resolve_vendor(alias).id == vendor


@pytest.mark.parametrize("bad", ["cursor", "", None, 3, "claude code"])
def test_unknown_vendor_raises(bad: object) -> None:
    with pytest.raises(UnknownVendor) as err:
        resolve_vendor(bad)
    assert err.value.code == "UNKNOWN_VENDOR"


def test_unknown_event_raises_and_spelling_is_exact() -> None:
    claude = resolve_vendor("claude")
    assert resolve_event(claude, "PreToolUse").event == "PreToolUse"
    for bad in ("preToolUse", "PreToolUse ", "Nope", None):
        with pytest.raises(UnknownEvent):
            resolve_event(claude, bad)
    copilot = resolve_vendor("copilot")
    with pytest.raises(UnknownEvent):
        resolve_event(copilot, "PreToolUse")


def test_bridges_and_tool_vocabulary() -> None:
    assert resolve_vendor("claude").bridge_package == "@deepseek-ai/dsh-hooks-claude-code"
    assert resolve_vendor("workbuddy").bridge_package == "@deepseek-ai/dsh-hooks-claude-code"
    assert resolve_vendor("codex").bridge_package == "@deepseek-ai/dsh-hooks-codex"
    assert resolve_vendor("copilot").bridge_package is None
    assert host_tool("claude", "Bash") == "bash"
    assert host_tool("claude", "WebFetch") is None
    assert vendor_tool("claude", "bash") == "Bash"
    assert host_tool("codex", "apply_patch") == "edit"
    assert host_tool("copilot", "bash") == "bash"
    assert vendor_tool("claude", "no_such_tool") == "no_such_tool"


def test_rules_and_runtime_described_for_every_vendor() -> None:
    for spec in vendors.VENDORS:
        assert spec.rules.formats and spec.rules.default_sources and spec.rules.note
        assert spec.plugin_runtime


def test_rows_that_fire_on_part_of_a_seam_say_which_part() -> None:
    partial = {(spec.id, row.event): row.fires_on for spec in vendors.VENDORS for row in spec.events
               if row.fires_on != "any"}
    assert partial == {
        ("claude", "PostToolUseFailure"): "failure", ("workbuddy", "PostToolUseFailure"): "failure",
        ("copilot", "postToolUseFailure"): "failure", ("copilot", "postToolUse"): "success",
        ("claude", "TeammateIdle"): "idle", ("workbuddy", "TeammateIdle"): "idle",
        ("codex", "Interrupt"): "idle", ("opencode", "session.idle"): "idle",
        ("workbuddy", "Elicitation"): "idle", ("workbuddy", "ElicitationResult"): "idle",
    }
    assert {s.id: s.shell for s in vendors.VENDORS} == {
        "claude": "sh", "codex": "sh", "workbuddy": "user", "opencode": "sh", "copilot": "bash"}
