"""Matchers in the vendor's own regular-expression dialect, in linear time.

JavaScript vendors (Claude Code, Copilot, CodeBuddy, OpenCode) compile a matcher with
``new RegExp``; Codex with Rust's ``regex`` crate. Each behaviour issue 13 names is pinned per
vendor; the JavaScript-to-RE2 rewrite is checked against ``regress`` (an ECMAScript engine) on
random patterns and subjects; and a pathological matcher is shown not to hold up dispatch.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import anyio
import pytest
import regress
from conftest import write_script

from compat_adapter.dialects import dialect_for
from compat_adapter.dialects.patterns import STEP_BOUND, compile_js, compile_rust, nested_repetition, shape
from compat_adapter.runtime.process import hook_environment, run_command

#: (vendor, event) pairs whose matcher is a JavaScript regular expression, unanchored.
JS_UNANCHORED = [("claude", "PreToolUse"), ("workbuddy", "PreToolUse"), ("opencode", "tool.execute.before")]


# ── the behaviours issue 13 names ────────────────────────────────────────────────────────────────

@pytest.mark.parametrize(("vendor", "event"), [*JS_UNANCHORED, ("codex", "PreToolUse")])
def test_named_groups_are_valid_where_the_vendor_accepts_them(vendor: str, event: str) -> None:
    dialect = dialect_for(vendor)
    assert dialect.validate_matcher(event, "(?<tool>Bash|Edit)") is None
    assert dialect.matches(event, "(?<tool>Bash|Edit)", "Edit")
    assert not dialect.matches(event, "(?<tool>Bash|Edit)", "Read")


def test_copilot_named_group_anchored_to_the_whole_name() -> None:
    copilot = dialect_for("copilot")
    assert copilot.validate_matcher("preToolUse", "(?<t>bash|edit)") is None
    assert copilot.matches("preToolUse", "(?<t>bash|edit)", "bash")
    assert not copilot.matches("preToolUse", "(?<t>bash|edit)", "bash2")


@pytest.mark.parametrize(("vendor", "event"), [*JS_UNANCHORED, ("codex", "PreToolUse")])
def test_dollar_is_the_end_of_the_subject_not_before_a_final_newline(vendor: str, event: str) -> None:
    dialect = dialect_for(vendor)
    assert dialect.matches(event, "^Bash$", "Bash")
    assert not dialect.matches(event, "^Bash$", "Bash\n")  # Python's re.search says yes here


def test_copilot_anchoring_rejects_a_trailing_newline() -> None:
    assert not dialect_for("copilot").matches("preToolUse", "bash", "bash\n")
    assert dialect_for("copilot").matches("preToolUse", "bash", "bash")


@pytest.mark.parametrize(("vendor", "event"), JS_UNANCHORED)
def test_perl_classes_are_ascii_under_javascript(vendor: str, event: str) -> None:
    dialect = dialect_for(vendor)
    assert dialect.matches(event, r"^\d+$", "2024")
    assert not dialect.matches(event, r"^\d+$", "٢٠٢٤")  # Arabic-Indic digits: \d is [0-9] in JS
    assert not dialect.matches(event, r"^\w+$", "café")
    # JavaScript's \s is Unicode space (NBSP, BOM …), and '.' stops at U+2028.
    assert dialect.matches(event, r"a\sb", "a\u00a0b") and dialect.matches(event, r"a\sb", "a\ufeffb")
    assert not dialect.matches(event, r"a.b", "a\u2028b")


def test_copilot_patterns_keep_their_rules() -> None:
    copilot = dialect_for("copilot")
    assert copilot.matches("preToolUse", "bash|edit", "edit")
    assert not copilot.matches("preToolUse", "bas", "bash")  # anchored ^(?:P)$
    assert copilot.validate_matcher("preToolUse", "(bash") is not None  # invalid: the hook is skipped
    assert not copilot.matches("preToolUse", "(bash", "bash")
    assert not copilot.matches("preToolUse", "*", "bash")  # ^(?:*)$ is no JavaScript regex
    # PascalCase events follow Claude's rules: * matches all, a literal list matches either name.
    assert copilot.matches("PreToolUse", "*", "Bash") and copilot.matches("PreToolUse", "bash", "Bash")


def test_claude_exact_lists_and_regexes() -> None:
    claude = dialect_for("claude")
    assert claude.matches("PreToolUse", "Bash", "Bash") and not claude.matches("PreToolUse", "Bash", "BashOutput")
    assert claude.matches("PreToolUse", "Edit, Write", "Write")  # commas and spaces: an exact list
    assert claude.matches("PreToolUse", "code-reviewer", "code-reviewer")
    assert not claude.matches("PreToolUse", "mcp__memory", "mcp__memory__create")
    assert claude.matches("PreToolUse", "Edit.*", "NotebookEdit")  # a regex, unanchored
    # FileChanged takes the narrower exact set: a hyphen sends the matcher to the regex path.
    assert claude.matches("FileChanged", "a-b", "xa-by")
    assert not claude.matches("PreToolUse", "a-b", "xa-by")


def test_codex_uses_rust_regex_rules() -> None:
    codex = dialect_for("codex")
    assert codex.matches("PreToolUse", "^Bash", "BashOutput")  # unanchored
    assert not codex.matches("PreToolUse", "Bash", "BashOutput")  # an exact list
    for refused in ("(?=Bash)Bash", r"(a)\1", "["):
        problem = codex.validate_matcher("PreToolUse", refused)
        assert problem and "regex parse error" in problem
        assert not codex.matches("PreToolUse", refused, "Bash")
    assert compile_rust(r"\d").engine == "re2"  # type: ignore[union-attr]


def test_codex_perl_classes_are_unicode_as_in_rust() -> None:
    codex = dialect_for("codex")
    assert codex.matches("PreToolUse", r"^\d+$", "٢٠٢٤")  # Rust's \d is \p{Nd}; JavaScript's is [0-9]
    assert not dialect_for("claude").matches("PreToolUse", r"^\d+$", "٢٠٢٤")
    assert codex.matches("PreToolUse", r"^\w+$", "café") and codex.matches("PreToolUse", r"a\sb", "a\u0085b")
    assert not codex.matches("PreToolUse", r"^\S+$", "a\u00a0b") and codex.matches("PreToolUse", r"^[\d_]+$", "٣_3")
    assert codex.matches("PreToolUse", r"^\\d$", "\\d")  # an escaped backslash stays one
    # Listed difference, pinned: \b keeps RE2's ASCII meaning (Rust's is Unicode); tool names are ASCII.
    assert not codex.matches("PreToolUse", r"\bé", "é")


def test_a_backtracking_only_pattern_still_matches_the_javascript_way() -> None:
    lookbehind = compile_js(r"(?<=mcp__)memory")
    assert not isinstance(lookbehind, str) and lookbehind.engine == "regress"
    claude = dialect_for("claude")
    assert claude.matches("PreToolUse", r"(?<=mcp__)memory", "mcp__memory__create")
    assert not claude.matches("PreToolUse", r"(?<=mcp__)memory", "memory")
    assert claude.matches("PreToolUse", r"(Bash)\1", "BashBash")


# ── the rewrite agrees with an ECMAScript engine ─────────────────────────────────────────────────

ATOMS = ["a", "b", ".", r"\d", r"\w", r"\s", r"\S", r"\W", r"\D", "[ab]", "[^a]", r"[\d-]", "[a-c]",
         r"\b", "^", "$", "(?:a|b)", "(a)", "(?<n>b)", r"\x61", r"\u0062", r"\-", "{", "}", "]",
         "\u2028", r"\n", r"[\s\S]", "\u00a0", "٣", r"\cJ", r"[\w.]", r"\/", r"\0", "[]", "[^]"]
QUANTIFIERS = ["", "", "", "*", "+", "?", "{2}", "{1,}", "{0,2}", "*?", "+?", "{,2}"]


def random_pattern(rnd: random.Random, depth: int = 0) -> str:
    out = ""
    for _ in range(rnd.randint(1, 4)):
        atom = f"(?:{random_pattern(rnd, depth + 1)})" if depth < 2 and rnd.random() < 0.2 else rnd.choice(ATOMS)
        out += atom + (rnd.choice(QUANTIFIERS) if atom not in ("^", "$", r"\b") else "")
    if rnd.random() < 0.2:
        out += "|" + random_pattern(rnd, depth + 1)
    return out


def test_the_re2_rewrite_matches_what_regress_matches() -> None:
    rnd = random.Random(20261130)
    alphabet = list("ab _-\n\r\u2028\u00a0\ufeff٣9Z.{}]\x00")
    subjects = ["", "Bash", "Bash\n", "\n", *("".join(rnd.choices(alphabet, k=rnd.randint(0, 7)))
                                             for _ in range(120))]
    checked = 0
    for _ in range(600):
        pattern = random_pattern(rnd)
        if nested_repetition(pattern):
            continue  # regress itself may take exponential time or memory on these
        try:
            reference = regress.Regex(pattern)
        except regress.RegressError:
            assert isinstance(compile_js(pattern), str), pattern
            continue
        ours = compile_js(pattern)
        assert not isinstance(ours, str), (pattern, ours)
        checked += 1
        for subject in subjects:
            assert ours.search(subject) is (reference.find(subject) is not None), (pattern, subject)
    assert checked > 250


def test_where_regress_strays_from_javascript_the_rewrite_follows_javascript() -> None:
    # Without the u flag, \u{41} is 'u' repeated 41 times in JavaScript; regress reads it as 'A'.
    braced = compile_js(r"^\u{41}$")
    assert not isinstance(braced, str) and braced.engine == "re2"
    assert braced.search("u" * 41) and not braced.search("A")
    assert regress.Regex(r"^\u{41}$").find("A") is not None  # the stray reading, pinned


# ── a pathological matcher cannot hold up dispatch ──────────────────────────────────────────────

@pytest.mark.parametrize(("vendor", "event"), [*JS_UNANCHORED, ("codex", "PreToolUse")])
def test_exponential_pattern_runs_in_linear_time(vendor: str, event: str) -> None:
    # Python's re (and any backtracking engine) needs 2^60 steps for this; completing is the proof.
    dialect = dialect_for(vendor)
    assert dialect.matches(event, r"(\w+\s?)*$", "a" * 60 + "!")
    assert dialect.matches(event, r"^(\w+\s?)*$", "a" * 10_000) and not dialect.matches(
        event, r"^(\w+\s?)*$", "a" * 10_000 + "!")
    assert not dialect_for("copilot").matches("preToolUse", r"(\w+\s?)*", "a" * 60 + "!")


def test_an_exponential_pattern_the_rewrite_cannot_take_is_refused() -> None:
    claude = dialect_for("claude")
    problem = claude.validate_matcher("PreToolUse", r"(?=(\w+\s?)*$)x")
    assert problem and "exponential" in problem
    assert not claude.matches("PreToolUse", r"(?=(\w+\s?)*$)x", "a" * 60 + "!")


async def test_a_slow_backtracking_matcher_does_not_delay_another_sessions_dispatch(tmp_path: Path) -> None:
    """Session A's matcher needs regress, and regress needs about 5 s for it on a 30-character
    subject (measured; 40 characters: 39 s), holding the GIL all along. Session B dispatches a
    real hook at the same time. A's match is bounded before it starts — not run on that subject,
    the hook skipped and the reason recorded — so A is done before B's hook process even ends."""
    slow = r"(?=.*.*.*.*.*.*.*.*X)"
    form = shape(slow)
    assert not form.nested and form.worst_case(30) > STEP_BOUND
    claude = dialect_for("claude")
    hook = write_script(tmp_path / "deny.sh", "cat > /dev/null\necho 'no' >&2\nexit 2\n")
    order: list[str] = []

    async def session_a() -> None:
        await anyio.sleep(0)
        assert claude.matches("PreToolUse", slow, "a" * 30) is False
        order.append("A matched")

    async def session_b() -> None:
        outcome = await run_command(str(hook), stdin=b"{}", cwd=tmp_path, env=hook_environment(os.environ),
                                    timeout_s=30)
        assert claude.decode("PreToolUse", outcome).decision == "deny"
        order.append("B dispatched")

    async with anyio.create_task_group() as tg:
        tg.start_soon(session_b)
        tg.start_soon(session_a)
    assert order == ["A matched", "B dispatched"]
    compiled = compile_js(slow)
    assert not isinstance(compiled, str) and compiled.engine == "regress"
    problem = compiled.problem()
    assert problem and "30-character subject" in problem and "skipped" in problem
    # Short subjects stay within the bound and run on regress, with JavaScript's answer.
    assert claude.matches("PreToolUse", slow, "abX") and not claude.matches("PreToolUse", slow, "ab")
    assert claude.validate_matcher("PreToolUse", slow) is None  # valid: only that subject was skipped
