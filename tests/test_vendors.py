"""The registered vendors' tables: pure data, the reference figures, aliases and tool vocabularies.

Figures are derived from the registry; what is pinned per vendor is reference data (what each
vendor's own documentation says), keyed by vendor id, and a vendor added later states its own.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import vendors
from compat_adapter.catalog import host_tool, resolve_event, resolve_vendor, vendor_tool, vendors as registered
from compat_adapter.errors import UnknownEvent, UnknownVendor
from compat_adapter.matrix import build_matrix
from compat_adapter.model import __all__ as MODEL_FACTS
from compat_adapter.model import DegradationCode, EventRow, Route, SeamMode, Surface, VendorSpec, degrade
from vendors.surface import TABLE_SURFACE

VENDORS = registered()

VENDOR_DIR = Path(vendors.__file__).parent
#: The data-only modules: each unit's table, and the data the units share.
DATA_MODULES = sorted([*VENDOR_DIR.glob("*.py"), *VENDOR_DIR.glob("*/table.py"), *VENDOR_DIR.glob("*/__init__.py"),
                       VENDOR_DIR / "opencode" / "plugins.py"])
EXPECTED_EVENTS = {"claude": 32, "codex": 12, "workbuddy": 27, "opencode": 29, "copilot": 25, "gemini": 9, "qwen": 21,
                   "cursor": 23, "factory": 9, "continue": 17, "kimi": 14, "crush": 1, "windsurf": 8, "kilo": 29,
                   "cline": 5}
APPROXIMATE = {
    ("claude", "MessageDisplay"), ("claude", "StopFailure"), ("codex", "Interrupt"),
    ("workbuddy", "Elicitation"), ("workbuddy", "ElicitationResult"),
    ("opencode", "installation.updated"), ("opencode", "server.connected"),
    ("opencode", "session.deleted"), ("opencode", "session.updated"), ("opencode", "tui.toast.show"),
    ("qwen", "MessageDisplay"), ("qwen", "StopFailure"),
    ("kimi", "StopFailure"),  # Claude's row, which Kimi's derives from
    # OpenCode's rows, which Kilo's derive from.
    ("kilo", "installation.updated"), ("kilo", "server.connected"), ("kilo", "session.deleted"),
    ("kilo", "session.updated"), ("kilo", "tui.toast.show"),
    ("cline", "TaskError"),  # Claude's StopFailure row, which Cline's derives from
    ("cline", "PreToolUse"),  # several rewritten commands run as one script here
}
#: ``model_construct`` and ``frozenset`` only for the table surface (vendors/surface.py says why);
#: ``derive_row`` for a row that is another vendor's row of the same event with its own losses.
ALLOWED_CALLS = {"BridgeSpec", "EventRow", "VendorSpec", "RulesSpec", "ToolName", "Surface", "degrade", "HookVar",
                 "model_construct", "frozenset", "MatcherEngine", "UnsupportedVendor", "derive_row"}
#: What a data module may import from the author API: the model's facts, and the row derivation.
FACTS = (*MODEL_FACTS, "derive_row")


@pytest.mark.parametrize("path", DATA_MODULES, ids=lambda p: str(p.relative_to(VENDOR_DIR)))
def test_vendor_modules_hold_data_only(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        assert not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda
                              | ast.ListComp | ast.DictComp | ast.SetComp | ast.GeneratorExp
                              | ast.With | ast.AsyncWith | ast.Global), (path.name, ast.dump(node)[:80])
        if isinstance(node, ast.ImportFrom):
            # The product through the author API (tests/test_house.py), and from it the facts only.
            assert node.module == "compat_adapter.vendor" or (node.module or "").startswith("vendors"), node.module
            if node.module == "compat_adapter.vendor":
                assert {a.name for a in node.names} <= set(FACTS), (path.name, [a.name for a in node.names])
        if isinstance(node, ast.Import):
            raise AssertionError(f"{path.name} imports {[a.name for a in node.names]}")
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "?")
            assert name in ALLOWED_CALLS, f"{path.name} calls {name}"


def test_every_registered_vendor_has_its_reference_figures_here() -> None:
    """A vendor added later states what its own documentation says (its event count, the events it
    can block on, its approximate rows), so that its table is checked against something it did
    not write itself."""
    ids = {spec.id for spec in VENDORS}
    for name, figures in (("EXPECTED_EVENTS", set(EXPECTED_EVENTS)), ("CAN_BLOCK", set(CAN_BLOCK))):
        assert figures == ids, f"{name} in tests/test_vendors.py lacks {sorted(ids - figures)} or names others"
    assert {vendor for vendor, _ in APPROXIMATE} <= ids


def test_event_counts_match_the_reference() -> None:
    counts = {spec.id: len(spec.events) for spec in VENDORS}
    assert counts == EXPECTED_EVENTS
    # Every row is one matrix row (the generated docs/support-matrix.md is the one pinned snapshot).
    assert len(build_matrix().hooks) == sum(counts.values())


def test_route_totals() -> None:
    # The seed's matrix labels 80 rows native-translate and 5 native-seam; 24 of its native-translate
    # rows only watch an event the vendor acts on, and Claude's SessionEnd is an event Claude itself
    # only watches, so the labels here say what each row does (see the next test).
    # Fidelity first: the 17 rows the seed sent through the host's official bridges are translated
    # here with the vendor's own semantics, and keep the bridge as their official alternative.
    # The totals are the generated matrix's (docs/support-matrix.md, drift-checked); here, what makes
    # them: every row takes a route of its own (none the official bridge), and every official
    # alternative is the official bridge.
    routes = Counter(row.route for spec in VENDORS for row in spec.events)
    assert set(routes) <= {Route.NATIVE_TRANSLATE, Route.NATIVE_SEAM, Route.BUILTIN_BRIDGE}
    official = Counter(row.official.route for spec in VENDORS for row in spec.events if row.official)
    assert set(official) == {Route.OFFICIAL_BRIDGE}


#: Events whose hook answer can block, deny or keep the agent going in the vendor itself, from
#: each vendor's own event table (reference/vendor-protocols.md: Claude §1.2, Codex §2.2,
#: CodeBuddy §3.2, OpenCode §4.2, Copilot §5.2).
CAN_BLOCK = {
    # Cline 3.0.65: only PreToolUse and PostToolUse are awaited; cancel ends the run on either.
    "cline": {"PreToolUse", "PostToolUse"},
    # Crush (its source, internal/hooks): PreToolUse is its one event, and it denies.
    "crush": {"PreToolUse"},
    # Windsurf's docs: exit 2 blocks on its pre-hooks (the MCP one is unserved here).
    "windsurf": {"pre_read_code", "pre_write_code", "pre_run_command", "pre_user_prompt"},
    # Kimi Code 2.1.0: a block is read on PreToolUse and Stop only (triggerBlock in its release).
    "kimi": {"PreToolUse", "Stop"},
    # Continue's cn 1.5.47 (its hook runner's source): a block is read on every event, but acts only
    # where Claude's would (its rows are Claude's).
    "continue": {"PreToolUse", "PermissionRequest", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact",
                 "TaskCompleted", "TeammateIdle", "ConfigChange", "WorktreeCreate"},
    # Factory Droid 0.215.0: Claude's blocking events among its nine (its hooks reference copies Claude's).
    "factory": {"UserPromptSubmit", "PreToolUse", "SubagentStop", "Stop", "PreCompact"},
    "claude": {"UserPromptSubmit", "UserPromptExpansion", "PreToolUse", "PermissionRequest",
               "PostToolBatch", "SubagentStop", "TaskCreated", "TaskCompleted", "Stop", "TeammateIdle",
               "ConfigChange", "WorktreeCreate", "PreCompact", "Elicitation", "ElicitationResult"},
    "codex": {"PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact", "PostCompact",
              "UserPromptSubmit", "SubagentStop", "Stop"},
    "workbuddy": {"PreToolUse", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact"},
    "opencode": {"tool.execute.before", "permission", "permission.asked"},
    "kilo": {"tool.execute.before", "permission", "permission.asked"},  # OpenCode's rows (vendors/kilo/spec.py)
    "copilot": {"preToolUse", "permissionRequest", "agentStop", "subagentStop"},
    # Gemini CLI 0.61.0's hooks reference and hook runner; BeforeModel blocks the model call (its row
    # refuses the step); AfterModel can block too, but has no row (no seam serves it: the table's unserved).
    "gemini": {"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel"},
    # Qwen Code 0.24.4's hook runner (its release bundle): what each event's caller reads of an answer.
    "qwen": {"PreToolUse", "PostToolUse", "PostToolBatch", "UserPromptSubmit", "UserPromptExpansion", "Stop",
             "SubagentStop", "PermissionRequest", "TodoCreated", "TodoCompleted"},
    # Cursor's docs (cursor.com/docs/hooks): a permission, continue or followup_message answer; the
    # MCP gate (beforeMCPExecution) is unserved here. Its Claude-file rows block as their Cursor events.
    "cursor": {"preToolUse", "subagentStart", "subagentStop", "beforeShellExecution", "beforeReadFile",
               "beforeSubmitPrompt", "stop", "PreToolUse", "UserPromptSubmit", "Stop", "SubagentStop"},
}


def test_route_labels_agree_with_what_each_row_does() -> None:
    """native-seam ⇔ the row only watches and says what that loses; a row that only watches an
    event the vendor can block says so with an observe-only loss and is labelled native-seam
    (a bridged row keeps its bridge's label: the route names who runs it)."""
    for spec in VENDORS:
        assert CAN_BLOCK[spec.id] <= {row.event for row in spec.events}, spec.id
        for row in spec.events:
            observe_only = any(d.code is DegradationCode.OBSERVE_ONLY for d in spec.losses_for(row))
            where = (spec.id, row.event)
            if row.route is Route.NATIVE_SEAM:
                assert row.blocking == "observe" and observe_only, where
            if row.blocking == "observe" and row.event in CAN_BLOCK[spec.id]:
                assert observe_only, where
                assert row.route in (Route.NATIVE_SEAM, Route.OFFICIAL_BRIDGE, Route.BUILTIN_BRIDGE), where
            if row.route is Route.NATIVE_TRANSLATE and row.blocking == "observe":
                assert not observe_only and row.event not in CAN_BLOCK[spec.id], where
            if observe_only:
                assert row.blocking == "observe", where


@pytest.mark.parametrize(("route", "blocking", "loss", "problem"), [
    ("native-seam", "observe", "timing-differs", "observe-only loss"),
    ("native-translate", "observe", "observe-only", "is native-seam"),
    ("native-seam", "verdict", "observe-only", "reaches nothing"),
])
def test_a_row_whose_label_disagrees_is_refused(route: str, blocking: str, loss: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        EventRow(event="X", route=route, seams=("session/event",), point="p", blocking=blocking,
                 degradations=(degrade(loss, "what is lost"),))


def test_approximate_rows_are_exactly_the_ten() -> None:
    found = {(spec.id, row.event) for spec in VENDORS for row in spec.events
             if any(d.code is DegradationCode.APPROXIMATE for d in spec.losses_for(row))}
    assert found == APPROXIMATE


def test_every_row_lists_losses_and_names_where_it_lands() -> None:
    for spec in VENDORS:
        for row in spec.events:
            assert spec.losses_for(row), (spec.id, row.event)
            assert row.seams or row.services, (spec.id, row.event)
            assert all(d.text.strip() for d in spec.losses_for(row))


def test_workbuddy_rows_all_say_there_is_no_public_api() -> None:
    spec = resolve_vendor("workbuddy")
    assert all(any(d.code is DegradationCode.NO_PUBLIC_API for d in spec.losses_for(r)) for r in spec.events)


def test_copilot_and_opencode_own_translation_markers() -> None:
    copilot, opencode = resolve_vendor("copilot"), resolve_vendor("opencode")
    assert all(any(d.code is DegradationCode.OWN_TRANSLATION for d in copilot.losses_for(r))
               for r in copilot.events)
    assert all(any(d.code is DegradationCode.REAUTHORED for d in opencode.losses_for(r))
               for r in opencode.events)


@pytest.mark.parametrize(("alias", "vendor"), [
    ("claude", "claude"), ("claude-code", "claude"), ("cc", "claude"), ("codex", "codex"),
    ("openai-codex", "codex"), ("workbuddy", "workbuddy"), ("codebuddy", "workbuddy"),
    ("opencode", "opencode"), ("copilot", "copilot"), ("github-copilot", "copilot"),
    ("Claude-Code", "claude"),
])
def test_aliases(alias: str, vendor: str) -> None:
    assert resolve_vendor(alias).id == vendor


@pytest.mark.parametrize("bad", ["kiro", "", None, 3, "claude code"])
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
    # Copilot has both spellings (its own format and the Claude-compatible one), and only those.
    assert resolve_event(copilot, "PreToolUse").event == "PreToolUse"
    for bad in ("Notification", "preToolUse ", "SubagentStart"):
        with pytest.raises(UnknownEvent):
            resolve_event(copilot, bad)


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
    for spec in VENDORS:
        assert spec.rules.formats and spec.rules.default_sources and spec.rules.note
        assert spec.plugin_runtime


def test_rows_that_fire_on_part_of_a_seam_say_which_part() -> None:
    partial = {(spec.id, row.event): row.fires_on for spec in VENDORS for row in spec.events
               if row.fires_on != "any"}
    assert partial == {
        # CodeBuddy: a Bash command that ran and ended non-zero is a PostToolUse (lane, 2.163.0).
        ("claude", "PostToolUseFailure"): "failure", ("workbuddy", "PostToolUseFailure"): "incomplete",
        ("claude", "PostToolUse"): "success", ("workbuddy", "PostToolUse"): "completed",
        ("copilot", "postToolUseFailure"): "incomplete", ("copilot", "postToolUse"): "completed",
        ("copilot", "PostToolUseFailure"): "incomplete", ("copilot", "PostToolUse"): "completed",
        ("claude", "TeammateIdle"): "idle", ("workbuddy", "TeammateIdle"): "idle",
        ("codex", "Interrupt"): "idle", ("opencode", "session.idle"): "idle",
        ("workbuddy", "Elicitation"): "idle", ("workbuddy", "ElicitationResult"): "idle",
        # An agent waiting for the user is the host's one notification (idle_prompt).
        ("claude", "Notification"): "idle", ("workbuddy", "Notification"): "idle",
        ("copilot", "notification"): "idle",
        # Only a rejection the host's approval service records (OpenCode's permission.replied: every reply).
        ("claude", "PermissionDenied"): "rejected", ("workbuddy", "PermissionDenied"): "rejected",
        # Qwen: a shell command that ran and exited non-zero is a PostToolUseFailure (lane, 0.24.4).
        ("qwen", "PostToolUse"): "success", ("qwen", "PostToolUseFailure"): "failure",
        ("qwen", "Notification"): "idle", ("qwen", "PermissionDenied"): "rejected",
        # One todo/write snapshot: the items it adds, the items it completes (Claude's Task*, Qwen's Todo*).
        ("claude", "TaskCreated"): "created", ("claude", "TaskCompleted"): "done",
        ("workbuddy", "TaskCreated"): "created", ("workbuddy", "TaskCompleted"): "done",
        ("qwen", "TodoCreated"): "created", ("qwen", "TodoCompleted"): "done",
        # Qwen runs UserPromptSubmit again on every tool continuation (lane, 0.24.4).
        ("qwen", "UserPromptSubmit"): "every-step",
        # Gemini runs PreCompress before every model request, a tool continuation's too (lane, 0.61.0).
        ("gemini", "PreCompress"): "every-step",
        # Gemini's BeforeModel: before every model call, tool continuations included.
        ("gemini", "BeforeModel"): "every-step",
        # Cursor's docs: postToolUse "after successful tool execution", postToolUseFailure when a tool
        # "fails, times out, or is denied", afterShellExecution after a command runs, afterFileEdit after
        # an edit (a shell command's own non-zero exit is read as a completed call: a listed loss).
        ("cursor", "postToolUse"): "completed", ("cursor", "PostToolUse"): "completed",
        ("cursor", "postToolUseFailure"): "incomplete", ("cursor", "afterShellExecution"): "completed",
        ("cursor", "afterFileEdit"): "success",
        # Factory Droid's rows are Claude's (vendors/factory/spec.py derives them).
        ("factory", "Notification"): "idle", ("factory", "PostToolUse"): "success",
        # Continue's too (vendors/cn/spec.py).
        ("continue", "PostToolUse"): "success", ("continue", "PostToolUseFailure"): "failure",
        ("kimi", "PostToolUse"): "success", ("kimi", "PostToolUseFailure"): "failure", ("kimi", "Notification"): "idle",
        ("continue", "Notification"): "idle", ("continue", "TaskCompleted"): "done", ("continue", "TeammateIdle"): "idle",
        # Windsurf's rows are Cursor's of the same host points (vendors/windsurf/spec.py): a read or a write
        # that succeeded, a command that ran.
        ("windsurf", "post_read_code"): "success", ("windsurf", "post_write_code"): "success",
        ("windsurf", "post_run_command"): "completed",
        ("kilo", "session.idle"): "idle",  # OpenCode's row, which Kilo's derives from
    }
    assert {s.id: s.shell for s in VENDORS} == {
        # Codex 0.171 runs a hook command as /bin/bash -c (its lane: a redirection it cannot open exits 1).
        "claude": "sh", "codex": "bash", "workbuddy": "user", "opencode": "sh", "copilot": "bash",
        "gemini": "bash", "qwen": "bash",  # Gemini CLI 0.61.0 getShellConfiguration(): bash -c on POSIX
        "cursor": "sh", "factory": "sh", "continue": "sh", "kimi": "sh", "cline": "sh",
        "crush": "sh", "windsurf": "sh", "kilo": "sh"}  # Crush: its embedded POSIX interpreter, read as sh -c (a listed loss)  # Droid: Claude's, as its table derives it (not measured)


# ── each loss stated once, at its scope ─────────────────────────────────────────────────────────

def test_a_loss_is_written_once_at_its_scope() -> None:
    """No row repeats what its vendor or its bridge already states, and no loss is listed twice."""
    for spec in VENDORS:
        shared = set(spec.losses)
        if spec.bridge:
            b = spec.bridge
            shared |= {*b.losses, *b.answer_losses, *b.block_losses, *b.tool_losses}
        for row in spec.events:
            assert not shared & set(row.degradations), (spec.id, row.event)
            losses = spec.losses_for(row)
            assert len(set(losses)) == len(losses), (spec.id, row.event)


def test_results_list_the_vendor_the_row_and_the_bridge_losses() -> None:
    """Grading composes the scopes: every result still lists every loss of its row."""
    m = build_matrix()
    for spec in VENDORS:
        for row in spec.events:
            [result] = [h for h in m.hooks if (h.vendor, h.event) == (spec.id, row.event)]
            listed = set(result.degradations)
            assert set(spec.losses) <= listed and set(row.degradations) <= listed, (spec.id, row.event)
            bridged = row.route is Route.OFFICIAL_BRIDGE
            assert spec.bridge is not None or not bridged
            if spec.bridge is not None:
                assert set(spec.bridge.losses) <= listed if bridged else not set(spec.bridge.losses) & listed


def test_bridge_losses_reach_the_rows_they_are_true_of() -> None:
    claude = resolve_vendor("claude").bridge
    assert claude is not None
    pre = resolve_event(resolve_vendor("claude"), "PreToolUse").official
    stop = resolve_event(resolve_vendor("claude"), "SubagentStop").official
    assert pre is not None and stop is not None
    assert set(claude.tool_losses) <= set(claude.losses_for(pre))
    assert set(claude.answer_losses) <= set(claude.losses_for(pre))
    # SubagentStop only observes and takes no tool matcher: its answer is never read.
    assert not set(claude.answer_losses + claude.tool_losses) & set(claude.losses_for(stop))
    codex = resolve_vendor("codex")
    assert codex.bridge is not None and codex.bridge.block_losses
    start = resolve_event(codex, "SessionStart").official
    codex_stop = resolve_event(codex, "Stop").official
    assert start is not None and codex_stop is not None
    assert not set(codex.bridge.block_losses) & set(codex.losses_for(start))
    assert set(codex.bridge.block_losses) <= set(codex.losses_for(codex_stop))
    # The native rows this project translates list none of the bridge's losses.
    assert not set(codex.bridge.block_losses + codex.bridge.losses) & set(codex.losses_for(resolve_event(codex, "Stop")))


def test_a_vendor_table_refuses_a_repeated_loss() -> None:
    spec = resolve_vendor("codex")
    row = resolve_event(spec, "Stop")
    repeated = row.model_copy(update={"degradations": row.degradations + spec.losses[:1]})
    events = tuple(repeated if r.event == "Stop" else r for r in spec.events)
    with pytest.raises(ValueError, match="listed twice"):
        VendorSpec.model_validate({**dict(spec), "events": events})
    empty = row.model_copy(update={"degradations": ()})
    bare = spec.model_copy(update={"losses": (), "bridge": None})
    with pytest.raises(ValueError, match="loses something|bridged rows need a bridge"):
        VendorSpec.model_validate({**dict(bare), "events": (empty,)})


def test_each_loss_sentence_is_written_once_in_the_tables() -> None:
    """A loss several rows share is a named constant (in its vendor's module, or vendors/shared.py)."""
    written = Counter()
    for path in DATA_MODULES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "degrade":
                text = node.args[1]
                assert isinstance(text, ast.Constant), (path.name, node.lineno)
                written[text.value] += 1
    assert written and all(n == 1 for n in written.values()), [t for t, n in written.items() if n > 1]


def test_importing_the_package_builds_no_table() -> None:
    """The tables load on first use (the catalog), so `import compat_adapter` stays cheap."""
    code = ("import sys, compat_adapter; "
            "print(sorted(m for m in sys.modules if m.startswith('vendors.') and m != 'vendors.surface'), "
            "'importlib.metadata' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # No table row is built, and no model is validated yet (pydantic's plugin lookup comes with the first).
    assert done.stdout.strip() == "[] False", done.stdout
    code = "import compat_adapter; print(len(compat_adapter.build_matrix().hooks))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == str(sum(len(s.events) for s in VENDORS))


def test_the_table_surface_is_a_valid_surface() -> None:
    """It is built without validation (to keep imports cheap), so it is validated here."""
    assert Surface.model_validate(TABLE_SURFACE.model_dump()) == TABLE_SURFACE
    assert all(isinstance(mode, SeamMode) for mode in TABLE_SURFACE.seams.values())
    assert isinstance(TABLE_SURFACE.services, frozenset) and isinstance(TABLE_SURFACE.bridge_packages, frozenset)
    assert {s.bridge_package for s in VENDORS if s.bridge} <= TABLE_SURFACE.bridge_packages


def test_a_rows_seams_are_its_points() -> None:
    """``EventRow.seams`` restates the point (house review P2): it must agree with the points table,
    so a table cannot name a seam its point does not listen on. A service point listens on none;
    the official alternative listens where the native row does."""
    from compat_adapter.routing.points import POINTS

    for spec in VENDORS:
        for row in spec.events:
            point = POINTS[row.point]
            assert row.seams == ((point.seam,) if point.seam else ()), (spec.id, row.event)
            if row.official is not None:
                assert row.official.seams == row.seams, (spec.id, row.event)
