"""Listeners on the session seams: settings, session created, and the points derived from the
durable records of ``session/event`` (compaction, todos, steps, model switches, commands, file
changes and the language-server queries they start, approvals decided, displayed messages).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Mapping
from pathlib import Path
from typing import Any

from compat_adapter.host.protocol import LogEvent, SessionCreated, SessionEventNotice, SessionHandle, SettingsUpdated
from compat_adapter.jsondata import jsonable
from compat_adapter.routing import points
from compat_adapter.routing.dispatch import HookEntry, Runner

__all__ = ("LSP_FILES_PER_TURN", "on_session_created", "on_session_event", "on_settings", "run_in_order")

#: Files queried per turn for the LSP points; a large turn does not query every path.
LSP_FILES_PER_TURN = 3
#: Instruction files a session-start reports, in the vendors' discovery order.
INSTRUCTION_FILES = ("CLAUDE.md", "AGENTS.md", ".claude/CLAUDE.md", "CODEBUDDY.md")


def on_settings(runner: Runner, event: SettingsUpdated) -> Awaitable[None] | None:
    return runner.emit(points.SETTINGS, points.SETTINGS.fields(event), None)


def on_session_created(runner: Runner, event: SessionCreated) -> Awaitable[None] | None:
    s = event.session
    cwd = str(s.cwd)
    files = [n for n in INSTRUCTION_FILES if (Path(cwd) / n).is_file()]
    jobs = [runner.emit(points.SESSION_CREATED, points.SESSION_CREATED.fields(cwd), s)]
    # One InstructionsLoaded per file, as the vendors report them, in discovery order.
    jobs += [runner.emit(points.INSTRUCTIONS_LOADED, points.INSTRUCTIONS_LOADED.fields(cwd, files, name), s)
             for name in files]
    return run_in_order(jobs)


def on_session_event(runner: Runner, notice: SessionEventNotice) -> Awaitable[None] | None:
    record, session = notice.event, notice.session
    # Every durable record passes here: build a point's fields only when a hook listens on it.
    has = runner.has
    jobs: list[Awaitable[None] | None] = []
    if has(points.SESSION_EVENT):
        jobs.append(runner.emit(points.SESSION_EVENT, points.SESSION_EVENT.fields(record), session))
    kind, data = record.type, record.data
    if kind == "compaction/start" and has(points.COMPACTION_START):
        jobs.append(runner.emit(points.COMPACTION_START, points.COMPACTION_START.fields(data), session))
    elif kind == "compaction/end" and has(points.COMPACTION_END):
        fields = points.COMPACTION_END.fields(data, _summary_before(session, record))
        jobs.append(runner.emit(points.COMPACTION_END, fields, session))
    elif kind == "todo/write" and has(points.TODO):
        jobs.append(_todo_changes(runner, session, data))
    elif kind == "todo/write":
        _remember_todos(runner, session, data)
    elif kind == "step/end" and has(points.STEP_END):
        calls = _step_calls(session, data)
        if calls:  # a batch is the tool calls of one step; a step without any has none
            jobs.append(runner.emit(points.STEP_END, points.STEP_END.fields(data, calls), session))
    elif kind == "request/header":
        jobs.append(_model_switch(runner, session, data))
    elif kind == "command/run" and has(points.COMMAND):
        jobs.append(runner.emit(points.COMMAND, points.COMMAND.fields(data), session))
    elif kind == "workspace/changes":
        files = tuple(data.get("files") or ())
        if has(points.WORKSPACE):
            jobs.append(runner.emit(points.WORKSPACE, points.WORKSPACE.fields(data, files), session))
        jobs.append(_lsp_after_turn(runner, session, files))
    elif kind == "approval/decided" and has(points.APPROVAL_DECIDED):
        outcome = data.get("outcome")
        fields = points.APPROVAL_DECIDED.fields(data, _asked_tool(session, data))
        jobs.append(runner.emit(points.APPROVAL_DECIDED, fields, session,
                                keep=lambda e: e.spec.id == "opencode" or outcome == "rejected"))
    elif (kind == "assistant/message" and has(points.DISPLAY)
          and isinstance(data.get("text"), str) and data["text"]):
        fields = points.DISPLAY.fields(data["text"], f"{session.id}:{record.seq}", data.get("turn"))
        jobs.append(runner.emit(points.DISPLAY, fields, session))
    return run_in_order(jobs)


# ── derived points that compare with what came before ───────────────────────────────────────────

def _remember_todos(runner: Runner, session: SessionHandle, data: Mapping[str, Any]) -> dict[str, str]:
    todos = runner.memo.setdefault("todos", {})
    before = todos.get(session.id, {})
    todos[session.id] = {str(t.get("content")): str(t.get("status")) for t in data.get("todos") or ()}
    return before


def _todo_changes(runner: Runner, session: SessionHandle, data: Mapping[str, Any]) -> Awaitable[None] | None:
    before = _remember_todos(runner, session, data)
    after = runner.memo["todos"][session.id]
    created = [c for c in after if c not in before]
    completed = [c for c, s in after.items() if s == "completed" and before.get(c) != "completed"]
    point = points.TODO
    jobs = [runner.emit(point, point.fields(c, after[c]), session, keep=_event_is("TaskCreated"))
            for c in created]
    jobs += [runner.emit(point, point.fields(c, "completed"), session, keep=_event_is("TaskCompleted"))
             for c in completed]
    return run_in_order(jobs)


def _event_is(name: str):  # noqa: ANN202 - a small predicate factory
    def keep(entry: HookEntry) -> bool:
        return entry.row.event == name
    return keep


def _model_switch(runner: Runner, session: SessionHandle, data: Mapping[str, Any]) -> Awaitable[None] | None:
    config = (data.get("header") or {}).get("config") or {}
    current = f"{config.get('provider', '')}/{config.get('model', '')}"
    models = runner.memo.setdefault("models", {})
    previous = models.get(session.id)
    models[session.id] = current
    if previous is None or previous == current:
        return None
    point = points.MODEL_SWITCH
    return run_in_order([runner.emit(point, point.fields(previous, current, phase), session,
                                     keep=lambda e, p=phase: e.row.event.startswith(p))
                         for phase in ("Pre", "Post")])


def _lsp_after_turn(runner: Runner, session: SessionHandle, files: tuple[Any, ...]) -> Awaitable[None] | None:
    point = points.LSP
    if not runner.has(point):
        return None
    paths = [str(f.get("path")) for f in files if isinstance(f, Mapping) and f.get("path")]
    paths = [p for p in paths if p.endswith(".py")][:LSP_FILES_PER_TURN]
    if not paths:
        return None

    async def run() -> None:
        for path in paths:
            full = Path(session.cwd) / path
            diagnostics = await runner.host.lsp_query("diagnostics", full)
            hover = await runner.host.lsp_query("hover", full)
            await runner.run(point, point.fields(path, diagnostics.data, hover.data), session=session)
    return run()


# ── reading the session log ─────────────────────────────────────────────────────────────────────

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


def _asked_tool(session: SessionHandle, data: Mapping[str, Any]) -> str | None:
    for event in reversed(session.events):
        if event.type == "approval/asked" and event.data.get("id") == data.get("id"):
            return event.data.get("toolName")
    return None


def run_in_order(jobs: list[Awaitable[None] | None]) -> Awaitable[None] | None:
    """One awaitable running the given jobs one after another; None when there is none."""
    live = [j for j in jobs if j is not None]
    return _in_order(live) if live else None


async def _in_order(jobs: list[Awaitable[None]]) -> None:
    for job in jobs:
        await job
