"""The embedded host's real tools: what runs when a scripted model calls one.

Host tool names and arguments (paths are relative to the session cwd):

=====================  ==================================================================
``bash``               ``{command, timeout?}`` — ``/bin/sh -c`` through
                       :func:`compat_adapter.runtime.process.run_command`; ``timeout`` in
                       seconds (default 120, at most 600); non-zero exit → error result
``read``               ``{path}``
``write``              ``{path, content}`` — creates parent directories
``edit``               ``{path, old, new}`` — ``old`` must occur exactly once
``glob``               ``{pattern, path?}`` — files whose path matches a glob
                       (:mod:`compat_adapter.host.embedded.search`, as DSH's ``glob``)
``grep``               ``{pattern, path?, include?}`` — lines matching a regular expression
                       (as DSH's ``grep``)
``skill``              ``{name}`` — one skill's instructions, as DSH's ``skill``
                       (:mod:`compat_adapter.host.embedded.skills`)
``todo``               ``{todos: [{content, status}]}`` — appends a ``todo/write`` snapshot
``ask_user_question``  ``{questions: [{id, question, options}]}`` — the
                       ``user-questions/request`` waterfall
``subagent``           ``{prompt?, script?}`` — an in-process child agent, one turn
=====================  ==================================================================

A tool never raises into the loop: bad arguments and failures are error results, as the model
would see them. ``write``/``edit`` changes are tracked per turn for ``workspace/changes``;
changes made by shell commands are not (the host does not diff the tree).
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from compat_adapter.errors import CompatError, HostSurfaceMismatch
from compat_adapter.host.protocol import (
    AskUserQuestionAnswer,
    Question,
    SubagentEnd,
    SubagentStart,
    ToolExecution,
    ToolResult,
    UserQuestionsRequest,
)
from compat_adapter.host.embedded.search import find_files, search_text
from compat_adapter.host.embedded.skills import load_skill
from compat_adapter.host.script import script_from_json
from compat_adapter.runtime.process import BASH, hook_environment, run_command

if TYPE_CHECKING:
    from compat_adapter.host.embedded.agent import MemoryAgent

__all__ = ("ChangeTracker", "NO_PROVIDER_TEXT", "TOOLS", "execute_tool")

#: The error text of ``ask_user_question`` when no answerer accepted the request (DSH NO_PROVIDER).
NO_PROVIDER_TEXT = "no user-questions answerer accepted the request"

_TODO_STATUSES = frozenset({"pending", "in_progress", "completed"})
_BASH_DEFAULT_TIMEOUT_S = 120.0
_BASH_MAX_TIMEOUT_S = 600.0
_BASH_MAX_OUTPUT = 64_000   # dsh-bash-local's cap
_BASH_GRACE_S = 3.0


class _ToolFailure(Exception):
    """Internal: a tool's argument or I/O problem, turned into an error result at once."""


class ChangeTracker:
    """Files the turn's ``write``/``edit`` calls changed: first content before, last after."""

    __slots__ = ("_root", "_before", "_after")

    def __init__(self, root: Path) -> None:
        self._root = root
        self._before: dict[Path, str | None] = {}
        self._after: dict[Path, str] = {}

    def note(self, path: Path, before: str | None, after: str) -> None:
        self._before.setdefault(path, before)
        self._after[path] = after

    def summary(self) -> list[dict[str, Any]]:
        files = []
        for path, after in self._after.items():
            before = self._before[path]
            if before == after:
                continue
            added = deleted = 0
            for line in difflib.ndiff((before or "").splitlines(), after.splitlines()):
                if line.startswith("+ "):
                    added += 1
                elif line.startswith("- "):
                    deleted += 1
            files.append({"path": self._show(path), "added": added, "deleted": deleted})
        return files

    def _show(self, path: Path) -> str:
        try:
            return path.relative_to(self._root).as_posix()
        except ValueError:
            return str(path)


Tool = Callable[["MemoryAgent", ToolExecution, dict[str, Any], ChangeTracker],
                Awaitable[ToolResult]]


async def execute_tool(agent: MemoryAgent, execution: ToolExecution, arguments: dict[str, Any],
                       tracker: ChangeTracker) -> ToolResult:
    """Run the host tool named by ``execution``; every failure becomes an error result."""
    tool = TOOLS.get(execution.name)
    if tool is None:
        return ToolResult(True, f"Error: unknown tool {execution.name!r}")
    try:
        return await tool(agent, execution, arguments, tracker)
    except _ToolFailure as exc:
        return ToolResult(True, f"Error: {exc}")
    except OSError as exc:
        return ToolResult(True, f"Error: {type(exc).__name__}: {exc}")


def _text_arg(arguments: Mapping[str, Any], name: str) -> str:
    value = arguments.get(name)
    if not isinstance(value, str):
        raise _ToolFailure(f"argument {name!r} must be a string")
    return value


def _path_arg(agent: MemoryAgent, arguments: Mapping[str, Any]) -> Path:
    raw = _text_arg(arguments, "path")
    path = Path(raw)
    return path if path.is_absolute() else agent.session.cwd / path


def _read_or_none(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


async def _bash(agent: MemoryAgent, execution: ToolExecution, arguments: dict[str, Any],
                tracker: ChangeTracker) -> ToolResult:
    host = agent.host
    if not host.shell:
        return ToolResult(True, "Error: no shell executor in this composition")
    command = _text_arg(arguments, "command")
    timeout = arguments.get("timeout", _BASH_DEFAULT_TIMEOUT_S)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        raise _ToolFailure("argument 'timeout' must be a positive number of seconds")
    dsh_env = await host.collect_shell_env(execution)
    # As DSH's shell: scrubbed parent env, pagers off, then the DSH_* snapshot last.
    env = hook_environment(os.environ, add={"PAGER": "cat", "GIT_PAGER": "cat", **dsh_env})
    outcome = await run_command(command, stdin=None, cwd=agent.session.cwd, env=env,
                                timeout_s=min(float(timeout), _BASH_MAX_TIMEOUT_S),
                                max_output_bytes=_BASH_MAX_OUTPUT,
                                grace_s=_BASH_GRACE_S, shell=BASH)  # bash, as in DSH
    parts = []
    if outcome.stdout:
        parts.append(outcome.stdout.rstrip("\n"))
    if outcome.stderr:
        parts.append("[stderr]\n" + outcome.stderr.rstrip("\n"))
    if outcome.truncated:
        parts.append("[output truncated]")
    if outcome.timed_out:
        parts.append(f"[timed out after {timeout} s]")
    elif outcome.cause == "signal":
        parts.append(f"[killed by signal {outcome.signal}]")
    elif outcome.cause == "spawn-failed":
        parts.append("[could not start the command]")
    elif outcome.exit_code:
        parts.append(f"[exit code {outcome.exit_code}]")
    failed = outcome.cause is not None or outcome.exit_code != 0
    value = {"exitCode": outcome.exit_code, "stdout": outcome.stdout, "stderr": outcome.stderr,
             "timedOut": outcome.timed_out, "cause": outcome.cause, "signal": outcome.signal}
    return ToolResult(failed, "\n".join(parts), value)


async def _read(agent: MemoryAgent, execution: ToolExecution, arguments: dict[str, Any],
                tracker: ChangeTracker) -> ToolResult:
    path = _path_arg(agent, arguments)
    text = await anyio.Path(path).read_text(encoding="utf-8")
    return ToolResult(False, text, {"path": str(path)})


async def _write(agent: MemoryAgent, execution: ToolExecution, arguments: dict[str, Any],
                 tracker: ChangeTracker) -> ToolResult:
    path = _path_arg(agent, arguments)
    content = _text_arg(arguments, "content")
    before = _read_or_none(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    tracker.note(path, before, content)
    size = len(content.encode("utf-8"))
    return ToolResult(False, f"wrote {size} bytes to {arguments['path']}", {"path": str(path)})


async def _edit(agent: MemoryAgent, execution: ToolExecution, arguments: dict[str, Any],
                tracker: ChangeTracker) -> ToolResult:
    path = _path_arg(agent, arguments)
    old = _text_arg(arguments, "old")
    new = _text_arg(arguments, "new")
    before = _read_or_none(path)
    if before is None:
        raise _ToolFailure(f"file not found: {arguments['path']}")
    count = before.count(old) if old else 0
    if count != 1:
        raise _ToolFailure(f"the text to replace occurs {count} times in {arguments['path']}; "
                           "it must occur exactly once")
    after = before.replace(old, new, 1)
    path.write_text(after, encoding="utf-8")
    tracker.note(path, before, after)
    return ToolResult(False, f"edited {arguments['path']}", {"path": str(path)})


async def _glob(agent: MemoryAgent, execution: ToolExecution, arguments: dict[str, Any],
                tracker: ChangeTracker) -> ToolResult:
    return await find_files(agent.session.cwd, arguments)


async def _grep(agent: MemoryAgent, execution: ToolExecution, arguments: dict[str, Any],
                tracker: ChangeTracker) -> ToolResult:
    return await search_text(agent.session.cwd, arguments)


async def _skill(agent: MemoryAgent, execution: ToolExecution, arguments: dict[str, Any],
                 tracker: ChangeTracker) -> ToolResult:
    return await load_skill(agent.session.cwd, arguments)


async def _todo(agent: MemoryAgent, execution: ToolExecution, arguments: dict[str, Any],
                tracker: ChangeTracker) -> ToolResult:
    todos = arguments.get("todos")
    if not isinstance(todos, list):
        raise _ToolFailure("argument 'todos' must be a list of {content, status}")
    snapshot = []
    for item in todos:
        if (not isinstance(item, Mapping) or not isinstance(item.get("content"), str)
                or item.get("status") not in _TODO_STATUSES):
            raise _ToolFailure(f"a todo needs a string content and a status in "
                               f"{sorted(_TODO_STATUSES)}: {item!r}")
        snapshot.append({"content": item["content"], "status": item["status"]})
    agent.session.append("todo/write", {"todos": snapshot})
    return ToolResult(False, f"{len(snapshot)} todos recorded", {"todos": snapshot})


def _questions(arguments: Mapping[str, Any]) -> tuple[Question, ...]:
    raw = arguments.get("questions")
    if not isinstance(raw, list) or not raw:
        raise _ToolFailure("argument 'questions' must be a non-empty list")
    out = []
    for index, item in enumerate(raw):
        if not isinstance(item, Mapping) or not isinstance(item.get("question"), str):
            raise _ToolFailure(f"question {index} needs a string 'question'")
        options = []
        for option in item.get("options", []) or []:
            label = option.get("label") if isinstance(option, Mapping) else option
            if not isinstance(label, str):
                raise _ToolFailure(f"question {index} has an option that is not text: {option!r}")
            options.append(label)
        out.append(Question(str(item.get("id", f"q{index + 1}")), item["question"], tuple(options)))
    return tuple(out)


async def _ask_user_question(agent: MemoryAgent, execution: ToolExecution,
                             arguments: dict[str, Any], tracker: ChangeTracker) -> ToolResult:
    host = agent.host
    request = UserQuestionsRequest(_questions(arguments), agent)

    def no_provider() -> Any:
        raise HostSurfaceMismatch(NO_PROVIDER_TEXT, reason="NO_PROVIDER")

    try:
        answer = await host.waterfall("user-questions/request", request, no_provider)
    except CompatError as exc:
        return ToolResult(True, f"Error: {exc.message}")
    if not isinstance(answer, AskUserQuestionAnswer):
        host.log("error", "user-questions/request returned a non-answer", verdict=repr(answer))
        return ToolResult(True, f"Error: {NO_PROVIDER_TEXT}")
    value = {"answers": [{"id": a.id, "selected": list(a.selected), "custom": a.custom}
                         for a in answer.answers]}
    return ToolResult(False, json.dumps(value), value)


async def _subagent(agent: MemoryAgent, execution: ToolExecution, arguments: dict[str, Any],
                    tracker: ChangeTracker) -> ToolResult:
    host = agent.host
    prompt = arguments.get("prompt")
    if prompt is not None and not isinstance(prompt, str):
        raise _ToolFailure("argument 'prompt' must be a string")
    try:
        script = script_from_json(arguments.get("script", []))
    except CompatError as exc:
        raise _ToolFailure(exc.message) from exc
    child = await host.create_agent(script=script, model=agent.model, parent=agent)
    run_id = host.next_id("run")
    started = host.emit("subagent/start", SubagentStart(run_id, child.id, agent))
    # DSH runs subagent/start listeners detached; here the child's first step waits (bounded)
    # for the background work they started, so context a listener injects into the live child
    # is in the child's first pre-step every time.
    with anyio.move_on_after(host.subagent_start_wait_s):
        for done in started:
            await done.wait()
    try:
        result = await child.run_turn(prompt)
    finally:
        end = SubagentEnd(run_id, child.id, agent,
                          child.last_turn.reason if child.last_turn else "aborted",
                          child.last_turn.last_assistant_message if child.last_turn else None)
        host.emit("subagent/end", end)
        with anyio.CancelScope(shield=True):
            await child.dispose()
    text = result.last_assistant_message or ""
    value = {"runId": run_id, "childId": child.id, "stopReason": result.reason}
    return ToolResult(result.reason != "completed", text, value)


TOOLS: Mapping[str, Tool] = {
    "bash": _bash,
    "read": _read,
    "write": _write,
    "edit": _edit,
    "glob": _glob,
    "grep": _grep,
    "skill": _skill,
    "todo": _todo,
    "ask_user_question": _ask_user_question,
    "subagent": _subagent,
}
