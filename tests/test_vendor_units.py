"""A vendor is one registered unit: complete or refused, and added by its registration alone.

The registry finds units through the entry-point group ``compat_adapter.vendors``; these tests
register a toy vendor from ``tests/fixtures/toy_vendor/`` (outside ``compat_adapter/`` and
``vendors/``) the way an installed distribution would, with a ``*.dist-info/entry_points.txt`` on
``PYTHONPATH``, and drive the real CLI and the embedded host in a fresh process.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compat_adapter.catalog import units, vendors
from compat_adapter.errors import VendorIncomplete
from compat_adapter.matrix import build_matrix
from compat_adapter.registry import Later, VendorUnit, check_unit, vendor_unit
from compat_adapter.routing.voice import Voice

FIXTURE = Path(__file__).parent / "fixtures" / "toy_vendor"
CLI = [sys.executable, "-m", "compat_adapter"]


def _registering(tmp: Path, **points: str) -> dict[str, str]:
    """The environment of a process in which a distribution registers ``points`` as vendors."""
    site = tmp / "site"
    info = site / "toy_vendor-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-vendor\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[compat_adapter.vendors]\n" + "".join(f"{name} = {target}\n" for name, target in points.items()))
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(FIXTURE)])}


def _run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=120, check=False)


# ── every registered unit is whole ──────────────────────────────────────────────────────────────

def test_every_registered_vendor_is_a_complete_unit() -> None:
    assert units() and [u.spec for u in units()] == list(vendors())
    for unit in units():
        check_unit(unit, load=True)  # loads its Later parts too; raises for a missing or mistyped part
        assert unit.dialect.vendor == unit.voice.vendor == unit.spec.id
    orders = [(u.order, u.spec.id) for u in units()]
    assert orders == sorted(orders)


def _parts(unit: VendorUnit) -> dict[str, object]:
    return {name: unit.given(name) for name in VendorUnit.PARTS}


def test_a_capability_is_found_by_its_kind_and_a_stray_one_is_refused() -> None:
    """Codex's policy and Copilot's stop guard are found on their units by kind, on no other unit; a
    capability of no known kind, or speaking for another vendor, refuses the unit."""
    from compat_adapter.capability import CommandPolicy, VerdictRules, capability

    found = {u.spec.id: (capability(u, CommandPolicy), capability(u, VerdictRules)) for u in units()}
    assert {v for v, (policy, _) in found.items() if policy is not None} == {"codex"}
    assert {v for v, (_, rules) in found.items() if rules is not None} == {"copilot"}
    codex = next(u for u in units() if u.spec.id == "codex")
    copilot = next(u for u in units() if u.spec.id == "copilot")
    assert vendor_unit(**_parts(codex), capabilities=codex.capabilities).capabilities == codex.capabilities
    with pytest.raises(VendorIncomplete, match="vendor codex is incomplete: its capabilities hold a str, which is no"):
        vendor_unit(**_parts(codex), capabilities=("policy",))
    with pytest.raises(VendorIncomplete, match="speaks for 'copilot', not 'codex'"):
        vendor_unit(**_parts(codex), capabilities=copilot.capabilities)


@pytest.mark.parametrize("part", VendorUnit.PARTS)
def test_a_unit_that_lacks_a_part_is_refused_with_its_name_and_the_part(part: str) -> None:
    parts = _parts(units()[0])
    del parts[part]
    with pytest.raises(VendorIncomplete) as err:
        vendor_unit(**parts)
    assert err.value.code == "VENDOR_INCOMPLETE"
    assert err.value.context["part"] == part
    name = units()[0].spec.id if part != "spec" else "a vendor with no table"
    assert err.value.context["vendor"] == name and part in err.value.message and name in err.value.message


def test_a_part_of_the_wrong_kind_or_vendor_is_refused() -> None:
    parts = _parts(units()[0])
    with pytest.raises(VendorIncomplete, match="its voice speaks for 'someone-else'"):
        vendor_unit(**{**parts, "voice": Voice("someone-else")})
    with pytest.raises(VendorIncomplete, match="its importer is a str"):
        vendor_unit(**{**parts, "importer": "not an importer"})
    # A part named for later is refused when it is first used, naming the vendor and the part.
    named = vendor_unit(**{**parts, "dialect": Later("vendors.claude.no_such_module:DIALECT")})
    with pytest.raises(VendorIncomplete, match="its dialect 'vendors.claude.no_such_module:DIALECT' cannot be loaded"):
        named.dialect  # noqa: B018
    wrong = vendor_unit(**{**parts, "dialect": Later("vendors.codex.dialect:DIALECT")})
    with pytest.raises(VendorIncomplete, match="its dialect speaks for 'codex'"):
        check_unit(wrong, load=True)
    with pytest.raises(VendorIncomplete, match="not a part of a vendor unit"):
        vendor_unit(**{**parts, "colour": "blue"})
    spec = units()[0].spec
    with pytest.raises(VendorIncomplete, match="handler kinds"):
        vendor_unit(**{**parts, "spec": spec.model_copy(update={"handler_kinds": frozenset({"http"})})})


def test_a_vendor_registered_halfway_is_refused_at_load(tmp_path: Path) -> None:
    """A real entry point naming a unit without its voice: every command refuses to run, naming
    the vendor and the part, instead of running that vendor with another's behaviour."""
    env = _registering(tmp_path, halfway="toyvendor.incomplete:UNIT")
    done = _run([*CLI, "matrix", "--format", "json"], env, tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "VENDOR_INCOMPLETE: vendor halfway is incomplete: it has no voice" in done.stderr
    assert json.loads(done.stdout)["error"]["part"] == "voice"


def test_a_table_that_leaves_out_a_fact_is_refused_at_load(tmp_path: Path) -> None:
    env = _registering(tmp_path, factless="toyvendor.factless:UNIT")
    done = _run([*CLI, "grade", "--json", str(tmp_path)], env, tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "VENDOR_INCOMPLETE: vendor factless is incomplete: its table has no dedupes_commands" in done.stderr


@pytest.mark.parametrize("fact", ["hook_vars", "project_dir_env"])
def test_a_table_that_does_not_say_what_its_hooks_are_given_is_refused(fact: str) -> None:
    """What a vendor gives its hooks (``()`` included) is stated by every table: one left out would
    give a vendor's hooks nothing in silence."""
    from pydantic import ValidationError

    from compat_adapter.model import VendorSpec

    for unit in units():
        fields = {k: v for k, v in dict(unit.spec).items() if k != fact}
        with pytest.raises(ValidationError) as err:
            VendorSpec.model_validate(fields)
        assert [e["loc"] for e in err.value.errors() if e["type"] == "missing"] == [(fact,)], unit.spec.id


def test_an_importer_that_cannot_say_where_its_hooks_run_is_refused() -> None:
    """Every importer says where a file's hooks run and which plugin it is (``hook_place``); one
    without it is not an importer, for any vendor, the new ones included."""
    import types

    for unit in units():
        check_unit(unit, load=True)
        place = unit.importer.hook_place(Path("/nowhere/proj/x/settings.json"))
        assert place.plugin_root is None, unit.spec.id
        half = types.SimpleNamespace(**{name: getattr(unit.importer, name) for name in
                                        ("RUNS_HOOKS_OF", "project_files", "extra_files", "import_file")})
        parts = {**_parts(unit), "importer": half}
        with pytest.raises(VendorIncomplete, match=f"vendor {unit.spec.id} is incomplete: its importer"):
            vendor_unit(**parts)


# ── a toy vendor, added by its registration alone ───────────────────────────────────────────────

@pytest.fixture
def toy(tmp_path: Path) -> tuple[dict[str, str], Path]:
    env = _registering(tmp_path, toy="toyvendor.unit:UNIT")
    project = tmp_path / "project"
    (project / ".toy").mkdir(parents=True)
    (project / ".toy" / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Shell", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5}]}]}}))
    return env, project


def test_a_toy_vendor_appears_in_the_matrix(toy: tuple[dict[str, str], Path]) -> None:
    env, project = toy
    done = _run([*CLI, "matrix", "--format", "json"], env, project)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    rows = [(h["vendor"], h["event"], h["capability"]) for h in data["hooks"] if h["vendor"] == "toy"]
    assert rows == [("toy", "PreToolUse", "ADAPTED"), ("toy", "PostToolUse", "ADAPTED")]
    # The built-in vendors are all still there, and the toy comes last (its order is 90).
    assert [h["vendor"] for h in data["hooks"]][-2:] == ["toy", "toy"]
    assert len(data["hooks"]) == len(build_matrix().hooks) + 2


def test_a_toy_vendor_grades_from_its_own_project_files(toy: tuple[dict[str, str], Path]) -> None:
    env, project = toy
    done = _run([*CLI, "grade", "--json", "--trust-all", str(project)], env, project)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["vendors"] == ["toy"]
    [row] = report["rows"]
    assert (row["vendor"], row["event"], row["matcher"], row["capability"]) == ("toy", "PreToolUse", "Shell",
                                                                                 "ADAPTED")
    assert "own-translation: The toy vendor is translated by this project's own dialect." in row["losses"]
    # The toy's own alias resolves as any vendor's does.
    named = _run([*CLI, "grade", "--json", "--trust-all", "--vendor", "toy-agent",
                  str(project / ".toy" / "settings.json")], env, project)
    assert named.returncode == 0 and json.loads(named.stdout)["vendor"] == "toy", named.stderr


def test_a_toy_vendor_deny_blocks_on_the_embedded_host(toy: tuple[dict[str, str], Path]) -> None:
    env, project = toy
    done = _run([sys.executable, str(FIXTURE / "toyvendor" / "deny.py"), str(project)], env, project)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert (seen["capability"], seen["route"]) == ("ADAPTED", "native-translate")
    # A real hook process received the toy's payload, in the toy's vocabulary (Shell, not bash) …
    assert seen["payload"]["hook_event_name"] == "PreToolUse" and seen["payload"]["tool_name"] == "Shell"
    assert seen["payload"]["tool_input"] == {"command": "echo ran > ran.txt"}
    # … and its deny stood: the model read the reason, and the command never ran.
    assert seen["results"] == ["toy says no"]
    assert seen["ran"] is False


# ── an agent with no unit is named, never skipped ───────────────────────────────────────────────

def test_files_of_agents_with_no_unit_are_named_not_a_supported_vendor(tmp_path: Path) -> None:
    hooks = json.dumps({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}})
    files = {
        ".windsurf/hooks.json": json.dumps({"hooks": {"pre_run_command": [{"command": "true"}]}}),
        ".kiro/hooks/lint.kiro.hook": json.dumps({"when": {"type": "fileEdited"}, "then": {"type": "runCommand"}}),
        ".clinerules/hooks/PreToolUse": "#!/bin/sh\necho '{}'\n",
        ".factory/settings.json": hooks,
        ".factory/settings.local.json": json.dumps({"model": "x"}),  # shared settings, no hooks: not named
        ".cursor/hooks.json": json.dumps({"version": 1, "hooks": {"preToolUse": [{"command": "true"}]}}),
        ".gemini/settings.json": json.dumps({"hooks": {"BeforeTool": []}}),  # Gemini's own unit: no row here
        ".qwen/settings.json": json.dumps({"hooks": {"PreToolUse": []}}),  # Qwen's own unit: no row here
        ".iflow/settings.json": "{ not json",  # unreadable: nobody can tell it has no hooks, so named
        "crush.json": json.dumps({"options": {}}),
        ".claude/settings.json": hooks,
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    done = _run([*CLI, "grade", "--json", "--trust-all", str(tmp_path)], dict(os.environ), tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    registered = {name for u in units() for name in (u.spec.id, *u.spec.aliases)}
    listed = {("windsurf", ".windsurf/hooks.json"), ("kiro", ".kiro/hooks/lint.kiro.hook"),
              ("cline", ".clinerules/hooks/PreToolUse"), ("factory", ".factory/settings.json"),
              ("iflow", ".iflow/settings.json")}
    named = {(r["vendor"], Path(r["origin"]).relative_to(tmp_path).as_posix()): r for r in report["rows"]
             if r["vendor"] not in registered}
    # An agent that has a unit now grades as its own (a unit supersedes its listing); the rest are named.
    assert set(named) == {(v, f) for v, f in listed if v not in registered}
    assert "iflow" not in registered and ("iflow", ".iflow/settings.json") in named
    for row in named.values():
        assert row["capability"] == "UNSUPPORTED" and row["route"] == "unsupported"
        assert row["reason"].startswith("UNSUPPORTED_VENDOR: not a supported vendor: "), row["reason"]
    assert "iFlow CLI (iflow) has no vendor unit here" in named[("iflow", ".iflow/settings.json")]["reason"]
    # The supported vendor's hook grades as before, beside them; --strict counts them.
    assert [r["capability"] for r in report["rows"] if r["vendor"] == "claude"] == ["ADAPTED"]
    # Cursor has a unit now: its hooks.json grades as Cursor's, from Cursor's documentation.
    assert [(r["event"], r["capability"], r["confidence"]) for r in report["rows"] if r["vendor"] == "cursor"] == [
        ("preToolUse", "ADAPTED", "documented")]
    assert report["unsupported"] == len(named)
    wide = {**os.environ, "COLUMNS": "400"}  # the summary cuts long lines at the terminal's width
    strict = _run([*CLI, "grade", "--strict", "--trust-all", str(tmp_path)], wide, tmp_path)
    assert strict.returncode == 1 and "not a supported vendor" in strict.stdout + strict.stderr


def test_naming_an_agent_with_no_unit_says_it_is_not_a_supported_vendor() -> None:
    from compat_adapter.catalog import resolve_vendor
    from compat_adapter.errors import UnknownVendor

    with pytest.raises(UnknownVendor, match=r"iFlow CLI \(iflow\) is not a supported vendor"):
        resolve_vendor("iFlow")
    with pytest.raises(UnknownVendor, match="unknown vendor 'iflowish'"):
        resolve_vendor("iflowish")


def test_a_registered_unit_supersedes_its_listing_as_unsupported(tmp_path: Path) -> None:
    """The commit that adds a unit touches no shared file, so an agent may still be listed in
    vendors/unsupported.py when its unit lands: the unit wins, and its files are never named unsupported."""
    from compat_adapter.importers.discover import unsupported_files
    from compat_adapter.model import UnsupportedVendor
    from vendors.unsupported import UNSUPPORTED

    # Built without validation (to keep the registry cheap to load), so validated here.
    assert all(UnsupportedVendor.model_validate(u.model_dump()) == u for u in UNSUPPORTED)
    assert len({u.id for u in UNSUPPORTED}) == len(UNSUPPORTED)
    registered = {name for u in units() for name in (u.spec.id, *u.spec.aliases)}
    for other in UNSUPPORTED:  # one hook file of every listed agent
        for name in (*other.files, *other.settings):
            path = tmp_path / name.replace("*", "hook")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"hooks": {"PreToolUse": []}}))
    named = {u.id for u, _ in unsupported_files(tmp_path)}
    assert named == {u.id for u in UNSUPPORTED} - registered and "iflow" in named


# ── no vendor named in a shared module ──────────────────────────────────────────────────────────

PACKAGE = Path(__file__).resolve().parents[1] / "compat_adapter"
#: Where a vendor id may stand in a shared module, and why (the literals each file may hold).
JUSTIFIED = {
    # An example preset, written as a team writes theirs: it declares hooks for named vendors.
    "examples/preset.py": None,
    # The names of the host's official bridge config dialects (DSH's @deepseek-ai/dsh-hooks-claude-code
    # and -codex packages read them), not vendor ids: a vendor's table names the bridge it goes through.
    "model.py": {"claude-code", "codex"},
    "host/embedded/bridges/protocol.py": {"claude-code", "codex"},
    "host/embedded/bridges/claude_code.py": {"claude-code"},
    "host/embedded/bridges/codex.py": {"codex"},
    # Issue 38's done-when lane case is, by its definition, a Claude guard (test support).
    "testing/lane/porting.py": {"claude"},
    # The C compiler's command name, which Claude's alias happens to spell.
    "port/fastclient.py": {"cc"},
}


#: Vendor ids that are also a field name of the hook protocols every dialect reads.
PROTOCOL_WORDS = frozenset({"continue"})


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and body \
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            found.add(id(body[0].value))
        # A bare string after a field or constant documents it (attribute docstrings).
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            found.add(id(node.value))
    return found


def vendor_literals(root: Path, names: set[str]) -> dict[str, list[tuple[int, str]]]:
    """Every string literal equal to a vendor name, docstrings aside, by file under ``root``."""
    out: dict[str, list[tuple[int, str]]] = {}
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _docstrings(tree)
        hits = [(node.lineno, node.value) for node in ast.walk(tree)
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names
                and id(node) not in skip]
        if hits:
            out[path.relative_to(root).as_posix()] = sorted(hits)
    return out


def test_no_shared_module_names_a_vendor() -> None:
    """A vendor's facts and behaviour are its unit's: no module of compat_adapter/ (test support
    included) spells a vendor id or alias, so none can branch on one or key a table by one. Continue's
    id is also the hook protocols' own ``continue`` field (``{"continue": false}``), which shared
    modules read: that literal is the field, so Continue is looked for by its aliases."""
    names = {n for u in units() for n in (u.spec.id, *u.spec.aliases)} - PROTOCOL_WORDS
    found = vendor_literals(PACKAGE, names)
    unjustified = {f: [(line, v) for line, v in hits if JUSTIFIED.get(f, set()) is not None
                       and v not in JUSTIFIED.get(f, set())]
                   for f, hits in found.items()}
    assert {f: hits for f, hits in unjustified.items() if hits} == {}
    # Each justification is still needed (a stale one would hide a new literal).
    assert set(JUSTIFIED) <= set(found), sorted(set(JUSTIFIED) - set(found))


def test_the_literal_scan_finds_a_vendor_branch(tmp_path: Path) -> None:
    (tmp_path / "shared.py").write_text('"""Docstrings may say claude."""\n'
                                        'def f(vendor):\n    return 1 if vendor == "codex" else 2\n')
    assert vendor_literals(tmp_path, {"claude", "codex"}) == {"shared.py": [(3, "codex")]}


def test_every_units_test_support_speaks_for_it() -> None:
    """A unit with a lane names a module whose lane driver (CLI) and live speaker (LIVE) are its own;
    a vendor with no CLI that runs here (Cursor) has a speaker, says why it has no driver, and no cases."""
    from compat_adapter.testing.lane.vendors import cases_for, cli_for, cli_less, lane_vendors
    from compat_adapter.testing.live.speakers import speaker_for

    laned = [u.spec.id for u in units() if u.lane is not None]
    assert sorted(laned) == sorted((*lane_vendors(), *cli_less())) and "cursor" in cli_less()
    for vendor in laned:
        assert speaker_for(vendor).vendor == vendor
        if vendor in cli_less():
            assert cli_less()[vendor] and cases_for(vendor) == ()
            with pytest.raises(ValueError, match=cli_less()[vendor][:40]):
                cli_for(vendor)
        else:
            assert cli_for(vendor).vendor == vendor and cases_for(vendor)
