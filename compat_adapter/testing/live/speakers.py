"""How the live checks speak one vendor's hook language, and what they expect in its payloads.

Each vendor's :class:`Speaker` is part of its unit's test support (``LIVE`` in the module its unit
names as ``lane``, ``vendors/<id>/lane.py``); :func:`speaker_for` finds it. The base says what every
vendor shares; :class:`ClaudeShapedSpeaker` is the Claude-shaped protocol (``hookSpecificOutput``
answers, snake_case payloads) that Claude-like vendors subclass.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from compat_adapter.testing.live.harness import CONTEXT, REASON

if TYPE_CHECKING:
    from compat_adapter.testing.live.harness import Session

__all__ = ("TOOL_EVENTS", "ClaudeShapedSpeaker", "Speaker", "speaker_for", "specific")

#: Tool events, in every vendor's spelling the tables use.
TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest",
                         "PermissionDenied", "preToolUse", "postToolUse", "postToolUseFailure",
                         "permissionRequest"})


def specific(event: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, **fields}}


@dataclass(frozen=True, slots=True)
class Speaker:
    """One vendor's answers (each carrying the harness's :data:`REASON` or :data:`CONTEXT`) and
    payload expectations. Methods a vendor has no words for raise; checks it has none of pass."""

    vendor: str
    ask_honoured: bool
    """Whether its ``ask`` answer on a pre-tool seam goes to the host's approval."""

    def honours_ask(self, event: str) -> bool:
        """Whether its ``ask`` answer on the pre-tool event ``event`` goes to the host's approval
        (:attr:`ask_honoured` unless the vendor reads ask on some events only)."""
        return self.ask_honoured

    def halts(self, event: str) -> bool:
        """Whether the vendor's only refusal on the pre-tool event ``event`` ends the whole run (its
        :meth:`deny` stops the agent) rather than refusing the one call."""
        return False

    def deny(self, event: str) -> dict[str, Any]:
        """A pre-tool deny."""
        raise NotImplementedError(self.vendor)

    def ask(self, event: str) -> dict[str, Any]:
        raise NotImplementedError(self.vendor)

    def context(self, event: str) -> dict[str, Any]:
        raise NotImplementedError(self.vendor)

    def block(self, event: str, reason: str = REASON) -> dict[str, Any]:
        """A top-level block (UserPromptSubmit, PostToolUse, Stop, agentStop …)."""
        return {"decision": "block", "reason": reason}

    def allow_permission(self, event: str) -> dict[str, Any]:
        raise NotImplementedError(self.vendor)

    def deny_permission(self, event: str) -> dict[str, Any]:
        raise NotImplementedError(self.vendor)

    def observe(self, event: str) -> dict[str, Any]:
        """The most blocking answer the vendor can give on an event, with context: an observe-only
        row must neither block on it nor put the context in front of the model."""
        raise NotImplementedError(self.vendor)

    def replace_prompt(self, event: str, text: str) -> dict[str, Any]:
        """The answer that replaces the prompt the model reads with ``text`` (a transform row)."""
        raise NotImplementedError(self.vendor)

    def tool_name(self, s: Session, tool: str) -> str:
        """The name its payloads give the host's tool ``tool`` (Claude's names unless it says)."""
        return {"bash": "Bash"}.get(tool, tool)

    def check_payload(self, s: Session, payload: Mapping[str, Any], tool: str | None) -> None:
        """What the vendor's own payload must carry (the framing is checked by the caller)."""

    def check_post_tool(self, s: Session, payload: Mapping[str, Any]) -> None:
        """A post-tool payload's own fields."""

    def check_prompt(self, s: Session, payload: Mapping[str, Any], prompt: str) -> None:
        """A prompt event's payload."""

    def session_source(self, s: Session) -> str | None:
        """The ``source`` a session-start payload names for a fresh session; None: no such field."""
        return None

    def check_compaction(self, s: Session, payload: Mapping[str, Any]) -> None:
        """A compaction event's payload."""

    def check_stop_rerun(self, s: Session, first: Mapping[str, Any], second: Mapping[str, Any]) -> None:
        """The payloads of a stop hook's first run and of its run after its block: the second says so."""
        s.expect(first.get("stop_hook_active") is False and second.get("stop_hook_active") is True,
                 f"stop_hook_active is not false then true: {[first, second]}", "stop_hook_active false then true")

    def check_session_created(self, s: Session, payload: Mapping[str, Any]) -> None:
        """The payload of an event fired when a session is created (instructions loaded …)."""

    def check_display(self, s: Session, payload: Mapping[str, Any], text: str) -> None:
        """A display payload of one whole assistant message ``text``."""
        s.expect(payload.get("delta") == text and payload.get("final") is True,
                 f"the displayed text is not the message: {payload}", "message text as the final delta")

    def check_todo(self, s: Session, payload: Mapping[str, Any], subject: str) -> None:
        """A todo event's payload for the item ``subject``."""
        s.expect(payload.get("task_subject") == subject, f"task_subject missing: {payload}",
                 "task_subject in payload")

    def approval_tool(self) -> str | None:
        """The tool an approval payload names (None: it names none)."""
        return "bash"

    def check_denial(self, s: Session, payload: Mapping[str, Any]) -> None:
        """A denied approval's payload: it says why."""
        s.expect(payload.get("reason"), f"the denial has no reason: {payload}", "denial reason in payload")


@dataclass(frozen=True, slots=True)
class ClaudeShapedSpeaker(Speaker):
    """Claude's protocol: ``hookSpecificOutput`` answers, ``hook_event_name``/``session_id``/``cwd``
    payloads with Claude's tool names."""

    session_fields: bool = False
    """Whether its session-creation events carry their own field (InstructionsLoaded ``file_path`` …)."""

    def deny(self, event: str) -> dict[str, Any]:
        return specific(event, permissionDecision="deny", permissionDecisionReason=REASON)

    def ask(self, event: str) -> dict[str, Any]:
        return specific(event, permissionDecision="ask", permissionDecisionReason=REASON)

    def context(self, event: str) -> dict[str, Any]:
        return specific(event, additionalContext=CONTEXT)

    def allow_permission(self, event: str) -> dict[str, Any]:
        return specific(event, decision={"behavior": "allow"})

    def deny_permission(self, event: str) -> dict[str, Any]:
        return specific(event, decision={"behavior": "deny", "message": REASON})

    def observe(self, event: str) -> dict[str, Any]:
        return {"decision": "block", "reason": REASON, "continue": False, "stopReason": REASON,
                **specific(event, additionalContext=CONTEXT)}

    def sends(self, s: Session, event: str) -> tuple[bool, bool]:
        """Whether its payload of ``event`` carries ``session_id`` and ``cwd``."""
        return True, True

    def check_payload(self, s: Session, payload: Mapping[str, Any], tool: str | None) -> None:
        e = s.event
        session_id, cwd = self.sends(s, e)
        s.expect(payload.get("hook_event_name") == e and ("session_id" in payload) == session_id
                 and ("cwd" in payload) == cwd,
                 f"payload lacks hook_event_name={e!r}/session_id/cwd: {sorted(payload)}",
                 f"payload hook_event_name={e}")
        self.check_own(s, payload)
        if e in TOOL_EVENTS and tool is not None:
            want = tool if s.official else self.tool_name(s, tool)
            s.expect(payload.get("tool_name") == want and isinstance(payload.get("tool_input"), dict),
                     f"tool_name {payload.get('tool_name')!r}, expected {want!r} and an input object",
                     f"tool_name={want}")

    def check_own(self, s: Session, payload: Mapping[str, Any]) -> None:
        """The vendor's own payload fields besides Claude's envelope."""

    def check_prompt(self, s: Session, payload: Mapping[str, Any], prompt: str) -> None:
        s.expect(payload.get("prompt") == prompt, f"prompt not in payload: {payload}")

    def session_source(self, s: Session) -> str | None:
        return "startup"

    def check_session_created(self, s: Session, payload: Mapping[str, Any]) -> None:
        if not self.session_fields:
            return
        want = {"InstructionsLoaded": ("file_path", str(s.root / "CLAUDE.md")),
                "CwdChanged": ("new_cwd", str(s.root)), "DirectoryAdded": ("path", str(s.root)),
                "Setup": ("trigger", "init")}.get(s.event)
        if want is not None:
            key, value = want
            s.expect(payload.get(key) == value, f"{key} is {payload.get(key)!r}, expected {value!r}",
                     f"{key} in payload")


def speaker_for(vendor: str) -> Speaker:
    """The live speaker of a vendor id or alias: ``LIVE`` in the test-support module its unit names."""
    from compat_adapter.catalog import unit_of

    unit = unit_of(vendor)
    if unit.lane is None:
        raise ValueError(f"{unit.spec.id} has no test-support module (its unit's lane is None)")
    speaker = getattr(importlib.import_module(unit.lane.partition(":")[0]), "LIVE", None)
    if not isinstance(speaker, Speaker) or speaker.vendor != unit.spec.id:
        raise TypeError(f"{unit.lane.partition(':')[0]}.LIVE is not the live speaker of {unit.spec.id}")
    return speaker
