"""Each lane vendor as a host (issue 38): its host face reads the stdin its own dialect writes back
into the same host call, and the answer it writes is read back by its own dialect (pinned to the
real CLI by the vendor lane) as the same decision and reason."""

from __future__ import annotations

import pytest

from compat_adapter.catalog import unit_of
from compat_adapter.dialects.base import HookAnswer, Moment
from compat_adapter.hostface import HostFace
from compat_adapter.port.plan import grade_port
from compat_adapter.runtime.outcome import ProcessOutcome
from compat_adapter.vocabulary import Capability

HOSTS = ("claude", "codex", "copilot", "opencode", "workbuddy", "gemini", "qwen")


def _decode(vendor: str, event: str, answer: HookAnswer) -> HookAnswer:
    face = unit_of(vendor).host
    assert face is not None
    reply = face.reply(event, answer)
    outcome = ProcessOutcome(exit_code=reply.exit_code, stdout=reply.stdout, stderr=reply.stderr, timed_out=False,
                             truncated=False, cause=None, duration_ms=1.0)
    return unit_of(vendor).dialect.decode(event, outcome)


@pytest.mark.parametrize("vendor", HOSTS)
def test_every_lane_vendor_declares_a_host_face_on_its_unit(vendor: str) -> None:
    face = unit_of(vendor).host
    assert isinstance(face, HostFace) and face.vendor == vendor
    assert "tools/pre-execute" in face.events and face.trust
    # Cursor has no CLI here to prove a port against: no face, said by the unit.
    assert unit_of("cursor").host is None


@pytest.mark.parametrize("vendor", HOSTS)
def test_a_pre_tool_deny_reads_back_as_the_same_deny_in_the_vendors_own_dialect(vendor: str) -> None:
    event = unit_of(vendor).host.events["tools/pre-execute"]  # type: ignore[union-attr]
    back = _decode(vendor, event, HookAnswer(decision="deny", reason="no recursive delete"))
    assert back.decision == "deny" and back.reason == "no recursive delete"
    # Nothing to say is an empty answer, never a decision.
    assert _decode(vendor, event, HookAnswer()).decision == "none"


@pytest.mark.parametrize("vendor", HOSTS)
def test_the_face_reads_the_stdin_its_own_dialect_sends_back_into_the_host_call(vendor: str) -> None:
    face = unit_of(vendor).host
    assert face is not None
    event = face.events["tools/pre-execute"]
    moment = Moment(event=event, session_id="s-1", cwd="/proj",
                    fields={"tool_name": "bash", "tool_input": {"command": "rm -rf build"}, "tool_use_id": "c1"})
    dialect = unit_of(vendor).dialect
    read = face.read(event, dialect.encode(dialect.payload(moment)), "/elsewhere")
    assert read.fields["tool_name"] == "bash"
    assert read.fields["tool_input"]["command"] == "rm -rf build"


@pytest.mark.parametrize("vendor", ("claude", "codex", "workbuddy", "qwen", "gemini"))
def test_a_stop_block_reads_back_as_a_block(vendor: str) -> None:
    event = unit_of(vendor).host.events["agent/turn-stopping"]  # type: ignore[union-attr]
    back = _decode(vendor, event, HookAnswer(decision="block", reason="keep going"))
    assert back.decision == "block" and back.reason == "keep going"


def test_grading_a_source_event_on_a_target_host_gives_the_four_levels_with_typed_losses() -> None:
    claude = unit_of("claude").spec
    pre = next(r for r in claude.events if r.event == "PreToolUse")
    stop = next(r for r in claude.events if r.event == "Stop")
    assert grade_port(pre, "claude", "claude").capability is Capability.DIRECT
    on_gemini = grade_port(pre, "claude", "gemini")
    assert on_gemini.capability is Capability.ADAPTED
    assert "payload-field-missing" in {str(d.code) for d in on_gemini.degradations}
    # OpenCode's plugin gate has no ask: a ported ask is read as a deny there.
    on_opencode = grade_port(pre, "claude", "opencode")
    assert "decision-narrowed" in {str(d.code) for d in on_opencode.degradations}
    # OpenCode has no hook that can keep a turn going: a Stop hook cannot be hosted there.
    refused = grade_port(stop, "claude", "opencode")
    assert refused.capability is Capability.UNSUPPORTED and "agent/turn-stopping" in (refused.reason or "")
    # Cursor has no host face: every event is UNSUPPORTED there, with the reason.
    assert grade_port(pre, "claude", "cursor").capability is Capability.UNSUPPORTED


def test_matrix_answers_per_vendor_host() -> None:
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "compat_adapter", "matrix", "--host", "opencode", "--vendor", "claude",
                           "--format", "json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["host"] == "opencode" and data["kind"] == "vendor-host"
    rows = {r["event"]: r for r in data["rows"]}
    assert rows["PreToolUse"]["capability"] == "ADAPTED"
    assert rows["Stop"]["capability"] == "UNSUPPORTED" and "opencode has no hook event" in rows["Stop"]["reason"]
    # A failure-only hook hosted by an event of every call: listed, not silent.
    failure = {d["code"] for d in rows["PostToolUseFailure"]["degradations"]}
    assert "approximate" in failure


@pytest.mark.parametrize("vendor", HOSTS)
def test_every_hosted_event_that_can_refuse_reads_a_refusal_back_as_one(vendor: str) -> None:
    """Each event a face hosts and whose row can refuse (a verdict or a forced continue): the face's
    refusal, read by the vendor's own dialect, refuses, with the reason."""
    from compat_adapter.port.shim import event_row

    face = unit_of(vendor).host
    assert face is not None
    checked = 0
    for point, event in face.events.items():
        row = event_row(vendor, event, plugin=False)  # OpenCode's chat.message: its plugin row
        if row.blocking not in ("verdict", "continue") or row.point != point:
            continue
        back = _decode(vendor, event, HookAnswer(decision="deny" if point in ("tools/pre-execute", "approval/request")
                                                 else "block", reason="refused here"))
        assert back.decision in ("deny", "block"), (vendor, event, back)
        assert "refused here" in (back.reason or ""), (vendor, event, back)
        checked += 1
    assert checked >= 1
