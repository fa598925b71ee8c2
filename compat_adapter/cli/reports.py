"""The machine-readable outputs of the command line: the ``grade --json`` report as pydantic models
(its JSON Schema, like ``explain``'s, is generated from the models and published under
``docs/schema/``), the grade summary, and SARIF 2.1.0 for ``grade --sarif`` so that CI can annotate
a pull request."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from compat_adapter.vocabulary import finding_safety, safety_of

__all__ = ("GradeReport", "GradeRow", "sarif", "schemas", "short_origin", "split_origin")


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


class SharedFile(_Model):
    """A hook file several vendors read, and as whose it was loaded (``--shared-as``)."""

    file: str
    readers: list[str]
    loaded_as: list[str]
    why: str


class GradeRow(_Model):
    """One graded hook, refused entry, plugin hook or rules file."""

    vendor: str
    origin: str
    line: int | None = None
    """The line the entry starts on, when its file is JSON."""
    event: str
    matcher: str | None
    command: str | None = None
    """The command line a command hook runs, as written."""
    code: str | None = None
    """The refusal code of a refused entry (``UNTRUSTED``, ``INVALID_ENTRY`` …)."""
    capability: str
    route: str
    seams: list[str]
    losses: list[str]
    """``code: text`` of every degradation."""
    reason: str | None
    preflight: list[Finding]
    starts: bool | None = None
    """For a command hook: whether it can start here (false: a ``cannot-start`` finding says what
    that means on its vendor). Its grade is what it does once started."""
    alternative: str | None = None
    sources: list[str] | None = None
    trusted: bool | None = None
    loads_twice: list[str] | None = None
    safety: Literal["disarms-guard", "changes-behaviour", "cosmetic"] | None = None
    """The worst safety class of what the row lists (compat_adapter.vocabulary.Safety); None when
    it lists nothing."""
    confidence: Literal["measured", "documented", "derived"] | None = None
    """Whether the vendor semantics graded were measured on its real CLI or only read from its
    documentation (Cursor, which has no CLI here); absent on refused entries."""
    measured_on: str | None = None
    """The vendor release whose behaviour the grading follows (measured on its real CLI in the
    vendor lane); None when no release of the vendor was run."""


class Unusable(_Model):
    code: str
    message: str
    path: str | None
    line: int | None
    column: int | None


class GradeReport(_Model):
    """``compat-adapter grade --json``."""

    host: str
    vendors: list[str]
    vendor: str | None = None
    """Set when exactly one vendor's files were graded."""
    rows: list[GradeRow]
    unsupported: int
    cannot_start: int = 0
    """Command hooks that cannot start here."""
    safety: dict[str, int] = {}
    """Rows by their worst safety class (``--strict`` fails on ``disarms-guard`` by default)."""
    loads_twice: list[Twice]
    shared: list[SharedFile] = []
    """Hook files several vendors read: each loaded once, as its owner's, unless ``--shared-as``."""
    errors: list[str]
    """``CODE: message`` of each unusable file (as ``unusable``, one line each)."""
    unusable: list[Unusable]
    """Files that could not be used (unreadable, refused, not JSON/TOML at all): the exit status is 2."""
    version: str | None = None
    """The host surface's version."""


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



def _location(origin: str, root: Path, line: int | None = None, column: int | None = None) -> dict[str, Any]:
    path, place = split_origin(origin)
    try:
        uri = Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        uri = Path(path).as_posix()
    physical: dict[str, Any] = {"artifactLocation": {"uri": uri}}
    if line:
        physical["region"] = {"startLine": line, **({"startColumn": column} if column else {})}
    loc: dict[str, Any] = {"physicalLocation": physical}
    if place:
        loc["logicalLocations"] = [{"fullyQualifiedName": place, "kind": "member"}]
    return loc


def sarif(report: Mapping[str, Any], root: Path, version: str) -> dict[str, Any]:
    """SARIF 2.1.0: one result per unusable file, and per loss, refusal and preflight finding of every
    row (at its line when the file has lines); rule ids are ``unusable/<CODE>``, the degradation
    codes (``loss/<code>``), ``unsupported`` and ``preflight/<kind>``. The level is the safety class
    of what a result names (``compat_adapter.vocabulary.Safety``): a disarmed guard is an ``error``, a
    changed behaviour a ``warning``, a cosmetic difference a ``note``."""
    rules: dict[str, dict[str, Any]] = {}
    results: list[dict[str, Any]] = []

    def add(rule: str, level: str, text: str, origin: str, line: int | None = None,
            column: int | None = None) -> None:
        rules.setdefault(rule, {"id": rule, "shortDescription": {"text": rule}})
        results.append({"ruleId": rule, "level": level, "message": {"text": text},
                        "locations": [_location(origin, root, line, column)]})

    # A file that could not be used is an error of its own: CI shows it, whatever else graded.
    for u in report.get("unusable") or ():
        add(f"unusable/{u['code']}", "error", f"{u['code']}: {u['message']}", u["path"] or ".", u["line"],
            u["column"])
    for r in report["rows"]:
        head, origin, line = f"{r['vendor']} {r['event']}", r["origin"], r.get("line")
        if r["capability"] == "UNSUPPORTED":
            add("unsupported", finding_safety("unsupported").level, f"{head}: UNSUPPORTED — {r['reason']}", origin,
                line)
        for loss in r["losses"]:
            add(f"loss/{_code(loss)}", safety_of(_code(loss)).level, f"{head}: {loss}", origin, line)
        # A guard that cannot start says so twice (cannot-start, then fails-open or fails-closed with
        # the same text): one fact, one result, under the kind that says what it does.
        said = {p["text"] for p in r["preflight"] if p["kind"].startswith("fails")}
        for p in r["preflight"]:
            if p["kind"] == "cannot-start" and p["text"] in said:
                continue
            add(f"preflight/{p['kind']}", finding_safety(p["kind"]).level, f"{head}: {p['text']}", origin, line)
        for why in r.get("loads_twice") or ():
            add("loads-twice", finding_safety("loads-twice").level, f"{head}: {why}", origin, line)
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "compat-adapter", "version": version,
                                      "rules": list(rules.values())}},
                  "results": results}],
    }
