"""Host facts flattened for payload builders: nested host values (notification, model, worktree,
summary) spread into the snake_case keys the vendors use, so each dialect reads one flat mapping.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ("OMIT", "flatten", "take")

#: A default meaning "leave the key out when the host has no value".
OMIT: Any = object()


def flatten(fields: Mapping[str, Any]) -> dict[str, Any]:
    """`fields` plus the vendor-style keys derived from nested host values (never overwriting)."""
    facts = dict(fields)
    note = fields.get("notification")
    if isinstance(note, Mapping):
        for key in ("message", "title", "notification_type"):
            if key in note:
                facts.setdefault(key, note[key])
    elif isinstance(note, str):
        facts.setdefault("message", note)
    model = fields.get("model")
    if isinstance(model, Mapping):
        facts["model"] = model.get("current") or ""
        if model.get("previous"):
            facts.setdefault("previous_model", model["previous"])
    tree = fields.get("worktree")
    if isinstance(tree, Mapping):
        if tree.get("path"):
            facts.setdefault("worktree_path", tree["path"])
        if tree.get("branch"):
            facts.setdefault("name", tree["branch"])
    if "summary" in fields:
        facts.setdefault("compact_summary", fields["summary"])
    error = fields.get("error")
    if isinstance(error, Mapping):
        facts.setdefault("error_message", error.get("message") or "")
    elif isinstance(error, str):
        facts.setdefault("error_message", error)
    return facts


def take(facts: Mapping[str, Any], key: str, default: Any = OMIT, *also: str) -> Any:
    """The first present value among `key` and `also`, else `default` (possibly :data:`OMIT`)."""
    for name in (key, *also):
        if name in facts and facts[name] is not None:
            return facts[name]
    return default
