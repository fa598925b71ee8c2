"""The machine-readable outputs of the command line: the ``grade --json`` report as pydantic models
(its JSON Schema, like ``explain``'s, is generated from the models and published under
``docs/schema/``), the grade summary, and SARIF 2.1.0 for ``grade --sarif`` so that CI can annotate
a pull request."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ("GradeReport", "GradeRow", "losses_once", "sarif", "schemas", "short_origin", "split_origin",
           "summary_lines")


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Finding(_Model):
    kind: str
    subject: str
    text: str


class Twice(_Model):
    origin: str
    other: str
    why: str


class GradeRow(_Model):
    """One graded hook, refused entry, plugin hook or rules file."""

    vendor: str
    origin: str
    event: str
    matcher: str | None
    capability: str
    route: str
    seams: list[str]
    losses: list[str]
    """``code: text`` of every degradation."""
    reason: str | None
    preflight: list[Finding]
    alternative: str | None = None
    sources: list[str] | None = None
    trusted: bool | None = None
    loads_twice: list[str] | None = None


class GradeReport(_Model):
    """``compat-adapter grade --json``."""

    host: str
    vendors: list[str]
    vendor: str | None = None
    """Set when exactly one vendor's files were graded."""
    rows: list[GradeRow]
    unsupported: int
    loads_twice: list[Twice]
    errors: list[str]


class ErrorReport(_Model):
    """What any command prints on stdout under ``--json`` when it fails (exit 2)."""

    error: dict[str, str]


def schemas() -> dict[str, dict[str, Any]]:
    """File name under ``docs/schema/`` → JSON Schema."""
    from compat_adapter.explain.report import ExplainReport

    return {"explain.schema.json": ExplainReport.model_json_schema(),
            "grade.schema.json": GradeReport.model_json_schema(),
            "error.schema.json": ErrorReport.model_json_schema()}


def _code(loss: str) -> str:
    return loss.split(":", 1)[0]


def summary_lines(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per row (grade, route, where in its file, loss codes or reason), under a line naming
    the vendor and the file whenever that changes; the codes come before anything a narrow terminal cuts."""
    out = []
    shown: tuple[str, str] | None = None
    for r in rows:
        path, place = split_origin(r["origin"])
        if shown != (r["vendor"], path):
            shown = (r["vendor"], path)
            out.append(f"{r['vendor']} {short_origin(path)}")
        codes = list(dict.fromkeys(_code(x) for x in r["losses"]))
        tail = ", ".join(codes) if codes else (r["reason"] or "")
        if r["preflight"]:
            tail += ("; " if tail else "") + "preflight: " + ", ".join(dict.fromkeys(p["kind"] for p in r["preflight"]))
        if r.get("loads_twice"):
            tail += ("; " if tail else "") + "loads twice"
        out.append(f"  {r['capability']:<11} {r['route']:<16} {place or r['event']}" + (f" [{tail}]" if tail else ""))
    return out


def split_origin(origin: str) -> tuple[str, str]:
    """``<file>:<place>`` → (file, place); an origin without a place is all file."""
    path, sep, place = origin.rpartition(":")
    if not sep or not path or "/" in place:
        return origin, ""
    return path, place


def short_origin(origin: str) -> str:
    """An origin relative to the working folder when it lies under it."""
    try:
        return str(Path(origin).relative_to(Path.cwd()))
    except ValueError:
        return origin


def losses_once(rows: Sequence[Mapping[str, Any]]) -> list[tuple[str, list[str]]]:
    """Each distinct loss text once, with the hooks (origins) it affects, in first-seen order."""
    where: dict[str, list[str]] = {}
    for r in rows:
        for loss in r["losses"]:
            where.setdefault(loss, []).append(r["origin"])
    return list(where.items())


_LEVEL = {"UNSUPPORTED": "error", "ADAPTED": "warning"}


def _location(origin: str, root: Path) -> dict[str, Any]:
    path, place = split_origin(origin)
    try:
        uri = Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        uri = Path(path).as_posix()
    loc: dict[str, Any] = {"physicalLocation": {"artifactLocation": {"uri": uri}}}
    if place:
        loc["logicalLocations"] = [{"fullyQualifiedName": place, "kind": "member"}]
    return loc


def sarif(report: Mapping[str, Any], root: Path, version: str) -> dict[str, Any]:
    """SARIF 2.1.0: one result per loss, refusal and preflight finding of every row; rule ids are the
    degradation codes (``loss/<code>``), ``unsupported`` and ``preflight/<kind>``."""
    rules: dict[str, dict[str, Any]] = {}
    results: list[dict[str, Any]] = []

    def add(rule: str, level: str, text: str, origin: str) -> None:
        rules.setdefault(rule, {"id": rule, "shortDescription": {"text": rule}})
        results.append({"ruleId": rule, "level": level, "message": {"text": text},
                        "locations": [_location(origin, root)]})

    for r in report["rows"]:
        head = f"{r['vendor']} {r['event']}"
        if r["capability"] == "UNSUPPORTED":
            add("unsupported", "error", f"{head}: UNSUPPORTED — {r['reason']}", r["origin"])
        for loss in r["losses"]:
            add(f"loss/{_code(loss)}", _LEVEL.get(r["capability"], "note"), f"{head}: {loss}", r["origin"])
        for p in r["preflight"]:
            add(f"preflight/{p['kind']}", "error" if p["kind"].startswith("fails") else "warning",
                f"{head}: {p['text']}", r["origin"])
        for why in r.get("loads_twice") or ():
            add("loads-twice", "warning", f"{head}: {why}", r["origin"])
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "compat-adapter", "version": version,
                                      "rules": list(rules.values())}},
                  "results": results}],
    }
