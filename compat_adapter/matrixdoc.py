"""The support matrix as Markdown: the README summary, docs/support-matrix.md (and `compat-adapter
matrix`'s default format) and docs/host-differences.md, each rendered from a
:class:`~compat_adapter.matrix.Matrix`.

Apart from :mod:`compat_adapter.matrix`, which builds the matrix and writes its JSON, so that the
JSON format does not load (nor compile, where bytecode is not cached) the Markdown writers.
"""

from __future__ import annotations

from compat_adapter.capability import PluginRuntime, capability
from compat_adapter.catalog import resolve_vendor, unit_of
from compat_adapter.matrix import Matrix, VendorCounts
from compat_adapter.model import CapabilityResult, Degradation, DegradationCode, Route

__all__ = ("host_differences", "summary_markdown", "to_markdown")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _route_label(h: CapabilityResult) -> str:
    if h.route is Route.UNSUPPORTED:
        return "—"
    return f"{h.route} ({h.point})" if h.point else str(h.route)


def _losses(items: tuple[Degradation, ...] | list[Degradation]) -> str:
    return "<br>".join(f"`{d.code}` {_cell(d.text)}" for d in items)


def _codes(items: tuple[Degradation, ...] | list[Degradation]) -> str:
    return ", ".join(dict.fromkeys(str(d.code) for d in items))


def _shared(h: CapabilityResult) -> set[Degradation]:
    """The losses of ``h`` that its vendor or its bridge states for many rows."""
    spec = resolve_vendor(h.vendor)
    row = spec.row(h.event)
    assert row is not None
    return set(spec.losses_for(row)) - set(row.degradations) - set(row.role_losses)


def _own(h: CapabilityResult, said: DegradationCode | None = None) -> list[Degradation]:
    """The losses of ``h`` that belong to its row alone (the vendor's and bridge's are said once),
    without the code ``said`` already names for the whole group."""
    shared = _shared(h)
    return [d for d in h.degradations if d not in shared and d.code is not said]


#: How the vendor section names each bridge scope, in the order the bridge states them.
_BRIDGE_SCOPES = (("losses", "every bridged row"), ("answer_losses", "bridged rows whose answer is read"),
                  ("block_losses", "bridged rows that can block"), ("tool_losses", "bridged rows matched on the tool"))


def _scopes(vendor: str) -> list[tuple[str, tuple[Degradation, ...]]]:
    """A vendor's shared losses, each with the rows it is true of."""
    spec = resolve_vendor(vendor)
    out = [("every row", spec.losses)] if spec.losses else []
    if spec.bridge is not None:
        out += [(label, getattr(spec.bridge, field)) for field, label in _BRIDGE_SCOPES
                if getattr(spec.bridge, field)]
    return out


#: What a vendor section says when its rows were not measured.
_DOCUMENTED = ("No {vendor} CLI runs here (none is on the registries), so every row's semantics are read from "
               "{vendor}'s documentation, never measured; where the docs leave a question open, the stricter "
               "reading is taken and the loss listed.")
_DERIVED = ("{vendor} forks another vendor, and its hook event rows are that vendor's rows, measured on that "
            "vendor's CLI, not on {vendor}'s: what the vendor lane measured on {vendor}'s own CLI is its plugins "
            "and its permission rules (graded as measured, on the release below).")
#: What a vendor line says of rows that were not measured on its own CLI, by confidence.
_SAID = {"documented": _DOCUMENTED, "derived": _DERIVED}
_SHORT = {"documented": "read from its docs, not measured",
          "derived": "its hook rows are the forked vendor's, measured there"}


def _vendor_table(matrix: Matrix, *, full: bool = True) -> list[str]:
    """The counts per vendor; ``full=False`` (the README's) leaves out the aliases and confidence, and
    every count column that is 0 for every vendor (the support matrix keeps them all)."""
    def cells(c: VendorCounts) -> dict[str, object]:
        r = c.routes
        return {"events": c.events, "official-bridge": r["official-bridge"], "native-translate": r["native-translate"],
                "native-seam": r["native-seam"], "builtin-bridge": r["builtin-bridge"], "approximate": c.approximate,
                "DIRECT": c.direct, "UNSUPPORTED": c.unsupported, "unserved": c.unserved}

    rows = (*matrix.counts, matrix.totals)
    columns = [k for k in cells(matrix.totals) if full or k == "events" or cells(matrix.totals)[k] != 0]
    heads = ["vendor", *(["aliases", "confidence"] if full else []), *columns, "rules"]
    out = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for c in rows:
        total = c.vendor == "total"
        name = f"**{c.vendor}**" if total else c.vendor
        said = ["" if total else ", ".join(resolve_vendor(c.vendor).aliases), "" if total else c.confidence]
        values = cells(c)
        out.append("| " + " | ".join([name, *(said if full else []), *(str(values[k]) for k in columns), c.rules])
                   + " |")
    return out


def summary_markdown(matrix: Matrix) -> str:
    """The README block: routes per vendor, then per vendor the loss codes its rows share. The codes of
    each event are in the support matrix: one line per event for every vendor does not fit a front
    door (the README stays under 12 KiB with eight vendors)."""
    out = [
        f"Graded on host `{matrix.host}` {matrix.version} by `scripts/write_matrix.py`; do not edit by hand.",
        "",
        *_vendor_table(matrix, full=False),
        "",
        "Loss codes every row of a vendor (or of its bridge) shares, after the vendor release its rows "
        "follow; each event's own codes and every sentence are in the [support matrix](docs/support-matrix.md).",
        "",
    ]
    for c in matrix.counts:
        shared = "; ".join(f"{label}: {_codes(items)}" for label, items in _scopes(c.vendor))
        release = f" {c.measured_on}" if c.measured_on else ""
        # A vendor with no CLI to measure says so on its line: its rows are read from its docs.
        said = f"; confidence: {c.confidence} ({_SHORT[c.confidence]})" if c.confidence in _SHORT else ""
        out.append(f"- **{c.vendor}{release}** — {shared}{said}.")
    if matrix.plugins:
        # One line: the README stays small; the keys and their losses are in the support matrix.
        out += ["", _plugin_runtime(matrix).matrix_summary(matrix.plugins)]
    return "\n".join(out) + "\n"


def to_markdown(matrix: Matrix) -> str:
    """The full reference: per vendor its shared losses once, then every row with its own losses."""
    out = [
        f"Graded on host `{matrix.host}` {matrix.version}. Generated by `scripts/write_matrix.py`; "
        "do not edit by hand. Every result lists all of its losses; here a loss that a vendor or "
        "its bridge shares with many rows is stated once, at the top of the vendor's section.",
        "",
        *_vendor_table(matrix),
    ]
    for c in matrix.counts:
        out += ["", f"## {c.vendor}", ""]
        if c.confidence in _SAID:
            out += [f"Confidence: {c.confidence}. {_SAID[c.confidence].format(vendor=c.vendor)}", ""]
        if c.measured_on:
            what = "Its plugins and permission rules follow" if c.confidence == "derived" else "Every row follows"
            out += [f"{what} {c.vendor} {c.measured_on}, the release the vendor lane pins: its "
                    "semantics were measured on that release's real CLI.", ""]
        for label, items in _scopes(c.vendor):
            out.append(f"Lost on {label}:")
            out += ["", *(f"- `{d.code}` {d.text}" for d in items), ""]
        out += ["| event | capability | route (point) | seams / services | its own losses or reason |",
                "|---|---|---|---|---|"]
        for h in matrix.hooks:
            if h.vendor == c.vendor:
                where = ", ".join((*h.seams, *h.services)) or "—"
                own = _cell(h.reason) if h.reason else (_losses(_own(h)) or "only the shared losses above")
                out.append(f"| `{h.event}` | {h.capability} | {_route_label(h)} | {where} | {own} |")
    if matrix.unserved:
        out += ["", "## Documented events with no route here", "",
                "Each is UNSUPPORTED wherever it appears in a file, with this reason.", "",
                "| vendor | event | reason |", "|---|---|---|"]
        out += [f"| {h.vendor} | `{h.event}` | {_cell(h.reason or '')} |" for h in matrix.unserved]
    rules_by_vendor = {r.vendor: r for r in matrix.rules}
    out += ["", "## Rules: carried byte for byte, never executed", "",
            "| vendor | capability | formats | default sources | what carrying means |",
            "|---|---|---|---|---|"]
    for spec_rules in matrix.rules:
        spec = resolve_vendor(spec_rules.vendor)
        out.append(f"| {spec.id} | {rules_by_vendor[spec.id].capability} | "
                   f"{', '.join(spec.rules.formats)} | "
                   f"{', '.join(f'`{s}`' for s in spec.rules.default_sources)} | "
                   f"{_cell(spec.rules.note)} |")
    out += _permission_section(matrix)
    out += _plugin_section(matrix)
    out += ["", "## Vendor runtimes embedded in the host", "",
            "No vendor's own runtime runs inside the host; OpenCode's plugins run as written in the plugin "
            "host's sidecar (the section above).", "", "| vendor | capability | reason |", "|---|---|---|"]
    for r in matrix.runtimes:
        out.append(f"| {r.vendor} | {r.capability} | {_cell(r.reason or '')} |")
    out += ["", "## Native translation points", "",
            "| point | seams / services | mode | answer becomes | used by |", "|---|---|---|---|---|"]
    for p in matrix.native_points:
        out.append(f"| `{p.point}` | {', '.join(p.seams)} | {p.mode} | {p.produces} | "
                   f"{len(p.used_by)} |")
    out += ["", "## Observation points (observe-only)", "",
            "| point | seams / services | used by |", "|---|---|---|"]
    for p in matrix.observation_points:
        out.append(f"| `{p.point}` | {', '.join(p.seams)} | {', '.join(p.used_by)} |")
    return "\n".join(out) + "\n"


def _permission_section(matrix: Matrix) -> list[str]:
    if not matrix.permissions:
        return []
    out = ["", "## Permission rules: enforced on the host's tool calls", "",
           "Typical rules of each vendor whose rule language is read here, graded as a project's own would "
           "be. A vendor not listed has its files' rules refused (`UNREAD_PERMISSIONS`), listed by `grade`.",
           "", "| vendor | rule | capability | losses or reason |", "|---|---|---|---|"]
    for r in matrix.permissions:
        said = _cell(r.reason) if r.reason else (_losses(r.degradations) or "none")
        out.append(f"| {r.vendor} | `{r.event.split('.', 1)[1]}` `{r.matcher}` | {r.capability} | {said} |")
    return out


def _plugin_runtime(matrix: Matrix) -> PluginRuntime:
    """The plugin runtime whose keys the matrix's plugin rows are (the unit of their vendor brings it)."""
    runtime = capability(unit_of(matrix.plugins[0].vendor), PluginRuntime)
    assert runtime is not None, "plugin rows come from a unit's plugin runtime"
    return runtime


def _plugin_section(matrix: Matrix) -> list[str]:
    if not matrix.plugins:
        return []
    title, intro, shared = _plugin_runtime(matrix).matrix_section(matrix.plugins)
    out = ["", f"## {title}", "", intro, "",
           "Lost on every plugin hook:", "", *(f"- `{d.code}` {d.text}" for d in shared),
           "", "| hook key | capability | route (point) | seams / services | its own losses or reason |",
           "|---|---|---|---|---|"]
    for h in matrix.plugins:
        where = ", ".join((*h.seams, *h.services)) or "—"
        own = _cell(h.reason) if h.reason else (_losses([d for d in h.degradations if d not in shared])
                                                 or "only the shared losses above")
        out.append(f"| `{h.event}` | {h.capability} | {_route_label(h)} | {where} | {own} |")
    return out


def host_differences(first: Matrix, second: Matrix) -> str:
    """Markdown: every row that grades differently on two hosts, with the reason for each."""
    other = {(h.vendor, h.event): h for h in second.hooks}
    out = [
        f"Rows graded on `{first.host}` {first.version} and on `{second.host}` {second.version} that "
        "differ, with the reason the surface gives. Generated by `scripts/write_matrix.py`.",
        "",
        f"| vendor | event | {first.host} | {second.host} | why |",
        "|---|---|---|---|---|",
    ]
    differ = 0
    for h in first.hooks:
        o = other[(h.vendor, h.event)]
        added = [d for d in o.degradations if d not in h.degradations]
        if (h.capability, h.route) == (o.capability, o.route) and not added:
            continue
        differ += 1
        shown = str(o.capability) + (f" (+{len(added)} loss)" if added else "")
        why = o.reason or "; ".join(f"`{d.code}` {d.text}" for d in added) or "route differs"
        out.append(f"| {h.vendor} | `{h.event}` | {h.capability} | {shown} | {_cell(why)} |")
    for r, o in zip(first.rules, second.rules, strict=True):
        added = [d for d in o.degradations if d not in r.degradations]
        if r.capability != o.capability or added:
            differ += 1
            why = o.reason or "; ".join(f"`{d.code}` {d.text}" for d in added)
            out.append(f"| {r.vendor} | rules | {r.capability} | {o.capability} | {_cell(why)} |")
    for p, o in zip(first.plugins, second.plugins, strict=True):
        added = [d for d in o.degradations if d not in p.degradations]
        if (p.capability, p.route) != (o.capability, o.route) or added:
            differ += 1
            why = o.reason or "; ".join(f"`{d.code}` {d.text}" for d in added) or "route differs"
            out.append(f"| {p.vendor} plugin | `{p.event}` | {p.capability} | {o.capability} | {_cell(why)} |")
    same = len(first.hooks) + len(first.rules) + len(first.plugins) - differ
    out += ["", f"The other {same} rows (hooks, rules and OpenCode plugin hooks) grade the same on both hosts."]
    return "\n".join(out) + "\n"
