"""Install one file of the real corpus into a scratch project the way its vendor loads it, with a
stand-in for every script it runs that the corpus does not have.

Where a file goes, and what each of its scripts is documented to do, is data: the lane manifest
(``tests/fixtures/real-configs/LANE.json``): per corpus file its place in the project
(``install``), or the plugin it is (``plugin`` and the manifest folder its vendor reads), the
behaviour of a script whose documented contract is more than observing (``standins``), and why a
file cannot be driven at all (``not_drivable``). Every other script the file's commands run, found
the way preflight finds them (the command resolved with the variables its vendor gives, in the
folder its vendor runs it), gets the ``observe`` stand-in. A script on another machine's disk or a
program that is not installed gets none: the hook cannot start, under the vendor and here alike.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compat_adapter.catalog import resolve_vendor, unit_of
from compat_adapter.errors import CompatError
from compat_adapter.testing.lane.vendors import cli_less
from compat_adapter.trust import command_view

__all__ = ("CORPUS", "MANIFEST", "Installed", "corpus_files", "install", "vendor_of")

CORPUS = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "real-configs"
MANIFEST = CORPUS / "LANE.json"
STANDIN = Path(__file__).resolve().parent / "standin.py"
#: Where the lane puts a plugin in the scratch project (loaded with the vendor's --plugin-dir).
PLUGINS = ".lane-plugins"
#: The stand-in runner, in every scratch project.
RUNNER = ".lane/standin.py"

_FIND_RUNNER = 'd=$(cd "$(dirname "$0")" && pwd); while [ "$(basename "$d")" != proj ]; do d=$(dirname "$d"); done\n'
_NODE = ('const {{spawnSync}} = require("child_process"); const path = require("path");\n'
         'let d = __dirname; while (path.basename(d) !== "proj") d = path.dirname(d);\n'
         'const r = spawnSync("python3", [path.join(d, ".lane/standin.py"), {b}, {l}], {{stdio: "inherit"}});\n'
         'process.exit(r.status === null ? 1 : r.status);\n')
_NODE_ESM = ('import {{spawnSync}} from "node:child_process"; import path from "node:path";\n'
             'import {{fileURLToPath}} from "node:url";\n'
             'let d = path.dirname(fileURLToPath(import.meta.url)); while (path.basename(d) !== "proj") d = path.dirname(d);\n'
             'const r = spawnSync("python3", [path.join(d, ".lane/standin.py"), {b}, {l}], {{stdio: "inherit"}});\n'
             'process.exit(r.status === null ? 1 : r.status);\n')
_PYTHON = ('import os, subprocess, sys\nd = os.path.dirname(os.path.abspath(__file__))\n'
           'while os.path.basename(d) != "proj":\n    d = os.path.dirname(d)\n'
           'sys.exit(subprocess.run([sys.executable, os.path.join(d, ".lane/standin.py"), {b}, {l}]).returncode)\n')


def _standin_text(path: str, behaviour: str, label: str, why: str) -> str | None:
    """A stand-in in the language its command starts it with (by its name), or None (TypeScript:
    the configs run it through a loader the lane does not install, so it cannot start either way)."""
    head = f"Stand-in written by the real-config lane for {label}: {why}"
    b, lab = json.dumps(behaviour), json.dumps(label)
    suffix = Path(path).suffix.lower()
    if suffix == ".ts":
        return None
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
    cannot: tuple[str, ...] = ()
    """What its commands run that the lane cannot stand in (another machine's path …)."""
    not_drivable: str | None = None


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


def install(source: str) -> Installed:
    entry = manifest()["files"][source]
    vendor = vendor_of(source)
    # A vendor with no CLI here (its unit says why) has no vendor side to drive any file of.
    why = entry.get("not_drivable") or cli_less().get(vendor)
    if why:
        return Installed(source, vendor, not_drivable=str(why))
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
    scripts, cannot = _scripts(vendor, files, target)
    chosen = entry.get("standins", {})
    standins = []
    for path in scripts:
        behaviour, why = chosen.get(path, ["observe", "not in the corpus; it records its call and answers nothing"])
        body = _standin_text(path, behaviour, f"{source} {path}", why)
        if body is None:
            cannot.append(f"{path} (TypeScript, run through a loader that is not installed)")
            continue
        files[path] = body
        standins.append((path, behaviour, why))
    return Installed(source, vendor, files=files, imports=(target,), options=options, standins=tuple(standins),
                     cannot=tuple(cannot))


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
            found += [f for f in view.files if not (proj / f).exists()]
            for other in (o for o in view.outside if not os.path.exists(o)):
                inside = os.path.relpath(other, proj)
                (found if not inside.startswith("..") else cannot).append(inside if not inside.startswith("..")
                                                                         else other)
        return list(dict.fromkeys(found)), list(dict.fromkeys(cannot))
