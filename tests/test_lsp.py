"""LspService against a real jedi-language-server over stdio: no fakes."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from compat_adapter.errors import HostSurfaceMismatch
from compat_adapter.runtime.lsp import LspService

GREET = '''\
def greet(name):
    """Say hello to NAME politely."""
    return f"hello {name}"


greet("world")
greet("again")
'''


def live_group_members(pgid: int) -> list[int]:
    """Processes in the group that are not zombies (the server and anything it spawned)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # exited while we looked
        state, pgrp = fields[0], int(fields[2])
        if pgrp == pgid and state != "Z":
            members.append(int(entry.name))
    return members


async def test_hover_definition_references_then_clean_shutdown(tmp_path: Path) -> None:
    source = tmp_path / "greet.py"
    source.write_text(GREET)
    async with LspService(tmp_path) as lsp:
        assert lsp.pid is None  # lazy: nothing runs before the first query
        with anyio.fail_after(60):  # a hang guard; the service bounds each query itself
            hover = await lsp.query("hover", source, line=5, character=1)
            pid = lsp.pid
            nothing = await lsp.query("hover", source, line=3, character=0)  # a blank line
            definition = await lsp.query("goToDefinition", Path("greet.py"), line=5, character=1)
            references = await lsp.query("findReferences", source, line=0, character=5)
        assert pid is not None and pid in live_group_members(pid)
    assert live_group_members(pid) == []
    assert lsp.pid is None
    assert lsp.exit_code == 0  # it left on shutdown + exit, not by the kill fallback

    assert hover.kind == "hover"
    assert "greet" in hover.data and "Say hello to NAME politely." in hover.data
    assert nothing.kind == "hover" and nothing.data is None

    assert definition.kind == "locations"
    assert [(loc["uri"], loc["range"]["start"]["line"]) for loc in definition.data] == [
        (source.resolve().as_uri(), 0)]

    assert references.kind == "locations"
    assert sorted(loc["range"]["start"]["line"] for loc in references.data) == [0, 5, 6]


async def test_diagnostics_follow_the_file_on_disk(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("x = 1\ndef f(:\n    pass\n")
    async with LspService(tmp_path, timeout_s=20.0) as lsp:
        with anyio.fail_after(60):
            first = await lsp.query("diagnostics", broken)
            broken.write_text("x = 1\n\n\ndef f():\n    pass\n")  # fixed: didChange + didSave
            fixed = await lsp.query("diagnostics", broken)
            again = await lsp.query("diagnostics", broken)  # unchanged: the last publication
    assert first.kind == "diagnostics"
    assert len(first.data) == 1
    (problem,) = first.data
    assert problem["line"] == 1
    assert problem["severity"] == "error"
    assert "SyntaxError" in problem["message"] or "invalid syntax" in problem["message"]
    assert fixed.data == ()
    assert again.data == ()


async def test_unknown_operation_is_refused_before_the_server_starts(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("x = 1\n")
    async with LspService(tmp_path) as lsp:
        with pytest.raises(HostSurfaceMismatch) as caught:
            await lsp.query("workspaceSymbol", source)
        assert lsp.pid is None
    assert caught.value.context["operation"] == "workspaceSymbol"


async def test_a_missing_server_fails_the_query(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("x = 1\n")
    async with LspService(tmp_path, command=(str(tmp_path / "no-such-server"),)) as lsp:
        with pytest.raises(FileNotFoundError):
            await lsp.query("hover", source)
        assert lsp.pid is None
