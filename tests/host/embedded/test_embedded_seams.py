"""The embedded host's seams: surface, modes, defaults, verdicts and the exact order they fire in.

Every test drives the real loop over real tools; listeners record what they see, and the order of
live events and log records is asserted as one timeline.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from compat_adapter.errors import HostSurfaceMismatch
from compat_adapter.host.embedded.agent import AgentDisposed
from compat_adapter.host.embedded.memory import MemoryHost
from compat_adapter.host.protocol import (
    SEAM_DEFAULTS,
    AgentCreated,
    AgentError,
    AgentStatus,
    ApprovalOutcome,
    ApprovalRequest,
    AskUserQuestionAnswer,
    InboxInserted,
    PostToolDecision,
    PreStepDecision,
    PreStepEvent,
    PreToolDecision,
    QuestionAnswer,
    SeamMode,
    SessionCreated,
    SessionEventNotice,
    SettingsUpdated,
    SubagentEnd,
    SubagentStart,
    ToolExecution,
    ToolPostEvent,
    TurnStopping,
    UserQuestionsRequest,
    new_message,
    validate_host,
)
from compat_adapter.host.script import Error, Reply, Subagent, call
from compat_adapter.host.surfaces import EMBEDDED_SURFACE


class Timeline:
    """Subscribes to every seam in its mode and records live events and log records in one list.

    Waterfall listeners record and call ``next()`` (so the defaults decide); serial listeners
    yield to the event loop before recording (proving the dispatcher awaits them); emit listeners
    record synchronously.
    """

    def __init__(self, host: MemoryHost, root_session: list[str]) -> None:
        self.entries: list[tuple[str, Any]] = []
        self.calls: dict[str, list[tuple[Any, ...]]] = {}
        self._root = root_session
        for seam, mode in host.surface.seams.items():
            if seam == "session/event":
                host.on(seam, self._log)
            elif mode is SeamMode.WATERFALL:
                host.on(seam, self._waterfall(seam))
            elif mode is SeamMode.SERIAL:
                host.on(seam, self._serial(seam))
            else:
                host.on(seam, self._emit(seam))

    def _log(self, notice: SessionEventNotice) -> None:
        assert isinstance(notice, SessionEventNotice)
        prefix = "log" if notice.session.id in self._root else "child"
        self.entries.append((f"{prefix}:{notice.event.type}", notice))

    def _waterfall(self, seam: str) -> Any:
        async def listener(event: Any, next_: Any) -> Any:
            self.calls.setdefault(seam, []).append((event, next_))
            self.entries.append((f"seam:{seam}", event))
            return await next_()
        return listener

    def _serial(self, seam: str) -> Any:
        async def listener(event: Any) -> None:
            self.calls.setdefault(seam, []).append((event,))
            await anyio.sleep(0)
            self.entries.append((f"seam:{seam}", event))
        return listener

    def _emit(self, seam: str) -> Any:
        def listener(event: Any) -> None:
            self.calls.setdefault(seam, []).append((event,))
            self.entries.append((f"seam:{seam}", event))
        return listener

    def names(self) -> list[str]:
        return [name for name, _ in self.entries]

    def payloads(self, name: str) -> list[Any]:
        return [payload for n, payload in self.entries if n == name]


# ── surface ─────────────────────────────────────────────────────────────────────────────────────

def test_surface_is_the_embedded_dsh_surface(tmp_path: Path) -> None:
    host = MemoryHost(tmp_path)
    assert host.surface == EMBEDDED_SURFACE
    assert host.surface.host == "embedded"
    problems = validate_host(host)
    assert not [p for p in problems if p.startswith(("missing:", "claims:"))], problems
    assert problems == ()


@pytest.mark.parametrize(("switch", "removed"), [
    ({"shell": False}, {"shell", "shellEnv"}),
    ({"fs_watch": False}, {"fs.watch"}),
    ({"lsp": False}, {"lsp"}),
    ({"worktrees": False}, {"worktrees"}),
])
def test_switched_off_services_leave_the_surface(tmp_path: Path, switch: dict[str, bool],
                                                 removed: set[str]) -> None:
    host = MemoryHost(tmp_path, **switch)
    assert host.surface.services == EMBEDDED_SURFACE.services - removed
    assert not removed & host.surface.services
    assert host.surface.seams == EMBEDDED_SURFACE.seams
    assert not [p for p in validate_host(host) if p.startswith(("missing:", "claims:"))]


def test_shell_false_surface_lacks_shell(tmp_path: Path) -> None:
    assert "shell" in MemoryHost(tmp_path).surface.services
    assert "shell" not in MemoryHost(tmp_path, shell=False).surface.services


def test_bridges_false_empties_bridge_packages(tmp_path: Path) -> None:
    assert MemoryHost(tmp_path).surface.bridge_packages == EMBEDDED_SURFACE.bridge_packages
    assert MemoryHost(tmp_path, bridges=False).surface.bridge_packages == frozenset()


async def test_on_refuses_a_seam_outside_the_surface(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        with pytest.raises(HostSurfaceMismatch) as caught:
            host.on("agent/session-start", lambda event: None)
        assert caught.value.code == "HOST_SURFACE_MISMATCH"
        with pytest.raises(HostSurfaceMismatch):
            host.on("system-prompt/assemble", lambda event, next_: next_())
        # tools/execute is DSH 0.2.0-rc.2's around-dispatch seam, offered (input rewrites use it).
        host.on("tools/execute", lambda event, next_: next_())()


async def test_dispatching_in_the_wrong_mode_is_refused(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        with pytest.raises(HostSurfaceMismatch):
            await host.serial("tools/pre-execute", object())
        with pytest.raises(HostSurfaceMismatch):
            host.emit("agent/turn-stopping", object())


# ── dispatch semantics ──────────────────────────────────────────────────────────────────────────

async def test_waterfall_runs_in_order_and_prepend_goes_first(tmp_path: Path) -> None:
    order: list[str] = []
    async with MemoryHost(tmp_path) as host:
        def make(name: str) -> Any:
            async def listener(event: Any, next_: Any) -> Any:
                order.append(f"{name}>")
                result = await next_()
                order.append(f"<{name}")
                return result
            return listener

        host.on("tools/pre-execute", make("a"))
        host.on("tools/pre-execute", make("b"))
        host.on("tools/pre-execute", make("first"), prepend=True)
        verdict = await host.waterfall("tools/pre-execute", object(),
                                       lambda: order.append("default") or PreToolDecision("allow"))
    assert verdict == PreToolDecision("allow")
    assert order == ["first>", "a>", "b>", "default", "<b", "<a", "<first"]


async def test_waterfall_veto_stops_later_listeners_and_the_default(tmp_path: Path) -> None:
    later: list[Any] = []
    (tmp_path / "victim.txt").write_text("keep\n")
    async with MemoryHost(tmp_path) as host:
        async def veto(event: ToolExecution, next_: Any) -> PreToolDecision:
            return PreToolDecision("deny", "vetoed by the first listener")

        async def never(event: ToolExecution, next_: Any) -> Any:
            later.append(event)
            return await next_()

        host.on("tools/pre-execute", veto)
        host.on("tools/pre-execute", never)
        agent = await host.create_agent(script=[call("bash", command="rm victim.txt"), "ok"])
        await agent.run_turn("remove it")
        results = agent.session.of_type("tool/result")
    assert later == []
    assert (tmp_path / "victim.txt").exists()
    assert results[0].data["isError"] is True
    assert results[0].data["text"] == "Error: vetoed by the first listener"


async def test_waterfall_listener_that_raises_counts_as_next(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        async def broken(event: Any, next_: Any) -> Any:
            raise ValueError("listener bug")

        async def denies(event: Any, next_: Any) -> PreToolDecision:
            return PreToolDecision("deny", "second listener decided")

        host.on("tools/pre-execute", broken)
        host.on("tools/pre-execute", denies)
        verdict = await host.waterfall("tools/pre-execute", object(), lambda: PreToolDecision("allow"))
        assert verdict == PreToolDecision("deny", "second listener decided")
        errors = [r for r in host.records if r.level == "error"]
    assert len(errors) == 1 and "listener bug" in errors[0].fields["error"]


async def test_waterfall_listener_returning_nothing_counts_as_next(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        host.on("tools/post-execute", lambda event, next_: None)
        verdict = await host.waterfall("tools/post-execute", object(),
                                       lambda: PostToolDecision("accept"))
        assert verdict == PostToolDecision("accept")
        assert any(r.level == "warning" for r in host.records)


async def test_next_called_twice_runs_the_rest_once(tmp_path: Path) -> None:
    runs: list[int] = []
    async with MemoryHost(tmp_path) as host:
        async def twice(event: Any, next_: Any) -> Any:
            await next_()
            return await next_()

        host.on("tools/pre-execute", twice)
        await host.waterfall("tools/pre-execute", object(),
                             lambda: runs.append(1) or PreToolDecision("allow"))
    assert runs == [1]


async def test_serial_awaits_each_listener_in_order(tmp_path: Path) -> None:
    order: list[str] = []
    async with MemoryHost(tmp_path) as host:
        async def slow(event: Any) -> None:
            order.append("slow start")
            await anyio.sleep(0.01)
            order.append("slow end")

        async def fast(event: Any) -> None:
            order.append("fast")

        host.on("agent/turn-stopping", slow)
        host.on("agent/turn-stopping", fast)
        await host.serial("agent/turn-stopping", object())
        order.append("after")
    assert order == ["slow start", "slow end", "fast", "after"]


async def test_emit_runs_async_listeners_in_the_background_and_settle_waits(tmp_path: Path) -> None:
    seen: list[str] = []
    async with MemoryHost(tmp_path) as host:
        async def background(update: SettingsUpdated) -> None:
            await anyio.sleep(0.01)
            seen.append(f"bg {update.revision}")

        def broken(update: SettingsUpdated) -> None:
            raise RuntimeError("observer bug")

        host.on("settings/document-updated", broken)
        host.on("settings/document-updated", background)
        host.on("settings/document-updated", lambda update: seen.append(f"sync {update.revision}"))
        host.update_settings("hooks", {"a": 1})
        seen.append("emit returned")
        await host.settle()
        seen.append("settled")
        assert any("observer bug" in r.fields.get("error", "") for r in host.records)
    assert seen == ["sync 1", "emit returned", "bg 1", "settled"]


async def test_settle_from_background_work_is_refused(tmp_path: Path) -> None:
    failures: list[str] = []
    async with MemoryHost(tmp_path) as host:
        async def impatient() -> None:
            try:
                await host.settle()
            except RuntimeError as exc:
                failures.append(str(exc))

        host.start_soon(impatient)
        await host.settle()
    assert failures and "wait for itself" in failures[0]


async def test_unsubscribe_removes_only_that_registration(tmp_path: Path) -> None:
    seen: list[str] = []
    async with MemoryHost(tmp_path) as host:
        listener = lambda update: seen.append(update.namespace)  # noqa: E731
        off_a = host.on("settings/document-updated", listener)
        host.on("settings/document-updated", listener)
        off_a()
        off_a()  # idempotent
        host.update_settings("x", {})
    assert seen == ["x"]


# ── the whole turn, every seam, in order ────────────────────────────────────────────────────────

async def test_every_seam_fires_in_dsh_turn_order(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path, log_dir=tmp_path / "logs") as host:
        root: list[str] = []
        timeline = Timeline(host, root)

        async def ask_for_edits(event: ToolExecution, next_: Any) -> Any:
            if event.name == "edit":
                return PreToolDecision("ask", "edits need a human")
            return await next_()

        host.on("tools/pre-execute", ask_for_edits)
        (tmp_path / "notes.txt").write_text("one\n")
        session = host.create_session()
        root.append(session.id)
        agent = await host.create_agent(session=session, script=[
            Reply("working", (
                call("write", path="out.txt", content="a\nb\n"),
                call("bash", command="cat out.txt"),
                call("edit", path="notes.txt", old="one", new="two"),
                call("ask_user_question", questions=[{"id": "q1", "question": "Which?",
                                                      "options": ["x", "y"]}]),
                Subagent(["child answer"], prompt="help me"),
            )),
            Reply("all done"),
            Error("model unavailable"),
        ])
        result = await agent.run_turn("start")
        failed = await agent.run_turn("again")
        host.update_settings("compat", {"on": True})
        await agent.dispose()
        await host.settle()

    child_turn = [
        "seam:session/created", "seam:agent/created", "seam:subagent/start",
        "seam:agent/inbox/inserted", "seam:agent/status",
        "child:turn/start", "seam:agent/pre-step", "child:step/start", "child:user/message",
        "seam:tools/offer", "child:request/header", "child:assistant/message", "child:step/end",
        "seam:agent/turn-stopping", "child:turn/end", "seam:agent/status",
        "seam:subagent/end", "seam:agent/disposed",
    ]
    expected = [
        "seam:session/created", "seam:agent/created",
        # turn 1
        "seam:agent/inbox/inserted", "seam:agent/status", "log:turn/start",
        # the tools the request offers the model, then the request
        "seam:agent/pre-step", "log:step/start", "log:user/message", "seam:tools/offer", "log:request/header",
        "log:assistant/message",
        # tools/execute wraps each allowed call's body (DSH's around-dispatch waterfall)
        "log:tool/call", "seam:tools/pre-execute", "seam:tools/execute", "seam:tools/post-execute",
        "log:tool/result", "seam:tools/result",
        "log:tool/call", "seam:tools/pre-execute", "seam:tools/execute", "seam:tools/post-execute",
        "log:tool/result", "seam:tools/result",
        "log:tool/call", "seam:tools/pre-execute", "log:approval/asked", "seam:approval/request",
        # a denied call still passes post-execute, as in DSH (a denial is a "post-result")
        "log:approval/decided", "seam:tools/post-execute", "log:tool/result", "seam:tools/result",
        "log:tool/call", "seam:tools/pre-execute", "seam:tools/execute", "seam:user-questions/request",
        "seam:tools/post-execute", "log:tool/result", "seam:tools/result",
        "log:tool/call", "seam:tools/pre-execute", "seam:tools/execute", *child_turn,
        "seam:tools/post-execute", "log:tool/result", "seam:tools/result",
        "log:step/end",
        "seam:agent/pre-step", "log:step/start", "seam:tools/offer", "log:assistant/message", "log:step/end",
        "seam:agent/turn-stopping", "log:turn/end", "log:workspace/changes", "seam:agent/status",
        # turn 2: the model call fails
        "seam:agent/inbox/inserted", "seam:agent/status", "log:turn/start",
        "seam:agent/pre-step", "log:step/start", "log:user/message", "seam:tools/offer", "log:step/end",
        "seam:agent/error", "log:turn/end", "seam:agent/status",
        # outside turns
        "seam:settings/document-updated", "seam:agent/disposed",
    ]
    assert timeline.names() == expected

    # every seam of the surface fired, each in its own mode
    fired = {name.removeprefix("seam:") for name in timeline.names() if name.startswith("seam:")}
    fired.add("session/event")
    assert fired == set(EMBEDDED_SURFACE.seams)
    for seam, calls in timeline.calls.items():
        arity = 2 if EMBEDDED_SURFACE.seams[seam] is SeamMode.WATERFALL else 1
        assert all(len(c) == arity for c in calls), seam

    assert result.reason == "completed" and result.steps == 2
    assert result.last_assistant_message == "all done"
    assert failed.reason == "error" and failed.error == "model unavailable"

    # payloads
    p = timeline.payloads
    created = p("seam:agent/created")
    assert isinstance(created[0], AgentCreated) and created[0].agent is agent
    assert created[0].source == "startup"
    assert isinstance(p("seam:session/created")[0], SessionCreated)
    assert p("seam:session/created")[0].session is session
    inserted = p("seam:agent/inbox/inserted")[0]
    assert isinstance(inserted, InboxInserted) and inserted.message.text == "start"
    assert inserted.message.source.kind == "user"
    statuses = [(s.agent.id, s.status) for s in p("seam:agent/status") if isinstance(s, AgentStatus)]
    assert statuses[:2] == [(agent.id, "running"), (statuses[1][0], "running")]
    assert [s for a, s in statuses if a == agent.id] == ["running", "idle", "running", "idle"]

    pre_steps = [e for e in p("seam:agent/pre-step") if e.agent is agent]
    assert all(isinstance(e, PreStepEvent) for e in pre_steps)
    assert [(e.turn, e.step, [m.text for m in e.messages]) for e in pre_steps] == [
        (1, 1, ["start"]), (1, 2, []), (2, 1, ["again"])]

    executions = [e for e in p("seam:tools/pre-execute")]
    assert [e.name for e in executions] == ["write", "bash", "edit", "ask_user_question", "subagent"]
    assert all(isinstance(e, ToolExecution) and e.agent is agent for e in executions)
    assert executions[1].arguments == {"command": "cat out.txt"}
    assert len({e.call_id for e in executions}) == 5

    posts = p("seam:tools/post-execute")
    assert all(isinstance(e, ToolPostEvent) for e in posts)
    bash_post = posts[1]
    assert bash_post.execution.name == "bash" and bash_post.result.text == "a\nb"
    assert bash_post.result.is_error is False
    results = p("seam:tools/result")
    assert [r.result.is_error for r in results] == [False, False, True, True, False]

    approval = p("seam:approval/request")[0]
    assert isinstance(approval, ApprovalRequest)
    assert (approval.tool_name, approval.call_id, approval.reason) == (
        "edit", executions[2].call_id, "edits need a human")
    question = p("seam:user-questions/request")[0]
    assert isinstance(question, UserQuestionsRequest) and question.agent is agent
    assert question.questions[0].id == "q1" and question.questions[0].options == ("x", "y")

    start = p("seam:subagent/start")[0]
    end = p("seam:subagent/end")[0]
    assert isinstance(start, SubagentStart) and isinstance(end, SubagentEnd)
    assert start.parent is agent and end.parent is agent
    assert start.run_id == end.run_id and start.child_id == end.child_id != agent.id
    assert (end.stop_reason, end.last_assistant_message) == ("completed", "child answer")
    assert (start.provider, start.local) == ("local", True)

    stopping = [e for e in p("seam:agent/turn-stopping") if e.agent is agent]
    assert isinstance(stopping[0], TurnStopping)
    assert (stopping[0].turn, stopping[0].last_assistant_message) == (1, "all done")
    error = p("seam:agent/error")[0]
    assert isinstance(error, AgentError)
    assert (error.agent, error.turn, error.step, error.error) == (agent, 2, 1, "model unavailable")
    assert p("seam:settings/document-updated") == [SettingsUpdated("compat", 1)]
    disposed = p("seam:agent/disposed")
    assert [type(d) for d in disposed] == [AgentDisposed, AgentDisposed]
    assert disposed[-1].agent is agent and disposed[0].agent.id == start.child_id

    notices = [n for name, n in timeline.entries if name.startswith(("log:", "child:"))]
    assert all(n.event is n.session.events[n.event.seq - 1] for n in notices)
    assert {n.agent.id for n in notices if n.session is session} == {agent.id}

    # log records carry the verdicts the defaults produced
    log = {e.type: e for e in session.events}
    decided = session.of_type("approval/decided")[0]
    assert decided.data["outcome"] == "unavailable"
    texts = [e.data["text"] for e in session.of_type("tool/result")]
    assert texts[0] == "wrote 4 bytes to out.txt" and texts[1] == "a\nb"
    assert texts[2] == 'Error: tool "edit" requires approval, but no approval channel is available'
    assert texts[3] == "Error: no user-questions answerer accepted the request"
    assert texts[4] == "child answer"
    assert (tmp_path / "notes.txt").read_text() == "one\n"
    assert log["workspace/changes"].data["files"] == ({"path": "out.txt", "added": 2, "deleted": 0},)
    assert [e.data["reason"]["kind"] for e in session.of_type("turn/end")] == ["completed", "error"]


# ── verdict defaults ────────────────────────────────────────────────────────────────────────────

def test_seam_defaults_match_the_protocol_table() -> None:
    assert SEAM_DEFAULTS["tools/pre-execute"] == PreToolDecision("allow")
    assert SEAM_DEFAULTS["tools/post-execute"] == PostToolDecision("accept")
    assert SEAM_DEFAULTS["approval/request"] is ApprovalOutcome.UNAVAILABLE


async def test_pre_execute_default_allows_and_the_command_really_runs(tmp_path: Path) -> None:
    seen: list[Any] = []
    async with MemoryHost(tmp_path) as host:
        async def passes(event: ToolExecution, next_: Any) -> Any:
            verdict = await next_()
            seen.append(verdict)
            return verdict

        host.on("tools/pre-execute", passes)
        agent = await host.create_agent(script=[call("bash", command="echo ran > proof.txt")])
        await agent.run_turn()
    assert seen == [PreToolDecision("allow")]
    assert (tmp_path / "proof.txt").read_text() == "ran\n"


async def test_ask_without_approver_fails_closed(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        host.on("tools/pre-execute", lambda event, next_: PreToolDecision("ask"))
        agent = await host.create_agent(script=[call("bash", command="touch should-not-exist")])
        await agent.run_turn()
        types = [e.type for e in agent.session.events]
        result = agent.session.of_type("tool/result")[0]
    assert not (tmp_path / "should-not-exist").exists()
    assert result.data["isError"] is True
    assert result.data["text"] == ('Error: tool "bash" requires approval, but no approval channel '
                                   "is available")
    assert types.index("approval/asked") < types.index("approval/decided") < types.index("tool/result")


@pytest.mark.parametrize(("outcome", "text"), [
    (ApprovalOutcome.REJECTED, 'Error: the user rejected tool "bash"'),
    (ApprovalOutcome.CANCELLED, 'Error: approval for tool "bash" was cancelled'),
    ("not-an-outcome", 'Error: tool "bash" requires approval, but no approval channel is available'),
])
async def test_approval_answers_other_than_allowed_once_deny(tmp_path: Path, outcome: Any,
                                                             text: str) -> None:
    async with MemoryHost(tmp_path) as host:
        host.on("tools/pre-execute", lambda event, next_: PreToolDecision("ask", "sure?"))
        host.on("approval/request", lambda request, next_: outcome)
        agent = await host.create_agent(script=[call("bash", command="touch nope")])
        await agent.run_turn()
        result = agent.session.of_type("tool/result")[0]
    assert not (tmp_path / "nope").exists()
    assert result.data["text"] == text


async def test_configured_approver_answers_when_listeners_pass(tmp_path: Path) -> None:
    asked: list[ApprovalRequest] = []

    async def approver(request: ApprovalRequest) -> ApprovalOutcome:
        asked.append(request)
        return ApprovalOutcome.ALLOWED_ONCE

    async with MemoryHost(tmp_path, approver=approver) as host:
        host.on("tools/pre-execute", lambda event, next_: PreToolDecision("ask", "check"))
        host.on("approval/request", lambda request, next_: next_())
        agent = await host.create_agent(script=[call("bash", command="echo yes > approved.txt")])
        await agent.run_turn()
        decided = agent.session.of_type("approval/decided")[0]
    assert (tmp_path / "approved.txt").read_text() == "yes\n"
    assert decided.data["outcome"] == "allowed-once"
    assert asked[0].tool_name == "bash" and asked[0].reason == "check"


async def test_user_question_answered_by_a_listener(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        async def answerer(request: UserQuestionsRequest, next_: Any) -> AskUserQuestionAnswer:
            return AskUserQuestionAnswer((QuestionAnswer(request.questions[0].id, ("y",)),))

        host.on("user-questions/request", answerer)
        agent = await host.create_agent(script=[
            call("ask_user_question", questions=[{"id": "pick", "question": "x or y?",
                                                  "options": [{"label": "x"}, {"label": "y"}]}])])
        await agent.run_turn()
        result = agent.session.of_type("tool/result")[0]
    assert result.data["isError"] is False
    assert json.loads(result.data["text"]) == {
        "answers": [{"id": "pick", "selected": ["y"], "custom": None}]}


async def test_user_question_listener_that_passes_reaches_no_provider(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        host.on("user-questions/request", lambda request, next_: next_())
        agent = await host.create_agent(script=[
            call("ask_user_question", questions=[{"question": "?"}])])
        await agent.run_turn()
        result = agent.session.of_type("tool/result")[0]
        # The no-provider failure came from the default, not from the listener: nothing logged.
        assert not [r for r in host.records if r.level == "error"]
    assert result.data["text"] == "Error: no user-questions answerer accepted the request"


# ── verdicts that change the turn ───────────────────────────────────────────────────────────────

async def test_post_execute_block_turns_the_result_into_an_error(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        async def block(event: ToolPostEvent, next_: Any) -> PostToolDecision:
            assert event.result.text == "secret-output"
            return PostToolDecision("block", "output withheld by policy",
                                    (new_message("reviewed the output", "compat-adapter-hook", "h1"),))

        host.on("tools/post-execute", block)
        agent = await host.create_agent(script=[call("bash", command="echo secret-output"), "ok"])
        finals: list[ToolPostEvent] = []
        host.on("tools/result", finals.append)
        await agent.run_turn("go")
        result = agent.session.of_type("tool/result")[0]
        messages = agent.session.of_type("user/message")
    assert result.data["isError"] is True
    assert result.data["text"] == "output withheld by policy"
    assert finals[0].result.is_error and finals[0].result.text == "output withheld by policy"
    # The additional context enters the next step as a user message with its source.
    assert [(m.data["text"], m.data["step"], dict(m.data["source"])) for m in messages] == [
        ("go", 1, {"kind": "user", "name": None}),
        ("reviewed the output", 2, {"kind": "compat-adapter-hook", "name": "h1"}),
    ]


async def test_post_execute_contexts_without_block_keep_the_result(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        async def add(event: ToolPostEvent, next_: Any) -> PostToolDecision:
            await next_()
            return PostToolDecision("accept", additional_contexts=(new_message("ctx", "plugin"),))

        host.on("tools/post-execute", add)
        agent = await host.create_agent(script=[call("bash", command="echo fine"), "ok"])
        await agent.run_turn()
        result = agent.session.of_type("tool/result")[0]
        messages = agent.session.of_type("user/message")
    assert (result.data["isError"], result.data["text"]) == (False, "fine")
    assert [(m.data["text"], m.data["step"]) for m in messages] == [("ctx", 2)]


async def test_pre_step_reject_ends_the_turn_blocked_with_no_step(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        host.on("agent/pre-step", lambda event, next_: PreStepDecision("reject"))
        agent = await host.create_agent(script=[call("bash", command="touch ran")])
        result = await agent.run_turn("forbidden prompt")
        types = [e.type for e in agent.session.events]
        end = agent.session.of_type("turn/end")[0]
    assert result.reason == "blocked" and result.steps == 0
    assert types == ["turn/start", "turn/end"]
    assert dict(end.data["reason"]) == {"kind": "blocked"}
    assert not (tmp_path / "ran").exists()
    # The claimed prompt stays removed, as in DSH.
    assert agent.inbox == ()


async def test_pre_step_enter_with_added_messages_logs_them_in_order(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        async def add_context(event: PreStepEvent, next_: Any) -> Any:
            downstream = await next_()
            if event.messages:
                extra = new_message("hook context", "compat-adapter-hook", "ups")
                return PreStepDecision("enter", (*downstream.messages, extra))
            return downstream

        host.on("agent/pre-step", add_context)
        agent = await host.create_agent(script=["hi"])
        await agent.run_turn("prompt")
        texts = [m.data["text"] for m in agent.session.of_type("user/message")]
    assert texts == ["prompt", "hook context"]
