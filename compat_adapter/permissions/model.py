"""Permission rules as data: what a vendor's settings declare, and one tool call as a rule reads it.

A permission rule is a declaration like a hook: a vendor's own ``allow`` / ``ask`` / ``deny`` entry
on a tool call (Claude's ``permissions.deny: ["Bash(rm -rf *)"]``). Each vendor writes them in its
own language (:mod:`compat_adapter.permissions.language`); whatever the language, a rule read from
a file becomes one :class:`PermissionRule` here, frozen, naming the file and the place it came from,
and a setting that changes how rules apply (``defaultMode``, ``additionalDirectories``) one
:class:`PermissionSetting`. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ("BEHAVIORS", "Behavior", "PermissionImport", "PermissionRule", "PermissionSetting", "RuleCall", "Ruling")

Behavior = Literal["allow", "ask", "deny"]
#: The behaviours in the order every vendor here weighs them: a deny wins over an ask, an ask over
#: an allow, whatever order the files list them in.
BEHAVIORS: tuple[Behavior, ...] = ("deny", "ask", "allow")


@dataclass(frozen=True, slots=True)
class PermissionRule:
    """One rule as its vendor wrote it, read once."""

    vendor: str
    behavior: Behavior
    text: str
    """The rule as written (``Bash(npm run test:*)``, ``Read(./.env)``, ``mcp__github``)."""
    tool: str
    """The vendor's tool name the rule is on (``Bash``, ``Read``, ``mcp__github__create_issue``)."""
    specifier: str | None
    """What is inside the parentheses; None for a bare tool name."""
    origin: str
    """``<file>:<place>`` (``.claude/settings.json:permissions.deny[0]``)."""
    scope: str
    """The settings scope of its file in the vendor's merge (``project``, ``local``, ``user`` …)."""
    root: str
    """The absolute project folder the file belongs to: where relative path patterns start."""
    settings_dir: str
    """The absolute folder of the settings file itself (some path forms are relative to it)."""


@dataclass(frozen=True, slots=True)
class PermissionSetting:
    """A setting beside the rules that changes how they apply (``defaultMode``, ``additionalDirectories``)."""

    vendor: str
    key: str
    value: Any
    """As written (read-only: lists are tuples)."""
    origin: str
    scope: str


@dataclass(slots=True)
class PermissionImport:
    """What one file's permission block yields: its rules, its settings, and what could not be read
    (each a refusal with a code and its place, never dropped in silence)."""

    rules: list[PermissionRule] = field(default_factory=list)
    settings: list[PermissionSetting] = field(default_factory=list)
    refused: list[Any] = field(default_factory=list)
    """``compat_adapter.importers.Refused`` entries (typed loosely: importers import this module)."""


@dataclass(frozen=True, slots=True)
class RuleCall:
    """One host tool call in the vendor's words: what a rule is matched against."""

    tool: str
    """The vendor's name for the host tool (``Bash`` for the host's ``bash``)."""
    input: Mapping[str, Any]
    """The call's arguments in the vendor's names (``command``, ``file_path`` …)."""
    host_tool: str
    cwd: str
    """The session's working folder: where a relative path in the call is resolved."""
    home: str
    """The user's home folder (``~/`` patterns)."""
    offered: tuple[str, ...] | None = None
    """The host tools the model was offered for this call's request (``tools/offer``); None where
    the host has no such seam."""


@dataclass(frozen=True, slots=True)
class Ruling:
    """The rule that decides a call, and what the model reads when it refuses it."""

    behavior: Behavior
    rule: PermissionRule
    text: str
    """For a deny: the vendor's refusal; for an ask: what the model reads when nobody can answer."""
    unoffered: bool = False
    """The vendor never offered the tool (a rule denies it whole): its own error tool takes the call,
    and the post-tool hooks run for that (OpenCode's ``invalid`` tool)."""
