"""Cursor CLI's permission tokens (``.cursor/cli.json``), judged as Cursor's docs describe them
(confidence documented: no Cursor CLI runs offline here)."""

from __future__ import annotations

import pytest

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
