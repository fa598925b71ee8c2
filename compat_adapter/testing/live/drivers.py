"""Drivers for the tool, prompt, turn and agent points: each drives one session until the row's
seam fires and checks what the answer did."""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import anyio

from compat_adapter.host.protocol import (
    ApprovalRequest,
)
from compat_adapter.host.script import Error, Reply, Subagent, SwitchModel, call
from compat_adapter.routing import points
from compat_adapter.catalog import unit_of, voice_of
from compat_adapter.testing.live.checks import (
    ask_answer,
    block_answer,
    check_observed,
    check_payload,
    context_answer,
    denied_shell_turn,
    deny_answer,
    observe_answer,
)
from compat_adapter.testing.live.speakers import speaker_for
from compat_adapter.testing.live.harness import (
    CONTEXT,
    CONTINUE,
    REASON,
    REPLACED,
    Session,
    bash_call,
    bash_reply,
    child_sessions,
    log_records,
    model_messages,
    tool_results,
    user_messages,
)

Driver = Callable[[Session], Awaitable[None]]


def _file_call(tool: str) -> Any:
    """A call of the host's file tool ``tool`` on ``notes.txt`` (the rows whose tools are not bash)."""
    # The embedded host's read and write name their file path, DSH's file_path: each ignores the other's.
    if tool == "read":
        return call("read", path="notes.txt", file_path="notes.txt")
    if tool == "edit":
        return call("edit", path="notes.txt", old="one", new="LANE-EDITED")
    return call("write", path="notes.txt", file_path="notes.txt", content="LANE-EDITED\n")


async def _file_turn(s: Session, tool: str, answer: dict[str, Any], text: str | None) -> list[Any]:
    """Register with ``answer``, run one turn calling ``tool`` on ``notes.txt`` (holding ``text``, or
    new: DSH refuses to write over a file the agent has not read); its tool results."""
    if text is not None:
        (s.root / "notes.txt").write_text(text)
    s.probe.answer(answer)
    await s.register()
    agent = await s.host.create_agent(script=[Reply(calls=(_file_call(tool),)), "done"])
    result = await agent.run_turn("use the file")
    await s.host.settle()
    check_payload(s, tool=tool)
    s.expect(result.reason == "completed", f"turn ended {result.reason}")
    return list(tool_results(agent.session))


async def drive_pre_file_tool(s: Session, tool: str) -> None:
    """A deny on a row of the file tools (Cursor's beforeReadFile …): the call does not run."""
    results = await _file_turn(s, tool, deny_answer(s.vendor, s.event), "one\nLANE-SECRET\n")
    s.expect(results and results[0]["isError"] and "LANE-SECRET" not in results[0]["text"]
             and (s.root / "notes.txt").read_text() == "one\nLANE-SECRET\n",
             f"deny did not block the {tool} call: {results}", f"deny blocked the {tool} call")


async def drive_post_file_tool(s: Session, tool: str) -> None:
    """An observe-only row of the file tools (Cursor's afterFileEdit, Windsurf's post_read_code …): the
    call stands (the edit is made, the read returns the file), nothing is shown."""
    answer = observe_answer(s.vendor, s.event)
    results = await _file_turn(s, tool, answer, "one\n" if tool in ("edit", "read") else None)
    stood = ("one" in results[0]["text"]) if tool == "read" and results else \
        "LANE-EDITED" in (s.root / "notes.txt").read_text()
    s.expect(results and not results[0]["isError"] and stood,
             f"the {tool} call did not stand: {results}", f"the {tool} call stood")
    check_observed(s, answer)


def _file_tool(s: Session) -> str | None:
    """The file tool a row fires on (its first), for a row whose tools are not bash; else None."""
    tools = s.row.tools or ()
    return tools[0] if tools and "bash" not in tools else None


async def drive_pre_tool(s: Session) -> None:
    """Deny blocks the call; then (fresh session) ask reaches approval and fails closed."""
    if (tool := _file_tool(s)) is not None:
        return await drive_pre_file_tool(s, tool)
    agent, result = await denied_shell_turn(s)
    s.expect(not (s.root / "denied.txt").exists(), "deny did not block: the command ran",
             "deny blocked the side effect")
    results = tool_results(agent.session)
    s.expect(results and results[0]["isError"] and REASON in results[0]["text"],
             f"the model does not see the deny reason: {results}", "reason in the tool result")
    s.expect(result.reason == "completed", f"turn ended {result.reason}")


async def drive_pre_tool_ask(s: Session) -> None:
    s.probe.answer(ask_answer(s.vendor, s.event))
    await s.register()
    asked: list[ApprovalRequest] = []

    async def watch(request: ApprovalRequest, next_: Callable[[], Awaitable[Any]]) -> Any:
        asked.append(request)
        return await next_()

    s.host.on(points.APPROVAL.seam, watch)
    agent = await s.host.create_agent(script=[bash_reply("touch asked.txt"), "done"])
    await agent.run_turn("create the file")
    await s.host.settle()
    check_payload(s)
    decided = log_records(agent.session, points.APPROVAL_DECIDED.record)
    # With nobody to answer, the call goes as the vendor's non-interactive run sends it: refused by
    # most, run by those whose unit declares ``ask_unattended="allow"`` (routing.unattended). The
    # official bridge's ask is the host's own, which refuses it (a loss those rows list).
    runs = not s.official and unit_of(s.vendor).landing.ask_unattended == "allow"
    s.expect(asked and decided and decided[0]["outcome"] == ("allowed-once" if runs else "unavailable"),
             f"ask did not reach the host's approval: asked={asked} decided={decided}",
             "ask reached approval/request")
    if runs:
        s.expect((s.root / "asked.txt").exists(), "ask without an approver did not run, as the vendor runs it",
                 "no approver: ran, as the vendor runs it")
    else:
        s.expect(not (s.root / "asked.txt").exists(), "ask without an approver did not fail closed",
                 "no approver: failed closed")


async def drive_post_tool(s: Session) -> None:
    if (tool := _file_tool(s)) is not None:
        return await drive_post_file_tool(s, tool)
    observed = s.row.blocking == "observe"
    if s.row.blocking == "verdict":
        s.probe.answer(block_answer(s.vendor, s.event))
    elif observed:
        # The vendor reads nothing of this event's answer (Cursor's afterShellExecution …).
        s.probe.answer(observe_answer(s.vendor, s.event))
    else:
        s.probe.answer(context_answer(s.vendor, s.event))
    await s.register()
    failing = bash_call("echo failing >&2; exit 3")
    if s.row.fires_on in ("completed", "incomplete"):
        # To this vendor a command that ran and exited non-zero is a completed call: the failure is
        # a call that cannot run (a timeout argument both hosts reject).
        failing = call("bash", command="exit 3", description="run a command", timeout=-1, timeoutMs=-1)
    calls = (bash_call("touch ran.txt && echo ok"), failing)
    agent = await s.host.create_agent(script=[Reply(calls=calls), "done"])
    result = await agent.run_turn("run the commands")
    await s.host.settle()
    payload = check_payload(s)
    # The host has one post-execute seam: a row that fires for one outcome (its `fires_on`) runs for
    # one of the two calls, a row that fires on any outcome for both.
    runs, want = len(s.probe.raw()), 2 if s.row.fires_on == "any" else 1
    s.expect(runs == want, f"the hook ran {runs} times for one success and one failure (fires on "
             f"{s.row.fires_on}: {want})", "fires only for its outcome" if want == 1 else "fires for both outcomes")
    if payload is not None:
        speaker_for(s.vendor).check_post_tool(s, payload)
    s.expect((s.root / "ran.txt").exists(), "the tool did not run before its post hook")
    results = tool_results(agent.session)
    if observed:
        s.expect(results and not results[0]["isError"] and REASON not in results[0]["text"]
                 and not [r for r in results if CONTEXT in r["text"]],
                 f"an observe-only answer changed a tool result: {results}", "tool results unchanged")
        check_observed(s, observe_answer(s.vendor, s.event))
    elif s.row.blocking == "verdict":
        s.expect(results and results[0]["isError"] and REASON in results[0]["text"],
                 f"a post-tool block did not replace the result: {results[:1]}",
                 "block replaced the tool result with the reason")
    elif not s.official and voice_of(s.vendor).place(
            s.event, failed=s.row.fires_on in ("failure", "incomplete")) == "result":
        # Copilot and CodeBuddy append post-tool context to the result the model reads.
        appended = [r for r in results if CONTEXT in r["text"]]
        s.expect(len(appended) == 1 and not [m for m in model_messages(agent.session) if CONTEXT in m["text"]],
                 f"context was not appended to one tool result: {results} {user_messages(agent.session)}",
                 "context appended to the tool result")
    else:
        seen = [m for m in model_messages(agent.session) if CONTEXT in m["text"]]
        s.expect(seen and seen[0]["turn"] == 1 and seen[0]["step"] == 2,
                 f"context did not reach the next step: {model_messages(agent.session)}",
                 f"context logged as a {seen[0].get('role', 'user') if seen else ''} message "
                 f"({seen[0]['source']['kind'] if seen else ''})")
    s.expect(result.reason == "completed" and result.steps == 2,
             f"turn ended {result.reason} after {result.steps} steps")


async def drive_pre_step(s: Session) -> None:
    transform = s.row.point == points.PRE_STEP_TRANSFORM.name
    if transform:
        s.probe.answer(speaker_for(s.vendor).replace_prompt(s.event, REPLACED))
    elif s.row.blocking == "verdict":
        s.probe.answer(block_answer(s.vendor, s.event))
    else:
        s.probe.answer(observe_answer(s.vendor, s.event))
    await s.register()
    agent = await s.host.create_agent(script=[bash_reply("touch stepped.txt"), "done"])
    result = await agent.run_turn("please touch the file")
    await s.host.settle()
    payload = check_payload(s, tool=None)
    if payload is not None:
        speaker_for(s.vendor).check_prompt(s, payload, "please touch the file")
    if transform:
        first = [m for m in user_messages(agent.session) if m["step"] == 1]
        s.expect(first and first[0]["text"] == REPLACED,
                 f"the model did not receive the replacement prompt: {first}",
                 "the step entered the replacement prompt")
    elif s.row.blocking == "verdict":
        # The host ends the turn without a step, and the person is told (a notice record); DSH
        # ends it as aborted by the hook, with the notice's words, which its SDK and headless show.
        # The official bridge's reject carries no words (a loss its rows list): no one is told.
        told = [n for n in log_records(agent.session, "notice") if n.get("kind") in ("blocked", "stopped")]
        s.expect(result.reason in ("blocked", "aborted") and result.steps == 0 and (told or s.official)
                 and not (s.root / "stepped.txt").exists(),
                 f"a prompt block did not reject the step, or told no one: {result} {told}",
                 f"block rejected the turn ({result.reason}); the person was told: {told[0]['text'][:60] if told else ''}")
    elif s.row.blocking == "context":
        # Only context is read here (Copilot): the blocking rest of the answer changes nothing.
        s.expect(result.reason == "completed" and (s.root / "stepped.txt").exists(),
                 f"a context-only answer changed the turn: {result}", "turn ran unchanged")
        seen = [m for m in model_messages(agent.session) if CONTEXT in m["text"]]
        where = "in the prompt's message" if seen and seen[0]["source"]["kind"] == "user" else "as a message"
        s.expect(seen and seen[0]["turn"] == 1 and seen[0]["step"] == 1,
                 f"prompt context did not reach the first step: {user_messages(agent.session)}",
                 f"context reached the first step {where}")
    else:
        s.expect(result.reason == "completed" and (s.root / "stepped.txt").exists(),
                 f"an observe-only answer changed the turn: {result}", "turn ran unchanged")
        check_observed(s, observe_answer(s.vendor, s.event))


async def drive_stop(s: Session) -> None:
    s.probe.answer({})
    s.probe.answer(block_answer(s.vendor, s.event, CONTINUE), run=0)
    await s.register()
    agent = await s.host.create_agent(script=["first answer", "second answer"])
    result = await agent.run_turn("fix the tests")
    await s.host.settle()
    check_payload(s, tool=None, at_least=2 if voice_of(s.vendor).stop_again else 1)  # Kimi: once a turn
    steered = [m for m in user_messages(agent.session) if CONTINUE in m["text"]]
    s.expect(result.steps == 2 and result.reason == "completed",
             f"a stop block did not force exactly one more step: {result}",
             "block forced one more step")
    s.expect(steered and steered[0]["turn"] == 1 and steered[0]["step"] == 2,
             f"no continuation message in step 2 of turn 1: {user_messages(agent.session)}",
             "continuation message in the same turn")
    s.expect(len(log_records(agent.session, "turn/start")) == 1, "the continuation started a new turn")
    payloads = s.probe.payloads()
    if not s.official and len(payloads) >= 2:
        # Our routes tell the second run that it runs because of a block.
        speaker_for(s.vendor).check_stop_rerun(s, payloads[0], payloads[1])


async def drive_agent_created(s: Session) -> None:
    want = speaker_for(s.vendor).session_source(s)
    if s.row.blocking == "observe":
        # The vendor reads nothing of a session-start answer (Kimi's SessionStart).
        _, payload = await observe_turn(s, ["hello back"])
        if payload is not None and want is not None:
            s.expect(payload.get("source") == want, f"source is not {want}: {payload}")
        return
    s.probe.answer(context_answer(s.vendor, s.event))
    await s.register()
    agent = await s.host.create_agent(script=["hello back"])
    await agent.run_turn("hello")
    await s.host.settle()
    payload = check_payload(s, tool=None)
    if payload is not None and want is not None:
        s.expect(payload.get("source") == want, f"source is not {want}: {payload}")
    seen = [m for m in model_messages(agent.session) if CONTEXT in m["text"]]
    s.expect(seen and seen[0]["turn"] == 1 and seen[0]["step"] == 1,
             f"session-start context not in the first step: {model_messages(agent.session)}",
             f"context logged as a {seen[0].get('role', 'user') if seen else ''} message "
                 f"({seen[0]['source']['kind'] if seen else ''})")


async def _delegate(s: Session, answer: dict[str, Any]) -> tuple[Any, Any]:
    """Register with ``answer``, run one turn that delegates to a child; the agent and the result."""
    s.probe.answer(answer)
    await s.register()
    script = [Subagent(script=(Reply("child answer"),), prompt="look at the code"), "done"]
    agent = await s.host.create_agent(script=script)
    result = await agent.run_turn("delegate")
    await s.host.settle()
    return agent, result


async def drive_subagent_start(s: Session) -> None:
    observed = s.row.blocking == "observe"
    # An observe row's vendor gives the child no context (Cursor's subagentStart): its answer changes nothing.
    answer = observe_answer(s.vendor, s.event) if observed else context_answer(s.vendor, s.event)
    agent, result = await _delegate(s, answer)
    check_payload(s, tool=None)
    children = child_sessions(s, agent.session)
    if observed:
        s.expect(children and result.reason == "completed", f"the child did not run: {result}",
                 "the child ran as without the hook")
        check_observed(s, answer)
        return
    seen = [m for c in children for m in model_messages(c) if CONTEXT in m["text"]]
    s.expect(seen, f"the child's log has no context message: {[user_messages(c) for c in children]}",
             "context in the child's log")
    s.expect(not [m for m in model_messages(agent.session) if CONTEXT in m["text"]],
             "subagent context leaked into the parent's log")
    s.expect(result.reason == "completed", f"turn ended {result.reason}")


async def drive_subagent_end(s: Session) -> None:
    answer = observe_answer(s.vendor, s.event)
    agent, result = await _delegate(s, answer)
    results = tool_results(agent.session)
    if getattr(s.host, "subagents_beside_parent", False):
        # The subagent tool returned at once; the child's answer reached the parent as a message:
        # as a third step of the first turn when the parent was still in it, else in a turn of
        # its own (run_turn waits for both). Either way nothing else changed the run.
        delivered = [m for m in user_messages(agent.session) if "child answer" in m["text"]]
        s.parent_turn = delivered[0]["turn"] if delivered else None
        steps = 3 if s.parent_turn == 1 else 2
        s.expect(result.reason == "completed" and result.steps == steps and results
                 and not results[0]["isError"] and delivered,
                 f"a subagent-stop answer changed the run: {result} {results} {user_messages(agent.session)}",
                 "the child's answer reached the parent unchanged")
        check_payload(s, tool=None)
    else:
        check_payload(s, tool=None)
        s.expect(result.reason == "completed" and result.steps == 2 and results
                 and not results[0]["isError"] and results[0]["text"] == "child answer",
                 f"a subagent-stop answer changed the run: {result} {results}",
                 "the child's answer reached the parent unchanged")
    check_observed(s, answer)


async def observe_turn(s: Session, script: Sequence[Any], then: Callable[[Any], Awaitable[None]]
                        | None = None, *, tool: str | None = None, at_least: int = 1,
                        wants: str = "completed") -> tuple[Any, Any]:
    """Register with the blocking answer, run one turn (and ``then``), check nothing changed."""
    answer = observe_answer(s.vendor, s.event)
    s.probe.answer(answer)
    await s.register()
    agent = await s.host.create_agent(script=list(script))
    result = await agent.run_turn("do the work")
    if then is not None:
        await then(agent)
    await s.host.settle()
    payload = check_payload(s, tool=tool, at_least=at_least)
    s.expect(result.reason == wants, f"turn ended {result.reason}, expected {wants}",
             f"turn ended {wants} as without the hook")
    check_observed(s, answer)
    return agent, payload


async def drive_compaction(s: Session) -> None:
    async def compact(agent: Any) -> None:
        await agent.compact("verify summary")

    # An older step longer than the summary: a real engine (rc.8's) keeps the newest step and
    # refuses a summary that does not shrink what it replaces.
    first = Reply("a long answer, " * 60, (bash_call("echo working"),))
    agent, payload = await observe_turn(s, [first, "done"], compact)
    ends = log_records(agent.session, points.COMPACTION_END.record)
    s.expect(ends and log_records(agent.session, "compaction/summary"),
             "compaction did not finish", "compaction finished")
    if payload is not None:
        speaker_for(s.vendor).check_compaction(s, payload)


async def drive_disposed(s: Session) -> None:
    async def dispose(agent: Any) -> None:
        await agent.dispose()

    agent, _ = await observe_turn(s, ["hi"], dispose)
    s.expect(agent.disposed, "the agent was not disposed")


async def drive_error(s: Session) -> None:
    _, payload = await observe_turn(s, [Error("model overloaded")], wants="error")
    if payload is not None:
        s.expect("model overloaded" in json.dumps(payload),
                 f"the error text is not in the payload: {payload}", "error text in payload")


async def drive_status(s: Session) -> None:
    async def stay_idle(agent: Any) -> None:
        # A row the vendor fires only after a wait (Claude's 60 s idle notification) is given it.
        if s.row.idle_after_s:
            await anyio.sleep(s.row.idle_after_s + 0.5)

    await observe_turn(s, [bash_reply("touch status.txt"), "done"], stay_idle)
    s.expect((s.root / "status.txt").exists(), "the turn's command did not run")


async def drive_inbox(s: Session) -> None:
    _, payload = await observe_turn(s, ["ok"])
    if payload is not None:
        s.expect("do the work" in json.dumps(payload),
                 f"the inserted message is not in the payload: {payload}", "inbox message in payload")


async def drive_session_created(s: Session) -> None:
    (s.root / "CLAUDE.md").write_text("# rules\n", encoding="utf-8")
    _, payload = await observe_turn(s, ["ok"])
    s.expect(len(s.host.sessions) == 1, "more than one session")
    s.expect(len(s.probe.raw()) == 1, f"the hook ran {len(s.probe.raw())} times for one session")
    if payload is not None:
        speaker_for(s.vendor).check_session_created(s, payload)


async def drive_session_event(s: Session) -> None:
    await observe_turn(s, [bash_reply("echo hi"), "done"], at_least=3)


async def drive_step_end(s: Session) -> None:
    _, payload = await observe_turn(s, [bash_reply("echo batch"), "done"])
    # Only the step that made tool calls is a batch; the closing text step is not.
    s.expect(len(s.probe.raw()) == 1, f"the batch hook ran {len(s.probe.raw())} times for one batch")
    if payload is not None:
        calls = payload.get("tool_calls") or []
        want = speaker_for(s.vendor).tool_name(s, "bash")
        # The shell call's input carries the command (and the model's description of it).
        s.expect(len(calls) == 1 and calls[0].get("tool_name") == want
                 and (calls[0].get("tool_input") or {}).get("command") == "echo batch",
                 f"tool_calls does not name the step's call: {calls}", f"tool_calls in payload ({want})")


async def drive_todo(s: Session) -> None:
    tool = getattr(s.host, "todo_tool", "todo")  # the host's own name for its todo tool
    pending = call(tool, todos=[{"content": "write the tests", "status": "pending"}])
    done = call(tool, todos=[{"content": "write the tests", "status": "completed"}])
    _, payload = await observe_turn(s, [Reply(calls=(pending,)), Reply(calls=(done,)), "done"])
    if payload is not None:
        speaker_for(s.vendor).check_todo(s, payload, "write the tests")
    s.expect(len(s.probe.raw()) == 1, f"the task hook ran {len(s.probe.raw())} times, expected once")


async def drive_model_switch(s: Session) -> None:
    script = [bash_reply("echo one"), SwitchModel("other/model-b"), "done"]
    _, payload = await observe_turn(s, script)
    s.expect(len(s.probe.raw()) == 1, f"the model-switch hook ran {len(s.probe.raw())} times")
    if payload is not None:
        s.expect("model-b" in json.dumps(payload),
                 f"the new model is not in the payload: {payload}", "new model in payload")


async def drive_command(s: Session) -> None:
    async def run(agent: Any) -> None:
        await agent.run_command("review", "now")

    agent, payload = await observe_turn(s, ["ok"], run)
    s.expect(log_records(agent.session, "command/done"), "the command did not finish")
    if payload is not None:
        s.expect("review" in json.dumps(payload),
                 f"the command name is not in the payload: {payload}", "command name in payload")


async def drive_workspace(s: Session) -> None:
    write = call("write", path="notes.txt", file_path="notes.txt", content="one\ntwo\n")
    _, payload = await observe_turn(s, [Reply(calls=(write,)), "done"])
    if payload is not None:
        s.expect("notes.txt" in json.dumps(payload),
                 f"the changed file is not in the payload: {payload}", "changed file in payload")


async def drive_message_display(s: Session) -> None:
    _, payload = await observe_turn(s, ["shown text"])
    runs = len(s.probe.raw())
    s.expect(runs == 1, f"the display hook ran {runs} times for one assistant message")
    if payload is not None:
        speaker_for(s.vendor).check_display(s, payload, "shown text")


async def _now(value: Any) -> Any:
    # The embedded host answers settings calls at once; the real lane asks DSH and awaits.
    return await value if inspect.isawaitable(value) else value


async def drive_settings(s: Session) -> None:
    answer = observe_answer(s.vendor, s.event)
    s.probe.answer(answer)
    await s.register()
    revision = await _now(s.host.update_settings("editor", {"theme": "dark"}))
    await s.host.settle()
    check_payload(s, tool=None)
    s.expect(await _now(s.host.settings_document("editor")) == (revision, {"theme": "dark"}),
             "the settings update did not stick", "settings updated regardless")
    check_observed(s, answer)
