"""OpenCode's ``permission`` rules, read and judged as OpenCode 1.18.33 judges them.

``permission`` in opencode.json maps a permission (``bash``, ``edit``, ``read``, ``webfetch``,
``external_directory``, ``*`` …) to an action (``allow``, ``ask``, ``deny``) or to an object of
pattern → action. Each entry becomes a rule ``{permission, pattern, action}`` in the order written
(``~/`` and ``$HOME`` at a pattern's start are the home folder); the agent's own defaults come first
(``*`` allow, ``*.env`` reads ask …) and the config's rules after them.

Matching (``Permission.evaluate``): **the last rule** whose permission and pattern both match wins,
and no match is ``ask``. A pattern is a wildcard over the whole subject: ``*`` is any text (line ends
too), ``?`` one character, and a pattern ending in `` *`` also matches without its tail (``ls *``
matches ``ls``). A tool call asks for one permission with one or more patterns: ``bash`` one per
command of the script (the command with its redirections; ``cd`` and its kin are not asked about),
``edit`` (the edit, write and apply_patch tools) and ``read`` the file's path relative to the
worktree, ``skill`` the skill's name, ``webfetch`` the URL. Any pattern denied denies the call; all
allowed runs it; else asks.

What the model reads (measured, vendor lane, ``opencode run``): a deny is the tool result ``The user
has specified a rule which prevents you from using this specific tool call. Here are some of the
relevant rules <JSON>`` (every rule whose permission matches, defaults included) and the turn goes
on; an ask is auto-rejected by ``opencode run`` (``The user rejected permission to use this specific
tool call.``) and the run ends there. A tool whose last rule by permission is a deny of ``*`` is not
offered to the model at all (``opencode run`` denies its session ``question``, so that tool never is); a call to it reads ``The arguments provided to the tool are invalid:
Model tried to call unavailable tool '<name>'. Available tools: …`` (the tools the request offered,
sorted, with OpenCode's own ``invalid``: read in the 1.18.33 binary, measured on the real-config lane).
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from compat_adapter.vendor import split

__all__ = ("DEFAULTS", "INVALID_TOOL", "REJECTED", "RUN_SESSION", "Rule", "Ruling", "denial_text", "evaluate", "from_config", "hidden_tools",
           "judge", "matches", "patterns_for", "unavailable")

Action = Literal["allow", "ask", "deny"]
_ACTIONS = ("allow", "ask", "deny")
#: The tools OpenCode asks ``edit`` for.
EDIT_TOOLS = ("edit", "write", "apply_patch")
#: Commands the bash tool does not ask about (they only move the shell).
_MOVERS = frozenset({"cd", "chdir", "popd", "pushd", "push-location", "set-location"})
REJECTED = "The user rejected permission to use this specific tool call."


@dataclass(frozen=True, slots=True)
class Rule:
    permission: str
    pattern: str
    action: Action
    from_string: bool = False
    """Written as ``"bash": "deny"`` (OpenCode keeps the keys in another order in its messages)."""

    def as_json(self) -> dict[str, str]:
        if self.from_string:
            return {"permission": self.permission, "action": self.action, "pattern": self.pattern}
        return {"permission": self.permission, "pattern": self.pattern, "action": self.action}


@dataclass(frozen=True, slots=True)
class Ruling:
    action: Action
    rule: Rule | None
    text: str
    """What the model reads (empty for an allow)."""


def _home(pattern: str, home: str) -> str:
    if pattern.startswith("~/"):
        return home + pattern[1:]
    if pattern == "~":
        return home
    if pattern.startswith("$HOME"):
        return home + pattern[5:]
    return pattern


def from_config(permission: Mapping[str, Any], *, home: str | None = None) -> tuple[Rule, ...]:
    """The rules of one ``permission`` object, in the order written. Raises ValueError on an action
    OpenCode's schema refuses."""
    if not isinstance(permission, Mapping):
        raise ValueError("permission is not an object")
    home = home if home is not None else os.path.expanduser("~")
    rules: list[Rule] = []
    for key, value in permission.items():
        if isinstance(value, str):
            if value not in _ACTIONS:
                raise ValueError(f"permission.{key}: {value!r} is not allow, ask or deny")
            rules.append(Rule(key, "*", value, from_string=True))  # type: ignore[arg-type]
            continue
        if not isinstance(value, Mapping):
            raise ValueError(f"permission.{key} is neither an action nor an object of patterns")
        for pattern, action in value.items():
            if action not in _ACTIONS:
                raise ValueError(f"permission.{key}.{pattern}: {action!r} is not allow, ask or deny")
            rules.append(Rule(key, _home(pattern, home), action))
    return tuple(rules)


#: The build agent's own rules, before the config's (agent.ts, 1.18.33), in OpenCode's order.
DEFAULTS = (
    Rule("*", "*", "allow", True), Rule("doom_loop", "*", "ask", True),
    Rule("external_directory", "*", "ask"), Rule("question", "*", "deny", True),
    Rule("plan_enter", "*", "deny", True), Rule("plan_exit", "*", "deny", True),
    Rule("read", "*", "allow"), Rule("read", "*.env", "ask"), Rule("read", "*.env.*", "ask"),
    Rule("read", "*.env.example", "allow"),
    Rule("question", "*", "allow", True), Rule("plan_enter", "*", "allow", True),
)

#: The rules ``opencode run`` gives the session it creates (run.ts, 1.18.33): nobody is there to
#: answer a question or to switch into and out of plan mode. OpenCode weighs a session's rules after
#: the agent's, its config's included (``Permission.merge(agent.permission, session.permission)``
#: where it picks the tools a request offers), so a config's ``question: allow`` does not lift them.
RUN_SESSION = (
    Rule("question", "*", "deny"), Rule("plan_enter", "*", "deny"), Rule("plan_exit", "*", "deny"),
)


@lru_cache(maxsize=1024)
def _wildcard(pattern: str) -> re.Pattern[str]:
    escaped = re.sub(r"[.+^${}()|\[\]\\]", lambda m: "\\" + m.group(0), pattern.replace("\\", "/"))
    escaped = escaped.replace("*", ".*").replace("?", ".")
    if escaped.endswith(" .*"):
        escaped = escaped[:-3] + "( .*)?"
    return re.compile("^" + escaped + "$", re.S)


def matches(subject: str, pattern: str) -> bool:
    """OpenCode's ``Wildcard.match``."""
    return bool(_wildcard(pattern).match(subject.replace("\\", "/")))


def evaluate(permission: str, pattern: str, rules: Sequence[Rule]) -> Rule:
    """The last rule matching both, else OpenCode's implicit ask."""
    for rule in reversed(rules):
        if matches(permission, rule.permission) and matches(pattern, rule.pattern):
            return rule
    return Rule(permission, "*", "ask")


def patterns_for(tool: str, args: Mapping[str, Any], worktree: str) -> tuple[str, tuple[str, ...]] | None:
    """The permission and the patterns OpenCode asks for one call of its tool (its own tool names
    and arguments), or None for a tool that asks nothing here."""
    if tool == "bash":
        command = args.get("command")
        if not isinstance(command, str):
            return None
        parts = split(command).commands
        return "bash", tuple(dict.fromkeys(p.statement for p in parts if p.name not in _MOVERS))
    path = args.get("filePath")
    if tool in EDIT_TOOLS and isinstance(path, str):
        full = path if posixpath.isabs(path) else posixpath.join(worktree, path)
        return "edit", (posixpath.relpath(full, worktree),)
    if tool == "read" and isinstance(path, str):
        full = path if posixpath.isabs(path) else posixpath.join(worktree, path)
        return "read", (posixpath.relpath(full, worktree),)
    if tool in ("glob", "grep") and isinstance(args.get("pattern"), str):
        return tool, (args["pattern"],)
    if tool == "skill" and isinstance(args.get("name"), str):
        # OpenCode asks after finding the skill (an unknown one fails first); here the rule comes first.
        return "skill", (args["name"],)
    if tool == "webfetch" and isinstance(args.get("url"), str):
        return "webfetch", (args["url"],)
    return None


def denial_text(permission: str, rules: Sequence[Rule]) -> str:
    """OpenCode's DeniedError message: every rule whose permission matches, as JSON."""
    relevant = [r.as_json() for r in rules if matches(permission, r.permission)]
    return ("The user has specified a rule which prevents you from using this specific tool call. "
            "Here are some of the relevant rules " + json.dumps(relevant, separators=(",", ":"), ensure_ascii=False))


def judge(config_rules: Sequence[Rule], tool: str, args: Mapping[str, Any], worktree: str) -> Ruling | None:
    """OpenCode's answer to one call, or None when the call asks nothing (or no pattern)."""
    asked = patterns_for(tool, args, worktree)
    if asked is None or not asked[1]:
        return None
    permission, patterns = asked
    rules = (*DEFAULTS, *config_rules)
    asking: Rule | None = None
    for pattern in patterns:
        rule = evaluate(permission, pattern, rules)
        if rule.action == "deny":
            return Ruling("deny", rule, denial_text(permission, rules))
        if rule.action == "ask":
            asking = asking or rule
    if asking is not None:
        return Ruling("ask", asking, REJECTED)
    return Ruling("allow", None, "")


def hidden_tools(config_rules: Sequence[Rule], tools: Iterable[str]) -> frozenset[str]:
    """The tools ``opencode run`` does not offer the model: the last rule by permission alone (the
    agent's, the config's, then the run session's) is a deny of ``*`` (the edit tools go by ``edit``)."""
    rules = (*DEFAULTS, *config_rules, *RUN_SESSION)
    hidden = set()
    for tool in tools:
        permission = "edit" if tool in EDIT_TOOLS else tool
        last = next((r for r in reversed(rules) if matches(permission, r.permission)), None)
        if last is not None and last.pattern == "*" and last.action == "deny":
            hidden.add(tool)
    return frozenset(hidden)


#: OpenCode's own error tool: it is in every request's tool object (not among the model's active
#: tools), so the list an unavailable-tool error gives names it too.
INVALID_TOOL = "invalid"


def unavailable(tool: str, offered: Iterable[str] | None = None) -> str:
    """What a call to a tool OpenCode did not offer reads: the AI SDK's NoSuchToolError, handed by
    OpenCode's tool-call repair to its ``invalid`` tool, whose result wraps it. The error names every
    key of the request's tool object, which OpenCode sorts by name (``localeCompare``; its tool names
    are lower case, where that is code-point order) and which holds ``invalid`` itself. ``offered``:
    the tools the request offered, by OpenCode name; None where nobody knows them (no list)."""
    said = f"The arguments provided to the tool are invalid: Model tried to call unavailable tool '{tool}'."
    if offered is None:
        return said
    return f"{said[:-1]}. Available tools: {', '.join(sorted({*offered, INVALID_TOOL}))}."
