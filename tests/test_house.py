"""The shape of the house, checked over the source: no import cycle, no private name borrowed across
modules, no module too big to read, a public API that is exactly what ``__all__`` says.

These read the syntax tree, not the running program, so an import hidden in a function body counts
as much as one at the top: deferring an import does not make a cycle go away. Imports under
``if TYPE_CHECKING:`` do not count; they never run.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("compat_adapter", "vendors")
MAX_MODULE_LINES = 500


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _runtime_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run, at any depth, except under ``if TYPE_CHECKING``."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    is_package = MODULES[module].name == "__init__.py"
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _author_api() -> dict[str, tuple[str, str | None]]:
    """Each name of :mod:`compat_adapter.vendor` → (its home module, the name there or None for a
    module), read from the imports it declares under ``TYPE_CHECKING`` (at run time it imports
    lazily, which a reader of the syntax tree cannot follow)."""
    homes: dict[str, tuple[str, str | None]] = {}
    for node in ast.parse(MODULES[AUTHOR_API].read_text(encoding="utf-8")).body:
        if not (isinstance(node, ast.If) and _is_type_checking(node.test)):
            continue
        for statement in node.body:
            assert isinstance(statement, ast.ImportFrom) and statement.module, ast.dump(statement)[:80]
            for alias in statement.names:
                sub = f"{statement.module}.{alias.name}"
                homes[alias.asname or alias.name] = (sub, None) if sub in MODULES else (statement.module, alias.name)
    return homes


#: The vendor author's API: the one module of the product a vendor unit imports.
AUTHOR_API = "compat_adapter.vendor"
AUTHOR_HOMES = _author_api()


def _edges(module: str) -> Iterator[tuple[str, str | None]]:
    """(imported module, imported name or None) for each internal import of ``module``; a name taken
    from the author API counts as an import of the module it lives in, so a cycle through it shows."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    for node in _runtime_imports(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES:
                    yield alias.name, None
            continue
        target = _absolute(module, node)
        if target not in MODULES:
            continue
        for alias in node.names:
            sub = f"{target}.{alias.name}"
            if target == AUTHOR_API and alias.name in AUTHOR_HOMES:
                yield AUTHOR_HOMES[alias.name]
            elif sub in MODULES:
                yield sub, None
            else:
                yield target, alias.name


def _graph() -> dict[str, set[str]]:
    return {m: {t for t, _ in _edges(m) if t != m} for m in MODULES}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle() -> None:
    assert _cycles(_graph()) == []


def test_no_private_name_is_imported_across_modules() -> None:
    borrowed = [f"{m} imports {name} from {target}"
                for m in MODULES for target, name in _edges(m)
                if name is not None and name.startswith("_") and not name.startswith("__")]
    assert borrowed == []


#: The vendor tables are data (one row per vendor event), not code to read through; the vendor
#: units' behaviour modules (dialect, importer, voice, lane) are held to the cap like the rest.
@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("compat_adapter")
                                          or (m.startswith("vendors.") and not m.endswith(".table"))))
def test_no_module_is_too_big_to_read(module: str) -> None:
    lines = MODULES[module].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_MODULE_LINES, f"{module}: {lines} lines"


def test_vendor_units_import_the_product_only_through_the_author_api() -> None:
    """A unit's modules (``vendors/**``, its lane excepted: test support) import the product from
    :mod:`compat_adapter.vendor` alone, so that what a vendor author may use is written in one place.
    Imports under ``TYPE_CHECKING`` count here: they are part of what a unit relies on."""
    strays = []
    for module, path in MODULES.items():
        if not module.startswith("vendors") or module.endswith(".lane"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            strays += [f"{module}:{node.lineno} imports {name}" for name in names
                       if name.split(".")[0] == "compat_adapter" and name != AUTHOR_API]
    assert strays == [], ("a vendor unit imports the product from compat_adapter.vendor only; import it from "
                          f"compat_adapter.vendor (and add the name there if it is new): {strays}")


def test_the_author_api_declares_each_name_once_and_serves_it_from_its_home() -> None:
    api = importlib.import_module(AUTHOR_API)
    assert list(api.__all__) == sorted(api.__all__)
    assert set(api.__all__) == set(AUTHOR_HOMES)
    for name, (home, attribute) in AUTHOR_HOMES.items():
        value = importlib.import_module(home)
        assert getattr(api, name) is (value if attribute is None else getattr(value, attribute)), name
    with pytest.raises(AttributeError, match="added to the author API"):
        api.not_a_name  # noqa: B018


def test_grading_names_no_host() -> None:
    for target in _graph()["compat_adapter.grading"]:
        assert not target.startswith(("compat_adapter.host.embedded", "compat_adapter.host.dsh")), target


# ── the public API ───────────────────────────────────────────────────────────────────────────────

def test_every_public_name_resolves_and_all_is_sorted() -> None:
    package = importlib.import_module("compat_adapter")
    assert list(package.__all__) == sorted(package.__all__)
    assert len(set(package.__all__)) == len(package.__all__)
    for name in package.__all__:
        assert getattr(package, name) is not None, name


def test_the_package_init_only_re_exports() -> None:
    """``__init__`` holds imports, ``__all__`` and the lazy loader, nothing that does work."""
    tree = ast.parse(MODULES["compat_adapter"].read_text(encoding="utf-8"))
    allowed = (ast.Import, ast.ImportFrom, ast.If, ast.FunctionDef, ast.Expr, ast.Assign, ast.AnnAssign)
    for node in tree.body:
        assert isinstance(node, allowed), ast.dump(node)[:80]
        if isinstance(node, ast.FunctionDef):
            assert node.name == "__getattr__", node.name
        if isinstance(node, ast.Expr):
            assert isinstance(node.value, ast.Constant), "only the docstring may be a bare expression"


def test_no_public_name_is_left_out_of_all() -> None:
    package = importlib.import_module("compat_adapter")
    tree = ast.parse(MODULES["compat_adapter"].read_text(encoding="utf-8"))
    imported = {alias.asname or alias.name for node in tree.body if isinstance(node, ast.ImportFrom)
                for alias in node.names}
    public = {name for name in imported if not name.startswith("_")} - {"annotations", "TYPE_CHECKING", "Any"}
    assert public <= set(package.__all__), sorted(public - set(package.__all__))


def test_the_package_is_typed() -> None:
    assert (ROOT / "compat_adapter" / "py.typed").is_file()


def test_mypy_finds_no_error() -> None:
    """``mypy compat_adapter vendors`` (the vendor units hold code too) with the project's own config (``[tool.mypy]`` in pyproject.toml) and
    the pinned mypy of the ``test`` extra. Its cache is the repository's ``.mypy_cache/`` (ignored by
    git), so a second run reads only what changed."""
    result = subprocess.run([sys.executable, "-m", "mypy", "compat_adapter", "vendors"], cwd=ROOT,
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("Success: no issues found"), result.stdout


#: The catalog's look-ups of a vendor by name (and the dialect hand-out built on them).
_LOOK_UPS = frozenset({"unit_of", "voice_of", "facts_of", "resolve_vendor", "dialect_for", "unit_named", "registered"})
#: The packages that run on every hook dispatch: they ask the unit the hook carries.
_RUN_TIME = ("compat_adapter.routing", "compat_adapter.handlers")
#: Look-ups by vendor name allowed there (none: the unit travels with the hook).
_RUN_TIME_LOOK_UPS = 0


def test_the_dispatch_packages_look_no_vendor_up_by_name() -> None:
    found = []
    for module, path in MODULES.items():
        if not module.startswith(_RUN_TIME):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if name in _LOOK_UPS:
                    found.append(f"{module}:{node.lineno} {name}")
    assert len(found) <= _RUN_TIME_LOOK_UPS, (
        "a hook's HookEntry/Declared carries its vendor unit: ask `entry.unit`, not the catalog", found)


#: Machinery that moved from the core into a vendor's unit as a capability: the core finds it on the
#: unit by kind (compat_adapter.capability) and may never import it by the vendor's name again.
_MOVED_INTO_UNITS = ("vendors.codex", "vendors.copilot", "vendors.opencode", "vendors.kilo")


def test_the_core_imports_no_capability_of_a_vendor_by_name() -> None:
    found = [f"{module} -> {target}" for module in MODULES if module.startswith("compat_adapter")
             for target, _ in _edges(module) if target.startswith(_MOVED_INTO_UNITS)]
    assert not found, ("a vendor's own machinery is a capability of its unit (capabilities=(...)); the core "
                       "asks `capability(unit, Kind)`", found)
    for gone in ("rules_policy",):
        from compat_adapter.model import VendorSpec

        assert gone not in VendorSpec.model_fields, f"{gone}: the capability replaced this switch"
    # The tables still state `plugin_host` (they drop it in a change of their own), but the core reads
    # the unit's PluginRuntime capability, never the switch.
    read = [f"{module}:{node.lineno}" for module, path in MODULES.items() if module.startswith("compat_adapter")
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Attribute) and node.attr == "plugin_host"]
    assert not read, ("plugin_host: the unit's PluginRuntime capability replaced this switch", read)
