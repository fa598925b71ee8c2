"""A vendor's permission-rule language: what its unit declares, and how the core finds it.

Each vendor that has permission rules writes them its own way; its unit names an object with this
shape as its ``permissions`` part (``vendors/claude/permissions.py``), or None when the vendor has
none this project reads (:func:`compat_adapter.permissions.read.language_of`). The core never asks
which vendor it is: it reads the rules through the
language, matches calls through it, and words refusals with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from compat_adapter.model import Degradation
from compat_adapter.permissions.model import PermissionImport, PermissionRule, RuleCall, Ruling

__all__ = ("Combination", "HidesTools", "OwnPrecedence", "RuleLanguage")


@dataclass(frozen=True, slots=True)
class Combination:
    """How the vendor weighs its rules against its pre-tool hooks (measured on its CLI)."""

    #: The hooks run before the rules are consulted, so a rule-denied call still fires them.
    hooks_first: bool
    #: A hook's allow lifts an ask rule (False: the ask stands, Claude Code 2.1.332).
    hook_allow_lifts_ask: bool
    #: A hook's allow lifts a deny rule too (CodeBuddy Code 2.163.0).
    hook_allow_lifts_deny: bool = False
    #: What the vendor does with an ask nobody can answer (its non-interactive run): ``refuse``
    #: (Claude Code) or ``run`` (CodeBuddy Code 2.163.0 runs the call).
    unattended_ask: str = "refuse"
    #: An ask refused (by the person, or for want of anyone to answer it) ends the agent's turn:
    #: no model call follows (OpenCode 1.18.33: a RejectedError breaks its loop, measured).
    rejected_ask_ends_turn: bool = False


@runtime_checkable
class RuleLanguage(Protocol):
    """One vendor's rule language."""

    @property
    def vendor(self) -> str:
        """The vendor id it speaks for."""
        ...

    @property
    def combination(self) -> Combination:
        ...

    def read(self, value: object, *, path: Path, shown: str, place: str, scope: str) -> PermissionImport:
        """The rules and settings of one file's permission block (``value`` as parsed; ``place``
        its key in the file), each naming its place; a malformed entry is a refusal, the rest read."""
        ...

    def host_tools(self, rule: PermissionRule) -> tuple[str, ...]:
        """The host tools the rule can ever apply to; empty when the host has none of them."""
        ...

    def matches(self, rule: PermissionRule, call: RuleCall) -> bool:
        """Whether the rule applies to the call, with the vendor's own matching."""
        ...

    def refusal(self, rule: PermissionRule, call: RuleCall) -> str:
        """What the model reads when the rule denies the call."""
        ...

    def unasked(self, rule: PermissionRule, call: RuleCall) -> str:
        """What the model reads when the rule asks and nobody can answer (a non-interactive run)."""
        ...

    def losses(self, rule: PermissionRule) -> tuple[Degradation, ...]:
        """What the rule loses here besides its host tools (matching the vendor does not do here …)."""
        ...

    def samples(self, root: Path) -> tuple[PermissionRule, ...]:
        """A few typical rules of the language (a deny on the shell, on a file, on a tool the host
        may lack; an ask), as if declared in a project at ``root``: what the matrix grades."""
        ...

    def setting_losses(self, key: str, value: object) -> tuple[Degradation, ...] | str:
        """What a setting beside the rules loses here, or why it cannot apply at all."""
        ...


@runtime_checkable
class OwnPrecedence(Protocol):
    """A rule language whose vendor does not weigh deny before ask before allow (Gemini CLI: the
    highest priority decides; OpenCode: the last matching rule does): it decides a call from all of
    its vendor's rules at once, and the engine asks it instead of ranking the rules itself."""

    def decide(self, rules: Sequence[PermissionRule], call: RuleCall) -> Ruling | None:
        """The ruling on ``call`` with the vendor's own precedence; None when no rule decides it."""
        ...


@runtime_checkable
class HidesTools(Protocol):
    """A rule language whose vendor does not offer its model a tool the rules deny outright
    (OpenCode: a tool whose last rule by permission denies ``*``); the guard keeps such a tool out
    of the host's ``tools/offer``, where the host has that seam."""

    def hidden(self, rules: Sequence[PermissionRule], tools: Sequence[str]) -> frozenset[str]:
        """Of the host tools ``tools``, those the vendor would not offer under ``rules``."""
        ...
