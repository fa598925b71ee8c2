"""check_surface names every piece a surface lacks that some vendor row consumes."""

from __future__ import annotations

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
