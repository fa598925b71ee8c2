"""Listeners on the session seams: settings, session created, and the points derived from the
durable records of ``session/event`` (compaction, todos, steps, model switches, commands, file
changes and the language-server queries they start, approvals decided, displayed messages).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from compat_adapter.host.protocol import LogEvent, SessionCreated, SessionEventNotice, SessionHandle, SettingsUpdated
from compat_adapter.jsondata import jsonable
from compat_adapter.routing import points
from compat_adapter.routing.dispatch import HookEntry, Keep, Runner

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
    jobs: list[Awaitable[None] | None] = []
    # Every durable record passes here: build a point's fields only when a hook listens on it.
    if runner.has(points.SESSION_EVENT):
        jobs.append(runner.emit(points.SESSION_EVENT, points.SESSION_EVENT.fields(record), session))
    derive = _DERIVED.get(record.type)
    if derive is not None:
        jobs += derive(runner, session, record)
    return run_in_order(jobs)


Jobs = list[Awaitable[None] | None]


def _compaction_start(runner: Runner, session: SessionHandle, record: LogEvent) -> Jobs:
    point = points.COMPACTION_START
    return [runner.emit(point, point.fields(record.data), session)] if runner.has(point) else []


def _compaction_end(runner: Runner, session: SessionHandle, record: LogEvent) -> Jobs:
    point = points.COMPACTION_END
    if not runner.has(point):
        return []
    return [runner.emit(point, point.fields(record.data, _summary_before(session, record)), session)]


def _step_end(runner: Runner, session: SessionHandle, record: LogEvent) -> Jobs:
    point = points.STEP_END
    if not runner.has(point):
        return []
    calls = _step_calls(session, record.data)
    # A batch is the tool calls of one step; a step without any has none.
    return [runner.emit(point, point.fields(record.data, calls), session)] if calls else []


def _command(runner: Runner, session: SessionHandle, record: LogEvent) -> Jobs:
    point = points.COMMAND
    return [runner.emit(point, point.fields(record.data), session)] if runner.has(point) else []


def _workspace(runner: Runner, session: SessionHandle, record: LogEvent) -> Jobs:
    files = tuple(record.data.get("files") or ())
    point = points.WORKSPACE
    jobs = [runner.emit(point, point.fields(record.data, files), session)] if runner.has(point) else []
    return [*jobs, _lsp_after_turn(runner, session, files)]


def _approval_decided(runner: Runner, session: SessionHandle, record: LogEvent) -> Jobs:
    point = points.APPROVAL_DECIDED
    if not runner.has(point):
        return []
    outcome = record.data.get("outcome")
    fields = point.fields(record.data, _asked_tool(session, record.data))
    # A row that fires only on rejections says so (fires_on); OpenCode's fires on every reply.
    return [runner.emit(point, fields, session,
                        keep=lambda e: e.row.fires_on != "rejected" or outcome == "rejected")]


def _display(runner: Runner, session: SessionHandle, record: LogEvent) -> Jobs:
    point, text = points.DISPLAY, record.data.get("text")
    if not runner.has(point) or not isinstance(text, str) or not text:
        return []
    return [runner.emit(point, point.fields(text, f"{session.id}:{record.seq}", record.data.get("turn")), session)]


# ── derived points that compare with what came before ───────────────────────────────────────────

def _remember_todos(runner: Runner, session: SessionHandle, data: Mapping[str, Any]) -> dict[str, str]:
    todos = runner.state.todos
    before = todos.get(session.id, {})
    todos[session.id] = {str(t.get("content")): str(t.get("status")) for t in data.get("todos") or ()}
    return before


def _todo_changes(runner: Runner, session: SessionHandle, record: LogEvent) -> Jobs:
    before = _remember_todos(runner, session, record.data)
    if not runner.has(points.TODO):
        return []
    after = runner.state.todos[session.id]
    created = [c for c in after if c not in before]
    completed = [c for c, s in after.items() if s == "completed" and before.get(c) != "completed"]
    point = points.TODO
    # Which change a row fires on is its fires_on (Claude's TaskCreated, Qwen's TodoCreated …).
    jobs = [runner.emit(point, point.fields(c, after[c]), session, keep=_fires_on("created"))
            for c in created]
    jobs += [runner.emit(point, point.fields(c, "completed"), session, keep=_fires_on("done"))
             for c in completed]
    return jobs


def _fires_on(change: str) -> Keep:
    def keep(entry: HookEntry) -> bool:
        return entry.row.fires_on == change
    return keep


def _event_starts(prefix: str) -> Keep:
    def keep(entry: HookEntry) -> bool:
        return entry.row.event.startswith(prefix)
    return keep


def _model_switch(runner: Runner, session: SessionHandle, record: LogEvent) -> Jobs:
    config = (record.data.get("header") or {}).get("config") or {}
    current = f"{config.get('provider', '')}/{config.get('model', '')}"
    models = runner.state.models
    previous = models.get(session.id)
    models[session.id] = current
    if previous is None or previous == current:
        return []
    point = points.MODEL_SWITCH
    return [runner.emit(point, point.fields(previous, current, phase), session,
                        keep=_event_starts(phase))
            for phase in ("Pre", "Post")]


def _lsp_after_turn(runner: Runner, session: SessionHandle, files: tuple[Any, ...]) -> Awaitable[None] | None:
    point = points.LSP
    if not runner.has(point):
        return None
    paths = [str(f.get("path")) for f in files if isinstance(f, Mapping) and f.get("path")]
    paths = [p for p in paths if p.endswith(".py")][:LSP_FILES_PER_TURN]
    if not paths:
        return None

    async def run() -> None:
        # Tracked like a hook run: disposing the adapter cancels the queries, and a run queued
        # before it never starts the language server again (the adapter released it).
        with runner.inflight.track():
            for path in paths:
                if runner.closed:
                    return
                full = Path(session.cwd) / path
                diagnostics = await runner.host.lsp_query("diagnostics", full, user=runner.owner)
                hover = await runner.host.lsp_query("hover", full, user=runner.owner)
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


#: Record kind → what it derives (the table's record names; the LSP queries follow the file
#: changes they are about).
_DERIVED: Mapping[str, Callable[[Runner, SessionHandle, LogEvent], Jobs]] = {
    points.COMPACTION_START.record: _compaction_start,
    points.COMPACTION_END.record: _compaction_end,
    points.TODO.record: _todo_changes,
    points.STEP_END.record: _step_end,
    points.MODEL_SWITCH.record: _model_switch,
    points.COMMAND.record: _command,
    points.WORKSPACE.record: _workspace,
    points.APPROVAL_DECIDED.record: _approval_decided,
    points.DISPLAY.record: _display,
}


def run_in_order(jobs: list[Awaitable[None] | None]) -> Awaitable[None] | None:
    """One awaitable running the given jobs one after another; None when there is none."""
    live = [j for j in jobs if j is not None]
    return _in_order(live) if live else None


async def _in_order(jobs: list[Awaitable[None]]) -> None:
    for job in jobs:
        await job
