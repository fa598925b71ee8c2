"""OpenCode-shaped ``{input, output}`` for each plugin hook, built from host moments. Pure.

Shapes follow what the real OpenCode 1.18.33 passed (vendor lane, ``samples/opencode/payloads``):
tool hooks get ``{tool, sessionID, callID}`` with ``{args}`` (OpenCode's lowercase tool ids and
argument names such as ``filePath``), ``tool.execute.after`` adds ``args`` and gets
``{title, output, metadata: {output, exit, truncated}}``, ``shell.env`` gets ``{cwd, sessionID,
callID}`` with ``{env}``, bus events are ``{type, properties}``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from compat_adapter.vendor import (
    AgentError,
    AgentStatus,
    ApprovalRequest,
    InboxInserted,
    SessionCreated,
    ToolExecution,
    ToolPostEvent,
    UserMessage,
)
from vendors.opencode.table import OPENCODE

__all__ = ("bus_events", "chat_message", "host_arguments", "permission", "shell_env", "text_parts", "tool_after",
           "tool_before", "vendor_arguments", "vendor_tool")

# Host tool name → OpenCode's tool id and argument names (the first vendor entry wins: the host's
# `edit` is OpenCode's `edit`, not `apply_patch`).
_TOOLS: dict[str, tuple[str, dict[str, str]]] = {}
for _tool in OPENCODE.tools:
    _TOOLS.setdefault(_tool.host, (_tool.vendor, {host: vendor for vendor, host in _tool.arguments}))


def vendor_tool(host_name: str) -> str:
    """OpenCode's id for a host tool; an unknown tool keeps its host name."""
    return _TOOLS.get(host_name, (host_name, {}))[0]


def vendor_arguments(host_name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    names = _TOOLS.get(host_name, ("", {}))[1]
    return {names.get(k, k): v for k, v in arguments.items()}


def host_arguments(host_name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    back = {v: k for k, v in _TOOLS.get(host_name, ("", {}))[1].items()}
    return {back.get(k, k): v for k, v in arguments.items()}


def _session_id(execution: ToolExecution) -> str:
    return execution.agent.session.id if execution.agent is not None else ""


def tool_before(execution: ToolExecution) -> tuple[dict[str, Any], dict[str, Any]]:
    return ({"tool": vendor_tool(execution.name), "sessionID": _session_id(execution),
             "callID": execution.call_id},
            {"args": vendor_arguments(execution.name, execution.arguments)})


def tool_after(event: ToolPostEvent) -> tuple[dict[str, Any], dict[str, Any]]:
    execution, result = event.execution, event.result
    args = vendor_arguments(execution.name, execution.arguments)
    value = result.value if isinstance(result.value, Mapping) else {}
    title = str(args.get("command") or args.get("filePath") or args.get("description") or execution.name)
    return ({"tool": vendor_tool(execution.name), "sessionID": _session_id(execution),
             "callID": execution.call_id, "args": args},
            {"title": title, "output": result.text,
             "metadata": {"output": result.text, "exit": value.get("exitCode"),
                          "truncated": False}})


def shell_env(execution: ToolExecution, cwd: str) -> tuple[dict[str, Any], dict[str, Any]]:
    return {"cwd": cwd, "sessionID": _session_id(execution), "callID": execution.call_id}, {"env": {}}


def chat_message(session_id: str, agent_id: str, prompts: Sequence[UserMessage]
                 ) -> tuple[dict[str, Any], dict[str, Any]]:
    message_id = prompts[0].id
    message = {"id": message_id, "role": "user", "sessionID": session_id,
               "time": {"created": int(time.time() * 1000)}, "agent": agent_id}
    parts = [{"type": "text", "text": m.text, "id": m.id, "messageID": message_id, "sessionID": session_id}
             for m in prompts]
    # The input names an agent or a message id only when the prompt asked for them; a typed prompt
    # names neither (OpenCode 1.18.33, vendor lane: ``opencode run`` sends ``{sessionID}`` alone).
    return {"sessionID": session_id}, {"message": message, "parts": parts}


def text_parts(output: Any) -> list[tuple[str, str]]:
    """(id, text) of every text part a ``chat.message`` hook left; parts without an id are dropped
    (OpenCode needs one to store the part, vendor lane)."""
    parts = output.get("parts") if isinstance(output, Mapping) else None
    out = []
    for part in parts if isinstance(parts, list) else ():
        if (isinstance(part, Mapping) and part.get("type") == "text" and isinstance(part.get("text"), str)
                and isinstance(part.get("id"), str) and part.get("id")):
            out.append((str(part["id"]), str(part["text"])))
    return out


def permission(request: ApprovalRequest) -> tuple[dict[str, Any], dict[str, Any]]:
    """OpenCode's Permission object for an approval the host asks for."""
    return ({"id": request.call_id or "", "type": vendor_tool(request.tool_name),
             "permission": vendor_tool(request.tool_name), "pattern": None,
             "sessionID": request.agent.session.id, "messageID": "", "callID": request.call_id,
             "title": request.reason or request.tool_name, "metadata": {},
             "time": {"created": int(time.time() * 1000)}},
            {"status": "ask"})


def bus_events(moment: Any) -> list[dict[str, Any]]:
    """The OpenCode bus events a host moment stands for, in OpenCode's order."""
    one = _bus_event(moment)
    if one is not None and one["type"] == "session.idle":
        # OpenCode publishes the status change, then the idle notice.
        sid = one["properties"]["sessionID"]
        return [{"type": "session.status", "properties": {"sessionID": sid, "status": {"type": "idle"}}}, one]
    return [one] if one is not None else []


def _bus_event(moment: Any) -> dict[str, Any] | None:
    if isinstance(moment, SessionCreated):
        session = moment.session
        return {"type": "session.created",
                "properties": {"sessionID": session.id,
                               "info": {"id": session.id, "directory": str(session.cwd)}}}
    if isinstance(moment, AgentStatus):
        sid = moment.agent.session.id
        if moment.status == "idle":
            return {"type": "session.idle", "properties": {"sessionID": sid}}
        return {"type": "session.status", "properties": {"sessionID": sid, "status": {"type": "busy"}}}
    if isinstance(moment, AgentError):
        return {"type": "session.error",
                "properties": {"sessionID": moment.agent.session.id,
                               "error": {"name": "UnknownError", "data": {"message": moment.error}}}}
    if isinstance(moment, InboxInserted):
        return {"type": "message.updated",
                "properties": {"sessionID": moment.agent.session.id,
                               "info": {"id": moment.message.id, "role": "user",
                                        "sessionID": moment.agent.session.id}}}
    return None
