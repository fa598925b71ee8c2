"""Kilo, whole: an OpenCode fork, so its table, dialect, importer, handler shape, voice, landing facts
and host face are OpenCode's, derived under Kilo's id and files; its vendor-lane driver runs ``kilo run``.
Registered once, in ``pyproject.toml`` (entry-point group ``compat_adapter.vendors``)."""

from __future__ import annotations

import dataclasses

from compat_adapter.vendor import Later, home_parts, vendor_unit
from vendors.kilo.spec import KILO
from vendors.opencode.plugin_host.runtime import RUNTIME
from vendors.opencode.unit import UNIT as OPENCODE_UNIT

__all__ = ("UNIT",)

UNIT = vendor_unit(
    spec=KILO,
    order=42,
    **home_parts(__package__),
    handlers=OPENCODE_UNIT.handlers,
    # OpenCode's reading of a hook's answer, measured again on kilo run 7.7.9 (the vendor lane).
    voice=dataclasses.replace(OPENCODE_UNIT.voice, vendor="kilo"),
    landing=OPENCODE_UNIT.landing,
    # Kilo's `permission` block is OpenCode's, weighed as OpenCode weighs it (measured in the lane's
    # perm_* cases: the last matching rule wins, an ask is rejected and the run ends).
    permissions=Later("vendors.kilo.permission_language:LANGUAGE"),
    host=Later("vendors.kilo.hostface:FACE"),
    # Its plugins are OpenCode's: they run in OpenCode's plugin host, graded under Kilo's id and table.
    capabilities=(RUNTIME.for_vendor(KILO.id),),
)
