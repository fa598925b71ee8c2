"""Drivers for approvals, questions, and the points a host service drives (file watch, git
worktrees, shell variables, the language server)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from compat_adapter.host.protocol import (
    ApprovalOutcome,
    AskUserQuestionAnswer,
    PreToolDecision,
    QuestionAnswer,
    ToolExecution,
    UserQuestionsRequest,
)
from compat_adapter.host.script import Reply, call
from compat_adapter.routing import points
from compat_adapter.testing.live.checks import (
    allow_permission_answer,
    check_observed,
    check_payload,
    loads_or_none,
    observe_answer,
    specific,
)
from compat_adapter.testing.live.speakers import speaker_for
from compat_adapter.testing.live.harness import (
    ENV_NAME,
    ENV_VALUE,
    REASON,
    Session,
    bash_reply,
    log_records,
    tool_results,
)
from compat_adapter.testing.live.repo import git


async def ask_policy(execution: ToolExecution, next_: Callable[[], Awaitable[Any]]
                     ) -> PreToolDecision:
    """A plain host listener standing for the host's own permission policy: always ask."""
    return PreToolDecision("ask", "the host's policy asks for every tool call")


async def drive_approval(s: Session) -> None:
    s.probe.answer(allow_permission_answer(s.vendor, s.event))
    await s.register()
    s.host.on(points.PRE_EXECUTE.seam, ask_policy)
    agent = await s.host.create_agent(script=[bash_reply("touch approved.txt"), "done"])
    await agent.run_turn("create the file")
    await s.host.settle()
    check_payload(s)
    decided = log_records(agent.session, points.APPROVAL_DECIDED.record)
    s.expect(decided and decided[0]["outcome"] == "allowed-once",
             f"the approval was not allowed once: {decided}", "approval → allowed-once")
    s.expect((s.root / "approved.txt").exists(), "the approved command did not run",
             "approved command ran")


async def drive_approval_observed(s: Session) -> None:
    """An approval row whose vendor reads nothing of the answer (Kimi's PermissionRequest): the
    most blocking answer leaves the person's allow standing."""
    answer = observe_answer(s.vendor, s.event)
    s.probe.answer(answer)
    await s.register()
    s.host.on(points.PRE_EXECUTE.seam, ask_policy)

    async def person_allows(request: Any, next_: Callable[[], Awaitable[Any]]) -> Any:
        # Inside the hook's listener (registered after it), so the hook has run when the person answers.
        return ApprovalOutcome.ALLOWED_ONCE

    s.host.on(points.APPROVAL.seam, person_allows)
    agent = await s.host.create_agent(script=[bash_reply("touch approved.txt"), "done"])
    await agent.run_turn("create the file")
    await s.host.settle()
    check_payload(s)
    decided = log_records(agent.session, points.APPROVAL_DECIDED.record)
    s.expect(decided and decided[0]["outcome"] == "allowed-once" and (s.root / "approved.txt").exists(),
             f"an observe-only answer changed the approval: {decided}", "the person's allow stood")
    check_observed(s, answer)


async def drive_approval_deny(s: Session) -> None:
    s.probe.answer(speaker_for(s.vendor).deny_permission(s.event))
    await s.register()
    s.host.on(points.PRE_EXECUTE.seam, ask_policy)
    agent = await s.host.create_agent(script=[bash_reply("touch refused.txt"), "done"])
    await agent.run_turn("create the file")
    await s.host.settle()
    decided = log_records(agent.session, points.APPROVAL_DECIDED.record)
    refused = decided and decided[0]["outcome"] == "rejected"
    s.expect(refused and not (s.root / "refused.txt").exists(),
             f"a permission deny did not reject the approval: {decided}", "deny → rejected")


async def drive_permission(s: Session) -> None:
    """A permission hook that asks for the call itself (no one else asked): its deny refuses the
    call, and the model reads the hook's message."""
    s.probe.answer(speaker_for(s.vendor).deny_permission(s.event))
    await s.register()
    agent = await s.host.create_agent(script=[bash_reply("touch refused.txt"), "done"])
    await agent.run_turn("create the file")
    await s.host.settle()
    check_payload(s)
    results = tool_results(agent.session)
    s.expect(results and results[0]["isError"] and REASON in results[0]["text"]
             and not (s.root / "refused.txt").exists(),
             f"a permission deny did not refuse the call: {results[:1]}", "deny → call refused")


async def drive_approval_decided(s: Session) -> None:
    answer = observe_answer(s.vendor, s.event)
    s.probe.answer(answer)
    await s.register()
    s.host.on(points.PRE_EXECUTE.seam, ask_policy)
    agent = await s.host.create_agent(script=[bash_reply("touch rejected.txt"), "done"])
    await agent.run_turn("create the file")
    await s.host.settle()
    check_payload(s, tool=speaker_for(s.vendor).approval_tool())
    decided = log_records(agent.session, points.APPROVAL_DECIDED.record)
    rejected = decided and decided[0]["outcome"] == "rejected"
    s.expect(rejected and not (s.root / "rejected.txt").exists(),
             f"the host's rejection did not stand: {decided}", "rejection stood")
    payload = (s.probe.payloads() or [None])[0]
    if payload is not None:
        speaker_for(s.vendor).check_denial(s, payload)
    check_observed(s, answer)


async def drive_questions(s: Session) -> None:
    questions = [{"id": "q1", "question": "Which database?", "options": ["postgres", "sqlite"]}]
    ask = Reply(calls=(call("ask_user_question", questions=questions),))
    if s.row.blocking == "verdict":
        s.probe.answer(specific(s.event, action="accept", content={"q1": "sqlite"}))
        await s.register()
        agent = await s.host.create_agent(script=[ask, "done"])
        await agent.run_turn("ask me")
        await s.host.settle()
        check_payload(s, tool=None)
        results = tool_results(agent.session)
        value = loads_or_none(results[0]["text"]) if results else None
        s.expect(results and not results[0]["isError"] and value == {"answers": [
            {"id": "q1", "selected": ["sqlite"], "custom": None}]},
            f"the hook's accept did not answer the question: {results}",
            "accept answered the question")
        return
    answer = observe_answer(s.vendor, s.event)
    s.probe.answer(answer)
    await s.register()

    async def user(request: UserQuestionsRequest, next_: Callable[[], Awaitable[Any]]) -> Any:
        # The user, answering after the hook's listener: the hook only watches.
        return AskUserQuestionAnswer(tuple(QuestionAnswer(q.id, ("postgres",))
                                           for q in request.questions))

    s.host.on(points.QUESTIONS.seam, user)
    agent = await s.host.create_agent(script=[ask, "done"])
    await agent.run_turn("ask me")
    await s.host.settle()
    payload = check_payload(s, tool=None)
    results = tool_results(agent.session)
    s.expect(results and not results[0]["isError"] and "postgres" in results[0]["text"],
             f"the user's answer did not stand: {results}", "the user's answer stood")
    if payload is not None:
        content = json.dumps(payload.get("content"))
        s.expect(payload.get("action") == "accept" and "postgres" in content,
                 f"ElicitationResult payload lacks action/content: {payload}",
                 "action/content in payload")
    check_observed(s, answer)


async def drive_fs_watch(s: Session) -> None:
    answer = observe_answer(s.vendor, s.event)
    s.probe.answer(answer)
    await s.register()
    (s.root / "watched.txt").write_text("changed from outside\n", encoding="utf-8")
    fired = await s.probe.wait()
    await s.host.settle()
    await s.audited()
    s.expect(fired, "no hook run after a file was written")
    payload = check_payload(s, tool=None)
    if payload is not None:
        s.expect("watched.txt" in json.dumps(payload), f"the file is not in the payload: {payload}",
                 "written file in payload")
    check_observed(s, answer)


async def drive_worktrees(s: Session) -> None:
    answer = observe_answer(s.vendor, s.event)
    s.probe.answer(answer)
    tree = s.base / "wt-verify"
    remove = s.event.endswith("Remove")
    if remove:
        await git(s.root, "worktree", "add", "-q", str(tree), "-b", "verify-wt")
    await s.register()
    if remove:
        await git(s.root, "worktree", "remove", str(tree))
    else:
        await git(s.root, "worktree", "add", "-q", str(tree), "-b", "verify-wt")
    fired = await s.probe.wait()
    await s.host.settle()
    await s.audited()
    s.expect(fired, f"no hook run after git worktree {'remove' if remove else 'add'}")
    payload = check_payload(s, tool=None)
    if payload is not None:
        text = json.dumps(payload)
        s.expect("wt-verify" in text or "verify-wt" in text,
                 f"the worktree is not in the payload: {payload}", "worktree in payload")
    s.expect(len(s.probe.raw()) == 1, f"the hook ran {len(s.probe.raw())} times for one change")
    check_observed(s, answer)


async def drive_shell_env(s: Session) -> None:
    s.probe.answer({"env": {ENV_NAME: ENV_VALUE, "NOT_DSH": "dropped"}})
    await s.register()
    command = f'echo "token=${ENV_NAME} other=${{NOT_DSH:-unset}}"'
    agent = await s.host.create_agent(script=[bash_reply(command), "done"])
    await agent.run_turn("print the variable")
    await s.host.settle()
    check_payload(s, tool=None)
    results = tool_results(agent.session)
    text = results[0]["text"] if results else ""
    s.expect(f"token={ENV_VALUE}" in text, f"the DSH_* variable did not reach the shell: {text!r}",
             f"{ENV_NAME} reached the bash tool")
    s.expect("other=unset" in text, f"a non-DSH variable reached the shell: {text!r}",
             "non-DSH_* name dropped")


async def drive_lsp(s: Session) -> None:
    source = "import os\n\n\ndef f(x):\n    return os.path.join(x, 'y'\n"  # an unclosed call
    write = call("write", path="mod.py", file_path="mod.py", content=source)  # embedded, DSH
    answer = observe_answer(s.vendor, s.event)
    s.probe.answer(answer)
    await s.register()
    agent = await s.host.create_agent(script=[Reply(calls=(write,)), "done"])
    await agent.run_turn("write a module")
    fired = await s.probe.wait()
    await s.host.settle()
    await s.audited()
    s.expect(fired, "no hook run after a turn wrote a .py file")
    payload = check_payload(s, tool=None)
    if payload is not None:
        props = payload.get("input", {}).get("event", {}).get("properties", {})
        found = json.dumps(props.get("diagnostics"))
        s.expect(props.get("path") == "mod.py" and "SyntaxError" in found,
                 f"the language server's diagnostics are not in the payload: {props}",
                 "real diagnostics of mod.py in payload")
    check_observed(s, answer)
