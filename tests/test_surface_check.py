"""check_surface names every piece a surface lacks that some vendor row consumes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from compat_adapter.catalog import vendors
from compat_adapter.cli import main
from compat_adapter.host.protocol import validate_host
from compat_adapter.host.surfaces import CODEX_BRIDGE, EMBEDDED_SURFACE
from compat_adapter.surface_check import check_surface, consumed


def test_the_embedded_surface_lacks_nothing() -> None:
    assert check_surface(EMBEDDED_SURFACE) == ()


def test_each_missing_piece_is_named_with_the_rows_needing_it() -> None:
    small = EMBEDDED_SURFACE.without(seams=["user-questions/request"], services=["lsp"],
                                     bridges=[CODEX_BRIDGE])
    missing = check_surface(small)
    assert len(missing) == 3
    joined = "\n".join(missing)
    assert "seam user-questions/request (needed by 2 rows: claude Elicitation, claude ElicitationResult)" in joined
    assert "service lsp" in joined and "opencode lsp.client.diagnostics" in joined
    assert f"bridge {CODEX_BRIDGE} (needed by 5 rows: codex SessionStart (prefer=official)" in joined


def test_every_consumed_seam_is_on_the_embedded_surface() -> None:
    seams = {k.split(":", 1)[1] for k in consumed() if k.startswith("seam:")}
    assert seams <= set(EMBEDDED_SURFACE.seams)


def test_surface_command_exits_1_when_something_is_missing(capsys, monkeypatch) -> None:
    from compat_adapter.host import surfaces

    monkeypatch.setitem(surfaces.SURFACES, "tiny", EMBEDDED_SURFACE.without(services=["shell"]))
    assert main(["surface", "--host", "tiny", "--json"]) == 1
    rows = sum(len(s.events) for s in vendors())  # every row runs a command
    assert f"service shell (needed by {rows} rows" in capsys.readouterr().out


def test_validate_host_lists_what_an_object_lacks() -> None:
    class NotAHost:
        surface = EMBEDDED_SURFACE

    problems = validate_host(NotAHost())
    assert "missing: on" in problems and "missing: settle" in problems


def test_a_registered_host_kind_cannot_take_a_built_in_name(tmp_path: Path) -> None:
    """A built-in kind is looked up without reading the installed metadata, so a distribution that
    registers a second ``embedded`` is refused where the registered kinds are read, naming its entry
    point, and never silently graded against."""
    site = tmp_path / "site"
    info = site / "toy_host-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-host\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[compat_adapter.hosts]\nsecond = toyhost:HOST\n")
    (site / "toyhost.py").write_text("from compat_adapter.host.surfaces import EMBEDDED_SURFACE, HostKind\n"
                                     "HOST = HostKind('embedded', EMBEDDED_SURFACE.without(services=['lsp']))\n")
    env = {**os.environ, "PYTHONPATH": str(site)}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "compat_adapter", *args], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=120, check=False)

    done = run("surface", "--json")
    assert done.returncode == 0, done.stderr
    assert "lsp" in json.loads(done.stdout)["surface"]["services"]  # the built-in one, not the toy's
    done = run("surface", "--host", "dsh", "--json")
    assert done.returncode == 2
    assert ("entry point 'second' of compat_adapter.hosts registers 'embedded', the name of a built-in "
            "host kind") in done.stderr
