"""What the wheel ships: the product, without its test support, and no shipped module reaching for it.

The lanes, scripted models and live checks live beside the product in the source tree because the
suite and scripts/ drive them, but a user who installs compat-adapter gets none of them. The wheel is
built for real by the project's own build backend (hatchling, as pyproject.toml declares), without
build isolation so the test needs no network.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# What counts as test support, by module name: the one place this test defines it.
TEST_SUPPORT = ("compat_adapter.testing", "compat_adapter.host.dsh.lane")


def is_test_support(module: str) -> bool:
    if any(module == name or module.startswith(name + ".") for name in TEST_SUPPORT):
        return True
    parts = module.split(".")
    return len(parts) == 3 and parts[0] == "vendors" and parts[2] == "lane"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(out)],
                   cwd=ROOT, check=True, capture_output=True)
    (built,) = out.glob("*.whl")
    with zipfile.ZipFile(built) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def module_name(path: str) -> str:
    return path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def shipped_modules(wheel: dict[str, bytes]) -> dict[str, bytes]:
    return {module_name(p): body for p, body in wheel.items()
            if p.endswith(".py") and p.split("/")[0] in ("compat_adapter", "vendors")}


def imports_of(module: str, source: bytes) -> set[str]:
    """Every module an import statement names, relative imports resolved against ``module``."""
    found: set[str] = set()
    package = module.split(".") if module.endswith("__init__") else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package[: len(package) - node.level + 1]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def test_the_wheel_ships_the_product_and_every_vendor_unit(wheel: dict[str, bytes]) -> None:
    modules = shipped_modules(wheel)
    assert "compat_adapter.cli" in modules
    assert "compat_adapter.host.dsh.host" in modules
    for vendor in ("claude", "codex", "copilot", "cursor", "gemini", "opencode", "qwen", "workbuddy"):
        assert f"vendors.{vendor}.unit" in modules, vendor
        assert f"vendors.{vendor}.dialect" in modules, vendor
    # OpenCode's plugin host, a capability of its unit, ships with its JS side (package data).
    assert "vendors.opencode.plugin_host.router" in modules and "vendors.opencode.plugin_host.lane" in modules
    assert wheel["vendors/opencode/plugin_host/sidecar.js"].startswith(b"//")


def test_the_wheel_ships_no_test_support(wheel: dict[str, bytes]) -> None:
    leaked = sorted(name for name in shipped_modules(wheel) if is_test_support(name))
    assert leaked == []
    assert not [p for p in wheel if p.startswith("compat_adapter/testing/")]


def test_no_shipped_module_imports_test_support(wheel: dict[str, bytes]) -> None:
    reaching = {name: sorted(i for i in imports_of(name, body) if is_test_support(i))
                for name, body in shipped_modules(wheel).items()}
    assert {name: found for name, found in reaching.items() if found} == {}


def test_the_test_support_rule_sees_a_shipped_import() -> None:
    """The scan above would catch a product module that imports a lane, absolutely or relatively."""
    assert imports_of("vendors.qwen.unit", b"from vendors.qwen.lane import CLI\n") >= {"vendors.qwen.lane"}
    assert is_test_support("vendors.qwen.lane")
    assert "compat_adapter.testing.lane" in imports_of("compat_adapter.cli.run", b"from ..testing import lane\n")
    assert not is_test_support("vendors.opencode.plugin_host.lane")  # the plugin runtime's location: product
