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
script, so it is counted in steps, never as starting on a script that is not there:

* ``alone``: each file graded as committed, by itself: a hook whose script is not in the corpus
  does not start;
* ``installed``: each file laid out as its vendor loads it with the real-config lane's stand-ins
  (``tests/fixtures/real-configs/LANE.json``: one per script the repository has, each documented);
  a file the lane gives no place (a managed or a replaced config) counts as it is alone;
* ``with_toolchain``: as installed, with the team's toolchain really installed and first on PATH
  (``scripts/toolchain_lane.sh``: uv, pnpm, bun in ``.cache/toolchain/bin``; go and notify-send from
  Debian): measured, the same preflight; ``toolchain`` says whether the lane is there;
* ``assumed``: as with_toolchain, and a hook whose only lack is a program no registry here has
  (``sumo``, ``pwsh``) counted as present: an assumption, kept apart from what is measured;
* ``at_author_path``: as with_toolchain, and each file whose commands name the author's checkout
  (``/Users/<someone>/<repo>/…``) graded inside a sandbox (bubblewrap, loopback only, every folder
  of this machine read-only) where the scratch project is mounted at that path, with stand-ins only
  for the scripts the repository is known to have (``author_path`` in LANE.json). It is not the
  user's machine: ``alone``, ``installed`` and ``with_toolchain`` still count those hooks as not
  starting, as preflight reports them to anyone else.

What still does not start is listed by cause, hook by hook, at the with_toolchain step (and
whether it starts at its author's path): another machine's path (``/Users/<someone>/…``, a Windows
drive, a redirection the shell cannot open), a variable its vendor does not give, a program not
installed, a file that is nowhere in the repository.

    .venv/bin/python scripts/corpus_figure.py [--json] [--host embedded|dsh]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from compat_adapter.cli import main as cli_main
from compat_adapter.testing.realconfig.install import Installed, corpus_files, install, toolchain_bin, vendor_of

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real-configs"
HOOK_SUFFIXES = {".json", ".jsonc", ".toml", ".ts", ".js"}
#: Refusal codes of rules sources (an `instructions` entry), which are context, not handlers.
RULES_CODES = ("SOURCE_MISSING", "REMOTE_SOURCE")


def hook_files() -> list[tuple[str, Path]]:
    # Each corpus folder is named by its vendor's id or alias (the registry resolves it).
    return [(vendor_of(f"{folder.name}/"), f) for folder in sorted(p for p in CORPUS.iterdir() if p.is_dir())
            for f in sorted(folder.rglob("*")) if f.is_file()
            and (f.suffix in HOOK_SUFFIXES or (not f.suffix and f.read_bytes().startswith(b"#!")))]


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
            # DIRECT runs exactly as under the vendor (an OpenCode permission rule the host enforces
            # as OpenCode does): it runs here, as ADAPTED does.
            if row["capability"] in ("ADAPTED", "DIRECT"):
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


@contextlib.contextmanager
def _path_first(folder: Path | None) -> Iterator[None]:
    """PATH with ``folder`` first (the toolchain lane), for preflight's program lookups."""
    before = os.environ.get("PATH", "")
    if folder is not None:
        os.environ["PATH"] = f"{folder}{os.pathsep}{before}"
    try:
        yield
    finally:
        os.environ["PATH"] = before


def _lay_out(layout: Installed, proj: Path) -> None:
    for name, text in layout.files.items():
        (proj / name).parent.mkdir(parents=True, exist_ok=True)
        (proj / name).write_text(text, encoding="utf-8")
        if text.startswith("#!"):
            (proj / name).chmod(0o755)


def _installed_rows(source: str, host: str, toolchain: Path | None) -> tuple[list[dict], list[dict]] | None:
    """The hook rows of one corpus file installed with its stand-ins, on this machine's PATH and with
    the toolchain first on it, or None if the lane gives the file no place."""
    layout = install(source)
    if not layout.imports:
        return None
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="corpus-figure-") as scratch:
        proj = Path(scratch) / "proj"
        _lay_out(layout, proj)
        os.chdir(proj)  # a plugin's hooks run in the session's folder: the project's
        try:
            plain, failed = grade_file(layout.vendor, proj / layout.imports[0], host)
            with _path_first(toolchain):
                tooled, _ = grade_file(layout.vendor, proj / layout.imports[0], host)
        finally:
            os.chdir(here)
    return None if failed else (plain, tooled)


def _sandbox(scratch: Path, proj: Path, mount: str, cwd: str) -> list[str]:
    """bubblewrap: this machine's folders read-only, the scratch folder writable, the project at
    ``mount``, loopback only; nothing is written outside ``scratch``."""
    argv = ["bwrap", "--unshare-net", "--die-with-parent", "--dev", "/dev", "--proc", "/proc"]
    for entry in sorted(Path("/").iterdir()):
        if entry.name in ("proc", "dev", "sys") or not entry.exists():
            continue
        argv += ["--symlink", os.readlink(entry), str(entry)] if entry.is_symlink() else \
            ["--ro-bind", str(entry), str(entry)]
    return [*argv, "--bind", str(scratch), str(scratch), "--bind", str(proj), mount, "--chdir", cwd]


def _at_author_rows(source: str, host: str, toolchain: Path | None) -> list[dict] | None:
    """The hook rows of a file whose commands name its author's checkout, graded with the project
    mounted there (in the sandbox); None for a file with no author path or where bwrap is missing."""
    layout = install(source, at_author_path=True)
    if layout.author_path is None or not layout.imports or shutil.which("bwrap") is None:
        return None
    with tempfile.TemporaryDirectory(prefix="corpus-author-") as scratch:
        base = Path(scratch)
        _lay_out(layout, base / "proj")
        (base / "home").mkdir()
        path = os.environ.get("PATH", "")
        env = {**os.environ, "HOME": str(base / "home"), "TMPDIR": str(base),
               "PATH": f"{toolchain}{os.pathsep}{path}" if toolchain else path}
        argv = [*_sandbox(base, base / "proj", layout.author_path, layout.author_path), sys.executable, "-m",
                "compat_adapter", "grade", "--json", "--trust-all", "--host", host, "--vendor", layout.vendor,
                f"{layout.author_path}/{layout.imports[0]}"]
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"{source} at its author's path: exit {done.returncode}: {done.stderr[-1500:]}")
    rows = json.loads(done.stdout)["rows"]
    return [r for r in rows if r["event"] != "rules" and not str(r["reason"]).startswith(RULES_CODES)]


def _only_programs(row: dict) -> bool:
    found = [p for p in row["preflight"] if p["kind"] not in ("cannot-start", "fails-open", "fails-closed")]
    return bool(found) and all(p["kind"] == "program" for p in found)


def _starting(rows: list[dict]) -> dict[str, bool]:
    return {r["origin"].rsplit(":", 1)[-1]: bool(r["starts"]) for r in rows if "starts" in r}


def starts(host: str) -> dict:
    """The command hooks of the corpus that start at each step (see the module); what does not start
    with the toolchain present, hook by hook, with its cause."""
    steps = ("alone", "installed", "with_toolchain", "assumed", "at_author_path")
    tally = {"hooks": 0, **dict.fromkeys(steps, 0)}
    toolchain = toolchain_bin()
    causes: dict[str, int] = {}
    stuck: list[dict] = []
    for source in corpus_files():
        vendor = vendor_of(source)
        alone, _ = grade_file(vendor, CORPUS / source, host)
        alone = [r for r in alone if "starts" in r]
        both = _installed_rows(source, host, toolchain)
        plain, tooled = (alone, alone) if both is None else ([r for r in rows if "starts" in r] for rows in both)
        author = _at_author_rows(source, host, toolchain)
        at_author = _starting(author) if author is not None else {}
        tally["hooks"] += len(alone)
        tally["alone"] += sum(r["starts"] for r in alone)
        tally["installed"] += sum(r["starts"] for r in plain)
        for row in tooled:
            place = row["origin"].rsplit(":", 1)[-1]
            there = row["starts"] or at_author.get(place, False)
            tally["with_toolchain"] += row["starts"]
            tally["assumed"] += row["starts"] or _only_programs(row)
            tally["at_author_path"] += there
            if row["starts"]:
                continue
            cause = _cause(row)
            causes[cause] = causes.get(cause, 0) + 1
            stuck.append({"file": source, "place": place, "cause": cause, "at_author_path": there,
                          "why": next((p["text"] for p in row["preflight"] if p["kind"] == "cannot-start"), "")})
    share = {k: round(tally[k] / tally["hooks"], 3) if tally["hooks"] else 0.0 for k in steps}
    # Without bubblewrap no project is mounted at its author's path: that step then adds nothing.
    return {**tally, "share": share, "toolchain": str(toolchain) if toolchain else None,
            "author_sandbox": shutil.which("bwrap"), "causes": causes, "not_starting": stuck}


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
          f"{s['with_toolchain']} with the team's toolchain installed ({s['share']['with_toolchain']:.1%}"
          f"{'' if s['toolchain'] else ': NO TOOLCHAIN LANE, run scripts/toolchain_lane.sh'}), "
          f"{s['assumed']} assuming the programs no registry has ({s['share']['assumed']:.1%}), "
          f"{s['at_author_path']} with projects at their author's path ({s['share']['at_author_path']:.1%}"
          f"{'' if s['author_sandbox'] else ': NO bwrap, nothing mounted'})")
    for cause, n in sorted(s["causes"].items()):
        print(f"    {n:3} do not start with the toolchain: {cause}")
    for row in s["not_starting"]:
        print(f"        {row['cause']:14} {row['file']}:{row['place']}{' (starts at its author path)' if row['at_author_path'] else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
