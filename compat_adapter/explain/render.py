"""The human form of an ``explain`` report: one table per hook and one for the merged verdicts, at the
terminal's width (rich folds long cells instead of cutting them)."""

from __future__ import annotations

from typing import Any

from compat_adapter.explain.report import ExplainReport, HookExplained, Read

__all__ = ("render",)

_CAP = 400


def _cut(text: str) -> str:
    return text if len(text) <= _CAP else text[:_CAP] + f"… ({len(text)} chars)"


def _reads(reads: tuple[Read, ...]) -> str:
    return "\n".join(f"[{r.place}] {_cut(r.text)}" for r in reads) or "nothing"


def _hook_rows(h: HookExplained) -> list[tuple[str, str]]:
    rows = [("matcher", f"{h.matcher.engine}: {h.matcher.why}"), ("if", h.if_rule.why)]
    if h.run is None:
        rows.append(("runs", f"no — {h.why_not}"))
        return rows
    r = h.run
    status = f"exit {r.exit_code}" if r.exit_code is not None else f"no exit code ({r.cause})"
    rows += [("stdin", _cut(r.stdin.rstrip("\n"))),
             ("run", f"{status} in {r.duration_ms:.0f} ms (timeout {r.timeout_s:g} s)"
              + (", output truncated" if r.truncated else "")),
             ("stdout", _cut(r.stdout.rstrip("\n")) or "(empty)"), ("stderr", _cut(r.stderr.rstrip("\n")) or "(empty)")]
    if h.vendor_view is not None:
        v = h.vendor_view
        rows.append(("vendor reads it", f"{v.decision}" + (f" — {v.reason}" if v.reason else "")
                     + (f"; failed: {v.failed}" if v.failed else "")))
    return rows


def _permissions(console: Any, report: ExplainReport) -> None:
    from rich.table import Table

    from compat_adapter.cli.reports import short_origin

    rules = report.permissions
    assert rules is not None
    table = Table(title="permission rules", expand=True)
    for name in ("rule", "where", "matches this call", "on the host"):
        table.add_column(name, overflow="fold")
    for r in rules.rules:
        table.add_row(f"{r.behavior} {r.rule}", short_origin(r.origin), "yes" if r.matches else "no",
                      r.capability + (f" — {r.reason}" if r.reason else ""))
    console.print(table)
    sides = Table(title="the call, rules and hooks weighed", expand=True)
    sides.add_column("", style="bold", no_wrap=True)
    sides.add_column(f"{report.vendor} would", overflow="fold", ratio=1)
    sides.add_column("the host does", overflow="fold", ratio=1)
    v, h = rules.vendor, rules.host
    sides.add_row("decision", v.decision + (f" by {v.rule}" if v.rule else ""),
                  h.decision + (f" by {h.rule}" if h.rule else ""))
    sides.add_row("effect", v.effect, h.effect)
    sides.add_row("the model reads", v.reads or "the tool's own result", h.reads or "the tool's own result")
    console.print(sides)


def render(report: ExplainReport) -> None:
    from rich.console import Console
    from rich.table import Table

    # Hook output and reasons are printed as they are: brackets in them are text, never markup.
    console = Console(markup=False, highlight=False)
    head = f"{report.vendor} {report.measured_on} {report.event}" if report.measured_on else \
        f"{report.vendor} {report.event}"
    if report.subject is not None:
        head += f" on {report.subject}"
    console.print(f"{head}: {len(report.hooks)} hook(s) of this event, "
                  f"{sum(h.fires for h in report.hooks)} fired")
    if report.confidence == "documented":
        console.print(f"confidence: documented — what {report.vendor} would do is read from its documentation; "
                      f"no {report.vendor} CLI ran here to measure it")
    elif report.confidence == "derived":
        console.print(f"confidence: derived — this row is the one of the vendor {report.vendor} forks, measured "
                      f"on that vendor's CLI; no lane case measured it on {report.vendor}'s own")
    for h in report.hooks:
        table = Table(title=f"{h.origin}\n{_cut(h.handler)}", show_header=False, expand=True)
        table.add_column("step", style="bold", no_wrap=True)
        table.add_column("what", overflow="fold", ratio=1)
        for step, what in _hook_rows(h):
            table.add_row(step, what)
        console.print(table)
    if report.vendor_view is not None and report.host_view is not None:
        v, host = report.vendor_view, report.host_view
        table = Table(title="every hook that ran, merged", expand=True)
        table.add_column("", style="bold", no_wrap=True)
        table.add_column(f"{report.vendor} would", overflow="fold", ratio=1)
        table.add_column(f"host {host.host} ({host.route}, {host.capability})", overflow="fold", ratio=1)
        table.add_row("decision", v.decision + (f" — {v.reason}" if v.reason else ""),
                      f"{host.verdict or 'no verdict'} ({host.rule}: {host.note})")
        table.add_row("effect", v.effect, "honoured" if host.honoured else
                      "not honoured" if host.honoured is False else "decided elsewhere")
        table.add_row("the model reads", _reads(v.reads), _reads(host.reads))
        if host.shown:  # what the person is told (the host's notices), never the model
            table.add_row("you are shown", "", "\n".join(_cut(t) for t in host.shown))
        console.print(table)
    if report.permissions is not None:
        _permissions(console, report)
    for d in report.differences:
        console.print(f"difference: {d}")
    if report.host_view is not None and report.host_view.degradations:
        console.print("losses the grade lists: " + ", ".join(
            dict.fromkeys(d.split(":", 1)[0] for d in report.host_view.degradations)))
    for lint in report.lints:
        console.print(f"lint {lint.code}: {lint.origin}: {lint.text}")
    for refused in report.refused:
        console.print(f"refused: {refused}")
    for item in report.not_replayed:
        console.print(f"not replayed: {item}")
    if not report.hooks:
        where = ", ".join(report.files) or "the project"
        console.print(f"no {report.vendor} hook is configured for {report.event} in {where}")
