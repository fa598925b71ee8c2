"""How much of the real-world corpus runs here: the share of handlers graded ADAPTED, per vendor,
and the reason of every handler that is not; beside it, how many of the command hooks start.

Each hook file of tests/fixtures/real-configs (provenance in its SOURCES.md) is graded on its own
through the real `compat-adapter grade --json --trust-all --vendor V FILE` command (in this process,
so the package loads once), as a user would grade it after reviewing it. Rules files are not
handlers and are left out (so are refused rules sources, OpenCode `instructions` entries); OpenCode
plugins are graded by hook key, or one row when a plugin does not load. A file that fails whole
is reported as such.

Whether a hook starts is preflight's answer (no ``cannot-start`` finding: the command resolved as
its vendor runs it, every program and script it runs present). The corpus copies no third-party
script, so it is counted three ways, never as starting on a script that is not there:

* ``alone``: each file graded as committed, by itself: a hook whose script is not in the corpus
  does not start;
* ``installed``: each file laid out as its vendor loads it with the real-config lane's stand-ins
  (``tests/fixtures/real-configs/LANE.json``: one per script the file runs, each documented); a file
  the lane cannot install counts as it is alone;
* ``with_toolchain``: as installed, and a program that is only missing from this machine's PATH
  (``uv``, ``pnpm``, ``sumo``: the team's own toolchain) counted as present.

What still does not start is listed by cause: another machine's path (``/Users/<someone>/…``, a
redirection the shell cannot open), a variable its vendor does not give, a program not installed.
Those hooks do not start under their own vendor either, anywhere but on their author's machine.

    .venv/bin/python scripts/corpus_figure.py [--json] [--host embedded|dsh]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path

from compat_adapter.cli import main as cli_main
from compat_adapter.testing.realconfig.install import corpus_files, install, vendor_of

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real-configs"
HOOK_SUFFIXES = {".json", ".jsonc", ".toml", ".ts", ".js"}
#: Refusal codes of rules sources (an `instructions` entry), which are context, not handlers.
RULES_CODES = ("SOURCE_MISSING", "REMOTE_SOURCE")


def hook_files() -> list[tuple[str, Path]]:
    # Each corpus folder is named by its vendor's id or alias (the registry resolves it).
    return [(vendor_of(f"{folder.name}/"), f) for folder in sorted(p for p in CORPUS.iterdir() if p.is_dir())
            for f in sorted(folder.rglob("*")) if f.is_file() and f.suffix in HOOK_SUFFIXES]


def grade_file(vendor: str, path: Path, host: str) -> tuple[list[dict], str | None]:
    """The hook rows of one file, or the error that made the whole file fail."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(["grade", "--json", "--trust-all", "--host", host, "--vendor", vendor, str(path)])
    if code != 0:
        return [], f"exit {code}: {err.getvalue().strip().splitlines()[-1] if err.getvalue().strip() else ''}"
    rows = [r for r in json.loads(out.getvalue())["rows"]
            if r["event"] != "rules" and not str(r["reason"]).startswith(RULES_CODES)]
    return rows, None


def measure(host: str = "embedded") -> dict:
    per_vendor: dict[str, dict] = {}
    for vendor, path in hook_files():
        entry = per_vendor.setdefault(vendor, {"handlers": 0, "adapted": 0, "files": 0, "failed_files": [],
                                               "not_adapted": []})
        rows, failed = grade_file(vendor, path, host)
        entry["files"] += 1
        if failed:
            entry["failed_files"].append(f"{path.relative_to(CORPUS)}: {failed}")
        for row in rows:
            entry["handlers"] += 1
            if row["capability"] == "ADAPTED":
                entry["adapted"] += 1
            else:
                origin = row["origin"].replace(str(CORPUS) + "/", "")
                entry["not_adapted"].append({"origin": origin, "capability": row["capability"],
                                             "reason": row["reason"]})
    handlers = sum(e["handlers"] for e in per_vendor.values())
    adapted = sum(e["adapted"] for e in per_vendor.values())
    return {"host": host, "handlers": handlers, "adapted": adapted,
            "share": adapted / handlers if handlers else 0.0, "vendors": per_vendor, "starts": starts(host)}


def _cause(row: dict) -> str:
    """Why a hook does not start, in one word, from its preflight findings."""
    found = [p for p in row["preflight"] if p["kind"] not in ("cannot-start", "fails-open", "fails-closed")]
    texts = " ".join(p["text"] for p in found)
    if "another machine" in texts or "the shell reads" in texts:
        return "foreign-path"
    if "not set for this hook" in texts or "sees an empty string" in texts:
        return "unset-variable"
    if found and all(p["kind"] == "program" for p in found):
        return "program"
    return "missing-file"


def _installed_rows(source: str, host: str) -> list[dict] | None:
    """The hook rows of one corpus file installed with its stand-ins, or None if it cannot be."""
    layout = install(source)
    if layout.not_drivable or not layout.imports:
        return None
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="corpus-figure-") as scratch:
        proj = Path(scratch) / "proj"
        for name, text in layout.files.items():
            (proj / name).parent.mkdir(parents=True, exist_ok=True)
            (proj / name).write_text(text, encoding="utf-8")
            if text.startswith("#!"):
                (proj / name).chmod(0o755)
        os.chdir(proj)  # a plugin's hooks run in the session's folder: the project's
        try:
            rows, failed = grade_file(layout.vendor, proj / layout.imports[0], host)
        finally:
            os.chdir(here)
    return None if failed else rows


def starts(host: str) -> dict:
    """The command hooks of the corpus that start: alone, installed with stand-ins, and with the
    team's toolchain counted as present; what does not, by cause."""
    tally = {"hooks": 0, "alone": 0, "installed": 0, "with_toolchain": 0}
    causes: dict[str, int] = {}
    stuck: list[dict] = []
    for source in corpus_files():
        vendor = vendor_of(source)
        alone, _ = grade_file(vendor, CORPUS / source, host)
        alone = [r for r in alone if "starts" in r]
        installed = _installed_rows(source, host)
        installed = alone if installed is None else [r for r in installed if "starts" in r]
        tally["hooks"] += len(alone)
        tally["alone"] += sum(r["starts"] for r in alone)
        tally["installed"] += sum(r["starts"] for r in installed)
        for row in installed:
            if row["starts"]:
                continue
            cause = _cause(row)
            causes[cause] = causes.get(cause, 0) + 1
            tally["with_toolchain"] += cause == "program"
            stuck.append({"file": source, "place": row["origin"].rsplit(":", 1)[-1], "cause": cause,
                          "why": next((p["text"] for p in row["preflight"] if p["kind"] == "cannot-start"), "")})
    tally["with_toolchain"] += tally["installed"]
    share = {k: round(tally[k] / tally["hooks"], 3) if tally["hooks"] else 0.0
             for k in ("alone", "installed", "with_toolchain")}
    return {**tally, "share": share, "causes": causes, "not_starting": stuck}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--host", default="embedded")
    args = parser.parse_args()
    figure = measure(args.host)
    if args.json:
        print(json.dumps(figure, indent=2))
        return 0
    for vendor, e in figure["vendors"].items():
        share = e["adapted"] / e["handlers"] if e["handlers"] else 0.0
        print(f"{vendor:10} {e['adapted']:3}/{e['handlers']:<3} ADAPTED ({share:6.1%}) over {e['files']} files")
        for failed in e["failed_files"]:
            print(f"    FILE FAILS WHOLE {failed}")
        for row in e["not_adapted"]:
            print(f"    {row['capability']:11} {row['origin']}\n                {row['reason']}")
    print(f"all        {figure['adapted']}/{figure['handlers']} ADAPTED ({figure['share']:.1%}) on {figure['host']}")
    s = figure["starts"]
    print(f"starts     of {s['hooks']} command hooks: {s['alone']} alone ({s['share']['alone']:.1%}), "
          f"{s['installed']} installed with stand-ins ({s['share']['installed']:.1%}), "
          f"{s['with_toolchain']} with the team's toolchain ({s['share']['with_toolchain']:.1%})")
    for cause, n in sorted(s["causes"].items()):
        print(f"    {n:3} do not start: {cause}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
