"""The vendor registry: every vendor is one unit, registered once, checked whole before any use.

A unit is everything that is one vendor's: its table (:class:`~compat_adapter.model.VendorSpec`,
data only), its dialect, importer, handler shape, voice and landing facts, and where its vendor-lane
driver lives, and its permission-rule language. Units are found through the entry-point group ``compat_adapter.vendors`` (the way
presets are found through ``compat_adapter.presets``), so a vendor is added by installing a module
that exports one, with no edit anywhere else; the five built in are registered by this project's
own ``pyproject.toml``.

Nothing is looked up by vendor id in a shared module: a shared module asks the unit
(:func:`compat_adapter.catalog.unit_of`), and a unit that lacks a part is refused when it loads
(``VENDOR_INCOMPLETE``, naming the vendor and the part), as pluggy's ``check_pending`` refuses a
plugin with no spec. Nothing falls back to another vendor's behaviour.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from pydantic import ValidationError

from compat_adapter.errors import VendorIncomplete
from compat_adapter.model import HookPlace, VendorSpec

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from compat_adapter.dialects.base import Dialect
    from compat_adapter.handlers.parse import HandlerShape
    from compat_adapter.hostproto import HostFace
    from compat_adapter.importers.common import FileImport
    from compat_adapter.permissions.language import RuleLanguage
    from compat_adapter.routing.placement import Facts
    from compat_adapter.routing.voice import Voice

__all__ = ("ENTRY_POINT_GROUP", "Importer", "Later", "VendorUnit", "check_unit", "home_parts", "load_units", "registered",
           "unit_named", "vendor_unit")

ENTRY_POINT_GROUP = "compat_adapter.vendors"


@runtime_checkable
class Importer(Protocol):
    """What a vendor's importer (a module or an object) offers: where the vendor looks for files in
    a project, and how one of them reads."""

    #: Another vendor id → (that vendor's project files whose hooks this vendor runs as well, why
    #: registering both imports then runs them twice): Copilot CLI runs a repository's
    #: ``.claude/settings.json`` hooks. Empty for most.
    RUNS_HOOKS_OF: Mapping[str, tuple[tuple[str, ...], str]]

    def project_files(self, root: Path) -> list[Path]:
        """The vendor's documented project files under ``root`` that exist, in its own order."""
        ...

    def extra_files(self, root: Path) -> list[Path]:
        """Files the vendor also reads that its documented layout leaves out (a plugin's
        ``hooks/hooks.json`` when the folder is a plugin …), for discovery."""
        ...

    def hook_place(self, path: Path) -> HookPlace:
        """Where the hooks of one of its files run, and the plugin the file belongs to
        (``compat_adapter.importers.places.hook_place`` with the vendor's own layout)."""
        ...

    def import_file(self, spec: VendorSpec, path: Path, shown: str) -> FileImport:
        """One file of the vendor's, read into declarations and refusals."""
        ...


@dataclass(frozen=True, slots=True)
class Later:
    """A part named by where it lives (``module`` or ``module:attr``), loaded on its first use.

    The registry loads every unit when a vendor is first looked up, and every table with it; a
    unit's heavier parts (its dialect and its regex engines, its importer and the trust store it
    reads through) wait until something asks for them, so that `compat-adapter matrix` pays for
    none. A part that then fails to load, or is not of its kind, is refused as any other.
    """

    ref: str

    def load(self) -> object:
        module, _, attr = self.ref.partition(":")
        found = importlib.import_module(module)
        return getattr(found, attr) if attr else found


class VendorUnit:
    """One vendor, whole. Build it with :func:`vendor_unit`, which refuses a unit with a part missing.

    ``spec``: its table (events, aliases, rules files, tools, losses and the facts it states);
    ``order``: its place in the matrix and in discovery (ascending; ties by id); ``dialect``: its
    hook protocol (payloads, decoding, matchers, merging); ``importer``: how its project files are
    found and read; ``handlers``: how its handler mappings are written (the keys it reads, its
    command form); ``voice``: how it words a hook's answer for the model; ``landing``: where its hook
    text lands for the model, as ``explain`` shows it; ``lane``: ``module:attr`` of its vendor-lane
    driver (test support, loaded only by the lane, whose module also holds its live speaker
    ``LIVE``), or None when it has no CLI that runs offline here; ``permissions``: its permission-rule
    language (:class:`~compat_adapter.permissions.language.RuleLanguage`), or None when the vendor
    has no rules this project reads (its files' rules are then refused, listed, never dropped);
    ``host``: its host face (:class:`~compat_adapter.hostface.HostFace`), or None when the vendor
    cannot host other vendors' hooks here.
    ``capabilities`` (optional, the only part that is): machinery of the vendor's own that the core
    finds by kind (:mod:`compat_adapter.capability`: Codex's command policy, Copilot's stop guard).
    ``dialect``, ``importer`` and ``permissions`` may be given as :class:`Later`.
    """

    #: Every part, in the order the docs list them.
    PARTS = ("spec", "order", "dialect", "importer", "handlers", "voice", "landing", "lane", "permissions", "host")
    #: The parts that may be named rather than given.
    LATER = frozenset({"dialect", "importer", "permissions", "host"})
    #: The parts a unit may leave out.
    OPTIONAL = ("capabilities",)

    __slots__ = ("spec", "order", "handlers", "voice", "landing", "lane", "capabilities", "_parts")

    spec: VendorSpec
    order: int
    handlers: HandlerShape
    voice: Voice
    landing: Facts
    lane: str | None
    capabilities: tuple[object, ...]
    _parts: dict[str, object]

    def __init__(self, *, spec: VendorSpec, order: int, dialect: Dialect | Later, importer: Importer | Later,
                 handlers: HandlerShape, voice: Voice, landing: Facts, lane: str | None,
                 permissions: RuleLanguage | Later | None, host: HostFace | Later | None,
                 capabilities: tuple[object, ...] = ()) -> None:
        for name, value in (("spec", spec), ("order", order), ("handlers", handlers), ("voice", voice),
                            ("landing", landing), ("lane", lane), ("capabilities", capabilities)):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_parts", {"dialect": dialect, "importer": importer, "permissions": permissions,
                                            "host": host})

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a vendor unit is frozen: {name} cannot be set")

    def __repr__(self) -> str:
        return f"VendorUnit({self.spec.id!r})"

    @property
    def dialect(self) -> Dialect:
        return cast("Dialect", self._part("dialect"))

    @property
    def importer(self) -> Importer:
        return cast(Importer, self._part("importer"))

    @property
    def permissions(self) -> RuleLanguage | None:
        """Its permission-rule language, or None when it has none this project reads."""
        return cast("RuleLanguage | None", self._part("permissions"))

    @property
    def host(self) -> HostFace | None:
        """Its host face (its hook stdin in, a host's answer out: what ``port`` writes for), or None
        when the vendor cannot host other vendors' hooks here."""
        return cast("HostFace | None", self._part("host"))

    def given(self, part: str) -> object:
        """The part as the unit names it (a :class:`Later` until it is first used)."""
        return self._parts[part] if part in self.LATER else getattr(self, part)

    def _part(self, part: str) -> object:
        value = self._parts[part]
        if isinstance(value, Later):
            try:
                loaded = value.load()
            except (ImportError, AttributeError) as exc:
                raise _refuse(self.spec.id, part, f"{value.ref!r} cannot be loaded: {exc}") from exc
            _check_part(self, part, loaded)
            self._parts[part] = value = loaded
        return value


def home_parts(package: str) -> dict[str, Any]:
    """The parts a unit keeps where every unit keeps them, in its own package (``__package__`` of
    its ``unit.py``): its dialect (``<package>.dialect:DIALECT``) and importer (``<package>.importer``),
    each loaded on first use, and its vendor-lane driver (``<package>.lane:CLI``, test support: loaded
    only by the vendor lane). A unit that keeps one elsewhere names that part itself."""
    return {"dialect": Later(f"{package}.dialect:DIALECT"), "importer": Later(f"{package}.importer"),
            "lane": f"{package}.lane:CLI"}


def vendor_unit(**parts: Any) -> VendorUnit:
    """The one constructor for units: a part left out raises ``VENDOR_INCOMPLETE`` naming the vendor
    and the part (a bare ``VendorUnit(...)`` would only say which argument is missing)."""
    spec = parts.get("spec")
    name = spec.id if isinstance(spec, VendorSpec) else "a vendor with no table"
    known = VendorUnit.PARTS
    missing = [n for n in known if n not in parts]
    if missing:
        raise VendorIncomplete(f"vendor {name} is incomplete: it has no {', '.join(missing)}",
                               vendor=name, part=missing[0])
    extra = sorted(set(parts) - set(known) - set(VendorUnit.OPTIONAL))
    if extra:
        raise VendorIncomplete(f"vendor {name}: {', '.join(extra)} is not a part of a vendor unit "
                               f"(the parts: {', '.join((*known, *VendorUnit.OPTIONAL))})",
                               vendor=name, part=extra[0])
    if not isinstance(spec, VendorSpec):
        raise _refuse(name, "spec", f"is a {type(spec).__name__}, not a VendorSpec")
    unit = VendorUnit(**parts)
    check_unit(unit)
    return unit


def _refuse(unit_name: str, part: str, why: str) -> VendorIncomplete:
    return VendorIncomplete(f"vendor {unit_name} is incomplete: its {part} {why}", vendor=unit_name, part=part)


def _kind(part: str) -> type | tuple[type, ...]:
    # Imported here, and only the kind asked for: these modules are the parts' kinds, and several of
    # them reach the catalog, which loads this module; by the time a unit is checked all of them
    # are loaded. The dialect's kind (``dialects.base``) loads only with a dialect given unloaded.
    if part == "dialect":
        from compat_adapter.dialects.base import Dialect

        return Dialect
    if part == "handlers":
        from compat_adapter.handlers.parse import HandlerShape

        return HandlerShape
    if part == "landing":
        from compat_adapter.routing.placement import Facts

        return Facts
    if part == "voice":
        from compat_adapter.routing.voice import Voice

        return Voice
    if part == "permissions":
        from compat_adapter.permissions.language import RuleLanguage

        return (RuleLanguage, type(None))
    if part == "host":
        from compat_adapter.hostproto import HostFace

        return (HostFace, type(None))
    kinds: dict[str, type | tuple[type, ...]] = {"order": int, "importer": Importer, "lane": (str, type(None))}
    return kinds[part]


def _check_part(unit: VendorUnit, part: str, value: object) -> None:
    name = unit.spec.id
    if not isinstance(value, _kind(part)) or isinstance(value, bool):
        raise _refuse(name, part, f"is a {type(value).__name__}, not what a unit's {part} is")
    said = getattr(value, "vendor", name) if part in ("dialect", "voice", "permissions", "host") else name
    if said != name:
        raise _refuse(name, part, f"speaks for {said!r}, not {name!r}")


def check_unit(unit: VendorUnit, *, load: bool = False) -> None:
    """Every part present and of its kind, and agreeing with the table; raises VENDOR_INCOMPLETE.
    A part named by :class:`Later` is checked when it loads (``load=True``: now)."""
    from compat_adapter.handlers.parse import RUN_KINDS

    name = unit.spec.id
    for part in VendorUnit.PARTS[1:]:
        value = unit.given(part)
        if isinstance(value, Later) and not load:
            if not value.ref or value.ref.count(":") > 1:
                raise _refuse(name, part, f"is named {value.ref!r}, not module or module:attr")
            continue
        _check_part(unit, part, getattr(unit, part))
    if "command" not in unit.spec.handler_kinds or not unit.spec.handler_kinds <= RUN_KINDS:
        raise _refuse(name, "table", f"names handler kinds {sorted(unit.spec.handler_kinds)}: command, and "
                                     f"only kinds this project runs ({', '.join(sorted(RUN_KINDS))})")
    if unit.lane is not None and unit.lane.count(":") != 1:
        raise _refuse(name, "lane", f"is {unit.lane!r}, not module:attr")
    _check_capabilities(unit)


def _check_capabilities(unit: VendorUnit) -> None:
    # Imported here: the kinds' module reaches the routes' types only under TYPE_CHECKING.
    from compat_adapter.capability import KINDS

    name = unit.spec.id
    if not isinstance(unit.capabilities, tuple):
        raise _refuse(name, "capabilities", f"are a {type(unit.capabilities).__name__}, not a tuple")
    for found in unit.capabilities:
        if not isinstance(found, KINDS):
            kinds = ", ".join(k.__name__ for k in KINDS)
            raise _refuse(name, "capabilities", f"hold a {type(found).__name__}, which is no capability ({kinds})")
        if getattr(found, "vendor", None) != name:
            raise _refuse(name, "capabilities", f"hold a {type(found).__name__} that speaks for "
                                                f"{getattr(found, 'vendor', None)!r}, not {name!r}")


def _load(point: EntryPoint) -> VendorUnit:
    try:
        unit = point.load()
    except ValidationError as exc:
        # The table module builds its VendorSpec when it is imported: a fact left out fails there.
        missing = [".".join(str(p) for p in e["loc"]) for e in exc.errors() if e["type"] == "missing"]
        what = f"its table has no {', '.join(missing)}" if missing else f"its table is invalid: {exc}"
        raise VendorIncomplete(f"vendor {point.name} is incomplete: {what}", vendor=point.name,
                               part=missing[0] if missing else "spec") from exc
    if not isinstance(unit, VendorUnit):
        raise VendorIncomplete(f"vendor {point.name}: {point.value} is a {type(unit).__name__}, not a "
                               "VendorUnit (build one with compat_adapter.registry.vendor_unit)",
                               vendor=point.name, part="unit")
    check_unit(unit)
    if unit.spec.id != point.name:
        raise VendorIncomplete(f"vendor entry point {point.name} gives the unit of {unit.spec.id!r}; "
                               "register a unit under its own id", vendor=point.name, part="spec")
    return unit


def load_units() -> tuple[VendorUnit, ...]:
    """Every registered unit, checked, in matrix order. Raises VENDOR_INCOMPLETE for the first unit
    that is incomplete, or when two units claim one name. A registered unit supersedes its entry in
    the list of agents with no unit (``vendors/unsupported.py``), so that the commit adding a unit
    touches no shared file: discovery skips such an entry."""
    # Imported here: reading the installed distributions' metadata is paid on first use only.
    from importlib.metadata import entry_points

    units = sorted((_load(p) for p in entry_points(group=ENTRY_POINT_GROUP)),
                   key=lambda u: (u.order, u.spec.id))
    if not units:
        raise VendorIncomplete(f"no vendor is registered in the entry-point group {ENTRY_POINT_GROUP!r}: "
                               "is compat-adapter installed (pip install -e .)?", vendor="", part="unit")
    claimed: dict[str, str] = {}
    for unit in units:
        for name in (unit.spec.id, *unit.spec.aliases):
            if name in claimed:
                raise VendorIncomplete(f"vendor {unit.spec.id}: the name {name!r} is {claimed[name]}'s already",
                                       vendor=unit.spec.id, part="spec")
            claimed[name] = unit.spec.id
    return tuple(units)


@cache
def unit_named(name: str) -> VendorUnit | None:
    """The unit registered under exactly this id, checked, loaded alone: a command about one vendor
    reads no other vendor's table. None when no entry point has that name (an alias, a typo: the
    caller then looks among all of them, `registered`, where two units claiming a name fail)."""
    from importlib.metadata import entry_points

    for point in entry_points(group=ENTRY_POINT_GROUP, name=name):
        return _load(point)
    return None


@cache
def registered() -> tuple[VendorUnit, ...]:
    """The registered units, loaded and checked once per process."""
    return load_units()
