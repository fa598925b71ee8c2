"""Every vendor row verified live, plus pins on the losses that say something does NOT happen.

The row tests run :func:`compat_adapter.testing.live.verify_row`: a real git repository, the embedded
host, one real command hook per row, the seam fired for real. The pins below drive the same kind
of session by hand to show that a documented degradation is what really happens: an ignored
rewrite leaves the original call, an unhonoured ask lets the call run, an observe-only block stops
nothing, a missing loop guard really loops, a present one really stops, and Copilot matchers are
anchored.
"""

from __future__ import annotations

import anyio
import pytest

from compat_adapter.matrix import build_matrix
from compat_adapter.model import DegradationCode
from vendors.copilot.stopguard import STOP_BLOCK_LIMIT
from compat_adapter.routing.points import POINTS
from compat_adapter.testing.live import (
    CONTINUE,
    DRIVERS,
    REASON,
    RowCheck,
    all_rows,
    ask_policy,
    bash_reply,
    check_payload,
    driver_for,
    log_records,
    open_session,
    specific,
    tool_results,
    user_messages,
    verify_row,
)

ROWS = [(spec.id, row.event) for spec, row in all_rows()]
#: The rows the host's official bridge also carries: each is checked on that route too.
BRIDGED = [(spec.id, row.event) for spec, row in all_rows() if row.official is not None]


def test_every_row_of_the_matrix_is_checked_once() -> None:
    # The registered tables' rows, each once (their count is pinned in docs/support-matrix.md).
    assert len(ROWS) == len(set(ROWS)) == len(build_matrix().hooks)


def test_every_row_has_a_driver_and_every_point_is_driven() -> None:
    rows = [row for _, row in all_rows()]
    assert all(callable(driver_for(row)) for row in rows)
    assert len(BRIDGED) == 17 and all(callable(driver_for(row.official)) for row in rows if row.official)
    assert set(DRIVERS) == set(POINTS.values())


#: The rows a vendor fires only after a real wait (Claude's 60 s idle Notification, and each unit that
#: takes Claude's row): a check of one sleeps through that wait, so they are checked together, at
#: once, by the first test that needs one (four rows: one wait of 60 s, not four).
WAITING = tuple((spec.id, row.event) for spec, row in all_rows() if row.idle_after_s)


@pytest.fixture(scope="module")
def waited() -> dict[tuple[str, str], RowCheck]:
    async def check_together() -> dict[tuple[str, str], RowCheck]:
        checks: dict[tuple[str, str], RowCheck] = {}

        async def one(vendor: str, event: str) -> None:
            checks[(vendor, event)] = await verify_row(vendor, event)

        async with anyio.create_task_group() as tg:
            for vendor, event in WAITING:
                tg.start_soon(one, vendor, event)
        return checks

    return anyio.run(check_together)


@pytest.mark.parametrize(("vendor", "event"), ROWS, ids=[f"{v}:{e}" for v, e in ROWS])
def test_row_works_end_to_end(vendor: str, event: str, request: pytest.FixtureRequest) -> None:
    # Synchronous, so that a waiting row can ask for the shared checks (made in their own event loop).
    if (vendor, event) in WAITING:
        check = request.getfixturevalue("waited")[(vendor, event)]
    else:
        check = anyio.run(verify_row, vendor, event)
    assert (check.vendor, check.event) == (vendor, event)
    assert check.passed, check.detail


@pytest.mark.parametrize(("vendor", "event"), BRIDGED, ids=[f"{v}:{e}" for v, e in BRIDGED])
async def test_bridged_row_works_end_to_end_with_prefer_official(vendor: str, event: str) -> None:
    check = await verify_row(vendor, event, "official")
    assert (check.vendor, check.event, check.route) == (vendor, event, "official-bridge")
    assert check.passed, check.detail


def _codes(vendor: str, event: str, prefer: str = "fidelity") -> set[DegradationCode]:
    for spec, row in all_rows():
        if (spec.id, row.event) == (vendor, event):
            if prefer == "official" and row.official is not None:
                row = row.official
            return {d.code for d in spec.losses_for(row)}
    raise LookupError((vendor, event))


# ── degradations that say something does not happen ─────────────────────────────────────────

async def test_claude_pretooluse_updated_input_is_ignored() -> None:
    # The official bridge ignores it; the native route runs it (tests/host/test_contract.py).
    assert DegradationCode.INPUT_REWRITE_IGNORED in _codes("claude", "PreToolUse", "official")
    assert DegradationCode.INPUT_REWRITE_IGNORED not in _codes("claude", "PreToolUse")
    async with open_session("claude", "PreToolUse", prefer="official") as s:
        s.probe.answer(specific("PreToolUse", permissionDecision="allow",
                                updatedInput={"command": "touch rewritten.txt"}))
        await s.register()
        agent = await s.host.create_agent(script=[bash_reply("touch original.txt"), "done"])
        result = await agent.run_turn("create the file")
        await s.host.settle()
        assert len(s.probe.payloads()) == 1
        assert (s.root / "original.txt").exists(), "the original call did not run"
        assert not (s.root / "rewritten.txt").exists(), "updatedInput was applied"
        assert result.reason == "completed"
        # The bridge says so in the operator log rather than staying silent.
        assert any("updatedInput" in r.message for r in s.host.records)


async def test_codex_pretooluse_ask_is_not_honoured() -> None:
    assert DegradationCode.DECISION_NARROWED in _codes("codex", "PreToolUse", "official")
    async with open_session("codex", "PreToolUse", prefer="official") as s:
        s.probe.answer(specific("PreToolUse", permissionDecision="ask",
                                permissionDecisionReason=REASON))
        await s.register()
        agent = await s.host.create_agent(script=[bash_reply("touch ran.txt"), "done"])
        await agent.run_turn("create the file")
        await s.host.settle()
        assert len(s.probe.payloads()) == 1
        assert (s.root / "ran.txt").exists(), "the codex ask stopped the call"
        assert not log_records(agent.session, "approval/asked"), "the codex ask reached approval"
        assert not tool_results(agent.session)[0]["isError"]


async def test_observe_only_precompact_block_does_not_stop_compaction() -> None:
    assert DegradationCode.OBSERVE_ONLY in _codes("claude", "PreCompact")
    async with open_session("claude", "PreCompact") as s:
        s.probe.answer({"decision": "block", "reason": REASON}, code=2, err=REASON)
        await s.register()
        agent = await s.host.create_agent(script=["hi", "after compaction"])
        await agent.run_turn("hello")
        await agent.compact("the summary")
        await s.host.settle()
        assert len(s.probe.payloads()) == 1
        assert log_records(agent.session, "compaction/summary")
        assert log_records(agent.session, "compaction/end"), "compaction was stopped"
        assert agent.source == "compact"
        audit = s.audit()
        assert audit and audit[0].decision == "block" and audit[0].honoured is False
        later = await agent.run_turn("go on")
        assert later.reason == "completed"


async def test_official_bridge_stop_block_has_no_loop_guard() -> None:
    assert DegradationCode.NO_LOOP_GUARD in _codes("claude", "Stop", "official")
    assert DegradationCode.NO_LOOP_GUARD not in _codes("claude", "Stop")
    cap = STOP_BLOCK_LIMIT + 4
    async with open_session("claude", "Stop", prefer="official", max_steps_per_turn=cap) as s:
        s.probe.answer({"decision": "block", "reason": CONTINUE})
        await s.register()
        agent = await s.host.create_agent(script=[f"answer {i}" for i in range(cap + 5)])
        result = await agent.run_turn("never stop")
        await s.host.settle()
        runs = len(s.probe.payloads())
    # Far past the vendor's eight blocks: only the host's own step cap ends the turn.
    assert result.reason == "max-steps"
    assert result.steps == cap
    assert runs == cap > STOP_BLOCK_LIMIT
    # Every block but the last one entered a step; the last is left unclaimed by the cap.
    assert len([m for m in user_messages(agent.session) if CONTINUE in m["text"]]) == cap - 1


async def test_copilot_agentstop_always_block_stops_after_eight_forced_steps() -> None:
    async with open_session("copilot", "agentStop") as s:
        s.probe.answer({"decision": "block", "reason": CONTINUE})
        await s.register()
        agent = await s.host.create_agent(script=[f"answer {i}" for i in range(20)])
        result = await agent.run_turn("never stop")
        await s.host.settle()
        runs = len(s.probe.payloads())
        audit = s.audit()
    assert result.reason == "completed"
    assert result.steps == 1 + STOP_BLOCK_LIMIT == 9
    assert runs == STOP_BLOCK_LIMIT + 1  # the ninth block is run, audited and not honoured
    forced = [m for m in user_messages(agent.session) if CONTINUE in m["text"]]
    assert len(forced) == STOP_BLOCK_LIMIT
    assert [r.honoured for r in audit] == [True] * STOP_BLOCK_LIMIT + [False]
    assert "runaway guard" in audit[-1].note


async def test_copilot_allow_does_not_preapprove() -> None:
    async with open_session("copilot", "preToolUse") as s:
        s.probe.answer({"permissionDecision": "allow"})
        await s.register()
        # The host's own policy, listening after the hook: it still asks, and with no approver the
        # call is refused.
        s.host.on("tools/pre-execute", ask_policy)
        agent = await s.host.create_agent(script=[bash_reply("touch allowed.txt"), "done"])
        await agent.run_turn("create the file")
        await s.host.settle()
        assert len(s.probe.payloads()) == 1
        assert log_records(agent.session, "approval/asked"), "allow skipped the host's approval"
        assert log_records(agent.session, "approval/decided")[0]["outcome"] == "unavailable"
        assert not (s.root / "allowed.txt").exists()
        assert s.audit()[0].note.startswith("allow does not pre-approve")


@pytest.mark.parametrize(("matcher", "runs"), [
    ("bas", False),      # anchored: a prefix is not the tool
    ("ash", False),
    ("[", False),        # invalid pattern: the hook is skipped, never match-all
    ("bash", True),
    ("ba(sh|t)", True),
    ("", True),          # empty: every tool
], ids=["prefix", "suffix", "invalid", "exact", "regex", "empty"])
async def test_copilot_matchers_are_anchored_and_invalid_ones_skip(matcher: str, runs: bool) -> None:
    async with open_session("copilot", "preToolUse") as s:
        # A deny: if the hook runs the call is blocked, so the file tells whether it ran.
        s.probe.answer({"permissionDecision": "deny", "permissionDecisionReason": REASON})
        await s.register(matcher=matcher)
        agent = await s.host.create_agent(script=[bash_reply("touch ran.txt"), "done"])
        await agent.run_turn("create the file")
        await s.host.settle()
        ran = bool(s.probe.payloads())
        created = (s.root / "ran.txt").exists()
    assert ran is runs
    assert created is not runs


async def test_a_hook_that_never_records_fails_the_payload_check() -> None:
    # The checks can fail: a hook that runs but records nothing is caught, not waved through.
    async with open_session("claude", "PostToolUseFailure") as s:
        await s.register(handler="true")
        agent = await s.host.create_agent(script=[bash_reply("exit 3"), "done"])
        await agent.run_turn("fail")
        await s.host.settle()
        check_payload(s)
    assert s.failures and "the hook ran 0 time(s)" in s.failures[0]
