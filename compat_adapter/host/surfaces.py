"""Host kinds by name: each one's published surface, as plain data, so the CLI and the matrix never
build a host; and, for a kind whose peer speaks the wire with a report of its own, how to read it.

A host wing registers its kind under the ``compat_adapter.hosts`` entry-point group (a
:class:`HostKind` object), the way presets register under ``compat_adapter.presets``: this module
imports no wing, and a third host is named by ``--host`` without an edit here. The project's own:

* ``embedded`` — the embedded host's model of DeepSeek Harness 0.2.1-rc.2 (here, as data: the
  grader and the matrix default to it and import no wing); it keeps the Python copies of the
  official bridges that 0.2.1 no longer bundles;
* ``dsh`` — a real DeepSeek Harness 0.2.1-rc.2 ``sdk`` profile with the compat-adapter bundle
  (:mod:`compat_adapter.host.dsh.surface`), whose hello is a composition report;
* ``dsh-0.2`` — the 0.2.0-rc.2 surface the vendor tables were written against (here: it is the
  tables' data, no wing's).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any

from compat_adapter.errors import UnknownHost
from compat_adapter.model import SeamMode, Surface
from vendors.surface import CLAUDE_BRIDGE, CODEX_BRIDGE, TABLE_SURFACE

__all__ = ("CLAUDE_BRIDGE", "CODEX_BRIDGE", "DSH_0_2_SURFACE", "EMBEDDED_SURFACE", "EMBEDDED_VERSION",
           "ENTRY_POINTS", "SURFACES", "HostKind", "host_kind", "host_kinds", "surface_named")

#: The entry-point group a host wing registers its kind under.
ENTRY_POINTS = "compat_adapter.hosts"

DSH_0_2_SURFACE = TABLE_SURFACE

#: The DeepSeek Harness release the embedded host models.
EMBEDDED_VERSION = "0.2.1-rc.2"

#: The embedded host: the tables' seams and services (0.2.1 moved none a row uses: it dropped
#: ``agent/session-start``, which the tables never named, and made ``agent/created`` serial, as the
#: tables have it), under its own name and the release it models.
#: It logs hook context the vendor gives a system or developer message as a v4 ``developer/message``
#: in that role (the model reads it from there), so rows lose no provenance for it.
#: It also offers ``tools/offer``, a waterfall over the tools a request offers the model (DSH's
#: counterpart is the tool list of its ``system-prompt/assemble`` assembly, which the bundle does not
#: reach: the dsh kind has no such seam).
EMBEDDED_SURFACE = DSH_0_2_SURFACE.model_copy(update={
    "host": "embedded", "version": EMBEDDED_VERSION, "context_roles": frozenset({"system", "developer"}),
    "seams": {**DSH_0_2_SURFACE.seams, "tools/offer": SeamMode.WATERFALL}})


@dataclass(frozen=True, slots=True)
class HostKind:
    """One kind of host: its name, its published surface, and how a wire peer of it is read."""

    name: str
    surface: Surface
    read_hello: Callable[[Mapping[str, Any]], Surface] | None = None
    """The surface of a live peer from its ``hello`` (a report of its own); None: the peer sends a
    plain ``surface``."""
    records: Callable[[], Any] | None = None
    """A fresh record reader for one session (``read(LogEvent) -> [LogEvent]``); None: the peer
    writes the contract's vocabulary."""


_BUILTIN: Mapping[str, HostKind] = MappingProxyType(
    {k.name: k for k in (HostKind("embedded", EMBEDDED_SURFACE), HostKind("dsh-0.2", DSH_0_2_SURFACE))})


@cache
def host_kinds() -> Mapping[str, HostKind]:
    """Every host kind by name: the two above and the registered ones (read once per process).
    A registered kind that takes a built-in name is refused: a built-in kind is looked up without
    reading the installed metadata (:func:`host_kind`), so it could not be replaced there."""
    # Imported here: the installed distributions are read only when a registered kind is asked for.
    from importlib.metadata import entry_points

    found: dict[str, HostKind] = dict(_BUILTIN)
    for point in entry_points(group=ENTRY_POINTS):
        kind = point.load()
        if not isinstance(kind, HostKind):
            raise UnknownHost(f"entry point {point.name!r} of {ENTRY_POINTS} is not a HostKind", host=point.name)
        if kind.name in _BUILTIN:
            raise UnknownHost(f"entry point {point.name!r} of {ENTRY_POINTS} registers {kind.name!r}, "
                              "the name of a built-in host kind", host=point.name)
        found[kind.name] = kind
    return MappingProxyType(found)


class _Surfaces(dict[str, Surface]):
    """Surfaces by name; a name not set here is looked up among the host kinds."""

    def __missing__(self, name: str) -> Surface:
        return host_kind(name).surface


#: Surfaces by the name the CLI accepts (``--host``); a test may set one of its own.
SURFACES: dict[str, Surface] = _Surfaces()


def host_kind(name: str) -> HostKind:
    """The host kind called ``name``.

    :raises UnknownHost (UNKNOWN_HOST): no kind has that name; the message lists the known ones.
    """
    if name in _BUILTIN:  # data here: no installed metadata read, no host wing loaded
        return _BUILTIN[name]
    kinds = host_kinds()
    try:
        return kinds[name]
    except KeyError:
        raise UnknownHost(f"unknown host {name!r} (known: {', '.join(sorted(kinds))})", host=name) from None


def surface_named(name: str) -> Surface:
    """The published surface called ``name``: one set in :data:`SURFACES`, else that host kind's
    (see :func:`host_kind`)."""
    return SURFACES[name]
