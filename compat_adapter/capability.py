"""Capabilities: machinery a vendor unit may bring from its own folder, found by the core by kind.

A unit's eight parts say how every vendor speaks (dialect, voice, importer …). A vendor that also
*behaves* in a way of its own brings it as a capability, in ``vendor_unit(..., capabilities=(...))``:
the core asks a unit for a kind (:func:`capability`) and uses what it finds, so no vendor's machinery
lives in a shared module and no table carries a yes/no field to switch it on. This is pluggy's
``add_hookspecs`` idea on a small scale: the core names the kinds, the units bring the objects.

The kinds:

* :class:`CommandPolicy`: command policy held in the vendor's rules files, enforced on the host's
  shell before a command runs (Codex's ``.rules`` prefix rules);
* :class:`VerdictRules`: the vendor's own verdict rule at a point, in place of the points table's
  (Copilot's runaway guard on turn-stopping).

A capability says which vendor it speaks for (``vendor``); a unit whose capability is none of the
kinds, or speaks for another vendor, is refused when it loads (``VENDOR_INCOMPLETE``), never ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar, cast, runtime_checkable

if TYPE_CHECKING:
    from compat_adapter.host.protocol import Host
    from compat_adapter.model import Degradation, EventRow, RulesFile
    from compat_adapter.registry import VendorUnit
    from compat_adapter.routing.points import Point
    from compat_adapter.routing.verdicts import Rule
    from compat_adapter.vocabulary import Surface

__all__ = ("KINDS", "CommandPolicy", "PolicyGuard", "PolicyRule", "VerdictRules", "capability")


@runtime_checkable
class PolicyRule(Protocol):
    """One rule of a command policy, as grading lists it beside the other permission rules."""

    @property
    def source(self) -> str:
        """File and line, for messages."""
        ...

    @property
    def permission(self) -> str:
        """What it does, in permission words: ``allow``, ``ask`` or ``deny``."""
        ...

    @property
    def shown(self) -> str:
        """The rule as its file writes it, short (``prefix_rule(git push)``)."""
        ...


@runtime_checkable
class PolicyGuard(Protocol):
    """One adapter's enforcement of a vendor's policy on the host (one per adapter and vendor)."""

    def add(self, rid: str, rules: Sequence[PolicyRule]) -> None:
        """Enforce ``rules`` (registered as ``rid``) from now on."""
        ...

    def close(self) -> None:
        """Stop enforcing; forget every rule."""
        ...


@runtime_checkable
class CommandPolicy(Protocol):
    """Command policy in a vendor's rules files: which files hold it, what it loses on a host, how
    it reads and how it is enforced there."""

    vendor: str

    def holds(self, path: str) -> bool:
        """Whether the rules file at ``path`` is policy (and not only context)."""
        ...

    def losses(self, files: Sequence[RulesFile], surface: Surface) -> tuple[Degradation, ...]:
        """What enforcing the policy of ``files`` loses on ``surface`` (empty: none of them is policy)."""
        ...

    def parse(self, text: str, path: str) -> tuple[PolicyRule, ...]:
        """The rules of one file; a file outside the policy language raises INVALID_DECLARATION."""
        ...

    def guard(self, host: Host) -> PolicyGuard:
        """A guard enforcing added rules on ``host`` (it listens from its first rule on)."""
        ...


@runtime_checkable
class VerdictRules(Protocol):
    """The vendor's own verdict rules on its native routes, in place of the points table's."""

    vendor: str

    def verdict_rule(self, point: Point, row: EventRow, rule: Rule) -> Rule:
        """The rule for ``row`` at ``point``; ``rule`` is the one the route would mount otherwise."""
        ...


#: Every kind a unit's capability may be (a capability is refused unless it is one of them).
KINDS: tuple[type, ...] = (CommandPolicy, VerdictRules)

_Kind = TypeVar("_Kind")


def capability(unit: VendorUnit, kind: Callable[..., _Kind]) -> _Kind | None:
    """The unit's capability of ``kind`` (one of :data:`KINDS`), or None when the unit brings none.
    (Typed as a callable: mypy takes no protocol class for ``type[T]``.)"""
    return cast("_Kind | None", next((c for c in unit.capabilities if isinstance(c, cast(type, kind))), None))
