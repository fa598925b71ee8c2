"""Cursor CLI's permission tokens (``.cursor/cli.json``), judged as Cursor's docs describe them
(confidence documented: no Cursor CLI runs offline here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.host.script import Reply, call
from compat_adapter.importers import import_project, register_import
from compat_adapter.model import Capability
from vendors.cursor.permissions import judge, parse_token, tokens_of

WS = "/work/proj"
CONFIG = {"permissions": {"allow": ["Shell(ls)", "Shell(git)", "Read(src/**/*.ts)", "Write(package.json)"],
                          "deny": ["Shell(rm)", "Read(.env*)", "Write(**/*.key)"]}}


def test_shell_tokens_name_the_first_word_of_each_command() -> None:
    tokens = tokens_of(CONFIG, ".cursor/cli.json")
    assert judge(tokens, "bash", {"command": "rm -rf build"}, WS).action == "deny"
    assert judge(tokens, "bash", {"command": "git status && rm -rf build"}, WS).action == "deny"
    assert judge(tokens, "bash", {"command": "git status"}, WS).action == "allow"
    assert judge(tokens, "bash", {"command": "rmdir x"}, WS) is None


def test_paths_are_globs_relative_to_the_workspace() -> None:
    tokens = tokens_of(CONFIG, ".cursor/cli.json")
    assert judge(tokens, "read", {"path": ".env.local"}, WS).action == "deny"
    assert judge(tokens, "read", {"path": "src/a/b.ts"}, WS).action == "allow"
    assert judge(tokens, "read", {"path": "lib/b.ts"}, WS) is None
    assert judge(tokens, "edit", {"path": "deep/in/id.key"}, WS).action == "deny"
    assert judge(tokens, "write", {"path": f"{WS}/package.json"}, WS).action == "allow"


def test_a_deny_beats_an_allow() -> None:
    tokens = tokens_of({"permissions": {"allow": ["Write(**)"], "deny": ["Write(secrets/**)"]}}, "cli.json")
    assert judge(tokens, "write", {"path": "secrets/a"}, WS).action == "deny"
    assert judge(tokens, "write", {"path": "b"}, WS).action == "allow"


@pytest.mark.parametrize("token", ["Bash(ls)", "Shell()", "ls", "Shell(ls"])
def test_an_undocumented_token_is_an_error(token: str) -> None:
    with pytest.raises(ValueError, match="cli.json"):
        parse_token(token, "deny", "cli.json")


async def test_cli_json_tokens_are_imported_and_enforced(tmp_path: Path) -> None:
    (tmp_path / ".cursor").mkdir()
    (tmp_path / ".cursor/cli.json").write_text(json.dumps(
        {"permissions": {"allow": ["Shell(ls)"], "deny": ["Shell(rm)", "Write(**/*.key)", "Mcp(github, *)", "Bash(x)"],
                         "ask": ["Shell(git)"]}}))
    (tmp_path / "build").mkdir()
    imported = import_project("cursor", tmp_path)
    assert [r.text for r in imported.permissions] == ["Shell(ls)", "Shell(rm)", "Write(**/*.key)", "Mcp(github, *)"]
    assert sorted(r.code for r in imported.refused) == ["INVALID_ENTRY", "UNSUPPORTED_CONFIG"]
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        results = await register_import(adapter, imported)
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="rm -rf build"),)),
                                                Reply(calls=(call("write", path="a/id.key", content="k"),)), "done"])
        await agent.run_turn("go")
    texts = [e.data["text"] for e in agent.session.of_type("tool/result")]
    assert texts[0].startswith("Denied by permission rule Shell(rm)") and (tmp_path / "build").is_dir()
    assert texts[1].startswith("Denied by permission rule Write(**/*.key)") and not (tmp_path / "a/id.key").exists()
    mcp = next(r for r in results if r.matcher == "Mcp(github, *)")
    assert mcp.capability == Capability.UNSUPPORTED and "no host tool" in (mcp.reason or "")
