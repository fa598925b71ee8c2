"""The vendors' own decoding of a hook's answer, on real processes.

Issue 13 lists answers that Copilot (a JavaScript program) reads as a deny while a Python reading
let the call through: a byte-order mark before the JSON, a raw U+2028 or U+0085 inside a string, an
integer of more than 4300 digits, a deny larger than 1 MiB, a deny after 1.3 MB of progress lines.
Each is pinned here twice: end to end (a real hook process writes the bytes, the adapter runs it
through the real runner on the embedded host, and the model's real ``bash`` call must not run),
and at the dialect level for every JavaScript vendor, on a real process run with the dialect's own
output cap. The JS-compatible JSON layer itself (`compat_adapter.jsontext`) is checked edge by edge.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest
from conftest import write_script

from compat_adapter.dialects import dialect_for
from compat_adapter.dialects.common import OUTPUT_CAP
from compat_adapter.host.script import Reply, call
from compat_adapter.jsontext import (
    JsonTextError,
    js_lines,
    js_parse,
    js_trim,
    rust_parse,
    rust_trim,
)
from compat_adapter.runtime.process import ProcessOutcome, hook_environment, run_command
from compat_adapter.service import CompatAdapter

MIB = 1024 * 1024


def with_raw(obj_text: str, key: str, raw: str) -> str:
    """`obj_text` (a JSON object) with one more member whose value is the raw JSON text `raw`."""
    return obj_text[:-1] + f', "{key}": {raw}}}'


def copilot_deny(reason: str, **extra: object) -> str:
    return json.dumps({"permissionDecision": "deny", "permissionDecisionReason": reason, **extra},
                      ensure_ascii=False)


def progress_lines(total: int) -> str:
    line = json.dumps({"type": "progress", "message": "still working on step 123456"}) + "\n"
    return line * (total // len(line) + 1)


#: The holes of issue 13, as the exact bytes a hook writes, and the reason the vendor shows.
HOLES: dict[str, tuple[bytes, str]] = {
    "bom": (b"\xef\xbb\xbf" + copilot_deny("bom deny").encode(), "bom deny"),
    "u2028": (copilot_deny("line\u2028separator").encode(), "line\u2028separator"),
    "u0085": (copilot_deny("next\u0085line").encode(), "next\u0085line"),
    "big_integer": (with_raw(copilot_deny("big int"), "n", "9" * 5000).encode(), "big int"),
    "over_1_mib": (copilot_deny("large deny", pad="x" * (MIB + MIB // 2)).encode(), "large deny"),
    "after_progress": ((progress_lines(1_300_000) + copilot_deny("after progress") + "\n").encode(),
                       "after progress"),
}


def hook_writing(tmp_path: Path, name: str, data: bytes, *, exit_code: int = 0) -> str:
    """A real hook: reads its payload, writes `data` byte for byte, exits with `exit_code`."""
    blob = tmp_path / f"{name}.out"
    blob.write_bytes(data)
    body = f"cat > /dev/null\ncat {shlex.quote(str(blob))}\nexit {exit_code}\n"
    return str(write_script(tmp_path / f"{name}.sh", body))


async def run_hook(tmp_path: Path, vendor: str, data: bytes, *, exit_code: int = 0) -> ProcessOutcome:
    """Run a real hook process through the runner with the vendor's own output cap."""
    command = hook_writing(tmp_path, "hook", data, exit_code=exit_code)
    return await run_command(command, stdin=b"{}", cwd=tmp_path, env=hook_environment(os.environ),
                             timeout_s=30, max_output_bytes=dialect_for(vendor).output_cap)


# ── end to end: the model's bash call must not run ─────────────────────────────────────────────

@pytest.mark.parametrize("hole", sorted(HOLES))
async def test_copilot_pretooluse_deny_hole_blocks_the_real_call(hole: str, tmp_path: Path) -> None:
    from compat_adapter.host.embedded.memory import MemoryHost

    data, reason = HOLES[hole]
    ws = tmp_path / "ws"
    ws.mkdir()
    async with MemoryHost(ws) as host:
        async with CompatAdapter(host, target_host_version=host.surface.version,
                                 state_dir=str(tmp_path / "state")) as adapter:
            await adapter.register_hook("copilot", "preToolUse", "bash", hook_writing(tmp_path, hole, data))
            agent = await host.create_agent(script=[
                Reply(None, (call("bash", command=f"touch {ws}/ran", description="run"),)), "done"])
            await agent.run_turn("go")
            await host.settle()
            audit = adapter.audit
    assert not (ws / "ran").exists(), f"{hole}: Copilot denies this call, the adapter let it run"
    assert [a.decision for a in audit] == ["deny"]
    assert audit[0].truncated is False


@pytest.mark.parametrize("hole", ["bom", "big_integer", "u2028", "deep_nesting"])
async def test_claude_pretooluse_deny_hole_blocks_the_real_call(hole: str, tmp_path: Path) -> None:
    """The same for Claude Code, on whatever route the adapter picks for it (the host's official
    bridge, modelled on DSH's own JavaScript ``trim`` + ``JSON.parse``, or the native one)."""
    from compat_adapter.host.embedded.memory import MemoryHost

    data, _ = CLAUDE_HOLES[hole]
    ws = tmp_path / "ws"
    ws.mkdir()
    async with MemoryHost(ws) as host:
        async with CompatAdapter(host, target_host_version=host.surface.version,
                                 state_dir=str(tmp_path / "state")) as adapter:
            await adapter.register_hook("claude", "PreToolUse", "Bash", hook_writing(tmp_path, hole, data))
            agent = await host.create_agent(script=[
                Reply(None, (call("bash", command=f"touch {ws}/ran", description="run"),)), "done"])
            await agent.run_turn("go")
            await host.settle()
    assert not (ws / "ran").exists(), f"{hole}: Claude Code denies this call, the adapter let it run"


# ── each JavaScript dialect reads the same bytes the vendor's way ───────────────────────────────

@pytest.mark.parametrize("hole", sorted(HOLES))
async def test_copilot_dialect_reads_each_hole_as_the_deny(hole: str, tmp_path: Path) -> None:
    data, reason = HOLES[hole]
    outcome = await run_hook(tmp_path, "copilot", data)
    assert not outcome.truncated
    answer = dialect_for("copilot").decode("preToolUse", outcome)
    assert (answer.decision, answer.reason) == ("deny", reason)


def claude_deny(reason: str, **extra: object) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                              "permissionDecisionReason": reason}, **extra},
                      ensure_ascii=False)


CLAUDE_HOLES: dict[str, tuple[bytes, str]] = {
    "bom": (b"\xef\xbb\xbf" + claude_deny("bom deny").encode(), "bom deny"),
    "nbsp_and_u2029_around": (("\u00a0\u2029" + claude_deny("spaced") + "\u3000\n").encode(), "spaced"),
    "u2028": (claude_deny("a\u2028b").encode(), "a\u2028b"),
    "u0085": (claude_deny("a\u0085b").encode(), "a\u0085b"),
    "big_integer": (with_raw(claude_deny("big int"), "n", "7" * 5000).encode(), "big int"),
    "deep_nesting": (with_raw(claude_deny("deep"), "x", "[" * 5000 + "]" * 5000).encode(), "deep"),
    "over_1_mib": (claude_deny("large deny", pad="y" * (MIB + 1)).encode(), "large deny"),
    "duplicate_key_last_wins": ((b'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
                                 b'"permissionDecision": "allow", "permissionDecision": "deny", '
                                 b'"permissionDecisionReason": "dup"}}'), "dup"),
}


@pytest.mark.parametrize("vendor", ["claude", "workbuddy"])
@pytest.mark.parametrize("hole", sorted(CLAUDE_HOLES))
async def test_claude_family_reads_each_hole_as_the_deny(vendor: str, hole: str, tmp_path: Path) -> None:
    data, reason = CLAUDE_HOLES[hole]
    outcome = await run_hook(tmp_path, vendor, data)
    answer = dialect_for(vendor).decode("PreToolUse", outcome)
    assert (answer.decision, answer.reason, answer.failed) == ("deny", reason, None)


@pytest.mark.parametrize("hole", ["bom", "u2028", "big_integer", "over_1_mib"])
async def test_opencode_reads_each_hole_as_the_deny(hole: str, tmp_path: Path) -> None:
    reasons = {"bom": "bom", "u2028": "a\u2028b", "big_integer": "big", "over_1_mib": "large"}
    body = {"decision": "deny", "reason": reasons[hole]}
    text = json.dumps(body, ensure_ascii=False)
    data = {"bom": b"\xef\xbb\xbf" + text.encode(), "u2028": text.encode(),
            "big_integer": ('{"n": ' + "1" * 4301 + ", " + text[1:]).encode(),
            "over_1_mib": json.dumps({**body, "pad": "z" * (2 * MIB)}).encode()}[hole]
    answer = dialect_for("opencode").decode("tool.execute.before", await run_hook(tmp_path, "opencode", data))
    assert (answer.decision, answer.reason) == ("deny", reasons[hole])


async def test_copilot_output_past_its_10_mib_cap_is_not_read(tmp_path: Path) -> None:
    # Copilot reads 10 MiB: a deny written after that is beyond what the vendor sees.
    data = progress_lines(OUTPUT_CAP + 1000).encode() + copilot_deny("too late").encode()
    outcome = await run_hook(tmp_path, "copilot", data)
    assert outcome.truncated and len(outcome.stdout.encode()) == OUTPUT_CAP
    assert dialect_for("copilot").decode("preToolUse", outcome).decision == "none"


async def test_copilot_two_objects_or_a_non_progress_line_are_no_output(tmp_path: Path) -> None:
    copilot = dialect_for("copilot")
    two = await run_hook(tmp_path, "copilot", (copilot_deny("one") + "\n" + copilot_deny("two")).encode())
    assert copilot.decode("preToolUse", two).decision == "none"
    chatter = await run_hook(tmp_path, "copilot", ("working...\n" + copilot_deny("x")).encode())
    assert copilot.decode("preToolUse", chatter).decision == "none"
    # CRLF line ends: JavaScript's trim takes the \r of each progress line.
    crlf = progress_lines(200).replace("\n", "\r\n") + copilot_deny("crlf") + "\r\n"
    answer = copilot.decode("preToolUse", await run_hook(tmp_path, "copilot", crlf.encode()))
    assert (answer.decision, answer.reason) == ("deny", "crlf")


# ── Codex is Rust: serde_json's rules, not JavaScript's ─────────────────────────────────────────

def codex_deny(reason: str, **extra: object) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                              "permissionDecisionReason": reason}, **extra})


async def test_codex_reads_stdout_as_serde_json_does(tmp_path: Path) -> None:
    codex = dialect_for("codex")

    async def decode(data: bytes) -> tuple[str, str | None]:
        answer = codex.decode("PreToolUse", await run_hook(tmp_path, "codex", data))
        return answer.decision, answer.failed

    # U+0085 is Unicode White_Space: Rust's trim removes it, the deny stands.
    assert (await decode(("\u0085" + codex_deny("nel")).encode()))[0] == "deny"
    # A BOM is no whitespace to Rust: the text does not start with '{', it is plain text, ignored.
    assert await decode(b"\xef\xbb\xbf" + codex_deny("bom").encode()) == ("none", None)
    # serde_json: a number past the double range fails the run (fail-open), so does depth 129.
    decision, failed = await decode(with_raw(codex_deny("big"), "n", "9" * 400).encode())
    assert decision == "none" and failed and "number out of range" in failed
    decision, failed = await decode(with_raw(codex_deny("deep"), "x", "[" * 128 + "]" * 128).encode())
    assert decision == "none" and failed and "recursion limit" in failed
    assert (await decode(with_raw(codex_deny("ok"), "x", "[" * 100 + "]" * 100).encode()))[0] == "deny"


# ── the JSON layer, edge by edge ─────────────────────────────────────────────────────────────────

def test_js_trim_is_string_prototype_trim() -> None:
    assert js_trim("\ufeff\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\t\v\f\r\n x \n") == "x"
    assert js_trim("\u0085x\u0085") == "\u0085x\u0085"  # NEL is no JavaScript whitespace
    assert js_trim("\u200bx") == "\u200bx"  # nor is a zero-width space (category Cf)
    assert js_trim("\x1cx") == "\x1cx"  # Python's str.strip() would take these
    assert rust_trim("\u0085x\u00a0") == "x" and rust_trim("\ufeffx") == "\ufeffx"


def test_js_lines_split_on_line_feed_only() -> None:
    assert js_lines("a\u2028b\u0085c\x1cd\re\nf") == ["a\u2028b\u0085c\x1cd\re", "f"]


def test_js_parse_numbers_are_doubles() -> None:
    assert js_parse("9" * 5000) == float("inf")
    assert js_parse("-" + "9" * 5000) == float("-inf")
    assert js_parse("12345678901234567890") == 12345678901234567168  # the nearest double
    assert js_parse("[1, 2.5, 1e2, 1e400]") == [1, 2.5, 100.0, float("inf")]
    for constant in ("NaN", "Infinity", "-Infinity", "[NaN]"):
        with pytest.raises(JsonTextError):
            js_parse(constant)


def test_js_parse_strings_and_structure() -> None:
    assert js_parse('"a\u2028b\u0085c"') == "a\u2028b\u0085c"  # raw separators are fine in strings
    assert js_parse('"\\ud800x"') == "\ud800x"  # a lone surrogate escape, as in JavaScript
    assert js_parse('{"a": 1, "a": 2}') == {"a": 2}
    assert js_parse(" \t\r\n{}\n") == {}
    deep = js_parse("[" * 200_000 + "]" * 200_000)  # V8 parses this; Python's parser refuses
    depth = 0
    while deep:
        deep, depth = deep[0], depth + 1
    assert depth == 199_999
    nested = js_parse('{"a": [' * 3000 + "1" + "]}" * 3000)
    assert isinstance(nested, dict)
    for bad in ('"\x01"', "\ufeff{}", "\u00a0{}", "{} {}", "[1,]", '{"a":1,}', "{'a': 1}", "01", "",
                "[" * 5000 + "]" * 4999, '{"a" 1}', "[1 2]", "tru", '"\\x41"', "\u2028{}"):
        with pytest.raises(JsonTextError):
            js_parse(bad)


def test_rust_parse_follows_serde_json() -> None:
    assert rust_parse("18446744073709551615") == 2**64 - 1
    assert rust_parse("18446744073709551616") == float(2**64)  # past u64: a double
    assert rust_parse('{"a": 1, "a": 2}') == {"a": 2}
    assert isinstance(rust_parse("[" * 128 + "]" * 128), list)
    for bad in ("[" * 129 + "]" * 129, "1e400", "9" * 400, "NaN", "\ufeff{}", "{} {}"):
        with pytest.raises(JsonTextError):
            rust_parse(bad)
