"""``compat-adapter grade`` on a terminal: the summary first, then what to do, then each file.

Everything fits the width (:mod:`compat_adapter.cli.term`): lines wrap, never cut, and a command to
run stands whole on its own line. Repeated findings are folded: the losses every hook of a file
shares are named once for the file, a preflight finding or a "loads twice" warning once with the
places it applies to, a rules file once with every vendor that reads it. ``--verbose`` adds each
loss text, once per distinct text with the hooks it affects, so it grows with what differs, not
with the number of hooks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from compat_adapter.cli.reports import short_origin, split_origin
from compat_adapter.cli.term import Printer
from compat_adapter.vocabulary import Safety, safety_of

__all__ = ("render",)

_ORDER = ("DIRECT", "ADAPTED", "CARRY", "UNSUPPORTED")
_STYLE = {"DIRECT": "green", "ADAPTED": "yellow", "CARRY": "cyan", "UNSUPPORTED": "red"}
#: What each host is, in the closing line (the README says more).
_HOSTS = {"embedded": "host: the embedded agent host that ships with compat-adapter (--host dsh: the "
                      "DeepSeek Harness, DSH)",
          "dsh": "host: the DeepSeek Harness (DSH), published release",
          "dsh-0.2": "host: the DeepSeek Harness (DSH) 0.2"}
#: Places shown for one folded finding before "and N more".
_SHOWN = 6

Row = Mapping[str, Any]


def _code(loss: str) -> str:
    return loss.split(":", 1)[0]


def _worst_first(codes: Iterable[str]) -> list[str]:
    """Loss codes, each once, the class that disarms a guard first (then as they came)."""
    return sorted(dict.fromkeys(codes), key=lambda c: safety_of(c).rank)


def _disarming(loss: str) -> bool:
    return safety_of(_code(loss)) is Safety.DISARMS_GUARD


def _file(r: Row) -> str:
    return short_origin(split_origin(r["origin"])[0])


def _at(r: Row, with_file: bool = True) -> str:
    """``file:line`` (or ``file:place`` where the file has no lines)."""
    path, place = split_origin(r["origin"])
    where = str(r["line"]) if r.get("line") else place
    head = short_origin(path) if with_file else ""
    return f"{head}:{where}" if where else head


def _places(rows: Sequence[Row]) -> str:
    """Where a folded finding applies: ``file:line, :line …`` (the file named once per run)."""
    out, last = [], None
    for r in rows[:_SHOWN]:
        out.append(_at(r, with_file=_file(r) != last))
        last = _file(r)
    more = len(rows) - _SHOWN
    return ", ".join(out) + (f" and {more} more" if more > 0 else "")


def _untrusted(r: Row) -> bool:
    return r.get("code") == "UNTRUSTED"


def _summary(report: Mapping[str, Any]) -> tuple[str, str]:
    """The first line (what was graded, and any unusable file: what fails CI), then the rest."""
    rows = report["rows"]
    counts = Counter(r["capability"] for r in rows)
    parts = [f"{counts[c]} {c}" for c in _ORDER if counts[c]]
    head = f"{len(rows)} graded on {report['host']} {report.get('version') or ''}".rstrip()
    first = head + (": " + ", ".join(parts) if parts else "")
    if report["unusable"]:
        first += f"; {len(report['unusable'])} file(s) UNUSABLE"
    extra = []
    if held := sum(_untrusted(r) for r in rows):
        extra.append(f"{held} held back until trusted")
    if stuck := sum(r.get("starts") is False for r in rows):
        extra.append(f"{stuck} cannot start")
    if warned := sum(bool(r["preflight"]) for r in rows):
        extra.append(f"{warned} with preflight findings")
    if report["loads_twice"]:
        extra.append(f"{len(report['loads_twice'])} would load twice")
    # By what the worst loss does to a guard; a file held back untrusted is counted above.
    safety = Counter(r.get("safety") for r in rows if not _untrusted(r))
    for cls, words in ((Safety.DISARMS_GUARD, "with a guard disarmed"), (Safety.CHANGES_BEHAVIOUR,
                       "behaving differently"), (Safety.COSMETIC, "differing only cosmetically")):
        if safety[str(cls)]:
            extra.append(f"{safety[str(cls)]} {words}")
    return first, "; ".join(extra)


def _trust_words(report: Mapping[str, Any], graded: Sequence[str], named: bool) -> list[str]:
    """The one command that reviews and trusts what is held back: the folders as graded, or the
    named files with their vendor."""
    if named:
        files = sorted({_file(r) for r in report["rows"] if _untrusted(r)})
        return ["compat-adapter", "trust", "--vendor", report["vendors"][0], *files]
    return ["compat-adapter", "trust", *graded]


def _todo(out: Printer, report: Mapping[str, Any], graded: Sequence[str], named: bool, verbose: bool) -> None:
    rows = report["rows"]
    held = [r for r in rows if _untrusted(r)]
    stuck = [r for r in rows if r.get("starts") is False]
    disarmed = _fold((loss, r) for r in rows for loss in r["losses"] if _disarming(loss))
    if not (report["unusable"] or held or stuck or disarmed):
        return
    out.line()
    out.line("to do:", style="bold")
    for u in report["unusable"]:
        out.line(f"{u['code']}: {u['message']}", indent=2, hang=4, lead="UNUSABLE", lead_style="red bold")
    if held:
        files = sorted({_file(r) for r in held})
        out.line(f"{len(held)} hook(s) of {len(files)} file(s) are held back until you review and trust "
                 f"them ({', '.join(files)}); review and trust them with:", indent=2, hang=4, lead="TRUST",
                 lead_style="magenta bold")
        out.command(_trust_words(report, graded, named))
    for text, where in _fold((p["text"], r) for r in stuck for p in r["preflight"] if p["kind"] == "cannot-start"):
        guard = any(p["kind"].startswith("fails") for r in where for p in r["preflight"])
        out.line(f"{text} ({_places(where)})", indent=2, hang=4, lead="GUARD" if guard else "START",
                 lead_style="red bold")
    # What disarms a guard comes before anything that only behaves differently (with --verbose its
    # text is under "losses", once).
    for loss, where in disarmed:
        said = _code(loss) if verbose else loss.partition(": ")[2]
        out.line(f"{said} ({_places(where)})", indent=2, hang=4, lead="DISARMED", lead_style="red bold")


def _fold(items: Iterable[tuple[str, Row]]) -> list[tuple[str, list[Row]]]:
    """Each distinct text once, with the rows it applies to, in first-seen order."""
    where: dict[str, list[Row]] = {}
    for text, r in items:
        if not any(x is r for x in where.setdefault(text, [])):
            where[text].append(r)
    return list(where.items())


def _reason(r: Row) -> str:
    """Why a row is UNSUPPORTED; for a file not trusted, without the command (it is under "to do")."""
    reason = str(r["reason"] or "")
    if _untrusted(r):
        return reason.removeprefix("UNTRUSTED: ").split("; run `", 1)[0] + " (see: to do)"
    return reason


def _hook_label(r: Row) -> str:
    on = f"{r['event']}[{r['matcher']}]" if r.get("matcher") else r["event"]
    return f"{on} {r['command']}" if r.get("command") else on


def _file_section(out: Printer, rows: Sequence[Row], verbose: bool) -> None:
    head = rows[0]
    counts = Counter(r["capability"] for r in rows)
    tally = ", ".join(f"{counts[c]} {c}" for c in _ORDER if counts[c])
    out.line()
    rules = sum(str(r["event"]).startswith("permissions.") for r in rows)
    what = f"{len(rows) - rules} hook(s)" + (f" and {rules} permission rule(s) or setting(s)" if rules else "")
    out.line(f"{_file(head)}: {what}, {tally}", lead=head["vendor"], lead_style="bold")
    if any(r.get("confidence") == "documented" for r in rows):
        # No CLI of this vendor runs here: what it does is read from its documentation only.
        out.line(f"confidence: documented (what {head['vendor']} does is read from its documentation; no "
                 f"{head['vendor']} CLI was run to measure it)", indent=2, hang=4, style="dim")
    if any(r.get("confidence") == "derived" for r in rows):
        # A fork's rows taken from the vendor it forks: measured there, not on this vendor's CLI.
        out.line(f"confidence: derived (a hook row here is the one of the vendor {head['vendor']} forks, measured "
                 f"on that vendor's CLI, not on {head['vendor']}'s)", indent=2, hang=4, style="dim")
    if head.get("measured_on") and any(r.get("confidence", "measured") == "measured" for r in rows):
        # What the grading follows: the vendor as its pinned release behaved in the vendor lane.
        out.line(f"graded as {head['vendor']} {head['measured_on']} behaves (measured on that release)",
                 indent=2, hang=4, style="dim")
    reasons = {_reason(r) for r in rows if r["capability"] == "UNSUPPORTED"}
    if counts["UNSUPPORTED"] == len(rows) > 1 and len(reasons) == 1 and not verbose:
        out.line(f"every hook: {reasons.pop()}", indent=2, hang=4)
        return
    graded = [r for r in rows if r["losses"]]
    shared = set.intersection(*({_code(x) for x in r["losses"]} for r in graded)) if len(graded) > 1 else set()
    for r in rows:
        extra = [c for c in _worst_first(_code(x) for x in r["losses"]) if c not in shared]
        notes = f" [{', '.join(extra)}]" if extra else ""
        if r["capability"] == "UNSUPPORTED":
            notes = f": {_reason(r)}"
        route = f"{r['route']} " if verbose else ""
        loc = f":{r['line']}" if r.get("line") else split_origin(r["origin"])[1]
        cap = r["capability"]
        if r.get("starts") is False:
            # Its grade is what it would do once started; here it never does (see: to do).
            cap, notes = f"{cap}, CANNOT START", notes + " (cannot start: see to do)"
        elif any(_code(x) == "never-fires" for x in r["losses"]):
            cap = f"{cap}, NEVER FIRES"
        out.line(f"{route}{_hook_label(r)}{notes}", indent=2, hang=6,
                 lead=f"{loc:<5} {cap}", lead_style=_STYLE.get(cap, "red"))
        if verbose and r.get("alternative"):
            out.line(f"alternative: {r['alternative']}", indent=6, hang=8, style="dim")
    if shared:
        out.line(f"losses of every hook here: {', '.join(_worst_first(sorted(shared)))}", indent=2, hang=4,
                 style="dim")


def _rules_section(out: Printer, rows: Sequence[Row]) -> None:
    by_file: dict[str, list[Row]] = {}
    for r in rows:
        by_file.setdefault(_file(r), []).append(r)
    out.line()
    out.line("rules files, carried as context for the model whether trusted or not (context, not code):",
             lead="CARRY", lead_style=_STYLE["CARRY"], hang=2)
    for name, readers in by_file.items():
        out.line(f"{name}: {', '.join(dict.fromkeys(r['vendor'] for r in readers))}", indent=2, hang=4)


def _findings(out: Printer, report: Mapping[str, Any]) -> None:
    rows = report["rows"]
    other = _fold((f"{p['kind']}: {p['text']}", r) for r in rows for p in r["preflight"]
                  if p["kind"] not in ("cannot-start", "fails-open", "fails-closed"))
    if other:
        out.line()
        out.line("preflight (what this machine does not give a hook):", style="bold")
        for text, where in other:
            out.line(f"{text} ({_places(where)})", indent=2, hang=4)
    if report.get("shared"):
        out.line()
        out.line("files several vendors read:", style="bold")
        for f in report["shared"]:
            out.line(f"{short_origin(f['file'])}: {f['why']}", indent=2, hang=4)
    by_origin: dict[str, list[Row]] = {}
    for r in rows:
        by_origin.setdefault(r["origin"], []).append(r)
    twice = _fold((d["why"], r) for d in report["loads_twice"]
                  for r in by_origin.get(d["origin"]) or [{"origin": d["origin"]}])
    if twice:
        out.line()
        out.line("would load twice if every import is registered on one host:", style="bold")
        for why, where in twice:
            vendors = list(dict.fromkeys(r["vendor"] for r in where if "vendor" in r))
            places = _places(list({r["origin"]: r for r in where}.values()))
            out.line(f"{why} ({places}{'; ' + ', '.join(vendors) if len(vendors) > 1 else ''})", indent=2, hang=4)


def _losses(out: Printer, rows: Sequence[Row]) -> None:
    """Each distinct loss text once, under its code, with the hooks it affects."""
    texts = _fold((loss, r) for r in rows for loss in r["losses"])
    if not texts:
        return
    out.line()
    out.line("losses, each text once (compat-adapter explain --code CODE: what a code means):", style="bold")
    for loss, where in sorted(texts, key=lambda t: (safety_of(_code(t[0])).rank, _code(t[0]))):
        code, _, text = loss.partition(": ")
        out.line(f"{safety_of(code)} ({len(where)}: {_places(where)})", indent=2, hang=4, lead=code,
                 lead_style="red bold" if _disarming(loss) else "bold")
        out.line(text, indent=4, hang=4)


def render(report: Mapping[str, Any], *, verbose: bool = False, graded: Sequence[str] = (".",),
           named: bool = False) -> None:
    """The report on stdout; ``graded`` are the paths as given, ``named`` when they are files."""
    out = Printer()
    first, rest = _summary(report)
    out.line(first, hang=2, style="bold")
    if rest:
        out.line(rest, indent=2, hang=2)
    if not report["rows"] and not report["unusable"]:
        out.line(f"no hook or rules file of {', '.join(report['vendors']) or 'any vendor'} found in "
                 f"{', '.join(graded)} (each vendor's project files are searched, nothing above)", indent=2, hang=4)
    _todo(out, report, graded, named, verbose)
    files: dict[tuple[str, str], list[Row]] = {}
    rules: list[Row] = []
    for r in report["rows"]:
        if r["event"] == "rules":
            rules.append(r)
        else:
            files.setdefault((r["vendor"], _file(r)), []).append(r)
    for rows in files.values():
        _file_section(out, rows, verbose)
    if rules:
        _rules_section(out, rules)
    _findings(out, report)
    if verbose:
        _losses(out, report["rows"])
    out.line()
    tail = ("--verbose: each loss in full" if not verbose else "") + \
        ("; " if not verbose else "") + "compat-adapter explain --code CODE: what a loss code means; " + \
        "compat-adapter hooks: the hooks by event"
    out.line(tail, hang=2, style="dim")
    out.line(_HOSTS.get(report["host"], f"host: {report['host']}"), hang=2, style="dim")
