"""Qwen Code's hook matcher (``matchesHookPattern``, ``packages/core/src/hooks/hook-matcher.ts`` of 0.24.4)
and the names its tool matchers accept exactly besides the tool id (``getToolMatcherTargets``).

Data and pure functions. The rule: the matcher is trimmed (an escaped trailing space stays);
``""``, ``*`` and ``.*`` match everything; a matcher equal to the value or to one of its aliases
matches; a matcher with a ``|`` that starts with neither ``^`` nor ``(`` is a list: it matches when
one trimmed entry is ``*``, ``.*`` or exact, and otherwise the trimmed, non-empty entries joined by
``|`` are the expression (no entry left: nothing matches); anything else is the expression as
written. The expression is an unanchored JavaScript ``RegExp`` tested on the value only (aliases are
compared exactly, never by the expression); one that does not compile matches nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from compat_adapter.dialects.patterns import compile_js, js_problem

__all__ = ("TOOL_ALIASES", "matches_pattern", "pattern_problem")

_SPACE = " \t\n\r\f\v\u00a0\u2028\u2029\ufeff"


def _aliases(canonical: str, *names: str) -> tuple[str, ...]:
    return tuple(n for n in names if n != canonical)


#: Tool id → the other names a matcher may give it (display name, ``<Display>Tool``, legacy names,
#: and the permission-rule names, Claude's included), as the release's alias tables list them.
TOOL_ALIASES: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "run_shell_command": _aliases("run_shell_command", "Shell", "ShellTool", "Bash"),
    "edit": _aliases("edit", "Edit", "EditTool", "replace"),
    "write_file": _aliases("write_file", "WriteFile", "WriteFileTool", "Write"),
    "read_file": _aliases("read_file", "ReadFile", "ReadFileTool", "Read"),
    "grep_search": _aliases("grep_search", "Grep", "GrepTool", "search_file_content", "SearchFiles"),
    "glob": _aliases("glob", "Glob", "GlobTool", "FindFiles"),
    "list_directory": _aliases("list_directory", "ListFiles", "ListFilesTool", "ReadFolder"),
    "todo_write": _aliases("todo_write", "TodoList", "TodoListTool", "TodoWrite", "TodoWriteTool"),
    "web_fetch": _aliases("web_fetch", "WebFetch", "WebFetchTool"),
    "web_search": _aliases("web_search", "WebSearch", "WebSearchTool"),
    "agent": _aliases("agent", "Agent", "AgentTool", "task", "Task", "TaskTool"),
    "skill": _aliases("skill", "Skill", "SkillTool"),
    "save_memory": _aliases("save_memory", "SaveMemory", "SaveMemoryTool"),
    "ask_user_question": _aliases("ask_user_question", "AskUserQuestion", "AskUserQuestionTool"),
    "exit_plan_mode": _aliases("exit_plan_mode", "ExitPlanMode", "ExitPlanModeTool"),
    "notebook_edit": _aliases("notebook_edit", "NotebookEdit", "NotebookEditTool"),
    "monitor": _aliases("monitor", "Monitor", "MonitorTool"),
})


def _trim_end(text: str) -> str:
    """``trimMatcherEdges``: trailing space goes unless a backslash escapes it."""
    end = len(text)
    while end > 0 and text[end - 1] in _SPACE:
        slashes = 0
        i = end - 2
        while i >= 0 and text[i] == "\\":
            slashes += 1
            i -= 1
        if slashes % 2 == 1:
            break
        end -= 1
    return text[:end]


def _entries(pattern: str) -> list[str]:
    """``splitListEntries``: split on a ``|`` outside ``[...]``, groups and escapes."""
    entries, current = [], ""
    escaped = in_class = False
    depth = 0
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif char == "|" and depth == 0:
            entries.append(current)
            current = ""
            continue
        current += char
    entries.append(current)
    return entries


def _expression(matcher: str, targets: tuple[str, ...]) -> bool | str:
    """True when the matcher matches by its exact rules, False when it matches nothing, else the
    regular expression left to test."""
    pattern = _trim_end(matcher).lstrip(_SPACE)
    if pattern in ("", "*", ".*") or pattern in targets:
        return True
    if "|" in pattern and not pattern.startswith(("^", "(")):
        entries = [e for e in (_trim_end(x).lstrip(_SPACE) for x in _entries(pattern)) if e]
        if any(e in ("*", ".*") or e in targets for e in entries):
            return True
        if not entries:
            return False
        return "|".join(entries)
    return pattern


def matches_pattern(matcher: str, subject: str, aliases: tuple[str, ...] = ()) -> bool:
    """Whether Qwen runs a hook with ``matcher`` for ``subject`` (aliases compared exactly)."""
    found = _expression(matcher, (subject, *aliases))
    if isinstance(found, bool):
        return found
    compiled = compile_js(found)
    return not isinstance(compiled, str) and bool(compiled.search(subject))


def pattern_problem(matcher: str) -> str | None:
    """Why the matcher's expression cannot run (Qwen then skips that hook), or None."""
    found = _expression(matcher, ())
    if isinstance(found, bool):
        return None
    return js_problem(found)
