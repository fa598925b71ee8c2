"""The support matrix on a vendor as host: every vendor's events graded on one lane vendor's host
face (``compat-adapter matrix --host gemini``), as ``port`` would grade them."""

from __future__ import annotations

import json
from typing import Any

from compat_adapter.model import CapabilityResult
from compat_adapter.port.plan import grade_plugin_key, grade_port

__all__ = ("host_matrix", "is_vendor_host", "to_json", "to_markdown")


def is_vendor_host(name: str) -> bool:
    """Whether ``name`` is a vendor with a host face (rather than a host surface)."""
    from compat_adapter.catalog import unit_of
    from compat_adapter.errors import UnknownVendor

    try:
        return unit_of(name).host is not None
    except UnknownVendor:
        return False


def host_matrix(target: str, vendor: str | None = None) -> tuple[str, tuple[CapabilityResult, ...]]:
    from compat_adapter.catalog import resolve_vendor, units

    target = resolve_vendor(target).id
    sources = [resolve_vendor(vendor)] if vendor else [u.spec for u in units()]
    rows = tuple(grade_port(row, spec.id, target, id=f"{spec.id}:{row.event}")
                 for spec in sources for row in spec.events)
    return target, rows + tuple(r for spec in sources for r in _plugin_rows(target, spec.id))


def _plugin_rows(target: str, vendor: str) -> tuple[CapabilityResult, ...]:
    """The plugin keys of the plugin runtime ``vendor``'s unit brings, as port grades a plugin file's
    keys: once, under the vendor whose plugins they are (a fork that runs them adds none)."""
    from compat_adapter.capability import PluginRuntime, capability
    from compat_adapter.catalog import unit_of

    runtime = capability(unit_of(vendor), PluginRuntime)
    if runtime is None or runtime.home != vendor:
        return ()
    out = []
    for row in runtime.rows():
        rid = f"{vendor}-plugin:{row.event}"
        why = runtime.port.unported_reason(row.event, target)
        out.append(runtime.unsupported(rid, row.event, why) if why else grade_plugin_key(row, vendor, target, rid))
    return tuple(out)


def _counts(rows: tuple[CapabilityResult, ...]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for r in rows:
        per = out.setdefault(r.vendor, {"DIRECT": 0, "ADAPTED": 0, "UNSUPPORTED": 0})
        per[str(r.capability)] = per.get(str(r.capability), 0) + 1
    return out


def to_json(target: str, rows: tuple[CapabilityResult, ...]) -> str:
    data: dict[str, Any] = {"host": target, "kind": "vendor-host", "counts": _counts(rows),
                            "rows": [r.model_dump(mode="json") for r in rows]}
    return json.dumps(data, indent=2, ensure_ascii=False)


def to_markdown(target: str, rows: tuple[CapabilityResult, ...]) -> str:
    lines = [f"# Hooks of every vendor hosted by {target} (`compat-adapter port --to {target}`)", "",
             "| vendor | DIRECT | ADAPTED | UNSUPPORTED |", "|---|---|---|---|"]
    for vendor, c in _counts(rows).items():
        lines.append(f"| {vendor} | {c['DIRECT']} | {c['ADAPTED']} | {c['UNSUPPORTED']} |")
    lines += ["", "| vendor | event | grade | losses or reason |", "|---|---|---|---|"]
    for r in rows:
        said = r.reason if r.reason else "; ".join(f"{d.code}: {d.text}" for d in r.degradations)
        lines.append(f"| {r.vendor} | {r.event} | {r.capability} | {said.replace('|', '/')} |")
    return "\n".join(lines) + "\n"
