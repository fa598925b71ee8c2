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
  (Copilot's runaway guard on turn-stopping);
* :class:`PluginRuntime`: the vendor's plugins, run as written in a runtime of its own beside the
  host, each key a loaded plugin returns one hook (OpenCode's TypeScript plugins in a Bun sidecar;
  Kilo, a fork, declares the same runtime for itself).

A capability says which vendor it speaks for (``vendor``); a unit whose capability is none of the
kinds, or speaks for another vendor, is refused when it loads (``VENDOR_INCOMPLETE``), never ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableSequence, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast, runtime_checkable

if TYPE_CHECKING:
    from compat_adapter.declare import Declared
    from compat_adapter.dialects.base import HookAnswer, Moment
    from compat_adapter.host.protocol import Host
    from compat_adapter.importers.common import ImportedPlugin
    from compat_adapter.model import CapabilityResult, Degradation, EventRow, RulesFile
    from compat_adapter.registry import VendorUnit
    from compat_adapter.routing.base import HookState
    from compat_adapter.routing.dispatch import AuditRecord, HookEntry
    from compat_adapter.routing.points import Point
    from compat_adapter.routing.verdicts import Rule
    from compat_adapter.vocabulary import Surface

__all__ = ("KINDS", "CommandPolicy", "GradedPlugin", "PluginPort", "PluginRouter", "PluginRuntime", "PolicyGuard",
           "PolicyRule", "VerdictRules", "capability")


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


@runtime_checkable
class PluginRouter(Protocol):
    """One adapter's route for a plugin runtime's hooks: it loads plugins (in a process of the
    runtime's own, never this one), grades what they return and runs the mounted ones."""

    async def mount(self, entry: HookEntry) -> None: ...

    async def flush(self) -> None: ...

    def state(self, entry: HookEntry) -> HookState: ...

    async def close(self) -> None: ...

    async def declarations(self, root: Path, files: Sequence[str | Path] | None, sources: Sequence[Any] | None,
                           surface: Surface) -> list[tuple[CapabilityResult, Declared | None]]:
        """Load ``sources`` (or only ``files``, or the project's own plugins) from ``root`` and grade
        every hook they return, each with the declaration to mount (None: never mounted)."""
        ...

    def kept(self) -> dict[str, int]:
        """How many entries each structure this route keeps per session or agent holds now."""
        ...


@runtime_checkable
class PluginPort(Protocol):
    """What ``port`` needs to carry a plugin file's hooks to another agent (a shim that loads it)."""

    timeout_s: float
    """The ported entry's timeout."""

    async def keys(self, root: Path, relpath: str) -> tuple[list[str], str | None]:
        """The keys the (trusted) plugin file returns, and why it failed to load when it did."""
        ...

    def unported_reason(self, key: str, target: str) -> str | None:
        """Why a key is not carried to ``target`` (None: the shim calls it)."""
        ...

    def losses(self, key: str, target: str) -> tuple[Degradation, ...]:
        """What the shim does not carry of a carried key's callback on ``target``, beyond what its
        point's hook loses there."""
        ...

    def blocks(self, key: str) -> bool:
        """Whether the callback can refuse what its point does (a throw, where the row's answer is
        context only): port probes the target with a block."""
        ...

    def digest(self, path: Path) -> str:
        """The plugin file's digest, pinned in the ported entry."""
        ...

    async def answer(self, hooks: Sequence[Mapping[str, Any]], key: str, moment: Moment,
                     timeout_s: float) -> HookAnswer:
        """What the ported plugins answer at ``key`` for the target's call."""
        ...


@runtime_checkable
class PluginRuntime(Protocol):
    """The vendor's plugins, run as written in a runtime of its own beside the host (OpenCode's
    TypeScript plugins in a Bun sidecar): each key a loaded plugin returns is one hook, graded on
    the plugin rows the runtime brings."""

    vendor: str
    home: str
    """The vendor whose plugin rows these are (a fork that runs its parent's plugins names the parent):
    the matrix grades every key once, under it."""
    load_event: str
    """The event of the row that stands for a whole plugin that did not load."""

    def installed(self) -> bool:
        """Whether the runtime is set up here (else every plugin is refused, with the set-up step)."""
        ...

    def row(self, key: str) -> EventRow | None:
        """The row of a plugin hook key (None: no seam here carries it)."""
        ...

    def rows(self) -> tuple[EventRow, ...]:
        """Every plugin hook key with a row, in the runtime's order."""
        ...

    def unsupported(self, id: str, event: str, reason: str, vendor: str | None = None) -> CapabilityResult:
        """A plugin row (of ``vendor``, default this runtime's) that cannot run here, with why."""
        ...

    def matrix_rows(self, surface: Surface) -> tuple[CapabilityResult, ...]:
        """Every plugin hook key (with a row or refused) graded on ``surface``, under :attr:`home`."""
        ...

    def matrix_summary(self, rows: Sequence[CapabilityResult]) -> str:
        """The README's one line on the plugin rows."""
        ...

    def matrix_section(self, rows: Sequence[CapabilityResult]) -> tuple[str, str, tuple[Degradation, ...]]:
        """The support matrix's section on the plugin rows: its title, its opening paragraph, and
        what every plugin hook loses (each row's own losses are listed beside it)."""
        ...

    def source(self, plugin: ImportedPlugin) -> Any:
        """The runtime's source for a plugin an importer found."""
        ...

    async def grade(self, root: Path, surface: Surface, sources: Sequence[Any]) -> tuple[GradedPlugin, ...]:
        """Load ``sources`` in a runtime of their own (closed before this returns) and grade every
        key they return."""
        ...

    def router(self, host: Host, adapter_id: str, audit: MutableSequence[AuditRecord]) -> PluginRouter:
        """One adapter's plugin-host route (its runtime starts on the first load)."""
        ...

    @property
    def port(self) -> PluginPort:
        """How ``port`` carries a plugin file."""
        ...


@runtime_checkable
class GradedPlugin(Protocol):
    """One graded row of a loaded plugin: the row, the source it loaded from, and the plugin."""

    @property
    def result(self) -> CapabilityResult: ...

    @property
    def source(self) -> Any:
        """The runtime's source the plugin loaded from (its ``origin`` says where it was named)."""
        ...

    @property
    def plugin(self) -> str | None:
        """The plugin function whose key the row is (None: a row for a whole source)."""
        ...


#: Every kind a unit's capability may be (a capability is refused unless it is one of them).
KINDS: tuple[type, ...] = (CommandPolicy, VerdictRules, PluginRuntime)

_Kind = TypeVar("_Kind")


def capability(unit: VendorUnit, kind: Callable[..., _Kind]) -> _Kind | None:
    """The unit's capability of ``kind`` (one of :data:`KINDS`), or None when the unit brings none.
    (Typed as a callable: mypy takes no protocol class for ``type[T]``.)"""
    return cast("_Kind | None", next((c for c in unit.capabilities if isinstance(c, cast(type, kind))), None))
