"""Our own listeners: native-translate, native-seam (observe-only) and the built-in Copilot bridge.

One :class:`NativeRouter` per adapter. It subscribes to each host seam once, on first use, and
dispatches to the hooks mounted on that seam's points. Each point turns the host event into a
vendor moment, runs the vendor event's hooks (``dispatch.run_group``) and applies the merged answer
the way that point allows:

* waterfall points return a host verdict (deny/ask, block/accept with contexts, reject/enter,
  approval outcome, question answer) and otherwise call ``next()``;
* serial points inject context or steer another step;
* emit and service points only observe: a blocking answer is audited and ignored.

Which of those a row may do is its ``blocking`` field; the route only decides whether the answer can
reach the host at all (native-seam rows never can).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from compat_adapter.dialects.base import HookAnswer
from compat_adapter.host.protocol import (
    AgentCreated,
    AgentError,
    AgentHandle,
    AgentStatus,
    ApprovalOutcome,
    ApprovalRequest,
    AskUserQuestionAnswer,
    Host,
    InboxInserted,
    LogEvent,
    PostToolDecision,
    PreStepDecision,
    PreStepEvent,
    PreToolDecision,
    QuestionAnswer,
    SessionCreated,
    SessionEventNotice,
    SessionHandle,
    SettingsUpdated,
    SubagentEnd,
    SubagentStart,
    ToolExecution,
    ToolPostEvent,
    TurnStopping,
    UserMessage,
    UserQuestionsRequest,
    Worktree,
    new_message,
)
from compat_adapter.jsondata import jsonable
from compat_adapter.routing.base import HookState
from compat_adapter.routing.dispatch import (
    AuditRecord,
    GroupResult,
    HookEntry,
    audit_records,
    moment_for,
    run_group,
    select,
    turn_of,
)

__all__ = ("HOOK_SOURCE", "NativeRouter", "STOP_BLOCK_LIMIT")

#: Source kind of every message this project injects or steers for a hook.
HOOK_SOURCE = "compat-adapter-hook"
#: Copilot's runaway guard: at most this many consecutive agentStop blocks in one turn.
STOP_BLOCK_LIMIT = 8
#: Files queried per turn for the LSP points; a large turn does not query every path.
LSP_FILES_PER_TURN = 3
#: Poll interval of the git worktree points.
WORKTREE_POLL_S = 0.5



def _flatten(messages: tuple[UserMessage, ...]) -> str:
    return "\n".join(m.text for m in messages)


class NativeRouter:
    """Mounts and dispatches the hooks whose route this project owns, for one adapter."""

    def __init__(self, host: Host, adapter_id: str, audit: list[AuditRecord]) -> None:
        self._host = host
        self._adapter_id = adapter_id
        self._points: dict[str, list[HookEntry]] = {}
        self._group_cache: dict[str, list[list[HookEntry]]] = {}
        self._unsubscribe: dict[str, Callable[[], None]] = {}
        self._closers: list[Callable[[], Awaitable[None]]] = []
        self._armed: set[str] = set()
        self._stop_blocks: dict[tuple[str, int | None], int] = {}
        self._todos: dict[str, dict[str, str]] = {}
        self._models: dict[str, str] = {}
        self._closed = False
        #: The adapter's audit: every hook run, in order.
        self.audit = audit

    # ── mounting ────────────────────────────────────────────────────────────────────────────────
    async def mount(self, entry: HookEntry) -> None:
        row = entry.row
        self._points.setdefault(row.point, []).append(entry)
        self._group_cache.pop(row.point, None)
        try:
            for seam in row.seams:
                self._subscribe(seam)
            await self._arm_service(row.point)
        except BaseException:
            self._points[row.point].remove(entry)
            self._group_cache.pop(row.point, None)
            raise

    def unmount(self, entry: HookEntry) -> None:
        entries = self._points.get(entry.row.point, [])
        if entry in entries:
            entries.remove(entry)
            self._group_cache.pop(entry.row.point, None)

    async def flush(self) -> None:
        """Nothing to flush: a listener mounts at once."""

    def state(self, entry: HookEntry) -> HookState:
        held = entry in self._points.get(entry.row.point, ())
        return HookState(held=held, running=held and not self._closed)

    def _subscribe(self, seam: str) -> None:
        if seam in self._unsubscribe:
            return
        listener = _LISTENERS[seam]
        self._unsubscribe[seam] = self._host.on(seam, getattr(self, listener))

    async def _arm_service(self, point: str) -> None:
        if point in self._armed:
            return
        if point == "fs/watch":
            close = await self._host.watch(self._host.cwd, self._on_files_changed, debounce_ms=250)
            self._closers.append(close)
        elif point == "git/worktrees":
            await self._start_worktree_poll()
        elif point == "shell/env":
            unregister = self._host.register_shell_env(f"compat-adapter-{self._adapter_id}",
                                                       self._shell_env)
            self._closers.append(_async(unregister))
        self._armed.add(point)

    async def close(self) -> None:
        self._closed = True
        for unsubscribe in self._unsubscribe.values():
            unsubscribe()
        self._unsubscribe.clear()
        for close in reversed(self._closers):
            await close()
        self._closers.clear()
        self._points.clear()
        self._group_cache.clear()

    # ── running ─────────────────────────────────────────────────────────────────────────────────
    def _groups(self, point: str) -> list[list[HookEntry]]:
        """The point's entries grouped by vendor event, groups in first-registration order.

        Cached until the next mount or unmount: this runs on every dispatch.
        """
        cached = self._group_cache.get(point)
        if cached is None:
            groups: dict[tuple[str, str], list[HookEntry]] = {}
            for entry in self._points.get(point, ()):
                groups.setdefault((entry.spec.id, entry.row.event), []).append(entry)
            cached = self._group_cache[point] = list(groups.values())
        return cached

    async def _run(self, entries: list[HookEntry], fields: Mapping[str, Any], *,
                   session: SessionHandle | None, turn: int | None = None, log_pair: bool = False
                   ) -> GroupResult:
        first = entries[0]
        moment = moment_for(first.row.event, session, self._host.cwd, fields, turn)
        chosen = select(entries, moment)
        if not chosen:
            return GroupResult(HookAnswer(), (), (), ())
        if log_pair and session is not None and turn is not None:
            for entry in chosen:
                session.append("hook/invoked", {"turn": turn, "point": entry.row.event,
                                                "dialect": entry.spec.id, "matcher": entry.matcher,
                                                "handlerId": entry.id})
        group = await run_group(chosen, moment)
        if log_pair and session is not None and turn is not None:
            for entry, answer, outcome in zip(group.ran, group.answers, group.outcomes, strict=True):
                record: dict[str, Any] = {"turn": turn, "point": entry.row.event,
                                          "handlerId": entry.id, "decision": answer.decision,
                                          "durationMs": round(outcome.duration_ms, 3)}
                if outcome.exit_code is not None:
                    record["exitCode"] = outcome.exit_code
                if outcome.stderr.strip():
                    record["stderrSummary"] = outcome.stderr.strip()[:500]
                session.append("hook/result", record)
        return group

    def _record(self, group: GroupResult, point: str, honoured: bool, note: str = "") -> None:
        self.audit.extend(audit_records(group, point, honoured, note))

    def _observe(self, group: GroupResult, point: str) -> None:
        """Record an observe-only run: a blocking answer is written down and ignored."""
        if group.empty:
            return
        blocked = group.merged.decision in ("deny", "block", "ask") or group.merged.stop
        note = ("observe-only: the blocking answer was ignored" if blocked else "observed")
        self._record(group, point, honoured=False if blocked else True, note=note)

    def _message(self, group: GroupResult, text: str) -> UserMessage:
        first = group.ran[0]
        return new_message(text, HOOK_SOURCE, f"{first.spec.id}:{first.row.event}")

    def _contexts(self, group: GroupResult) -> tuple[UserMessage, ...]:
        if not group.merged.additional_context:
            return ()
        return (self._message(group, "\n\n".join(group.merged.additional_context)),)

    # ── waterfall points ────────────────────────────────────────────────────────────────────────
    async def on_pre_execute(self, execution: ToolExecution, next: Callable[[], Awaitable[Any]]
                             ) -> PreToolDecision:
        session = execution.agent.session if execution.agent is not None else None
        turn = turn_of(session) if session is not None else None
        fields = {"tool_name": execution.name, "tool_input": dict(execution.arguments),
                  "tool_use_id": execution.call_id}
        for entries in self._groups("tools/pre-execute"):
            group = await self._run(entries, fields, session=session, turn=turn, log_pair=True)
            if group.empty:
                continue
            answer = group.merged
            label = f"{group.ran[0].spec.id} {group.ran[0].row.event}"
            if answer.decision == "deny" or answer.decision == "block":
                self._record(group, "tools/pre-execute", True, "deny")
                return PreToolDecision("deny", answer.reason or f"blocked by {label} hook")
            if answer.decision == "ask":
                self._record(group, "tools/pre-execute", True, "ask → host approval")
                return PreToolDecision("ask", answer.reason)
            note = "allow does not pre-approve" if answer.decision == "allow" else "no decision"
            if answer.updated_input is not None:
                note += "; input rewrite ignored"
            self._record(group, "tools/pre-execute", True, note)
        return await next()

    async def on_post_execute(self, event: ToolPostEvent, next: Callable[[], Awaitable[Any]]
                              ) -> PostToolDecision:
        execution, result = event.execution, event.result
        session = execution.agent.session if execution.agent is not None else None
        turn = turn_of(session) if session is not None else None
        fields = {"tool_name": execution.name, "tool_input": dict(execution.arguments),
                  "tool_use_id": execution.call_id, "tool_response": result.text,
                  "is_error": result.is_error, "error": result.text if result.is_error else None}
        contexts: list[UserMessage] = []
        for entries in self._groups("tools/post-execute"):
            event_name = entries[0].row.event
            fires_on = entries[0].row.fires_on
            if (fires_on == "failure" and not result.is_error) or (
                    fires_on == "success" and result.is_error):
                continue
            group = await self._run(entries, fields, session=session, turn=turn, log_pair=True)
            if group.empty:
                continue
            answer = group.merged
            if answer.decision in ("block", "deny") and entries[0].row.blocking == "verdict":
                self._record(group, "tools/post-execute", True, "block")
                label = f"{group.ran[0].spec.id} {event_name}"
                return PostToolDecision("block", answer.reason or f"blocked by {label} hook",
                                        tuple(contexts) + self._contexts(group))
            note = "context" if answer.additional_context else "no decision"
            if answer.updated_output is not None:
                note += "; output rewrite ignored"
            self._record(group, "tools/post-execute", True, note)
            contexts.extend(self._contexts(group))
        downstream: PostToolDecision = await next()
        if not contexts:
            return downstream
        return PostToolDecision(downstream.kind, downstream.feedback,
                                tuple(contexts) + downstream.additional_contexts)

    async def on_pre_step(self, event: PreStepEvent, next: Callable[[], Awaitable[Any]]
                          ) -> PreStepDecision:
        # Only what the user typed is a prompt: steering, injected context (rules, hook context)
        # and tool continuations ride in the same batch but are not the vendor's prompt.
        prompts = tuple(m for m in event.messages if m.source.kind == "user")
        if not prompts:
            return await next()
        session = event.agent.session
        prompt = _flatten(prompts)
        fields = {"prompt": prompt, "agent_id": event.agent.id}
        contexts: list[UserMessage] = []
        replacement: str | None = None
        for point in ("agent/pre-step", "agent/pre-step/transform"):
            for entries in self._groups(point):
                group = await self._run(entries, fields, session=session, turn=event.turn,
                                        log_pair=True)
                if group.empty:
                    continue
                answer = group.merged
                blocking = entries[0].row.blocking
                if blocking == "verdict" and answer.decision in ("deny", "block"):
                    self._record(group, point, True, "reject")
                    return PreStepDecision("reject")
                if point == "agent/pre-step/transform" and answer.replacement_prompt is not None:
                    replacement = answer.replacement_prompt
                    self._record(group, point, True, "prompt replaced for the model")
                elif blocking == "context":
                    contexts.extend(self._contexts(group))
                    self._record(group, point, True, "context")
                else:
                    self._observe(group, point)
        downstream: PreStepDecision = await next()
        if downstream.kind != "enter":
            return downstream
        messages = downstream.messages
        if replacement is not None:
            # The batch's prompts become one replaced prompt; everything else stays as it was.
            first, rest = prompts[0].id, {m.id for m in prompts[1:]}
            messages = tuple(UserMessage(id=m.id, text=replacement, source=m.source) if m.id == first else m
                             for m in messages if m.id not in rest)
        return PreStepDecision("enter", tuple(messages) + tuple(contexts))

    async def on_approval(self, request: ApprovalRequest, next: Callable[[], Awaitable[Any]]
                          ) -> ApprovalOutcome:
        session = request.agent.session
        fields = {"tool_name": request.tool_name, "tool_input": {"reason": request.reason},
                  "tool_use_id": request.call_id, "reason": request.reason}
        for entries in self._groups("approval/request"):
            group = await self._run(entries, fields, session=session, turn=turn_of(session),
                                    log_pair=True)
            if group.empty:
                continue
            if group.merged.decision in ("deny", "block"):
                self._record(group, "approval/request", True, "rejected")
                return ApprovalOutcome.REJECTED
            if group.merged.decision == "allow":
                self._record(group, "approval/request", True, "allowed-once")
                return ApprovalOutcome.ALLOWED_ONCE
            self._record(group, "approval/request", True, "no decision")
        return await next()

    async def on_questions(self, request: UserQuestionsRequest, next: Callable[[], Awaitable[Any]]
                           ) -> AskUserQuestionAnswer:
        session = request.agent.session if request.agent is not None else None
        questions = [{"id": q.id, "question": q.question, "options": list(q.options)}
                     for q in request.questions]
        fields = {"questions": questions, "message": "\n".join(q.question for q in request.questions)}
        turn = turn_of(session) if session is not None else None
        answer: AskUserQuestionAnswer | None = None
        for entries in self._groups("user-questions/request"):
            if entries[0].row.event != "Elicitation":
                continue
            group = await self._run(entries, fields, session=session, turn=turn, log_pair=True)
            if group.empty:
                continue
            given = _question_answers(group.merged.answers)
            asked = {q.id for q in request.questions}
            items = tuple(QuestionAnswer(id=qid, selected=_selected(value), custom=_custom(value))
                          for qid, value in given.items() if qid in asked)
            if items:
                self._record(group, "user-questions/request", True, "answered")
                answer = AskUserQuestionAnswer(items)
                break
            self._record(group, "user-questions/request", True, "no answer")
        if answer is None:
            answer = await next()
        results = [e for e in self._groups("user-questions/request") if e[0].row.event == "ElicitationResult"]
        for entries in results:
            result_fields = {**fields,
                             "answers": {a.id: {"selected": list(a.selected), "custom": a.custom}
                                         for a in answer.answers},
                             # Claude's ElicitationResult reads an MCP-style action and content.
                             "action": "accept",
                             "content": {a.id: _content_value(a) for a in answer.answers}}
            group = await self._run(entries, result_fields, session=session, turn=turn, log_pair=True)
            self._observe(group, "user-questions/request")
        return answer

    # ── serial points ───────────────────────────────────────────────────────────────────────────
    async def on_agent_created(self, event: AgentCreated) -> None:
        session = event.agent.session
        for entries in self._groups("agent/created"):
            group = await self._run(entries, {"source": event.source, "agent_id": event.agent.id},
                                    session=session)
            if group.empty:
                continue
            for message in self._contexts(group):
                event.agent.inject(message)
            self._record(group, "agent/created", True, "context" if group.merged.additional_context
                         else "no context")

    async def on_turn_stopping(self, event: TurnStopping) -> None:
        session = event.agent.session
        key = (event.agent.id, event.turn)
        forced = self._stop_blocks.get(key, 0)
        fields = {"stop_hook_active": forced > 0, "last_assistant_message": event.last_assistant_message}
        for entries in self._groups("agent/turn-stopping"):
            group = await self._run(entries, fields, session=session, turn=event.turn, log_pair=True)
            if group.empty:
                continue
            answer = group.merged
            if answer.decision not in ("block", "deny"):
                self._stop_blocks.pop(key, None)
                self._record(group, "agent/turn-stopping", True, "stop allowed")
                continue
            if forced >= STOP_BLOCK_LIMIT:
                self._stop_blocks.pop(key, None)
                self._record(group, "agent/turn-stopping", False,
                              f"runaway guard: {STOP_BLOCK_LIMIT} consecutive blocks, the turn ends")
                return
            self._stop_blocks[key] = forced + 1
            reason = answer.reason or "continue: blocked by the stop hook"
            event.agent.steer(self._message(group, reason))
            self._record(group, "agent/turn-stopping", True, f"block {forced + 1}: another step")
            return

    # ── emit points (observe) ───────────────────────────────────────────────────────────────────
    def on_disposed(self, event: Any) -> Awaitable[None] | None:
        agent: AgentHandle = event.agent
        # The host's notice has no cause: no reason is invented, each dialect sends its default.
        return self._emit("agent/disposed", {"agent_id": agent.id}, agent.session)

    def on_error(self, event: AgentError) -> Awaitable[None] | None:
        return self._emit("agent/error", {"error": event.error, "agent_id": event.agent.id},
                          event.agent.session, turn=event.turn)

    def on_status(self, event: AgentStatus) -> Awaitable[None] | None:
        return self._emit("agent/status", {"status": event.status, "agent_id": event.agent.id,
                                           "notification": f"agent {event.status}"},
                          event.agent.session,
                          keep=lambda e: e.row.fires_on != "idle" or event.status == "idle")

    def on_inbox(self, event: InboxInserted) -> Awaitable[None] | None:
        m = event.message
        return self._emit("agent/inbox/inserted", {"message_id": m.id, "text": m.text,
                                                   "source": m.source.kind, "prompt": m.text},
                          event.agent.session)

    def on_subagent_start(self, event: SubagentStart) -> Awaitable[None] | None:
        if not self._points.get("subagent/start"):
            return None
        # Resolve the child now, while the host guarantees it is reachable.
        child = self._host.get_agent(event.child_id)
        fields = {"agent_id": event.child_id, "agent_type": "default", "run_id": event.run_id,
                  "parent_id": event.parent.id}

        async def run() -> None:
            for entries in self._groups("subagent/start"):
                # The child runs inside the parent's tool call, so inside the parent's turn.
                group = await self._run(entries, fields, session=event.parent.session,
                                        turn=turn_of(event.parent.session))
                if group.empty:
                    continue
                messages = self._contexts(group)
                if messages and child is not None:
                    for message in messages:
                        child.inject(message)
                    self._record(group, "subagent/start", True, "context injected into the child")
                else:
                    self._record(group, "subagent/start", child is not None or not messages,
                                 "no context" if not messages else "child not reachable: context dropped")
        return run()

    def on_subagent_end(self, event: SubagentEnd) -> Awaitable[None] | None:
        return self._emit("subagent/end", {"agent_id": event.child_id, "agent_type": "default",
                                           "stop_reason": event.stop_reason,
                                           "last_assistant_message": event.last_assistant_message},
                          event.parent.session, turn=turn_of(event.parent.session))

    def on_settings(self, event: SettingsUpdated) -> Awaitable[None] | None:
        return self._emit("settings/document-updated", {"namespace": event.namespace,
                                                        "revision": event.revision,
                                                        "file_path": None, "source": "settings"}, None)

    def on_session_created(self, event: SessionCreated) -> Awaitable[None] | None:
        s = event.session
        cwd = str(s.cwd)
        files = _instruction_files(s.cwd)
        # The session's one directory is both the "new" cwd and the "added" directory.
        created = {"cwd": cwd, "source": "startup", "trigger": "init", "new_cwd": cwd, "path": cwd}
        jobs = [self._emit("session/created", created, s)]
        # One InstructionsLoaded per file, as the vendors report them, in discovery order.
        jobs += [self._emit("agent/instructions-loaded",
                            {"cwd": cwd, "files": files, "file_path": str(Path(cwd) / name),
                             "load_reason": "session_start", "memory_type": "Project"}, s)
                 for name in files]
        live = [j for j in jobs if j is not None]
        return _gather(live) if live else None

    def on_session_event(self, notice: SessionEventNotice) -> Awaitable[None] | None:
        record, session = notice.event, notice.session
        # Every durable record passes here: build a point's fields only when a hook listens on it.
        has = self._points.get
        jobs: list[Awaitable[None] | None] = []
        if has("session/event"):
            jobs.append(self._emit("session/event", {"type": record.type, "seq": record.seq,
                                                     "data": jsonable(record.data)}, session))
        kind = record.type
        data = record.data
        if kind == "compaction/start" and has("compaction/start"):
            jobs.append(self._emit("compaction/start", {"trigger": "auto", "custom_instructions": "",
                                                        "compaction_id": data.get("compactionId")}, session))
        elif kind == "compaction/end" and has("compaction/end"):
            summary = _summary_before(session, record)
            jobs.append(self._emit("compaction/end", {"trigger": "auto", "summary": summary,
                                                      "error": data.get("error")}, session))
        elif kind == "todo/write":
            jobs.append(self._todo_changes(session, data))
        elif kind == "step/end" and has("step/end"):
            calls = _step_calls(session, data)
            if calls:  # a batch is the tool calls of one step; a step without any has none
                jobs.append(self._emit("step/end", {"turn": data.get("turn"), "step": data.get("step"),
                                                    "tool_names": [c["tool_name"] for c in calls],
                                                    "tool_calls": calls}, session))
        elif kind == "request/header":
            jobs.append(self._model_switch(session, data))
        elif kind == "command/run" and has("command/run"):
            jobs.append(self._emit("command/run", {"command": data.get("name"), "args": data.get("args"),
                                                   "name": data.get("name")}, session))
        elif kind == "workspace/changes":
            files = tuple(data.get("files") or ())
            jobs.append(self._emit("workspace/changes", {"turn": data.get("turn"), "files": jsonable(files)},
                                   session))
            jobs.append(self._lsp_after_turn(session, files))
        elif kind == "approval/decided" and has("approval/decided"):
            outcome = data.get("outcome")
            fields = {"outcome": outcome, "id": data.get("id"), "tool_name": _asked_tool(session, data),
                      "reason": _DENIALS.get(str(outcome), f"approval {outcome}")}
            jobs.append(self._emit("approval/decided", fields, session,
                                   keep=lambda e: e.spec.id == "opencode" or outcome == "rejected"))
        elif (kind == "assistant/message" and has("message/display")
              and isinstance(data.get("text"), str) and data["text"]):
            # What a front end would display: each committed assistant text, whole (no deltas).
            text = data["text"]
            turn = data.get("turn")
            jobs.append(self._emit("message/display", {
                "role": "assistant", "text": text, "delta": text, "final": True, "index": 0,
                "message_id": f"{session.id}:{record.seq}",
                "turn_id": str(turn) if turn is not None else None}, session))
        live = [j for j in jobs if j is not None]
        return _gather(live) if live else None

    def _emit(self, point: str, fields: Mapping[str, Any], session: SessionHandle | None, *,
              turn: int | None = None, keep: Callable[[HookEntry], bool] | None = None
              ) -> Awaitable[None] | None:
        groups = [[e for e in g if keep is None or keep(e)] for g in self._groups(point)]
        groups = [g for g in groups if g]
        if not groups:
            return None

        async def run() -> None:
            for entries in groups:
                group = await self._run(entries, fields, session=session, turn=turn)
                self._observe(group, point)
        return run()

    # ── derived session-event points ────────────────────────────────────────────────────────────
    def _todo_changes(self, session: SessionHandle, data: Mapping[str, Any]) -> Awaitable[None] | None:
        before = self._todos.get(session.id, {})
        after = {str(t.get("content")): str(t.get("status")) for t in data.get("todos") or ()}
        self._todos[session.id] = after
        created = [c for c in after if c not in before]
        completed = [c for c, s in after.items() if s == "completed" and before.get(c) != "completed"]
        jobs = []
        for content in created:
            jobs.append(self._emit("todo/write", {"task_subject": content, "status": after[content]},
                                   session, keep=lambda e: e.row.event == "TaskCreated"))
        for content in completed:
            jobs.append(self._emit("todo/write", {"task_subject": content, "status": "completed"},
                                   session, keep=lambda e: e.row.event == "TaskCompleted"))
        live = [j for j in jobs if j is not None]
        return _gather(live) if live else None

    def _model_switch(self, session: SessionHandle, data: Mapping[str, Any]) -> Awaitable[None] | None:
        config = (data.get("header") or {}).get("config") or {}
        current = f"{config.get('provider', '')}/{config.get('model', '')}"
        previous = self._models.get(session.id)
        self._models[session.id] = current
        if previous is None or previous == current:
            return None
        jobs = [self._emit("request/header", {"previous_model": previous, "model": current,
                                              "phase": phase}, session,
                           keep=lambda e, p=phase: e.row.event.startswith(p))
                for phase in ("Pre", "Post")]
        live = [j for j in jobs if j is not None]
        return _gather(live) if live else None

    def _lsp_after_turn(self, session: SessionHandle, files: tuple[Any, ...]) -> Awaitable[None] | None:
        if not self._points.get("lsp/query"):
            return None
        paths = [str(f.get("path")) for f in files if isinstance(f, Mapping) and f.get("path")]
        paths = [p for p in paths if p.endswith(".py")][:LSP_FILES_PER_TURN]
        if not paths:
            return None

        async def run() -> None:
            for path in paths:
                full = Path(session.cwd) / path
                diagnostics = await self._host.lsp_query("diagnostics", full)
                hover = await self._host.lsp_query("hover", full)
                fields = {"path": path, "diagnostics": jsonable(diagnostics.data), "hover": jsonable(hover.data)}
                for entries in self._groups("lsp/query"):
                    group = await self._run(entries, fields, session=session)
                    self._observe(group, "lsp/query")
        return run()

    # ── service points ──────────────────────────────────────────────────────────────────────────
    async def _on_files_changed(self, paths: tuple[str, ...]) -> None:
        if self._closed:
            return
        for entries in self._groups("fs/watch"):
            for path in paths:
                fields = {"file_path": path, "files": list(paths), "event": "change",
                          "directory": str(self._host.cwd)}
                group = await self._run(entries, fields, session=None)
                self._observe(group, "fs/watch")

    async def _start_worktree_poll(self) -> None:
        close = await self._host.watch_worktrees(self._host.cwd, self._on_worktrees,
                                                 interval_s=WORKTREE_POLL_S)
        self._closers.append(close)

    async def _on_worktrees(self, added: tuple[Worktree, ...], removed: tuple[Worktree, ...]) -> None:
        """Fire WorktreeCreate / WorktreeRemove hooks for the net change since the last poll."""
        if self._closed:
            return
        for kind, items in (("Create", added), ("Remove", removed)):
            for tree in items:
                fields = {"worktree": {"path": tree.path, "head": tree.head, "branch": tree.branch},
                          "worktree_path": tree.path, "name": Path(tree.path).name}
                for entries in self._groups("git/worktrees"):
                    if not entries[0].row.event.endswith(kind):
                        continue
                    group = await self._run(entries, fields, session=None)
                    self._observe(group, "git/worktrees")

    async def _shell_env(self, execution: ToolExecution) -> Mapping[str, str]:
        env: dict[str, str] = {}
        session = execution.agent.session if execution.agent is not None else None
        fields = {"tool_name": execution.name, "tool_input": dict(execution.arguments),
                  "command": execution.arguments.get("command")}
        for entries in self._groups("shell/env"):
            group = await self._run(entries, fields, session=session)
            if group.empty:
                continue
            given = dict(group.merged.env)
            kept = {k: v for k, v in given.items() if _DSH_KEY.fullmatch(k)}
            env.update(kept)
            dropped = sorted(set(given) - set(kept))
            self._record(group, "shell/env", True,
                         "variables" + (f"; dropped non-DSH_* names {dropped}" if dropped else ""))
        return env


#: The only variable names a host shell-env contributor may set.
_DSH_KEY = re.compile(r"DSH_[A-Z][A-Z0-9_]*")


def _question_answers(answers: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """Question id → answer from a merged hook answer.

    Claude's Elicitation answers in the MCP shape ``{action, content}``: only ``accept`` answers,
    with ``content`` mapping question ids to values; decline and cancel answer nothing (the host
    has no counterpart, so the question goes on to the next answerer).
    """
    if not answers:
        return {}
    if "action" in answers:
        content = answers.get("content")
        if answers.get("action") == "accept" and isinstance(content, Mapping):
            return content
        return {}
    return answers


def _content_value(answer: QuestionAnswer) -> Any:
    if answer.custom is not None:
        return answer.custom
    return answer.selected[0] if len(answer.selected) == 1 else list(answer.selected)


def _selected(value: Any) -> tuple[str, ...]:
    if isinstance(value, Mapping):
        value = value.get("selected", ())
    if isinstance(value, str):
        return (value,)
    return tuple(str(v) for v in value or ())


def _custom(value: Any) -> str | None:
    return str(value["custom"]) if isinstance(value, Mapping) and value.get("custom") else None


def _summary_before(session: SessionHandle, end: LogEvent) -> str | None:
    for event in reversed(session.events):
        if event.seq < end.seq and event.type == "compaction/summary":
            summary = event.data.get("summary")
            return summary if isinstance(summary, str) else str(jsonable(summary))
    return None


def _step_calls(session: SessionHandle, data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The tool calls one step made, in host vocabulary (no results: the record has none)."""
    turn, step = data.get("turn"), data.get("step")
    calls = []
    for e in session.events:
        if e.type != "tool/call" or e.data.get("turn") != turn or e.data.get("step") != step:
            continue
        raw = e.data.get("arguments")
        try:
            arguments = json.loads(raw) if isinstance(raw, str) else jsonable(raw or {})
        except ValueError:
            arguments = {}
        calls.append({"tool_name": str(e.data.get("name")), "tool_input": arguments,
                      "tool_use_id": e.data.get("callId")})
    return calls


#: What a refused approval means, as the reason PermissionDenied hooks read.
_DENIALS = {
    "rejected": "the user rejected the tool call",
    "cancelled": "the approval request was cancelled",
    "unavailable": "no approval channel was available",
}


def _asked_tool(session: SessionHandle, data: Mapping[str, Any]) -> str | None:
    for event in reversed(session.events):
        if event.type == "approval/asked" and event.data.get("id") == data.get("id"):
            return event.data.get("toolName")
    return None


def _instruction_files(cwd: Path) -> list[str]:
    names = ("CLAUDE.md", "AGENTS.md", ".claude/CLAUDE.md", "CODEBUDDY.md")
    return [n for n in names if (Path(cwd) / n).is_file()]


async def _gather(jobs: list[Awaitable[None]]) -> None:
    for job in jobs:
        await job


def _async(fn: Callable[[], None]) -> Callable[[], Awaitable[None]]:
    async def run() -> None:
        fn()
    return run


#: Seam → the router method that listens on it.
_LISTENERS = {
    "tools/pre-execute": "on_pre_execute",
    "tools/post-execute": "on_post_execute",
    "agent/pre-step": "on_pre_step",
    "approval/request": "on_approval",
    "user-questions/request": "on_questions",
    "agent/created": "on_agent_created",
    "agent/turn-stopping": "on_turn_stopping",
    "agent/disposed": "on_disposed",
    "agent/error": "on_error",
    "agent/status": "on_status",
    "agent/inbox/inserted": "on_inbox",
    "subagent/start": "on_subagent_start",
    "subagent/end": "on_subagent_end",
    "settings/document-updated": "on_settings",
    "session/created": "on_session_created",
    "session/event": "on_session_event",
}
