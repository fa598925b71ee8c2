"""Install one file of the real corpus into a scratch project the way its vendor loads it, with the
repository's own scripts where the corpus keeps them (``scripts``: a verbatim copy under
``tests/fixtures/real-scripts/``, laid out with its repository's mode) and a stand-in for every
other script it runs.

Where a file goes, and what each of its scripts is documented to do, is data: the lane manifest
(``tests/fixtures/real-configs/LANE.json``): per corpus file its place in the project
(``install``), or the plugin it is (``plugin`` and the manifest folder its vendor reads), the
other files of the repository its vendor loads as hook files beside it (``imports``: among its
``scripts``, as Cline loads every event-named file of ``.clinerules/hooks``), the
behaviour of a script whose documented contract is more than observing (``standins``), and why a
file cannot be driven at all (``not_drivable``: it is still laid out where the manifest says where its
vendor loads it, so that the corpus figure counts what starts there). Every other script the file's
commands run, found the way preflight finds them (the command resolved with the variables its
vendor gives, in the folder its vendor runs it), gets the ``observe`` stand-in; a script the
repository has at a place no command names literally (``go run "$root/…/main.go"``) is listed in
``standins`` and laid out all the same. A script on another machine's disk or a program that is not
installed gets none: the hook cannot start, under the vendor and here alike.

A file whose commands name its scripts by the absolute path of its author's checkout
(``/Users/<someone>/<repo>/.codex/hooks/x.sh``) has that path in the manifest (``author_path``: its
``root``, and the ``scripts`` the repository is known to have, each with where it was seen):
``install(source, at_author_path=True)`` adds their stand-ins at their project-relative places, for
a sandbox that mounts the scratch project at that path. Nowhere else do they start, and preflight
says so; a script the repository is not known to have gets no stand-in there either.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compat_adapter.catalog import resolve_vendor, unit_of
from compat_adapter.errors import CompatError
from compat_adapter.testing.lane.vendors import cli_less
from compat_adapter.trust import command_view

__all__ = ("CORPUS", "MANIFEST", "SCRIPTS", "Installed", "corpus_files", "install", "toolchain_bin", "vendor_of")

CORPUS = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "real-configs"
MANIFEST = CORPUS / "LANE.json"
#: The repositories' own hook scripts, verbatim (provenance in its SOURCES.md), by ``owner__repo@commit``.
SCRIPTS = CORPUS.parent / "real-scripts"
STANDIN = Path(__file__).resolve().parent / "standin.py"
#: Where the lane puts a plugin in the scratch project (loaded with the vendor's --plugin-dir).
PLUGINS = ".lane-plugins"
#: The stand-in runner, in every scratch project.
RUNNER = ".lane/standin.py"
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")

# Each stand-in finds the project as the nearest folder above it that holds the runner (the project
# may be mounted elsewhere: at its author's path).
_FIND_RUNNER = ('d=$(cd "$(dirname "$0")" && pwd)\n'
                'while [ ! -f "$d/.lane/standin.py" ] && [ "$d" != / ]; do d=$(dirname "$d"); done\n')
_NODE = ('const {{spawnSync}} = require("child_process"); const path = require("path"); const fs = require("fs");\n'
         'let d = __dirname; while (!fs.existsSync(path.join(d, ".lane/standin.py")) && d !== "/") d = path.dirname(d);\n'
         'const r = spawnSync("python3", [path.join(d, ".lane/standin.py"), {b}, {l}], {{stdio: "inherit"}});\n'
         'process.exit(r.status === null ? 1 : r.status);\n')
_NODE_ESM = ('import {{spawnSync}} from "node:child_process"; import path from "node:path"; import fs from "node:fs";\n'
             'import {{fileURLToPath}} from "node:url";\n'
             'let d = path.dirname(fileURLToPath(import.meta.url));\n'
             'while (!fs.existsSync(path.join(d, ".lane/standin.py")) && d !== "/") d = path.dirname(d);\n'
             'const r = spawnSync("python3", [path.join(d, ".lane/standin.py"), {b}, {l}], {{stdio: "inherit"}});\n'
             'process.exit(r.status === null ? 1 : r.status);\n')
_PYTHON = ('import os, subprocess, sys\nd = os.path.dirname(os.path.abspath(__file__))\n'
           'while not os.path.isfile(os.path.join(d, ".lane", "standin.py")) and d != "/":\n    d = os.path.dirname(d)\n'
           'sys.exit(subprocess.run([sys.executable, os.path.join(d, ".lane/standin.py"), {b}, {l}]).returncode)\n')
# `go run` builds the file out of tree: the project is found from the working folder instead.
_GO = ('package main\n\nimport (\n\t"os"\n\t"os/exec"\n\t"path/filepath"\n)\n\n'
       'func main() {{\n\td, _ := os.Getwd()\n'
       '\tfor _, err := os.Stat(filepath.Join(d, ".lane/standin.py")); err != nil && d != "/"; '
       '_, err = os.Stat(filepath.Join(d, ".lane/standin.py")) {{\n\t\td = filepath.Dir(d)\n\t}}\n'
       '\tc := exec.Command("python3", filepath.Join(d, ".lane/standin.py"), {b}, {l})\n'
       '\tc.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr\n'
       '\tif err := c.Run(); err != nil {{\n\t\tif e, ok := err.(*exec.ExitError); ok {{\n\t\t\tos.Exit(e.ExitCode())\n\t\t}}\n'
       '\t\tos.Exit(1)\n\t}}\n}}\n')


def _standin_text(path: str, behaviour: str, label: str, why: str) -> str:
    """A stand-in in the language its command starts it with (by its name). TypeScript gets the
    ES-module text, which is type-free TypeScript: Bun and Deno run it as it is (the corpus starts
    its .ts scripts with ``bun``), and a runtime that does not run TypeScript fails on it as it
    would on the team's own file. Go's ``go run`` builds a main package that finds the project from
    its working folder (``go run`` builds out of tree, so the file's own place is not known)."""
    head = f"Stand-in written by the real-config lane for {label}: {why}"
    b, lab = json.dumps(behaviour), json.dumps(label)
    suffix = Path(path).suffix.lower()
    if suffix == ".go":
        return f"// {head}\n" + _GO.format(b=b, l=lab)
    if suffix == ".ts":
        return f"// {head}\n" + _NODE_ESM.format(b=b, l=lab)
    if suffix == ".py":
        return f"#!/usr/bin/env python3\n# {head}\n" + _PYTHON.format(b=b, l=lab)
    if suffix in (".js", ".cjs"):
        return f"#!/usr/bin/env node\n// {head}\n" + _NODE.format(b=b, l=lab)
    if suffix == ".mjs":
        return f"#!/usr/bin/env node\n// {head}\n" + _NODE_ESM.format(b=b, l=lab)
    return f"#!/bin/sh\n# {head}\n{_FIND_RUNNER}exec python3 \"$d/{RUNNER}\" {behaviour} '{label}'\n"


@dataclass(frozen=True, slots=True)
class Installed:
    """One corpus file laid out in a scratch project."""

    source: str
    """Its path in the corpus."""
    vendor: str
    files: Mapping[str, str] = field(default_factory=dict)
    """Project-relative path → text: the file where its vendor loads it, and the stand-ins."""
    imports: tuple[str, ...] = ()
    """The files a user imports on the embedded host (the config, or the plugin's hooks file)."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """The vendor CLI's options (a plugin's folder for ``--plugin-dir``)."""
    standins: tuple[tuple[str, str, str], ...] = ()
    """(path, behaviour, why) of each stand-in."""
    scripts: tuple[tuple[str, str], ...] = ()
    """(path, where under ``real-scripts/``) of each of the repository's own scripts laid out."""
    cannot: tuple[str, ...] = ()
    """What its commands run that the lane cannot stand in (another machine's path …)."""
    not_drivable: str | None = None
    author_path: str | None = None
    """With ``at_author_path``: where the scratch project must be mounted (its author's checkout)."""


def toolchain_bin() -> Path | None:
    """The folder where ``scripts/toolchain_lane.sh`` links the programs real teams' hooks start (uv,
    pnpm, bun), to put first on a hook's PATH; None until that lane is installed. The folder is
    ``.cache/toolchain`` (override: ``COMPAT_ADAPTER_TOOLCHAIN_DIR``, as the script reads it)."""
    given = os.environ.get("COMPAT_ADAPTER_TOOLCHAIN_DIR")
    folder = (Path(given) if given else CORPUS.parents[2] / ".cache" / "toolchain") / "bin"
    return folder if (folder / "uv").exists() else None


def manifest() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return data


def vendor_of(source: str) -> str:
    """The vendor of a corpus file: its folder is the vendor's id or one of its aliases, resolved by
    the registry (``codebuddy/`` holds WorkBuddy's files: one importer reads both)."""
    return resolve_vendor(source.split("/", 1)[0]).id


def corpus_files() -> list[str]:
    """Every hook file of the corpus, as the manifest lists it (each corpus hook file once)."""
    return sorted(manifest()["files"])


def install(source: str, *, at_author_path: bool = False) -> Installed:
    """``source`` laid out as its vendor loads it, with its stand-ins; with ``at_author_path``, also
    the repository's scripts its commands name under its author's checkout (see the module)."""
    entry = manifest()["files"][source]
    vendor = vendor_of(source)
    # A vendor with no CLI here (its unit says why) has no vendor side to drive any file of.
    why = entry.get("not_drivable") or cli_less().get(vendor)
    if "plugin" not in entry and "install" not in entry:
        return Installed(source, vendor, not_drivable=str(why or "the lane manifest gives it no place"))
    text = (CORPUS / source).read_text(encoding="utf-8")
    options: dict[str, Any] = {}
    if "plugin" in entry:
        folder = f"{PLUGINS}/{entry['plugin']}"
        target = f"{folder}/hooks/hooks.json"
        files = {f"{folder}/{entry['marker']}/plugin.json": json.dumps({"name": entry["plugin"], "version": "0.0.0"}),
                 target: text}
        options["plugin_dirs"] = [folder]
    else:
        target = str(entry["install"])
        files = {target: text}
    files[RUNNER] = STANDIN.read_text(encoding="utf-8")
    # The repository's own scripts where the corpus has them: they run as the team wrote them (in
    # the lane's sandbox only), executable where their repository has them so.
    real = dict(entry.get("scripts", {}))
    for path, kept in real.items():
        files[path] = (SCRIPTS / kept).read_text(encoding="utf-8")
    if real:
        options["kept_modes"] = {path: os.access(SCRIPTS / kept, os.X_OK) for path, kept in real.items()}
    place = entry.get("author_path") if at_author_path else None
    author = str(place["root"]) if place else None
    scripts, cannot = _scripts(vendor, files, target)
    chosen = {k: v for k, v in entry.get("standins", {}).items() if k not in real}
    if place:  # the scripts the repository is known to have, at their places in it
        chosen.update(place["scripts"])
    scripts += [path for path in chosen if path not in scripts]  # named by no command literally
    standins = []
    for path in dict.fromkeys(scripts):
        behaviour, why_this = chosen.get(path, ["observe", "not in the corpus; it records its call and answers nothing"])
        files[path] = _standin_text(path, behaviour, f"{source} {path}", why_this)
        standins.append((path, behaviour, why_this))
    beside = tuple(str(p) for p in entry.get("imports", ()))
    return Installed(source, vendor, files=files, imports=(target, *beside), options=options, standins=tuple(standins),
                     scripts=tuple(real.items()), cannot=tuple(cannot), not_drivable=str(why) if why else None, author_path=author)


def _scripts(vendor: str, files: Mapping[str, str], target: str) -> tuple[list[str], list[str]]:
    """The project scripts the installed file's hooks run (project-relative), and what they run
    that is outside the scratch project."""
    unit = unit_of(vendor)
    with tempfile.TemporaryDirectory(prefix="realconfig-") as scratch:
        proj = Path(scratch) / "proj"
        for name, body in files.items():
            (proj / name).parent.mkdir(parents=True, exist_ok=True)
            (proj / name).write_text(body, encoding="utf-8")
        path = proj / target
        try:
            part = unit.importer.import_file(unit.spec, path, str(path))  # the lane's own copy: no trust gate
        except CompatError:
            return [], []
        found: list[str] = []
        cannot: list[str] = []
        for hook in part.hooks:
            view = command_view(unit.spec, hook.event, hook.matcher, hook.handler, proj, hook.declared.place)
            for f in (f for f in view.files if not (proj / f).exists()):
                # A Windows drive path reads as a relative one here: it is another machine's all the same.
                (cannot if _DRIVE.match(f) else found).append(f)
            for other in (o for o in view.outside if not os.path.exists(o)):
                inside = os.path.relpath(other, proj)
                (found if not inside.startswith("..") else cannot).append(inside if not inside.startswith("..")
                                                                         else other)
        return list(dict.fromkeys(found)), list(dict.fromkeys(cannot))
