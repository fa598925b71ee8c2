"""The scripted model's vocabulary: what one scripted agent "says" at each model request.

A script is a sequence of items consumed in order across the agent's turns. At every model request
the loop takes items until it reaches an answer:

* :class:`Reply` — assistant text and/or tool calls (the answer of one step);
* :class:`Subagent` — shorthand for a reply whose one tool call runs an in-process child;
* :class:`Error` — the model call fails (the step ends, ``agent/error``, the turn ends ``error``);
* directives, performed at that request before the answer: :class:`SwitchModel` (the request's
  ``request/header`` says ``change``), :class:`Compact` (a compaction, then a ``compact`` start),
  :class:`RunCommand` (a ``command/run`` + ``command/done`` pair).

When the script runs out the model answers ``(script exhausted)`` with no tool calls, so a turn
always ends. Scripts also have a JSON form (a list of objects) for files and the CLI:
:func:`script_from_json` reads it and :func:`script_to_json` writes it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeAlias

from compat_adapter.errors import ScriptError

__all__ = (
    "EXHAUSTED_TEXT",
    "Compact",
    "Error",
    "Reply",
    "RunCommand",
    "Script",
    "ScriptItem",
    "Subagent",
    "SwitchModel",
    "ToolCall",
    "call",
    "normalize_script",
    "script_from_json",
    "script_to_json",
)

#: What the scripted model says once its script is used up.
EXHAUSTED_TEXT = "(script exhausted)"


def _json_copy(value: Any, what: str) -> Any:
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError) as exc:
        raise ScriptError(f"{what} must be JSON data: {exc}") from exc


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call the model makes. ``arguments`` are JSON data, copied on construction."""

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    #: Fixed call id; ``None`` lets the host number it (``call-<n>``).
    call_id: str | None = None

    def __post_init__(self) -> None:
        args = _json_copy(dict(self.arguments), f"arguments of tool call {self.name!r}")
        object.__setattr__(self, "arguments", MappingProxyType(args))

    def plain_arguments(self) -> dict[str, Any]:
        """A fresh, mutable deep copy: what a tool body or a listener may safely hold."""
        return json.loads(json.dumps(dict(self.arguments)))


def call(name: str, /, call_id: str | None = None, **arguments: Any) -> ToolCall:
    """``call("bash", command="ls")`` — a tool call with keyword arguments."""
    return ToolCall(name, arguments, call_id)


@dataclass(frozen=True, slots=True)
class Subagent:
    """Delegate to an in-process child agent that follows ``script``; a tool call (``subagent``)."""

    script: tuple[ScriptItem, ...] = ()
    prompt: str | None = None
    #: Assistant text said alongside the call when this item stands alone in a script.
    text: str | None = None
    call_id: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "script", normalize_script(self.script))

    def as_call(self) -> ToolCall:
        arguments: dict[str, Any] = {"script": script_to_json(self.script)}
        if self.prompt is not None:
            arguments["prompt"] = self.prompt
        return ToolCall("subagent", arguments, self.call_id)


@dataclass(frozen=True, slots=True)
class Reply:
    """The model's answer for one step: text, tool calls, or both (no calls: it stops)."""

    text: str | None = None
    calls: tuple[ToolCall, ...] = ()

    def __post_init__(self) -> None:
        calls = tuple(c.as_call() if isinstance(c, Subagent) else c for c in self.calls)
        for c in calls:
            if not isinstance(c, ToolCall):
                raise ScriptError(f"a reply's calls must be ToolCall or Subagent, not {c!r}")
        object.__setattr__(self, "calls", calls)


@dataclass(frozen=True, slots=True)
class Error:
    """The model request fails with this message."""

    message: str


@dataclass(frozen=True, slots=True)
class SwitchModel:
    """From this request on the agent uses ``model`` (``provider/model``)."""

    model: str


@dataclass(frozen=True, slots=True)
class Compact:
    """Compact the conversation here, then start the agent again with source ``compact``."""

    summary: str = "Summary of the conversation so far."


@dataclass(frozen=True, slots=True)
class RunCommand:
    """The user ran a slash command (``compact`` also compacts, ``clear`` restarts as ``clear``)."""

    name: str
    args: str | None = None


ScriptItem: TypeAlias = "Reply | Subagent | Error | SwitchModel | Compact | RunCommand"
Script: TypeAlias = "Sequence[ScriptItem | ToolCall | str | Mapping[str, Any]]"

_ITEM_TYPES = (Reply, Subagent, Error, SwitchModel, Compact, RunCommand)


def normalize_script(items: Script | None) -> tuple[ScriptItem, ...]:
    """Items as a tuple; a ``str`` is a text reply, a bare :class:`ToolCall` a one-call reply and a
    mapping is read as the JSON form."""
    if items is None:
        return ()
    if isinstance(items, (str, bytes, Mapping)):
        raise ScriptError("a script is a sequence of items, not a single value")
    out: list[ScriptItem] = []
    for item in items:
        if isinstance(item, _ITEM_TYPES):
            out.append(item)
        elif isinstance(item, str):
            out.append(Reply(text=item))
        elif isinstance(item, ToolCall):
            out.append(Reply(calls=(item,)))
        elif isinstance(item, Mapping):
            out.append(_item_from_json(item))
        else:
            raise ScriptError(f"not a script item: {item!r}")
    return tuple(out)


# ── JSON form ───────────────────────────────────────────────────────────────────────────────────

def script_from_json(data: Any) -> tuple[ScriptItem, ...]:
    """Read the JSON form: a list whose items are a string (text reply) or one of
    ``{"text", "tools": [{"name", "arguments", "id"?}]}``, ``{"error"}``, ``{"switch_model"}``,
    ``{"compact": true | summary}``, ``{"command", "args"?}``,
    ``{"subagent": {"prompt"?, "script"}, "text"?}``."""
    if not isinstance(data, list):
        raise ScriptError("a session script is a JSON list of steps")
    return normalize_script(data)


def _item_from_json(item: Mapping[str, Any]) -> ScriptItem:
    keys = set(item)
    if "error" in keys:
        return Error(str(item["error"]))
    if "switch_model" in keys:
        return SwitchModel(str(item["switch_model"]))
    if "compact" in keys:
        summary = item["compact"]
        return Compact(summary) if isinstance(summary, str) else Compact()
    if "command" in keys:
        args = item.get("args")
        return RunCommand(str(item["command"]), None if args is None else str(args))
    if "subagent" in keys:
        spec = item["subagent"]
        if not isinstance(spec, Mapping):
            raise ScriptError("`subagent` must be an object with `script` and optional `prompt`")
        return Subagent(script_from_json(spec.get("script", [])), spec.get("prompt"),
                        item.get("text"), spec.get("id"))
    if keys <= {"text", "tools"}:
        tools = item.get("tools", [])
        if not isinstance(tools, list):
            raise ScriptError("`tools` must be a list of {name, arguments}")
        calls = []
        for tool in tools:
            if not isinstance(tool, Mapping) or not isinstance(tool.get("name"), str):
                raise ScriptError(f"a tool call needs a string `name`: {tool!r}")
            if tool["name"] == "subagent" and "script" in tool.get("arguments", {}):
                # Keep the child script checked now rather than at run time.
                script_from_json(tool["arguments"]["script"])
            calls.append(ToolCall(tool["name"], tool.get("arguments", {}), tool.get("id")))
        return Reply(item.get("text"), tuple(calls))
    raise ScriptError(f"unknown script step {dict(item)!r}")


def script_to_json(items: Sequence[ScriptItem]) -> list[Any]:
    """The JSON form of normalised items (the inverse of :func:`script_from_json`)."""
    out: list[Any] = []
    for item in items:
        if isinstance(item, Reply):
            entry: dict[str, Any] = {}
            if item.text is not None:
                entry["text"] = item.text
            if item.calls:
                entry["tools"] = [_call_json(c) for c in item.calls]
            out.append(entry)
        elif isinstance(item, Subagent):
            spec: dict[str, Any] = {"script": script_to_json(item.script)}
            if item.prompt is not None:
                spec["prompt"] = item.prompt
            if item.call_id is not None:
                spec["id"] = item.call_id
            out.append({"subagent": spec, **({"text": item.text} if item.text is not None else {})})
        elif isinstance(item, Error):
            out.append({"error": item.message})
        elif isinstance(item, SwitchModel):
            out.append({"switch_model": item.model})
        elif isinstance(item, Compact):
            out.append({"compact": item.summary})
        elif isinstance(item, RunCommand):
            entry = {"command": item.name}
            if item.args is not None:
                entry["args"] = item.args
            out.append(entry)
        else:
            raise ScriptError(f"not a script item: {item!r}")
    return out


def _call_json(c: ToolCall) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": c.name, "arguments": c.plain_arguments()}
    if c.call_id is not None:
        entry["id"] = c.call_id
    return entry
