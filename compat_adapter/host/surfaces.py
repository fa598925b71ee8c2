"""Published host surfaces by name, as plain data, so the CLI and the matrix never build a host.

* ``embedded`` — the embedded host publishes the surface the vendor tables were written against
  (DeepSeek Harness 0.2.0-rc.2, :data:`vendors.surface.TABLE_SURFACE`) under its own name;
* ``dsh`` — the published DSH 0.1.0-rc.8 composition the second host really runs
  (:mod:`compat_adapter.host.dsh.surface`);
* ``dsh-0.2`` — the 0.2.0-rc.2 surface itself.
"""

from __future__ import annotations

from compat_adapter.errors import CompatError
from compat_adapter.host.dsh.surface import DSH_RC8_SURFACE
from compat_adapter.model import Surface
from vendors.surface import CLAUDE_BRIDGE, CODEX_BRIDGE, TABLE_SURFACE

__all__ = ("CLAUDE_BRIDGE", "CODEX_BRIDGE", "DSH_0_2_SURFACE", "EMBEDDED_SURFACE", "SURFACES",
           "surface_named")

DSH_0_2_SURFACE = TABLE_SURFACE

#: The embedded host publishes the DSH 0.2.0-rc.2 surface under its own name.
EMBEDDED_SURFACE = DSH_0_2_SURFACE.model_copy(update={"host": "embedded"})

#: Surfaces by the name the CLI accepts (`--host`).
SURFACES = {"embedded": EMBEDDED_SURFACE, "dsh": DSH_RC8_SURFACE, "dsh-0.2": DSH_0_2_SURFACE}


def surface_named(name: str) -> Surface:
    """The published surface called ``name`` (a key of :data:`SURFACES`).

    :raises CompatError: no surface has that name; the message lists the known ones.
    """
    try:
        return SURFACES[name]
    except KeyError:
        raise CompatError(f"unknown host {name!r} (known: {', '.join(SURFACES)})") from None
