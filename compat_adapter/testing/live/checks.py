"""What the live checks assert: answers in each vendor's dialect, the payload a hook received,
and what an observe-only run must (not) do."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from compat_adapter.runtime.outcome import ProcessOutcome
from compat_adapter.testing.live.harness import (
    CONTEXT,
    Exited,
    REASON,
    Session,
    bash_reply,
    user_messages,
)
from compat_adapter.testing.live.speakers import speaker_for, specific

if TYPE_CHECKING:
    from compat_adapter.host.embedded.agent import MemoryAgent
    from compat_adapter.host.embedded.loop import TurnResult

__all__ = ("allow_permission_answer", "ask_answer", "block_answer", "check_observed", "check_payload",
           "context_answer", "decodes_blocking", "denied_shell_turn", "deny_answer", "loads_or_none", "observe_answer", "specific")

_BLOCKING = frozenset({"deny", "block", "ask"})


async def denied_shell_turn(s: Session) -> tuple[MemoryAgent, TurnResult]:
    """Register the row's hook answering a deny, run one turn whose model asks for a shell command
    that would create ``denied.txt``, and check the hook's payload: the turn and its agent, for the
    caller to judge what the refusal did (the turn goes on, or ends, by the vendor's word)."""
    s.probe.answer(deny_answer(s.vendor, s.event))
    await s.register()
    agent = await s.host.create_agent(script=[bash_reply("touch denied.txt"), "done"])
    result = await agent.run_turn("create the file")
    await s.host.settle()
    check_payload(s)
    return agent, result


# Each vendor's answers are its unit's live speaker's (compat_adapter.testing.live.speakers).
def deny_answer(vendor: str, event: str) -> dict[str, Any]:
    """A pre-tool deny with :data:`REASON`."""
    return speaker_for(vendor).deny(event)


def ask_answer(vendor: str, event: str) -> dict[str, Any]:
    return speaker_for(vendor).ask(event)


def context_answer(vendor: str, event: str) -> dict[str, Any]:
    return speaker_for(vendor).context(event)


def block_answer(vendor: str, event: str, reason: str = REASON) -> dict[str, Any]:
    """A top-level block (UserPromptSubmit, PostToolUse, Stop, agentStop …)."""
    return speaker_for(vendor).block(event, reason)


def allow_permission_answer(vendor: str, event: str) -> dict[str, Any]:
    return speaker_for(vendor).allow_permission(event)


def observe_answer(vendor: str, event: str) -> dict[str, Any]:
    """The most blocking answer the vendor can give on an event, with context: an observe-only
    row must neither block on it nor put the context in front of the model."""
    return speaker_for(vendor).observe(event)


def decodes_blocking(s: Session, out: Mapping[str, Any], code: int = 0, err: str = "") -> bool:
    """Whether the vendor's own reading of this answer would block something."""
    from compat_adapter.dialects import dialect_for

    outcome = ProcessOutcome(exit_code=code, stdout=json.dumps(out), stderr=err, timed_out=False,
                             truncated=False, cause=None, duration_ms=0.0)
    answer = dialect_for(s.vendor).decode(s.event, outcome)
    return answer.decision in _BLOCKING or answer.stop


# ── payload checks ──────────────────────────────────────────────────────────────────────────────

def check_payload(s: Session, *, tool: str | None = "bash", at_least: int = 1) -> Any:
    """Check that the hook ran and that its stdin is in the vendor's dialect; returns the first."""
    from compat_adapter.dialects import dialect_for
    from compat_adapter.host.embedded.bridges import PACKAGES

    raw = s.probe.raw()
    if not s.expect(len(raw) >= at_least, f"the hook ran {len(raw)} time(s), expected ≥{at_least}"):
        return None
    data = raw[0]
    payloads = s.probe.payloads()
    payload = payloads[0]
    if not s.expect(isinstance(payload, dict), f"the payload is not a JSON object: {data[:200]!r}"):
        return None
    # The framing is the dialect's own: the vendor's, or the host bridge's on an official row.
    bridge = PACKAGES[s.spec.bridge_package] if s.official and s.spec.bridge_package else None
    newline = bridge.trailing_newline if bridge is not None else dialect_for(s.vendor).trailing_newline
    ends = data.endswith(b"\n")
    s.expect(ends == newline, f"stdin framing: trailing newline {ends}, expected {newline}")
    speaker_for(s.vendor).check_payload(s, payload, tool)
    return payload


def loads_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def check_observed(s: Session, answer: Mapping[str, Any] | Exited, code: int = 0, err: str = "") -> None:
    """An observe-only run: audited, a blocking answer marked as not honoured, no context shown."""
    if isinstance(answer, Exited):
        code, err = answer.code, answer.err
        answer = {}
    shown = [m for session in s.host.sessions for m in user_messages(session) if CONTEXT in m["text"]]
    s.expect(not shown, f"an observe-only hook put its context in front of the model: {shown[:1]}",
             "context not injected")
    if s.official:
        # The host's bridge owns these runs; the adapter's audit never sees them.
        s.proved.append("run owned by the host's bridge (not in the adapter audit)")
        return
    records = s.audit()
    if not s.expect(records, "no audit record for the hook"):
        return
    blocking = decodes_blocking(s, answer, code, err)
    wrong = [r for r in records if r.honoured == blocking]
    first = wrong[0] if wrong else None
    if blocking:
        s.expect(not wrong, f"a blocking answer was audited as honoured: {first}",
                 "blocking answer audited honoured=False")
    else:
        s.expect(not wrong, f"a non-blocking answer was audited as not honoured: {first}",
                 "answer audited (the vendor cannot block here)")


# ── drivers ─────────────────────────────────────────────────────────────────────────────────────
