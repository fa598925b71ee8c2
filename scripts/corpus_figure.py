"""How much of the real-world corpus runs here: the share of handlers graded ADAPTED, per vendor,
and the reason of every handler that is not.

Each hook file of tests/fixtures/real-configs (provenance in its SOURCES.md) is graded on its own
through the real `compat-adapter grade --json --trust-all --vendor V FILE` command (in this process,
so the package loads once), as a user would grade it after reviewing it. Rules files are not
handlers and are left out (so are refused rules sources, OpenCode `instructions` entries); OpenCode
plugins are graded by hook key, or one row when a plugin does not load. A file that fails whole
is reported as such.

    .venv/bin/python scripts/corpus_figure.py [--json] [--host embedded|dsh]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from pathlib import Path

from compat_adapter.cli import main as cli_main

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real-configs"
#: Corpus folder → vendor id (CodeBuddy's folder holds WorkBuddy files too; one importer reads both).
VENDOR_OF = {"claude": "claude", "codex": "codex", "codebuddy": "workbuddy", "copilot": "copilot",
             "opencode": "opencode", "gemini": "gemini"}
HOOK_SUFFIXES = {".json", ".jsonc", ".toml", ".ts", ".js"}
#: Refusal codes of rules sources (an `instructions` entry), which are context, not handlers.
RULES_CODES = ("SOURCE_MISSING", "REMOTE_SOURCE")


def hook_files() -> list[tuple[str, Path]]:
    return [(vendor, f) for folder, vendor in VENDOR_OF.items()
            for f in sorted((CORPUS / folder).rglob("*")) if f.is_file() and f.suffix in HOOK_SUFFIXES]


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
            "share": adapted / handlers if handlers else 0.0, "vendors": per_vendor}


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
    return 0


if __name__ == "__main__":
    sys.exit(main())
