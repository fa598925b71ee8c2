"""The routing layer's shape and its promises: one declaration, a points table, one Router per route.

The behaviour pins run real hooks on the embedded host. The route-label pins register the same
vendor row under both labels an observe-only row may carry (native-translate with
``blocking="observe"``, or native-seam) and show that the hook runs and its blocking answer is
audited and ignored either way, while a row that really translates a decision still decides.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import write_script

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.catalog import resolve_event, resolve_vendor, vendors
from compat_adapter.declare import Declared, declare_hook
from compat_adapter.host.script import call
from compat_adapter.model import Route
from compat_adapter.routing.base import Router
from compat_adapter.routing.pointfacts import FACTS
from compat_adapter.routing.points import POINTS
from compat_adapter.routing.seams import LISTENERS
from compat_adapter.testing.live import ask_policy

VENDORS = vendors()
PACKAGE = Path(__file__).resolve().parent.parent / "compat_adapter"


def test_every_row_names_a_point_of_the_table_and_listens_on_a_known_seam() -> None:
    for spec in VENDORS:
        for row in spec.events:
            if row.route is Route.OFFICIAL_BRIDGE:
                continue
            assert row.point in POINTS, f"{spec.id} {row.event}: no point {row.point!r}"
            for seam in row.seams:
                assert seam in LISTENERS, f"{spec.id} {row.event}: no listener on {seam!r}"
    used = {row.point for spec in VENDORS for row in spec.events}
    assert set(POINTS) <= used, f"points no row uses: {set(POINTS) - used}"


def test_no_point_name_is_spelled_outside_the_table() -> None:
    names = "|".join(re.escape(n) for n in POINTS)
    spelled = re.compile(rf"""["']({names})["']""")
    for folder in ("routing", "testing"):
        for path in (PACKAGE / folder).rglob("*.py"):
            if path.name == "pointfacts.py" and path.parent.name == "routing":
                continue
            found = spelled.findall(path.read_text(encoding="utf-8"))
            assert not found, f"{path.relative_to(PACKAGE)} spells point names {found}"


def test_every_point_is_its_facts_with_a_rule_and_fields() -> None:
    """The matrix reads a point's facts alone (``pointfacts``, which loads no rule): the point that
    dispatch runs must say the same, for every point and no other."""
    assert list(POINTS) == list(FACTS)
    for name, point in POINTS.items():
        known = FACTS[name]
        said = (point.name, point.seam, point.mode, point.produces, point.service, point.log_pair, point.record)
        assert said == (known.name, known.seam, known.mode, known.produces, known.service, known.log_pair,
                        known.record), name
        assert callable(point.rule) and callable(point.fields), name


def test_declare_resolves_once_into_the_table_objects() -> None:
    declared = declare_hook("cc", "PreToolUse", "Bash", "true", origin="here")
    assert isinstance(declared, Declared)
    spec = resolve_vendor("claude")
    assert declared.spec is spec and declared.row is resolve_event(spec, "PreToolUse")
    assert (declared.handler_kind, declared.matcher, declared.origin) == ("command", "Bash", "here")
    assert declared.declaration().vendor == "claude"


async def test_every_route_has_a_router_with_the_one_interface(git_repo: Path) -> None:
    async with MemoryHost(git_repo) as host, CompatAdapter(host, log_registrations=False) as adapter:
        routers = adapter._routers  # noqa: SLF001 - the shape itself is what this test pins
        assert set(routers) == {Route.OFFICIAL_BRIDGE, Route.NATIVE_TRANSLATE, Route.NATIVE_SEAM,
                                Route.BUILTIN_BRIDGE, Route.PLUGIN_HOST}
        for router in routers.values():
            for method in ("mount", "flush", "state", "close"):
                assert callable(getattr(router, method, None)), (router, method)
            assert isinstance(router, object) and Router  # the Protocol is the documented contract
        assert len(set(map(type, routers.values()))) == 5


def _relabelled(vendor: str, event: str, route: Route, command: str) -> Declared:
    declared = declare_hook(vendor, event, None, command)
    row = declared.row.model_copy(update={"route": route})
    return replace(declared, row=row)


@pytest.mark.parametrize("route", [Route.NATIVE_TRANSLATE, Route.NATIVE_SEAM])
async def test_an_observe_row_runs_and_ignores_its_block_under_either_label(git_repo: Path, tmp_path: Path,
                                                                            route: Route) -> None:
    marker = tmp_path / "ran"
    block = json.dumps({"decision": "block", "reason": "no"})
    hook = write_script(tmp_path / "block.sh", f"cat > '{marker}'\necho '{block}'\n")
    async with MemoryHost(git_repo) as host, CompatAdapter(host, log_registrations=False) as adapter:
        declared = _relabelled("claude", "UserPromptExpansion", route, str(hook))
        assert declared.row.blocking == "observe"
        result = await adapter.register(declared)
        assert result.route is route
        agent = await host.create_agent(script=["done"])
        outcome = await agent.run_turn("hello")
        await host.settle()
        assert marker.exists(), "the hook did not run"
        assert outcome.reason == "completed", outcome
        records = [r for r in adapter.audit if r.hook_id == result.id]
        assert records and all(not r.honoured for r in records), records
        assert "observe-only" in records[0].note


async def test_a_verdict_row_decides_natively_and_is_only_observed_on_the_seam_route(
        git_repo: Path, tmp_path: Path) -> None:
    deny = json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                              "decision": {"behavior": "deny", "message": "no"}}})
    hook = write_script(tmp_path / "deny.sh", f"cat >/dev/null\necho '{deny}'\n")
    outcomes = {}
    for route in (Route.NATIVE_TRANSLATE, Route.NATIVE_SEAM):
        async with MemoryHost(git_repo) as host, CompatAdapter(host, log_registrations=False) as adapter:
            declared = _relabelled("claude", "PermissionRequest", route, str(hook))
            result = await adapter.register(declared)
            host.on("tools/pre-execute", ask_policy)  # the host's own policy asks for approval
            agent = await host.create_agent(script=[call("bash", command="touch asked.txt"), "done"])
            await agent.run_turn("go")
            await host.settle()
            records = [r for r in adapter.audit if r.hook_id == result.id]
            outcomes[route] = ([(r.honoured, r.note) for r in records], (git_repo / "asked.txt").exists())
            (git_repo / "asked.txt").unlink(missing_ok=True)
    # Natively the hook's block rejects the approval; on the seam route it is only observed and the
    # approval goes on to the host (no approver here: it fails closed either way).
    assert outcomes[Route.NATIVE_TRANSLATE][0] == [(True, "rejected")]
    assert outcomes[Route.NATIVE_SEAM][0] == [(False, "observe-only: the blocking answer was ignored")]
    assert not outcomes[Route.NATIVE_TRANSLATE][1] and not outcomes[Route.NATIVE_SEAM][1]


async def test_hooks_of_one_seam_run_in_registration_order_across_routes(git_repo: Path, tmp_path: Path) -> None:
    order = tmp_path / "order"
    first = write_script(tmp_path / "a.sh", f"cat >/dev/null\necho copilot >> '{order}'\n")
    second = write_script(tmp_path / "b.sh", f"cat >/dev/null\necho opencode >> '{order}'\n")
    async with MemoryHost(git_repo) as host, CompatAdapter(host, log_registrations=False) as adapter:
        await adapter.register_hook("copilot", "preToolUse", None, str(first))
        await adapter.register_hook("opencode", "tool.execute.before", None, str(second))
        agent = await host.create_agent(script=[call("bash", command="true"), "done"])
        await agent.run_turn("go")
        await host.settle()
    assert order.read_text().split() == ["copilot", "opencode"]


def test_each_point_s_mode_is_its_seam_s_mode_on_the_surface_the_tables_assume() -> None:
    from compat_adapter.grading import TABLE_SURFACE

    for point in POINTS.values():
        if point.seam is None:
            assert point.mode == "service" and point.service, point.name
        else:
            assert point.mode == str(TABLE_SURFACE.seams[point.seam]), point.name


@pytest.mark.parametrize(("vendor", "event", "matcher"), [
    ("claude", "PreToolUse", "Bash|Edit"),       # official bridge
    ("claude", "PermissionRequest", "Bash"),     # native translate
    ("copilot", "preToolUse", "bash"),           # built-in bridge
])
async def test_a_registration_looks_the_vendor_and_event_up_once(git_repo: Path, vendor: str, event: str,
                                                                 matcher: str) -> None:
    calls: list[str] = []

    def profile(frame, what, arg):  # noqa: ANN001, ANN202 - sys.setprofile's own signature
        code = frame.f_code
        # Every look-up by name: the vendor's unit (and through it its spec, voice, dialect) and the row.
        if what == "call" and code.co_filename.endswith("catalog.py") and code.co_name in _LOOK_UPS:
            calls.append(code.co_name)

    async with MemoryHost(git_repo) as host, CompatAdapter(host, log_registrations=False) as adapter:
        sys.setprofile(profile)
        try:
            result = await adapter.register_hook(vendor, event, matcher, "true")
        finally:
            sys.setprofile(None)
        assert adapter.status().hooks[0].running, result
    assert sorted(calls) == ["resolve_event", "unit_of"], calls


_LOOK_UPS = frozenset({"unit_of", "voice_of", "resolve_vendor", "resolve_event"})



async def test_a_dispatch_looks_no_vendor_up_by_name(git_repo: Path, tmp_path: Path) -> None:
    """The unit travels with the hook: the verdict rules word a deny and land a context through the
    unit the entry carries. No routing or handler module asks the catalog for a vendor by name; the
    dialects read a vendor's tool tables once per process, so a second turn asks nothing at all."""
    deny = write_script(tmp_path / "deny.sh", "cat >/dev/null\necho '{\"permissionDecision\": \"deny\", "
                                              "\"permissionDecisionReason\": \"no\"}'\n")
    context = json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "seen"}})
    note = write_script(tmp_path / "note.sh", f"cat >/dev/null\necho '{context}'\n")
    turns: list[list[tuple[str, str]]] = []

    def profile(frame, what, arg):  # noqa: ANN001, ANN202 - sys.setprofile's own signature
        code = frame.f_code
        if what == "call" and code.co_filename.endswith("catalog.py") and code.co_name in _LOOK_UPS:
            turns[-1].append((code.co_name, frame.f_back.f_code.co_filename))

    async with MemoryHost(git_repo) as host, CompatAdapter(host, log_registrations=False) as adapter:
        denied = await adapter.register_hook("copilot", "preToolUse", "bash", str(deny))
        noted = await adapter.register_hook("qwen", "PostToolUse", None, str(note))
        for _ in range(2):
            agent = await host.create_agent(script=[call("bash", command="touch a.txt"),
                                                    call("read", path="README.md"), "done"])
            turns.append([])
            sys.setprofile(profile)
            try:
                await agent.run_turn("go")
                await host.settle()
            finally:
                sys.setprofile(None)
        audit = [(r.hook_id, r.decision, r.honoured) for r in adapter.audit]
    assert audit.count((denied.id, "deny", True)) == 2, audit
    assert sum(1 for r in audit if r[0] == noted.id) == 2, audit
    assert not (git_repo / "a.txt").exists()
    callers = {"/".join(Path(caller).parts[-2:]) for _, caller in turns[0]}
    assert callers <= {"compat_adapter/catalog.py", "dialects/common.py"}, turns[0]  # the tool tables, once
    assert turns[1] == [], turns[1]
