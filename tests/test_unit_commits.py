"""A vendor unit is added in one commit that touches no shared module (issue 37).

For every registered unit, the commit that added its ``vendors/<id>/unit.py`` may change only: its
own folder, ``pyproject.toml`` by the one entry-point line that registers it, tests and their
fixtures, and the generated documents (``README.md``, ``docs/``). Anything else (a module of
``compat_adapter/``, another vendor's folder, ``vendors/*.py``, ``scripts/``) means the unit could not
bring itself, which is the defect this test exists to catch. The units that were cut out of shared
modules before the rule (issue 25) are named with the commit that made them.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from compat_adapter.catalog import units

ROOT = Path(__file__).resolve().parents[1]

#: Units made out of shared modules before a unit could bring itself (issue 25), or whose adding commit
#: had to edit the lane script and the list of agents with no unit (issue 34: Qwen, Gemini; both are
#: data of the unit's own folder since, ``vendors/<id>/lane.pin``, and a unit supersedes its listing).
BEFORE_THE_RULE = frozenset({"claude", "codex", "workbuddy", "opencode", "copilot", "gemini", "qwen", "cursor"})
#: Paths any unit's commit may touch besides its folder.
ALLOWED_PREFIXES = ("tests/", "docs/")
ALLOWED_FILES = frozenset({"README.md"})


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def folder_of(vendor: str) -> str:
    """The unit's folder under ``vendors/``, from its entry point (``vendors.<folder>.unit:UNIT``): the
    id, unless the id cannot be a module name (Continue's ``continue`` lives in ``vendors/cn``)."""
    from importlib.metadata import entry_points

    from compat_adapter.registry import ENTRY_POINT_GROUP

    (point,) = [p for p in entry_points(group=ENTRY_POINT_GROUP) if p.name == vendor]
    return point.value.split(".")[1]


def shared_paths(folder: str, changed: list[str]) -> list[str]:
    """The changed paths outside what the commit of the unit in ``vendors/<folder>`` may touch."""
    own = f"vendors/{folder}/"
    return [p for p in changed if not p.startswith(own) and not p.startswith(ALLOWED_PREFIXES)
            and p not in ALLOWED_FILES and p != "pyproject.toml"]


def pyproject_lines(diff: str) -> list[str]:
    """The lines a pyproject.toml diff adds or removes (its ``+``/``-`` lines, headers aside)."""
    return [line for line in diff.splitlines()
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def _adding_commit(vendor: str) -> str | None:
    found = _git("log", "--diff-filter=A", "--format=%H", "--", f"vendors/{folder_of(vendor)}/unit.py").split()
    return found[-1] if found else None


def test_the_rule_finds_a_shared_module_and_a_stray_pyproject_line() -> None:
    changed = ["vendors/toy/unit.py", "tests/test_toy.py", "docs/support-matrix.md", "pyproject.toml",
               "compat_adapter/registry.py", "vendors/unsupported.py", "vendors/claude/table.py", "scripts/x.sh"]
    assert shared_paths("toy", changed) == ["compat_adapter/registry.py", "vendors/unsupported.py",
                                            "vendors/claude/table.py", "scripts/x.sh"]
    diff = '--- a/pyproject.toml\n+++ b/pyproject.toml\n@@\n qwen = "x"\n+toy = "vendors.toy.unit:UNIT"\n+x = 1\n'
    assert pyproject_lines(diff) == ['+toy = "vendors.toy.unit:UNIT"', "+x = 1"]


def test_each_unit_was_added_without_touching_a_shared_module() -> None:
    checked = []
    for unit in units():
        vendor = unit.spec.id
        if vendor in BEFORE_THE_RULE:
            continue
        commit = _adding_commit(vendor)
        if commit is None:  # not committed yet: the working tree's change is checked at its commit
            continue
        changed = _git("show", "--name-only", "--format=", commit).split()
        assert shared_paths(folder_of(vendor), changed) == [], (vendor, commit[:10])
        if "pyproject.toml" in changed:
            lines = pyproject_lines(_git("show", "--format=", commit, "--", "pyproject.toml"))
            assert lines == [f'+{vendor} = "vendors.{folder_of(vendor)}.unit:UNIT"'], (vendor, commit[:10], lines)
        checked.append(vendor)
    # Every unit made under the rule is checked once it is committed.
    assert all(_adding_commit(u.spec.id) is None for u in units()
               if u.spec.id not in BEFORE_THE_RULE and u.spec.id not in checked)
