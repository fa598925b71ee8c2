"""Grading one OpenCode plugin hook key on a host surface. Pure and synchronous.

A key with a row in ``vendors/opencode/plugins.py`` is ADAPTED on the ``plugin-host`` route, with
every loss (the vendor's, the plugin host's, the row's), or UNSUPPORTED naming the seam or service
this host lacks; a key no seam can carry, or that OpenCode does not have, is UNSUPPORTED with the
reason. Apart from :mod:`vendors.opencode.plugin_host.grade`, which grades what a loaded plugin
returns (the sidecar's report), so that the support matrix, which grades every key with no plugin
loaded, loads no report type.
"""

from __future__ import annotations

from compat_adapter.vendor import Capability, CapabilityResult, EventRow, Route, Surface, VendorSpec, capability_result
from vendors.opencode.plugins import PLUGIN_EVENTS, PLUGIN_LOSSES, PLUGIN_REFUSED
from vendors.opencode.table import OPENCODE

__all__ = ("grade_key", "plugin_row", "unsupported")

_ROWS = {row.event: row for row in PLUGIN_EVENTS}
_REFUSED = dict(PLUGIN_REFUSED)


def plugin_row(key: str) -> EventRow | None:
    """The row of a plugin hook key (None: no seam here carries it)."""
    return _ROWS.get(key)


def unsupported(id: str, event: str, reason: str, vendor: str = OPENCODE.id) -> CapabilityResult:
    """An OpenCode plugin row (of ``vendor``, OpenCode or a fork) that cannot run here, with why."""
    return capability_result(id=id, vendor=vendor, event=event, capability=Capability.UNSUPPORTED,
                             route=Route.UNSUPPORTED, reason=reason)


def _missing(row: EventRow, surface: Surface) -> str | None:
    for seam in row.seams:
        if seam not in surface.seams:
            return f"host {surface.host} {surface.version} has no {seam} seam"
    for service in row.services:
        if service not in surface.services:
            return f"host {surface.host} {surface.version} has no {service} service"
    return None


def grade_key(id: str, key: str, surface: Surface, spec: VendorSpec = OPENCODE) -> CapabilityResult:
    """Grade one hook key of one loaded plugin, under ``spec``: OpenCode's table, or a fork's whose
    plugins are OpenCode's (its own id and vendor-wide losses, OpenCode's plugin rows)."""
    row = _ROWS.get(key)
    if row is None:
        reason = _REFUSED.get(key)
        if reason is None:
            reason = f"OpenCode 1.18.33 has no plugin hook named {key!r}, so nothing would call it"
        return unsupported(id, key, reason, spec.id)
    missing = _missing(row, surface)
    if missing is not None:
        return unsupported(id, key, missing, spec.id)
    return capability_result(id=id, vendor=spec.id, event=key, capability=Capability.ADAPTED,
                             route=Route.PLUGIN_HOST, seams=row.seams,
                             services=tuple(str(s) for s in row.services), point=row.point,
                             degradations=spec.losses + PLUGIN_LOSSES + row.degradations)
