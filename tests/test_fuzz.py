"""Property tests: whatever a hook prints and a declaration holds, nothing unplanned raises.

* every dialect decodes any stdout/stderr text with any exit code (or none, with any cause) into a
  HookAnswer — the host must never see a parser's exception for a hook's output;
* every dialect merges any answers;
* ``declare_hook`` raises only CompatError subclasses, whatever it is given;
* every dialect's ``matches`` and ``validate_matcher`` take any matcher and any subject.

150 examples per property in the normal run; ``HYPOTHESIS_PROFILE=deep`` runs 6,000.
"""

from __future__ import annotations

import json
import math
import os
import string
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from compat_adapter.catalog import resolve_vendor, vendors
from compat_adapter.declare import declare_hook
from compat_adapter.dialects import dialect_for
from compat_adapter.dialects.base import HookAnswer, Moment
from compat_adapter.errors import CompatError
from compat_adapter.runtime.process import ProcessOutcome

VENDORS = tuple(s.id for s in vendors())
#: Examples per property: 150 in the normal run (CI), 6,000 with ``HYPOTHESIS_PROFILE=deep``.
settings.register_profile("ci", max_examples=150)
settings.register_profile("deep", max_examples=6000)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
SETTINGS = settings(settings.get_profile(PROFILE), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

#: (vendor, event) for every row of every vendor table.
EVENTS = [(v, row.event) for v in VENDORS for row in resolve_vendor(v).events]
ALL_EVENT_NAMES = sorted({e for _, e in EVENTS})

#: Output fields the dialects read, so random objects often say something that matters.
OUTPUT_KEYS = (
    "action", "additionalContext", "behavior", "content", "continue", "decision", "env", "args",
    "output", "throw", "status", "reply", "hookEventName", "hookSpecificOutput", "interrupt",
    "message", "modifiedArgs", "modifiedResponse", "modifiedResult", "modifiedTransformedPrompt",
    "permissionDecision", "permissionDecisionReason", "reason", "stopReason", "suppressOutput",
    "systemMessage", "updatedInput", "updatedMCPToolOutput", "type", "answers", "decisionReason",
    "updatedPermissions", "worktreePath", "path",
)
DECISION_WORDS = ("allow", "deny", "ask", "block", "approve", "accept", "decline", "cancel",
                  "once", "always", "reject", "progress", "", "ALLOW")

scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                    st.floats(allow_nan=False), st.text(max_size=20),
                    st.sampled_from(DECISION_WORDS))
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(OUTPUT_KEYS), st.text(max_size=8)), inner,
                        max_size=5),
    ),
    max_leaves=20,
)
json_objects = st.dictionaries(st.one_of(st.sampled_from(OUTPUT_KEYS), st.text(max_size=8)),
                               json_values, max_size=6)
# Deep nesting: valid JSON text that Python's parser refuses with RecursionError, not ValueError.
deep_json = st.integers(1_000, 60_000).flatmap(lambda n: st.sampled_from([
    "[" * n + "]" * n,
    '{"a":' * n + "1" + "}" * n,
    '{"hookSpecificOutput":' + "[" * n + "]" * n + "}",
]))
stdout_texts = st.one_of(
    st.text(max_size=200),
    json_objects.map(json.dumps),
    json_values.map(json.dumps),
    st.lists(json_objects.map(json.dumps), min_size=1, max_size=3).map("\n".join),
    st.tuples(st.text(max_size=20), json_objects.map(json.dumps)).map("\n".join),
    st.just('{"type": "progress"}\n{"permissionDecision": "deny"}'),
    deep_json,
)
causes = st.sampled_from(["timeout", "signal", "spawn-failed", "cancelled", None, "weird"])


@st.composite
def outcomes(draw: st.DrawFn) -> ProcessOutcome:
    exited = draw(st.booleans())
    code = draw(st.one_of(st.integers(-300, 300), st.integers())) if exited else None
    cause = draw(causes) if not exited else draw(st.sampled_from([None, None, "signal"]))
    timed_out = draw(st.booleans()) if draw(st.booleans()) else cause == "timeout"
    return ProcessOutcome(
        exit_code=code,
        stdout=draw(stdout_texts),
        stderr=draw(st.one_of(st.text(max_size=100), deep_json)),
        timed_out=timed_out,
        truncated=draw(st.booleans()),
        cause=cause,
        duration_ms=draw(st.floats(0, 1e6)),
        signal=draw(st.one_of(st.none(), st.integers(1, 64))),
    )


_DEEP = "[" * 5000 + "]" * 5000


@SETTINGS
@given(st.sampled_from(EVENTS), outcomes())
# Found by this test: valid JSON nested deeper than Python's parser allows (RecursionError).
@example(("copilot", "preToolUse"), ProcessOutcome(1, _DEEP, "", False, False, None, 1.0))
@example(("claude", "PreToolUse"), ProcessOutcome(0, '{"a":' * 5000 + "1" + "}" * 5000, "",
                                                  False, False, None, 1.0))
@example(("codex", "PreToolUse"), ProcessOutcome(0, _DEEP, "", False, False, None, 1.0))
@example(("opencode", "tool.execute.before"), ProcessOutcome(0, _DEEP, "", False, False, None,
                                                             1.0))
@example(("workbuddy", "PreToolUse"), ProcessOutcome(0, '{"a":' * 5000 + "1" + "}" * 5000, "",
                                                     False, False, None, 1.0))
def test_decode_never_raises(vendor_event: tuple[str, str], outcome: ProcessOutcome) -> None:
    vendor, event = vendor_event
    answer = dialect_for(vendor).decode(event, outcome)
    assert isinstance(answer, HookAnswer)


@pytest.mark.parametrize("stdout", [_DEEP, '{"a":' * 5000 + "1" + "}" * 5000], ids=["array", "object"])
def test_deep_json_never_raises_for_any_unit(stdout: str) -> None:
    # The examples above were each found for one vendor; a unit added later (Cline and Crush
    # parsed with json.loads, found by the deep profile) gets the same nesting on every event.
    # Every event with exit 0 (where stdout is read); exits 1 and 2 on each vendor's first event.
    firsts = {v: e for v, e in reversed(EVENTS)}
    cases = [(v, e, 0) for v, e in EVENTS] + [(v, e, c) for v, e in firsts.items() for c in (1, 2)]
    for vendor, event, code in cases:
        answer = dialect_for(vendor).decode(event, ProcessOutcome(code, stdout, "", False, False, None, 1.0))
        assert isinstance(answer, HookAnswer), (vendor, event, code)


text_or_none = st.one_of(st.none(), st.text(max_size=30))
answers = st.builds(
    HookAnswer,
    decision=st.sampled_from(["none", "allow", "deny", "ask", "block"]),
    reason=text_or_none,
    additional_context=st.lists(st.text(max_size=30), max_size=3).map(tuple),
    system_message=text_or_none,
    stop=st.booleans(),
    stop_reason=text_or_none,
    updated_input=st.one_of(st.none(), json_objects),
    updated_output=json_values,
    replacement_prompt=text_or_none,
    answers=st.one_of(st.none(), json_objects),
    env=st.dictionaries(st.text(max_size=10), st.text(max_size=10), max_size=3),
    failed=text_or_none,
    ignored=st.lists(st.text(max_size=10), max_size=3).map(tuple),
)


@SETTINGS
@given(st.sampled_from(EVENTS), st.lists(answers, max_size=6))
def test_merge_never_raises(vendor_event: tuple[str, str], given_answers: list[HookAnswer]) -> None:
    vendor, event = vendor_event
    merged = dialect_for(vendor).merge(event, given_answers)
    assert isinstance(merged, HookAnswer)


@SETTINGS
@given(st.sampled_from(EVENTS), st.lists(outcomes(), min_size=1, max_size=4))
def test_merge_of_decoded_answers_never_raises(vendor_event: tuple[str, str],
                                               runs: list[ProcessOutcome]) -> None:
    vendor, event = vendor_event
    dialect = dialect_for(vendor)
    merged = dialect.merge(event, [dialect.decode(event, o) for o in runs])
    assert isinstance(merged, HookAnswer)


# ── declarations ────────────────────────────────────────────────────────────────────────────────

VENDOR_NAMES = [n for spec in vendors() for n in (spec.id, *spec.aliases)]
HANDLER_KEYS = ("type", "command", "timeout", "timeoutSec", "bash", "powershell", "cwd", "env",
                "url", "statusMessage", "async", "once")
junk = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20),
    st.binary(max_size=8),
    st.lists(st.text(max_size=5), max_size=3), st.tuples(st.integers()),
    st.dictionaries(st.text(max_size=6), json_values, max_size=3),
    st.just(object()), st.just(float("nan")), st.just(float("inf")),
)
handler_values = st.one_of(
    junk, st.sampled_from(["command", "http", "prompt", "agent", "mcp_tool", "echo hi", " ", ""]),
    st.dictionaries(st.text(max_size=6), st.one_of(st.text(max_size=6), junk), max_size=3),
    st.lists(junk, max_size=2).map(lambda xs: {"k": xs}),  # a dict holding unhashable values
    st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=2).map(lambda d: [d]),
)
timeouts = st.one_of(junk, st.integers(-5, 10**6), st.floats(), st.just(10**400), st.just(-0.0),
                    st.sampled_from([float("nan"), float("inf"), float("-inf"), 0, True]))
handler_types = st.one_of(st.sampled_from(["command", "command", "http", "prompt", "agent",
                                           "mcp_tool", "Command", ""]), junk)
handlers = st.one_of(
    junk,
    st.text(max_size=40),
    st.just(lambda payload: None),
    st.dictionaries(st.one_of(st.sampled_from(HANDLER_KEYS), st.text(max_size=6)), handler_values,
                    max_size=6),
    # Shapes close to valid, so each field's check is reached with a bad value of its own.
    st.fixed_dictionaries({"command": st.one_of(st.text(min_size=1, max_size=20), junk)},
                          optional={"type": handler_types, "timeout": timeouts,
                                    "timeoutSec": timeouts, "env": handler_values,
                                    "cwd": junk, "bash": junk, "powershell": junk}),
)


def _check_declared(decl: Any) -> None:
    """A declaration that was accepted carries a usable timeout (or none)."""
    handler = decl.handler
    if handler is not None and handler.timeout_s is not None:
        assert math.isfinite(handler.timeout_s) and handler.timeout_s > 0, handler
matchers = st.one_of(
    st.none(), junk, st.text(max_size=30),
    st.text(alphabet=string.ascii_letters + "|*+?()[]{}^$.\\-_:,0123456789 ", max_size=25),
    st.sampled_from(["*", "**", "", "Bash", "Edit|Write", "mcp__.*", "[", "(", "a{2,1}",
                     "(?P<x", "\\"]),
)


@SETTINGS
@given(
    vendor=st.one_of(st.sampled_from(VENDOR_NAMES), junk),
    event=st.one_of(st.sampled_from(ALL_EVENT_NAMES), junk),
    matcher=matchers,
    handler=handlers,
    hook_id=st.one_of(st.none(), st.text(max_size=10), junk),
)
def test_declare_hook_raises_only_compat_errors(vendor: Any, event: Any, matcher: Any,
                                                handler: Any, hook_id: Any) -> None:
    try:
        decl = declare_hook(vendor, event, matcher, handler, id=hook_id)
    except CompatError:
        return
    _check_declared(decl)


@SETTINGS
@given(st.sampled_from(EVENTS), matchers, handlers)
# Found by this test; kept as fixed cases so they are checked on every run.
@example(("claude", "PreToolUse"), None, {"type": {}, "command": "true"})
@example(("copilot", "preToolUse"), None, {"type": ["command"], "bash": "true"})
@example(("claude", "PreToolUse"), None, {"command": "true", "timeout": 10**400})
@example(("codex", "PreToolUse"), None, {"command": "true", "timeout": float("nan")})
@example(("copilot", "preToolUse"), None, {"bash": "true", "timeoutSec": float("inf")})
def test_declare_hook_on_valid_events_raises_only_compat_errors(
        vendor_event: tuple[str, str], matcher: Any, handler: Any) -> None:
    # Valid vendor and event, so the handler and matcher checks are always reached.
    vendor, event = vendor_event
    try:
        decl = declare_hook(vendor, event, matcher, handler)
    except CompatError:
        return
    _check_declared(decl)


# ── matchers ────────────────────────────────────────────────────────────────────────────────────

regexish = st.text(alphabet=string.ascii_letters + "|*+?()[]{}^$.\\-_:,0123456789 ", max_size=25)


@SETTINGS
@given(st.sampled_from(EVENTS + [(v, "NoSuchEvent") for v in VENDORS]),
       st.one_of(st.none(), st.text(max_size=30), regexish,
                 st.sampled_from(["*", "**", "", "Bash", "Edit|Write", "mcp__.*", "[", "a{2,1}"])),
       st.one_of(st.none(), st.text(max_size=16),
                 st.sampled_from(["Bash", "bash", "Edit", "view"])))
def test_matchers_never_raise(vendor_event: tuple[str, str], matcher: str | None,
                              subject: str | None) -> None:
    vendor, event = vendor_event
    dialect = dialect_for(vendor)
    problem = dialect.validate_matcher(event, matcher)
    assert problem is None or isinstance(problem, str)
    assert isinstance(dialect.matches(event, matcher, subject), bool)


# ── payloads (host facts are JSON-ish: tool arguments and results come from the model) ─────────

FACT_KEYS = ("tool_name", "tool_input", "tool_use_id", "tool_response", "is_error", "prompt",
             "source", "agent_id", "agent_type", "stop_reason", "last_assistant_message", "error",
             "status", "trigger", "summary", "files", "worktree", "questions", "notification",
             "notification_type", "model", "file_path", "tool_calls", "timestamp", "reason",
             "message", "command", "answers", "action", "content", "previous_model", "patterns")


@SETTINGS
# Found by this test in a full run: a batch's tool_calls that is not a list.
@example(("claude", "PostToolBatch"), {"tool_name": "bash", "tool_calls": 1}, None)
# Found by CI: a prompt that is not a string, which Kimi wraps as a text part.
@example(("kimi", "UserPromptSubmit"), {"prompt": []}, None)
@given(st.sampled_from(EVENTS),
       st.dictionaries(st.sampled_from(FACT_KEYS),
                       st.one_of(json_values, st.sampled_from(["bash", "write", "edit", "read"])),
                       max_size=8),
       text_or_none)
def test_payload_subject_and_encode_never_raise(vendor_event: tuple[str, str],
                                                fields: dict[str, Any],
                                                transcript: str | None) -> None:
    vendor, event = vendor_event
    dialect = dialect_for(vendor)
    moment = Moment(event=event, session_id="s-1", cwd="/tmp", transcript_path=transcript,
                    turn=1, fields=fields)
    payload = dialect.payload(moment)
    assert isinstance(dialect.encode(payload), bytes)
    subject = dialect.subject(moment)
    assert subject is None or isinstance(subject, str)


def test_the_profile_sets_the_examples_per_property() -> None:
    # The normal run keeps CI short; the deep profile is the one a release is checked with.
    assert SETTINGS.max_examples == {"ci": 150, "deep": 6000}[PROFILE]
