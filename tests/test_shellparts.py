"""A shell script's commands, as tree-sitter-bash's command nodes give them to Gemini and OpenCode."""

from __future__ import annotations

import pytest

from compat_adapter.shellparts import split


def test_a_redirection_stays_out_of_the_command_and_in_the_statement() -> None:
    # OpenCode asked for exactly these two patterns (measured: "permission requested: bash (echo ran >
    # tool-ran.txt, echo hello-from-tool)").
    parts = split("echo ran > tool-ran.txt; echo hello-from-tool")
    assert [c.statement for c in parts.commands] == ["echo ran > tool-ran.txt", "echo hello-from-tool"]
    assert [c.text for c in parts.commands] == ["echo ran", "echo hello-from-tool"]
    assert parts.complete and parts.redirected


@pytest.mark.parametrize(("script", "names"), [
    ("git status && npm test | tee out.log", ["git", "npm", "tee"]),
    ('echo $(rm -rf x) "a;b"', ["echo", "rm"]),
    ("echo `whoami`", ["echo", "whoami"]),
    ("FOO=1 make 2>/dev/null", ["make"]),
    ("for f in a b; do rm $f; done", ["rm"]),
    ("(cd x && ls)", ["cd", "ls"]),
    ("if true; then rm -rf /; fi", ["true", "rm"]),
    ("a || b & c", ["a", "b", "c"]),
    ("echo 'x; y' # rm -rf /", ["echo"]),
])
def test_every_command_is_found_nested_ones_too(script: str, names: list[str]) -> None:
    parts = split(script)
    assert parts.complete
    assert [c.name for c in parts.commands] == names


@pytest.mark.parametrize("script", ['echo "open', "cat <<EOF\nhi\nEOF", "case x in a) ls;; esac", "echo $(ls",
                                    "ls )"])
def test_what_the_scanner_cannot_read_is_reported_incomplete(script: str) -> None:
    assert not split(script).complete
