"""The wire's codec: wire JSON (host vocabulary) ↔ the contract's payloads and verdicts.

The peer sends seam events as plain JSON naming agents and sessions by id; decoding turns each
reference into the host's live proxy (:class:`Proxies`), so a listener gets handles it can act on.
Verdicts go back the other way, and the rest of a waterfall's verdict (``next``) comes back in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from compat_adapter.errors import ProtocolError
from compat_adapter.host.protocol import (
    AgentCreated,
    AgentError,
    AgentHandle,
    AgentStatus,
    ApprovalOutcome,
    ApprovalRequest,
    AskUserQuestionAnswer,
    InboxInserted,
    MessageSource,
    PostToolDecision,
    PreStepDecision,
    PreStepEvent,
    PreToolDecision,
    Question,
    QuestionAnswer,
    SessionCreated,
    SessionHandle,
    SettingsUpdated,
    SubagentEnd,
    SubagentStart,
    ToolExecution,
    ToolPostEvent,
    ToolResult,
    TurnStopping,
    UserMessage,
    UserQuestionsRequest,
)

__all__ = (
    "AgentGone",
    "Proxies",
    "decode_event",
    "decode_result",
    "decode_message",
    "decode_verdict",
    "encode_message",
    "encode_verdict",
    "plain",
)


class Proxies(Protocol):
    """What decoding needs from the host: the live proxy for an agent or session reference."""

    def agent_from(self, data: Mapping[str, Any]) -> AgentHandle: ...
    def session_from(self, data: Mapping[str, Any]) -> SessionHandle: ...


@dataclass(frozen=True, slots=True)
class AgentGone:
    """Payload of ``agent/disposed`` (DSH: ``{agent}``)."""

    agent: AgentHandle


def encode_message(message: UserMessage) -> dict[str, Any]:
    return {"id": message.id, "text": message.text, "role": message.role,
            "source": {"kind": message.source.kind, "name": message.source.name}}


def decode_message(data: Mapping[str, Any]) -> UserMessage:
    source = data.get("source") or {}
    return UserMessage(id=str(data.get("id", "")), text=str(data.get("text", "")),
                       source=MessageSource(str(source.get("kind", "user")), source.get("name")),
                       role=str(data.get("role") or "user"))


def _execution(host: Proxies, data: Mapping[str, Any]) -> ToolExecution:
    agent = data.get("agent")
    return ToolExecution(call_id=str(data.get("call_id", "")), name=str(data.get("name", "")),
                         arguments=dict(data.get("arguments") or {}),
                         agent=host.agent_from(agent) if agent else None)


def _last_assistant_text(session: SessionHandle) -> str | None:
    for event in reversed(session.events):
        if event.type == "assistant/message":
            message = event.data.get("message") or {}
            texts = [b.get("text", "") for b in message.get("content") or ()
                     if isinstance(b, Mapping) and b.get("type") == "text"]
            return "".join(texts) if texts else None
    return None


#: DSH's bash ends every result with this marker and reports a non-zero exit as a success.
_EXIT_MARKER = re.compile(r"\[exit code: (-?\d+)\]\s*$")


def failed(tool: str, result: Mapping[str, Any], text: str) -> bool:
    """Whether a tool call failed: the host's flag, or for bash the exit code in its result.

    rc.8's ``dsh-tool-bash`` returns ``isError: false`` for a command that exits non-zero and
    writes ``[exit code: N]`` at the end of the text; the vendors count such a command as a
    failed tool call (their failure hooks fire on it), so the exit code decides.
    """
    if result.get("is_error"):
        return True
    if tool != "bash":
        return False
    found = _EXIT_MARKER.search(text)
    return found is not None and int(found.group(1)) != 0


def decode_event(host: Proxies, seam: str, data: Mapping[str, Any]) -> Any:
    """The protocol payload for one seam event sent by the peer."""
    def agent(key: str = "agent") -> Any:
        return host.agent_from(data[key])

    if seam in ("tools/pre-execute", "tools/execute"):
        return _execution(host, data)
    if seam == "tools/post-execute":
        result = data.get("result") or {}
        execution = _execution(host, data.get("execution") or {})
        text = str(result.get("text", ""))
        return ToolPostEvent(execution, ToolResult(is_error=failed(execution.name, result, text),
                                                   text=text, value=result.get("value")))
    if seam == "agent/pre-step":
        return PreStepEvent(agent(), tuple(decode_message(m) for m in data.get("messages") or ()),
                            int(data.get("turn", 0)), int(data.get("step", 0)))
    if seam == "agent/turn-stopping":
        a = agent()
        last = data.get("last_assistant_message")
        return TurnStopping(a, int(data.get("turn", 0)),
                            last if last is not None else _last_assistant_text(a.session))
    if seam == "agent/created":
        return AgentCreated(agent(), data.get("source", "startup"))
    if seam == "agent/error":
        return AgentError(agent(), data.get("turn"), data.get("step"), str(data.get("error", "")))
    if seam == "agent/status":
        return AgentStatus(agent(), data.get("status", "idle"))
    if seam == "agent/disposed":
        return AgentGone(agent())
    if seam == "agent/inbox/inserted":
        return InboxInserted(agent(), decode_message(data.get("message") or {}))
    if seam == "subagent/start":
        if data.get("child"):
            host.agent_from(data["child"])
        return SubagentStart(run_id=str(data.get("run_id", "")), child_id=str(data.get("child_id", "")),
                             parent=agent("parent"), provider=str(data.get("provider", "local")),
                             local=bool(data.get("local", True)))
    if seam == "subagent/end":
        return SubagentEnd(run_id=str(data.get("run_id", "")), child_id=str(data.get("child_id", "")),
                           parent=agent("parent"), stop_reason=str(data.get("stop_reason", "")),
                           last_assistant_message=data.get("last_assistant_message"),
                           provider=str(data.get("provider", "local")), local=bool(data.get("local", True)))
    if seam == "approval/request":
        return ApprovalRequest(agent(), str(data.get("tool_name", "")), data.get("call_id"),
                               data.get("reason"))
    if seam == "user-questions/request":
        questions = tuple(Question(str(q.get("id")), str(q.get("question", "")),
                                   tuple(str(o) for o in q.get("options") or ()))
                          for q in data.get("questions") or ())
        return UserQuestionsRequest(questions, agent() if data.get("agent") else None)
    if seam == "settings/document-updated":
        return SettingsUpdated(str(data.get("namespace", "")), int(data.get("revision", 0)))
    if seam == "session/created":
        return SessionCreated(host.session_from(data["session"]))
    raise ProtocolError(f"no payload shape for seam {seam!r}")


def encode_verdict(seam: str, verdict: Any) -> Any:
    if verdict is None:
        return None
    if isinstance(verdict, PreToolDecision):
        return {"kind": verdict.kind, "reason": verdict.reason}
    if isinstance(verdict, PostToolDecision):
        return {"kind": verdict.kind, "feedback": verdict.feedback,
                "additional_contexts": [encode_message(m) for m in verdict.additional_contexts],
                "appended": verdict.appended}
    if isinstance(verdict, PreStepDecision):
        return {"kind": verdict.kind, "messages": [encode_message(m) for m in verdict.messages]}
    if isinstance(verdict, ApprovalOutcome):
        return verdict.value
    if isinstance(verdict, AskUserQuestionAnswer):
        return {"answers": [{"id": a.id, "selected": list(a.selected), "custom": a.custom}
                            for a in verdict.answers]}
    raise ProtocolError(f"a {seam} listener returned {type(verdict).__name__}, not a verdict")


def decode_result(tool: str, data: Any) -> ToolResult:
    """A tool result the peer sent (``tools/execute``'s downstream, a nested call's outcome)."""
    data = data if isinstance(data, Mapping) else {}
    text = str(data.get("text", ""))
    return ToolResult(is_error=failed(tool, data, text), text=text)


def decode_verdict(seam: str, data: Any) -> Any:
    if seam == "tools/pre-execute":
        return PreToolDecision(data.get("kind", "allow"), data.get("reason"))
    if seam == "tools/post-execute":
        return PostToolDecision(data.get("kind", "accept"), data.get("feedback"),
                                tuple(decode_message(m) for m in data.get("additional_contexts") or ()),
                                data.get("appended"))
    if seam == "agent/pre-step":
        return PreStepDecision(data.get("kind", "enter"),
                               tuple(decode_message(m) for m in data.get("messages") or ()))
    if seam == "approval/request":
        try:
            return ApprovalOutcome(data)
        except ValueError:
            return ApprovalOutcome.UNAVAILABLE
    if seam == "user-questions/request":
        return AskUserQuestionAnswer(tuple(QuestionAnswer(str(a.get("id")),
                                                          tuple(a.get("selected") or ()), a.get("custom"))
                                           for a in (data or {}).get("answers") or ()))
    return data


def plain(value: Any) -> Any:
    """Wire JSON for a log field or record: mappings, sequences and dataclasses become plain data,
    anything else its text."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [plain(v) for v in value]
    if hasattr(value, "__dataclass_fields__"):
        return {k: plain(getattr(value, k)) for k in value.__dataclass_fields__}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)
