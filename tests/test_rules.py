"""Rules carry: sources resolve exactly, bytes and hashes are kept, nothing is ever truncated."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from compat_adapter.catalog import resolve_vendor
from compat_adapter.errors import InvalidDeclaration, RulesSourceMissing, RulesTooLarge, RulesUnreadable
from compat_adapter.rules import read_rules, resolve_sources

CODEX = resolve_vendor("codex")
CLAUDE = resolve_vendor("claude")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "a.rules").write_text('prefix_rule(pattern=["rm"], decision="forbidden")\n')
    (tmp_path / "rules" / "b.rules").write_text('prefix_rule(pattern=["git", "push"], decision="prompt")\n')
    (tmp_path / "AGENTS.md").write_text("# Agents\nUse tabs. Ünïcode stays.\n", encoding="utf-8")
    return tmp_path


def test_absolute_relative_file_url_glob_and_lists(tree: Path) -> None:
    agents = tree / "AGENTS.md"
    assert resolve_sources(str(agents), None) == (agents.resolve(),)
    assert resolve_sources("AGENTS.md", tree) == (agents.resolve(),)
    assert resolve_sources(agents.as_uri(), None) == (agents.resolve(),)
    globbed = resolve_sources("rules/*.rules", tree)
    assert [p.name for p in globbed] == ["a.rules", "b.rules"]
    both = resolve_sources(["AGENTS.md", "rules/*.rules", str(agents)], tree)
    assert [p.name for p in both] == ["AGENTS.md", "a.rules", "b.rules"]  # each file once


def test_bytes_and_hashes_are_exact_and_the_text_says_it_is_context(tree: Path) -> None:
    carried = read_rules(CODEX, "codex:rules:1", "rules/*.rules", tree, 524_288)
    for f in carried.files:
        raw = f.path.read_bytes()
        assert f.data == raw
        assert f.sha256 == hashlib.sha256(raw).hexdigest()
        assert raw.decode() in carried.text
    assert "not enforced policy" in carried.text
    assert "never a security boundary" in carried.text  # Codex's Starlark note


def test_errors_have_codes_and_nothing_is_half_read(tree: Path) -> None:
    with pytest.raises(RulesSourceMissing):
        read_rules(CLAUDE, "r", str(tree / "missing.md"), None, 1000)
    with pytest.raises(RulesSourceMissing):
        read_rules(CLAUDE, "r", "nothing/*.md", tree, 1000)
    with pytest.raises(InvalidDeclaration):
        read_rules(CLAUDE, "r", "AGENTS.md", None, 1000)  # relative without base_dir
    with pytest.raises(InvalidDeclaration):
        read_rules(CLAUDE, "r", "AGENTS.md", "relative/base", 1000)
    with pytest.raises(InvalidDeclaration):
        read_rules(CLAUDE, "r", "https://example.com/AGENTS.md", None, 1000)
    with pytest.raises(RulesUnreadable):
        read_rules(CLAUDE, "r", str(tree / "rules"), None, 1000)  # a directory
    (tree / "bin.md").write_bytes(b"\xff\xfe\x00binary")
    with pytest.raises(RulesUnreadable):
        read_rules(CLAUDE, "r", str(tree / "bin.md"), None, 1000)


def test_oversized_file_is_refused_not_truncated(tree: Path) -> None:
    big = tree / "big.md"
    big.write_bytes(b"x" * 2001)
    with pytest.raises(RulesTooLarge) as err:
        read_rules(CLAUDE, "r", [str(tree / "AGENTS.md"), str(big)], None, 2000)
    assert err.value.code == "RULES_TOO_LARGE"
    assert len(read_rules(CLAUDE, "r", str(big), None, 2001).files[0].data) == 2001
