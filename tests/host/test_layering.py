"""The host wings stay apart: the grader names no host, and the DSH host shares nothing with the
embedded one but the contract (protocol, surfaces, session log, the scripted model's vocabulary)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "compat_adapter"


def _imports(path: Path) -> set[str]:
    """Every module a file imports, function-level and TYPE_CHECKING imports included."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_grading_imports_no_host() -> None:
    imported = _imports(PACKAGE / "grading.py")
    assert not {m for m in imported if m.startswith("compat_adapter.host")}
    assert "vendors.surface.TABLE_SURFACE" in imported


@pytest.mark.parametrize("path", sorted((PACKAGE / "host" / "dsh").rglob("*.py")), ids=lambda p: p.name)
def test_the_dsh_host_imports_nothing_from_the_embedded_host(path: Path) -> None:
    assert not {m for m in _imports(path) if m.startswith("compat_adapter.host.embedded")}


@pytest.mark.parametrize("name", ["protocol.py", "surfaces.py", "sessionlog.py", "script.py"])
def test_the_shared_host_modules_import_nothing_from_the_embedded_host(name: str) -> None:
    assert not {m for m in _imports(PACKAGE / "host" / name) if m.startswith("compat_adapter.host.embedded")}


@pytest.mark.parametrize("path", sorted((PACKAGE / "host" / "embedded").rglob("*.py")), ids=lambda p: p.name)
def test_the_embedded_host_imports_nothing_from_the_dsh_wing(path: Path) -> None:
    assert not {m for m in _imports(path) if m.startswith("compat_adapter.host.dsh")}


@pytest.mark.parametrize("path", sorted([*(PACKAGE / "host").glob("*.py"), *(PACKAGE / "host" / "wire").rglob("*.py")]),
                         ids=lambda p: p.name)
def test_the_shared_host_layer_and_the_wire_host_import_no_wing(path: Path) -> None:
    wings = ("compat_adapter.host.embedded", "compat_adapter.host.dsh")
    assert not {m for m in _imports(path) if m.startswith(wings)}


def test_serve_runs_the_generic_wire_host() -> None:
    imported = _imports(PACKAGE / "serve.py")
    assert "compat_adapter.host.wire.host.WireHost" in imported
    assert not {m for m in imported if m.startswith("compat_adapter.host.dsh")}
