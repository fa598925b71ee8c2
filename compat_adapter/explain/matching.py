"""Why a hook fires or not for one event: its matcher read with the vendor's engine, then its ``if``.

The decision itself is always the dialect's (``Dialect.matches``) and the handler runner's
(``if_admits``): this module only says, in words, which engine read the pattern and against what.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from compat_adapter.dialects.base import Dialect
from compat_adapter.explain.report import IfDecision, MatcherDecision
from compat_adapter.handlers.rules import IF_EVENTS
from compat_adapter.handlers.run import if_admits
from compat_adapter.model import EventRow, Handler

__all__ = ("ENGINES", "explain_if", "explain_matcher", "tools_matched")

#: Per vendor: the shape of a matcher read as a list of exact names (None: never), and how any other
#: pattern is read. The decision is the dialect's; this names the engine for the reader.
ENGINES: Mapping[str, tuple[re.Pattern[str] | None, str]] = {
    "claude": (re.compile(r"[A-Za-z0-9_\- ,|]+"), "js-regex"),
    "codex": (re.compile(r"[A-Za-z0-9_|]+"), "rust-regex"),
    "workbuddy": (None, "js-regex"),
    "opencode": (None, "js-regex"),
    "copilot": (re.compile(r"[A-Za-z0-9_|]+"), "anchored-regex"),
}

_ENGINE_WORDS = {
    "exact-names": "a list of exact names split on | (and , for Claude)",
    "js-regex": "an unanchored JavaScript regular expression (RegExp.test)",
    "rust-regex": "an unanchored Rust-syntax regular expression (RE2)",
    "anchored-regex": "a JavaScript regular expression anchored as ^(?:P)$",
}


def _engine(vendor: str, event: str, pattern: str) -> str:
    literal, other = ENGINES.get(vendor, (None, "js-regex"))
    if vendor == "copilot" and event not in ("PreToolUse", "PermissionRequest"):
        literal = None  # Copilot reads literal name lists only in Claude-format tool events
    if literal is not None and literal.fullmatch(pattern):
        return "exact-names"
    return other


def explain_matcher(dialect: Dialect, row: EventRow, matcher: str | None, subject: str | None) -> MatcherDecision:
    """The matcher decision for one hook, with the engine that read it and the subject it tested."""
    event = row.event
    if row.matcher_subject is None:
        return MatcherDecision(pattern=matcher, subject=None, subject_key=None, engine="none", matched=True,
                               why=f"{event} has no matcher in {dialect.vendor}: every hook of it runs"
                               + (" (the matcher written here is ignored)" if matcher else ""))
    matched = bool(dialect.matches(event, matcher, subject))
    if matcher in (None, "", "*") or (dialect.vendor == "copilot" and matcher == "**"):
        return MatcherDecision(pattern=matcher, subject=subject, subject_key=row.matcher_subject,
                               engine="match-all", matched=matched,
                               why="no matcher (or a match-all one): the hook runs for every "
                                   f"{row.matcher_subject}" + ("" if matched else
                                                               f", but {dialect.vendor} never sends {subject!r} here"))
    assert matcher is not None
    invalid = dialect.validate_matcher(event, matcher)
    engine = _engine(dialect.vendor, event, matcher)
    words = _ENGINE_WORDS[engine]
    if invalid is not None:
        why = f"{matcher!r} does not compile as {words} ({invalid}); the vendor never runs this hook"
    else:
        verb = "matches" if matched else "does not match"
        why = f"{matcher!r}, read as {words}, {verb} {row.matcher_subject} {subject!r}"
    return MatcherDecision(pattern=matcher, subject=subject, subject_key=row.matcher_subject, engine=engine,
                           matched=matched, why=why)


def explain_if(handler: Handler | None, event: str, payload: Mapping[str, Any], project_dir: str) -> IfDecision:
    """The ``if`` decision: Claude's permission-rule syntax, tested on the tool call of the payload."""
    rule = handler.if_rule if handler is not None else None
    if rule is None:
        return IfDecision(rule=None, admitted=True, why="no `if` rule")
    assert handler is not None
    admitted = if_admits(handler, event, payload, project_dir)
    if event not in IF_EVENTS:
        why = f"`if` applies only to tool events; on {event} the handler never runs"
    else:
        call = f"{payload.get('tool_name')}({_short(payload.get('tool_input'))})"
        why = f"`if: {rule}` {'admits' if admitted else 'does not admit'} {call}"
    return IfDecision(rule=rule, admitted=admitted, why=why)


def _short(value: Any) -> str:
    if isinstance(value, Mapping):
        for key in ("command", "file_path", "path", "pattern"):
            if isinstance(value.get(key), str):
                text = value[key]
                return text if len(text) <= 60 else text[:57] + "..."
    return "…"


def tools_matched(dialect: Dialect, event: str, matcher: str, vocabulary: tuple[str, ...]) -> tuple[str, ...]:
    """The tools of the vendor's own vocabulary a tool matcher selects."""
    return tuple(name for name in vocabulary if dialect.matches(event, matcher, name))
