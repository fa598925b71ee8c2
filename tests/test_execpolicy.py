"""Codex `.rules` (prefix_rule) read as Codex reads them and enforced on real shell calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.errors import InvalidDeclaration
from compat_adapter.host.protocol import ApprovalOutcome
from compat_adapter.host.script import Reply, call
from compat_adapter.model import DegradationCode
from vendors.codex.execpolicy import commands_of, evaluate, parse_rules

RULES = '''
# A team's Codex policy.
prefix_rule(
    pattern = ["git", ["status", "diff"]],
    decision = "allow",
    match = ["git status --short", ["git", "diff"]],
    not_match = ["git push"],
)
prefix_rule(
    pattern = ["git", "push"],
    decision = "prompt",
    justification = "pushing needs a human",
)
prefix_rule(
    pattern = ["rm", "-rf"],
    decision = "forbidden",
    justification = "use trash instead",
)
'''


def test_prefix_rules_match_as_codex_matches_them() -> None:
    rules = parse_rules(RULES, "default.rules")
    assert [r.decision for r in rules] == ["allow", "prompt", "forbidden"]
    assert evaluate(rules, "git status --short").decision == "allow"
    assert evaluate(rules, "git push origin main").decision == "prompt"
    assert evaluate(rules, "ls -la") is None
    # An exact prefix: an option before the subcommand is another command.
    assert evaluate(rules, "git -C . push") is None
    # A plain compound script is judged command by command, the strictest wins.
    assert commands_of("git status && rm -rf build") == [["git", "status"], ["rm", "-rf", "build"]]
    assert evaluate(rules, "git status && rm -rf build").decision == "forbidden"
    assert evaluate(rules, "git status; git push").decision == "prompt"
    # Anything more than plain words is one whole bash -lc command, which no prefix here names.
    assert commands_of("rm -rf $DIR") == [["bash", "-lc", "rm -rf $DIR"]]
    assert evaluate(rules, "rm -rf $DIR") is None
    assert commands_of("git commit -m 'two words'") == [["git", "commit", "-m", "two words"]]


@pytest.mark.parametrize("text", [
    'import os\n',
    'prefix_rule(pattern = [])\n',
    'prefix_rule(pattern = ["x"], decision = "maybe")\n',
    'prefix_rule(pattern = ["x"], match = ["y"])\n',
    'prefix_rule(pattern = ["x"], not_match = ["x y"])\n',
    'prefix_rule(pattern = ["x"], other = 1)\n',
    'prefix_rule(pattern = [open("f")])\n',
    # Values of the wrong type (found by mypy): these raised TypeError before, not a refusal.
    'prefix_rule(pattern = ["x"], match = 5)\n',
    'prefix_rule(pattern = ["x"], not_match = {"x": 1})\n',
    'prefix_rule(pattern = ["x"], decision = ["allow"])\n',
])
def test_a_file_outside_the_rules_language_is_refused(text: str) -> None:
    with pytest.raises(InvalidDeclaration):
        parse_rules(text, "bad.rules")


async def test_codex_rules_are_enforced_on_real_shell_calls(tmp_path: Path) -> None:
    rules = tmp_path / "default.rules"
    rules.write_text(RULES)
    (tmp_path / "build").mkdir()
    asked = []

    def approver(request):
        asked.append(request.reason)
        return ApprovalOutcome.REJECTED

    async with MemoryHost(tmp_path, approver=approver) as host, CompatAdapter(host) as adapter:
        result = await adapter.register_rules("codex", str(rules))
        codes = {d.code for d in result.degradations}
        assert DegradationCode.APPROXIMATE in codes and DegradationCode.MESSAGE_PROVENANCE in codes
        agent = await host.create_agent(script=[
            Reply(calls=(call("bash", command="rm -rf build"),)),
            Reply(calls=(call("bash", command="git push origin main"),)),
            Reply(calls=(call("bash", command="echo allowed > ok.txt"),)),
            "done"])
        await agent.run_turn("go")
    texts = [e.data["text"] for e in agent.session.of_type("tool/result")]
    assert texts[0] == "Error: `rm -rf build` rejected: blocked by policy"
    assert (tmp_path / "build").is_dir()
    assert asked == ["pushing needs a human"] and texts[1].startswith("Error: ")
    assert (tmp_path / "ok.txt").read_text() == "allowed\n"


async def test_a_bad_rules_file_registers_nothing(tmp_path: Path) -> None:
    rules = tmp_path / "bad.rules"
    rules.write_text('prefix_rule(pattern = ["rm"], decision = "never")\n')
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        with pytest.raises(InvalidDeclaration):
            await adapter.register_rules("codex", str(rules))
        assert adapter.status().rules == ()
