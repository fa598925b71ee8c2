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
from compat_adapter.catalog import resolve_vendor
from compat_adapter.model import EventRow, Handler, MatcherEngine

__all__ = ("explain_if", "explain_matcher", "tools_matched")

_ENGINE_WORDS = {
    "exact-names": "a list of exact names split on | (and , for Claude)",
    "js-regex": "an unanchored JavaScript regular expression (RegExp.test)",
    "rust-regex": "an unanchored Rust-syntax regular expression (RE2)",
    "anchored-regex": "a JavaScript regular expression anchored as ^(?:P)$",
}


def _engine(engine: MatcherEngine, event: str, pattern: str) -> str:
    """Which engine reads ``pattern`` on ``event``: the vendor's table says (``VendorSpec.matchers``)."""
    literal = engine.names if engine.names_events is None or event in engine.names_events else None
    if literal is not None and re.fullmatch(literal, pattern):
        return "exact-names"
    return engine.engine


def explain_matcher(dialect: Dialect, row: EventRow, matcher: str | None, subject: str | None) -> MatcherDecision:
    """The matcher decision for one hook, with the engine that read it and the subject it tested."""
    event = row.event
    if row.matcher_subject is None:
        return MatcherDecision(pattern=matcher, subject=None, subject_key=None, engine="none", matched=True,
                               why=f"{event} has no matcher in {dialect.vendor}: every hook of it runs"
                               + (" (the matcher written here is ignored)" if matcher else ""))
    matched = bool(dialect.matches(event, matcher, subject))
    engine = resolve_vendor(dialect.vendor).matchers
    if matcher in (None, "", "*") or matcher in engine.match_all:
        return MatcherDecision(pattern=matcher, subject=subject, subject_key=row.matcher_subject,
                               engine="match-all", matched=matched,
                               why="no matcher (or a match-all one): the hook runs for every "
                                   f"{row.matcher_subject}" + ("" if matched else
                                                               f", but {dialect.vendor} never sends {subject!r} here"))
    assert matcher is not None
    invalid = dialect.validate_matcher(event, matcher)
    read_by = _engine(engine, event, matcher)
    words = _ENGINE_WORDS[read_by]
    if invalid is not None:
        why = f"{matcher!r} does not compile as {words} ({invalid}); the vendor never runs this hook"
    else:
        verb = "matches" if matched else "does not match"
        why = f"{matcher!r}, read as {words}, {verb} {row.matcher_subject} {subject!r}"
    return MatcherDecision(pattern=matcher, subject=subject, subject_key=row.matcher_subject, engine=read_by,
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
