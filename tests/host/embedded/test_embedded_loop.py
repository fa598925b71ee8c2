"""The embedded host's agent loop: inbox, steering, injection, subagents, compaction, commands,
model switches, the step cap, real tools and the session log (in memory and on disk)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from compat_adapter.errors import ScriptError
from compat_adapter.host.embedded.agent import AgentDisposed
from compat_adapter.host.embedded.memory import MemoryHost
from compat_adapter.host.protocol import (
    AgentCreated,
    PreStepEvent,
    SessionEventNotice,
    SubagentStart,
    ToolExecution,
    TurnStopping,
    new_message,
)
from compat_adapter.host.script import (
    EXHAUSTED_TEXT,
    Compact,
    Error,
    Reply,
    RunCommand,
    Subagent,
    SwitchModel,
    ToolCall,
    call,
    script_from_json,
    script_to_json,
)
from compat_adapter.jsondata import thaw
from compat_adapter.runtime.process import run_command


def texts(agent: Any, type_: str = "user/message") -> list[tuple[Any, ...]]:
    return [(e.data["text"], e.data["turn"], e.data["step"]) for e in agent.session.of_type(type_)]


# ── steer, inject, followup ─────────────────────────────────────────────────────────────────────

async def test_steer_during_turn_stopping_takes_another_step_in_the_same_turn(
        tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        stops: list[TurnStopping] = []

        async def stop_once(event: TurnStopping) -> None:
            stops.append(event)
            if len(stops) == 1:
                event.agent.steer(new_message("continue: tests are failing", "compat-adapter-hook",
                                              "stop-1"))

        host.on("agent/turn-stopping", stop_once)
        agent = await host.create_agent(script=["first answer", "second answer"])
        result = await agent.run_turn("fix it")
        types = [e.type for e in agent.session.events]
    assert result.turn == 1 and result.steps == 2 and result.reason == "completed"
    assert result.last_assistant_message == "second answer"
    assert [s.last_assistant_message for s in stops] == ["first answer", "second answer"]
    assert [s.turn for s in stops] == [1, 1]
    assert texts(agent) == [("fix it", 1, 1), ("continue: tests are failing", 1, 2)]
    assert types.count("turn/start") == 1 and types.count("step/start") == 2
    # the steered step comes after step/end of the first one and inside the same turn
    assert types == ["turn/start", "step/start", "user/message", "request/header",
                     "assistant/message", "step/end", "step/start", "user/message",
                     "assistant/message", "step/end", "turn/end"]


async def test_always_blocking_stop_is_bounded_only_by_the_host_step_cap(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path, max_steps_per_turn=5) as host:
        calls: list[int] = []

        def always_block(event: TurnStopping) -> None:
            calls.append(event.turn)
            event.agent.steer(new_message("keep going", "compat-adapter-hook"))

        host.on("agent/turn-stopping", always_block)
        agent = await host.create_agent()
        result = await agent.run_turn("go")
        end = agent.session.of_type("turn/end")[0]
    # No consecutive-block cap: every stop was blocked, until the host guard ended the turn.
    assert calls == [1] * 5
    assert result.reason == "max-steps" and result.steps == 5
    assert dict(end.data["reason"]) == {"kind": "max-steps"}
    assert any("step cap" in r.message for r in host.records)


async def test_inject_lands_as_user_message_in_the_next_step(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        async def inject_after_tool(event: Any, next_: Any) -> Any:
            event.execution.agent.inject(new_message("injected context", "plugin", "p"))
            return await next_()

        host.on("tools/post-execute", inject_after_tool)
        agent = await host.create_agent(script=[call("bash", command="true"), "done"])
        result = await agent.run_turn("go")
    assert result.steps == 2
    assert texts(agent) == [("go", 1, 1), ("injected context", 1, 2)]
    source = agent.session.of_type("user/message")[1].data["source"]
    assert dict(source) == {"kind": "plugin", "name": "p"}


async def test_inject_does_not_force_a_step_and_waits_for_the_next_turn(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        def inject_on_stop(event: TurnStopping) -> None:
            if event.turn == 1:
                event.agent.inject(new_message("late context", "plugin"))

        host.on("agent/turn-stopping", inject_on_stop)
        agent = await host.create_agent(script=["a", "b"])
        first = await agent.run_turn("one")
        await host.settle()
        assert [p for p, _ in agent.inbox] == ["inject"]
        assert agent.status == "idle" and len(agent.session.of_type("turn/start")) == 1
        await agent.run_turn("two")
    assert first.steps == 1
    assert texts(agent) == [("one", 1, 1), ("late context", 2, 1), ("two", 2, 1)]


async def test_context_injected_at_agent_created_precedes_the_first_prompt(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        async def rules(event: AgentCreated) -> None:
            event.agent.inject(new_message(f"rules ({event.source})", "compat-adapter-rules",
                                           "AGENTS.md"))

        host.on("agent/created", rules)
        agent = await host.create_agent(script=["ok"])
        await agent.run_turn("hello")
    assert texts(agent) == [("rules (startup)", 1, 1), ("hello", 1, 1)]


async def test_steer_wakes_an_idle_agent_and_followup_starts_a_new_turn(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        agent = await host.create_agent(script=["steered", "followed"])
        agent.steer(new_message("wake up", "user"))
        await host.settle()
        agent.followup(new_message("and then", "user"))
        await host.settle()
        ends = agent.session.of_type("turn/end")
    assert [e.data["turn"] for e in ends] == [1, 2]
    assert texts(agent) == [("wake up", 1, 1), ("and then", 2, 1)]
    assert [e.data["text"] for e in agent.session.of_type("assistant/message")] == [
        "steered", "followed"]


async def test_followup_during_a_turn_runs_after_it(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        def queue_followup(event: TurnStopping) -> None:
            if event.turn == 1:
                event.agent.followup(new_message("next turn please", "user"))

        host.on("agent/turn-stopping", queue_followup)
        agent = await host.create_agent(script=["one", "two"])
        await agent.run_turn("first")
        await host.settle()
    assert texts(agent) == [("first", 1, 1), ("next turn please", 2, 1)]


async def test_script_exhausted_answers_plain_text(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        agent = await host.create_agent(script=[])
        result = await agent.run_turn("anything")
    assert result.last_assistant_message == EXHAUSTED_TEXT == "(script exhausted)"
    assert agent.session.of_type("assistant/message")[0].data["toolCalls"] == ()


# ── subagents ───────────────────────────────────────────────────────────────────────────────────

async def test_subagent_child_is_reachable_during_start_and_takes_injected_context(
        tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        reached: list[Any] = []

        def on_start(info: SubagentStart) -> None:
            child = host.get_agent(info.child_id)
            reached.append(child)
            assert child is not None and child.parent_id == info.parent.id
            child.inject(new_message("context for the child", "compat-adapter-hook", "sub"))

        host.on("subagent/start", on_start)
        parent = await host.create_agent(script=[Subagent(["child done"], prompt="research"), "ok"])
        await parent.run_turn("delegate")
        child = reached[0]
        child_log = [(e.type, e.data.get("text")) for e in child.session.events]
        result = parent.session.of_type("tool/result")[0]
    assert child.session is not parent.session
    assert ("user/message", "context for the child") in child_log
    assert child_log.index(("user/message", "context for the child")) < child_log.index(
        ("user/message", "research"))
    assert result.data["text"] == "child done" and result.data["isError"] is False
    # the child was live while it ran and is gone afterwards
    assert child.disposed and host.get_agent(child.id) is None


async def test_subagent_context_from_a_background_hook_process_reaches_the_child(
        tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        async def hook(info: SubagentStart) -> None:
            # A real process, as a SubagentStart hook runs: its answer arrives later.
            outcome = await run_command("sleep 0.05; echo from-hook-process", stdin=None,
                                        cwd=tmp_path, env=dict(os.environ), timeout_s=10)
            child = host.get_agent(info.child_id)
            assert child is not None
            child.inject(new_message(outcome.stdout.strip(), "compat-adapter-hook"))

        def via_start_soon(info: SubagentStart) -> None:
            host.start_soon(hook, info)

        host.on("subagent/start", via_start_soon)
        parent = await host.create_agent(script=[Subagent(["done"], prompt="go")])
        await parent.run_turn()
        child_session = [s for s in host.sessions if s is not parent.session][0]
        child_texts = [e.data["text"] for e in child_session.of_type("user/message")]
    assert child_texts == ["from-hook-process", "go"]


async def test_subagent_error_is_an_error_result(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        ends: list[Any] = []
        host.on("subagent/end", ends.append)
        parent = await host.create_agent(script=[Subagent([Error("child model down")])])
        await parent.run_turn()
        result = parent.session.of_type("tool/result")[0]
    assert result.data["isError"] is True
    assert ends[0].stop_reason == "error"


# ── model errors, switches, compaction, commands ───────────────────────────────────────────────

async def test_model_error_ends_the_turn_after_step_end(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        order: list[str] = []
        host.on("session/event", lambda n: order.append(n.event.type))
        host.on("agent/error", lambda e: order.append(f"agent/error {e.error} {e.turn}/{e.step}"))
        agent = await host.create_agent(script=[Error("rate limited")])
        result = await agent.run_turn("x")
    assert result.reason == "error" and result.error == "rate limited"
    assert order[-3:] == ["step/end", "agent/error rate limited 1/1", "turn/end"]
    end = agent.session.of_type("turn/end")[0]
    assert dict(end.data["reason"]) == {"kind": "error", "error": "rate limited"}


async def test_switch_model_records_a_change_header(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        agent = await host.create_agent(script=["a", SwitchModel("deepseek/deepseek-chat"), "b", "c"])
        await agent.run_turn("1")
        await agent.run_turn("2")
        await agent.run_turn("3")
        headers = [thaw(e.data) for e in agent.session.of_type("request/header")]
    assert [(h["turn"], h["reason"]) for h in headers] == [(1, "initial"), (2, "change")]
    assert headers[1]["previous"] == {"provider": "scripted", "model": "model-a"}
    assert headers[1]["current"] == {"provider": "deepseek", "model": "deepseek-chat"}
    assert headers[1]["header"] == {"config": headers[1]["current"]}


async def test_resume_clear_and_compact_starts_on_an_existing_session(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        sources: list[tuple[str, str]] = []
        created: list[str] = []
        host.on("agent/created", lambda e: sources.append((e.agent.id, e.source)))
        host.on("session/created", lambda e: created.append(e.session.id))
        first = await host.create_agent(script=["a"])
        await first.run_turn("hi")
        await first.dispose()
        resumed = await host.create_agent(source="resume", session=first.session, script=["b"])
        result = await resumed.run_turn("back")
        cleared = await host.create_agent(source="clear", session=first.session.id)
    assert created == [first.session.id]
    assert [s for _, s in sources] == ["startup", "resume", "clear"]
    assert result.turn == 2  # turns are numbered per session
    headers = [e.data["reason"] for e in first.session.of_type("request/header")]
    assert headers == ["initial", "resume"]
    assert cleared.session is first.session


async def test_compact_item_logs_compaction_and_restarts_as_compact(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        seen: list[tuple[str, str]] = []

        async def on_created(event: AgentCreated) -> None:
            seen.append((event.agent.id, event.source))
            if event.source == "compact":
                event.agent.inject(new_message("rules again", "compat-adapter-rules"))

        host.on("agent/created", on_created)
        agent = await host.create_agent(script=[Compact("we fixed the bug"),
                                                call("bash", command="true"), "done"])
        await agent.run_turn("go")
        types = [e.type for e in agent.session.events]
        start, summary, end = (agent.session.of_type(t)[0] for t in
                               ("compaction/start", "compaction/summary", "compaction/end"))
    assert seen == [(agent.id, "startup"), (agent.id, "compact")]
    assert types.index("compaction/start") < types.index("compaction/summary") < types.index(
        "compaction/end") < types.index("request/header")
    assert start.data["compactionId"] == summary.data["compactionId"] == end.data["compactionId"]
    assert start.data["turn"] == 1 and "sourceCommandId" not in start.data
    assert summary.data["summary"] == "we fixed the bug"
    # the restart's injected context reaches the model at the next step
    assert ("rules again", 1, 2) in texts(agent)


async def test_commands_are_logged_and_compact_command_names_its_source(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        sources: list[str] = []
        host.on("agent/created", lambda e: sources.append(e.source))
        agent = await host.create_agent(script=[RunCommand("review", "src/"), "ok"])
        await agent.run_turn("x")
        await agent.run_command("compact", "short summary")
        await agent.run_command("clear")
        runs = [thaw(e.data) for e in agent.session.of_type("command/run")]
        dones = [thaw(e.data) for e in agent.session.of_type("command/done")]
        start = agent.session.of_type("compaction/start")[0]
    assert [(r["name"], r["args"], r["turn"]) for r in runs] == [
        ("review", "src/", 1), ("compact", "short summary", None), ("clear", None, None)]
    assert [d["commandId"] for d in dones] == [r["commandId"] for r in runs]
    assert all(d["kind"] == "success" for d in dones)
    assert start.data["sourceCommandId"] == runs[1]["commandId"] and start.data["turn"] is None
    assert sources == ["startup", "compact", "clear"]


# ── real tools ──────────────────────────────────────────────────────────────────────────────────

async def test_file_tools_really_change_files_and_workspace_changes_counts_lines(
        tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("a = 1\nb = 2\n")
    async with MemoryHost(tmp_path) as host:
        agent = await host.create_agent(script=[Reply(calls=(
            call("read", path="app.py"),
            call("edit", path="app.py", old="b = 2", new="b = 3\nc = 4"),
            call("write", path="pkg/new.txt", content="x\n"),
            call("edit", path="app.py", old="nowhere", new="x"),
            call("read", path="missing.txt"),
            call("nosuchtool"),
        ))])
        await agent.run_turn()
        results = [(e.data["isError"], e.data["text"]) for e in agent.session.of_type("tool/result")]
        changes = thaw(agent.session.of_type("workspace/changes")[0].data)
    assert (tmp_path / "app.py").read_text() == "a = 1\nb = 3\nc = 4\n"
    assert (tmp_path / "pkg" / "new.txt").read_text() == "x\n"
    assert results[0] == (False, "a = 1\nb = 2\n")
    assert results[1] == (False, "edited app.py")
    assert results[2][0] is False
    assert results[3][0] is True and "occurs 0 times" in results[3][1]
    assert results[4][0] is True and "FileNotFoundError" in results[4][1]
    assert results[5] == (True, "Error: unknown tool 'nosuchtool'")
    assert changes == {"turn": 1, "files": [{"path": "app.py", "added": 2, "deleted": 1},
                                            {"path": "pkg/new.txt", "added": 1, "deleted": 0}]}


async def test_no_workspace_changes_record_when_nothing_changed(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        agent = await host.create_agent(script=[call("bash", command="true")])
        await agent.run_turn()
        assert agent.session.of_type("workspace/changes") == ()


async def test_bash_failure_and_timeout_are_error_results(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        agent = await host.create_agent(script=[Reply(calls=(
            call("bash", command="echo out; echo err >&2; exit 3"),
            call("bash", command="sleep 30", timeout=0.2),
        ))])
        await agent.run_turn()
        results = [(e.data["isError"], e.data["text"]) for e in agent.session.of_type("tool/result")]
    assert results[0] == (True, "out\n[stderr]\nerr\n[exit code 3]")
    assert results[1][0] is True and "timed out" in results[1][1]


async def test_bash_runs_in_the_session_cwd(tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    async with MemoryHost(tmp_path) as host:
        session = host.create_session(other)
        agent = await host.create_agent(session=session, script=[call("bash", command="pwd")])
        await agent.run_turn()
        result = agent.session.of_type("tool/result")[0]
    assert Path(result.data["text"]).resolve() == other.resolve()


async def test_shell_env_contributors_reach_bash_and_bad_keys_are_rejected(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DSH_LEAKED_FROM_PARENT", "parent")
    monkeypatch.setenv("MY_API_KEY", "secret")
    async with MemoryHost(tmp_path, log_dir=tmp_path / "logs") as host:
        seen: list[ToolExecution] = []

        def contributor(execution: ToolExecution) -> dict[str, Any]:
            seen.append(execution)
            return {"DSH_COMPAT_HOOKS": "on", "bad_key": "x", "DSH_SHELL": "0", "DSH_NUM": 3}

        async def async_contributor(execution: ToolExecution) -> dict[str, str]:
            return {"DSH_ASYNC": "yes"}

        off = host.register_shell_env("compat", contributor)
        host.register_shell_env("another", async_contributor)
        agent = await host.create_agent(script=[
            call("bash", command="env | grep -E '^(DSH_|MY_API)' | sort"), "first turn done",
            call("bash", command="echo ${DSH_COMPAT_HOOKS:-unset}"), "second turn done",
        ])
        await agent.run_turn()
        off()
        await agent.run_turn()
        outputs = [e.data["text"] for e in agent.session.of_type("tool/result")]
        rejected = [r.fields["key"] for r in host.records if "rejected" in r.message]
    lines = outputs[0].splitlines()
    assert "DSH_COMPAT_HOOKS=on" in lines and "DSH_ASYNC=yes" in lines and "DSH_SHELL=1" in lines
    assert f"DSH_SESSION_ID={agent.session.id}" in lines
    assert f"DSH_SESSION_JSONL={agent.session.transcript_path}" in lines
    assert not any(line.startswith(("DSH_LEAKED", "MY_API_KEY", "bad_key", "DSH_NUM"))
                   for line in lines)
    assert sorted(rejected) == ["'DSH_NUM'", "'DSH_SHELL'", "'bad_key'"]
    assert seen[0].name == "bash" and seen[0].agent is agent
    assert outputs[1] == "unset"


async def test_todo_tool_appends_a_snapshot(tmp_path: Path) -> None:
    todos = [{"content": "write tests", "status": "in_progress"},
             {"content": "ship", "status": "pending"}]
    async with MemoryHost(tmp_path) as host:
        agent = await host.create_agent(script=[call("todo", todos=todos),
                                                call("todo", todos=[{"content": "x", "status": "?"}])])
        await agent.run_turn()
        writes = [thaw(e.data) for e in agent.session.of_type("todo/write")]
        bad = agent.session.of_type("tool/result")[1]
    assert writes == [{"todos": todos}]
    assert bad.data["isError"] is True


async def test_shell_false_host_has_no_bash(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path, shell=False) as host:
        agent = await host.create_agent(script=[call("bash", command="touch x")])
        await agent.run_turn()
        result = agent.session.of_type("tool/result")[0]
        with pytest.raises(NotImplementedError):
            host.register_shell_env("x", lambda execution: {})
    assert result.data["text"] == "Error: no shell executor in this composition"
    assert not (tmp_path / "x").exists()


async def test_listener_cannot_rewrite_tool_arguments(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        async def rewrite(event: ToolExecution, next_: Any) -> Any:
            event.arguments["command"] = "touch rewritten"  # type: ignore[index]
            return await next_()

        host.on("tools/pre-execute", rewrite)
        agent = await host.create_agent(script=[call("bash", command="touch original")])
        await agent.run_turn()
    assert (tmp_path / "original").exists() and not (tmp_path / "rewritten").exists()


# ── the session log ─────────────────────────────────────────────────────────────────────────────

async def test_jsonl_on_disk_matches_the_log_in_memory(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    async with MemoryHost(tmp_path, log_dir=logs, clock=lambda: 1700000000.5) as host:
        agent = await host.create_agent(script=[
            Reply("text", (call("write", path="f.txt", content="1\n"), Subagent(["c"]))),
            "end", Error("x")])
        await agent.run_turn("hello")
        await agent.run_turn("again")
        agent.session.append("hook/invoked", {"turn": 2, "point": "Stop", "dialect": "claude",
                                              "handlerId": "h"})
        sessions = host.sessions
    assert len(sessions) == 2
    for session in sessions:
        path = session.transcript_path
        assert path is not None and path == logs / f"{session.id}.jsonl"
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        memory = [{"seq": e.seq, "type": e.type, "time": e.time, "data": thaw(e.data)}
                  for e in session.events]
        assert lines == memory
        assert [e.seq for e in session.events] == list(range(1, len(lines) + 1))
        assert all(e.time == 1700000000.5 for e in session.events)
    assert agent.session.events[-1].type == "hook/invoked"


async def test_without_log_dir_there_is_no_transcript(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        agent = await host.create_agent(script=["x"])
        await agent.run_turn("y")
        assert agent.session.transcript_path is None
        assert list(tmp_path.iterdir()) == []


async def test_log_records_are_frozen(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        agent = await host.create_agent(script=["x"])
        await agent.run_turn("y")
        event = agent.session.events[0]
        with pytest.raises(TypeError):
            event.data["turn"] = 9  # type: ignore[index]
        events = agent.session.events  # a read-only view: listeners cannot write the log
        with pytest.raises(TypeError):
            events[0] = event  # type: ignore[index]
        assert not hasattr(events, "append")
        before = len(events)
        await agent.run_turn("again")
        assert len(events) > before  # a view of the live log, not a stale copy


async def test_session_event_notices_name_the_agent(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        notices: list[SessionEventNotice] = []
        host.on("session/event", notices.append)
        agent = await host.create_agent(script=["x"])
        await agent.run_turn("y")
    assert notices and all(n.agent is agent and n.session is agent.session for n in notices)


# ── lifecycle ───────────────────────────────────────────────────────────────────────────────────

async def test_leaving_the_host_disposes_agents_and_waits_for_background_work(
        tmp_path: Path) -> None:
    disposed: list[str] = []
    finished: list[str] = []
    async with MemoryHost(tmp_path) as host:
        async def slow_observer(event: AgentDisposed) -> None:
            await anyio.sleep(0.05)
            finished.append(event.agent.id)

        host.on("agent/disposed", lambda event: disposed.append(event.agent.id))
        host.on("agent/disposed", slow_observer)
        a = await host.create_agent()
        b = await host.create_agent()
    assert sorted(disposed) == sorted([a.id, b.id]) == sorted(finished)
    assert host.get_agent(a.id) is None
    with pytest.raises(RuntimeError):
        host.start_soon(anyio.sleep, 0)


async def test_dispose_waits_for_the_running_turn(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        agent = await host.create_agent(script=[call("bash", command="sleep 0.1"), "done"])
        order: list[str] = []
        host.on("agent/disposed", lambda e: order.append("disposed"))
        host.on("session/event", lambda n: order.append(n.event.type))
        running = anyio.Event()
        host.on("agent/status", lambda e: running.set() if e.status == "running" else None)
        agent.steer(new_message("go", "user"))
        with anyio.fail_after(10):
            await running.wait()
        await agent.dispose()
        agent.inject(new_message("too late", "user"))
    assert order.index("turn/end") < order.index("disposed")
    assert any("disposed agent" in r.message for r in host.records)


async def test_pre_step_sees_claimed_batch_and_continuation_steps(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        events: list[PreStepEvent] = []

        async def spy(event: PreStepEvent, next_: Any) -> Any:
            events.append(event)
            return await next_()

        host.on("agent/pre-step", spy)
        agent = await host.create_agent(script=[call("bash", command="true"),
                                                call("bash", command="true"), "done"])
        await agent.run_turn("p")
    assert [(e.step, [m.text for m in e.messages]) for e in events] == [
        (1, ["p"]), (2, []), (3, [])]


# ── scripts ─────────────────────────────────────────────────────────────────────────────────────

def test_script_json_round_trip() -> None:
    script = (
        Reply("hi", (call("bash", command="ls"), ToolCall("read", {"path": "a"}, "fixed-id"))),
        Subagent(("child", Error("e")), prompt="p", text="delegating"),
        Error("boom"),
        SwitchModel("p/m"),
        Compact("sum"),
        RunCommand("review", "x"),
    )
    data = script_to_json(script)
    assert json.loads(json.dumps(data)) == data
    assert script_from_json(data) == tuple(
        Reply(i.text, i.calls) if isinstance(i, Reply) else i for i in script)


def test_script_from_json_shorthands_and_errors() -> None:
    assert script_from_json(["hello", {"text": "t", "tools": [{"name": "bash",
                                                              "arguments": {"command": "ls"}}]}]) == (
        Reply("hello"), Reply("t", (ToolCall("bash", {"command": "ls"}),)))
    with pytest.raises(ScriptError):
        script_from_json({"text": "not a list"})
    with pytest.raises(ScriptError):
        script_from_json([{"mystery": 1}])
    with pytest.raises(ScriptError):
        call("bash", command=object())


async def test_an_error_in_the_body_propagates_as_itself(tmp_path: Path) -> None:
    with pytest.raises(KeyError):
        async with MemoryHost(tmp_path) as host:
            await host.create_agent()
            raise KeyError("from the body")
    with pytest.raises(RuntimeError):
        await MemoryHost(tmp_path).create_agent()
