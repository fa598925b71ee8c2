"""A vendor's host face: its hook stdin in, a host's answer out, in that vendor's own dialect.

A unit's dialect goes one way (a host moment → the vendor's payload; the vendor hook's output → a
neutral :class:`~compat_adapter.dialects.base.HookAnswer`). The host face goes the other way: the
vendor CLI is the host, it sends ITS payload to a hook written for another vendor (through the
``shim`` that ``port`` writes), and the answer must come back as that CLI reads a hook's answer.

Here is the protocol every face follows and the pieces most of them share; each unit declares its
own face (``vendors/<id>/hostface.py``, the unit's ``host`` part), so no shared module asks which
vendor it is serving. A face's answer is checked by the unit's own dialect: what the face writes,
the dialect (pinned by the vendor lane against the real CLI) must read back as the same answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from compat_adapter.dialects.base import HookAnswer, Moment
from compat_adapter.hostproto import EntrySpec, HostFace, Reply
from compat_adapter.model import Degradation

__all__ = ("SHIM_MARK", "EntrySpec", "HostFace", "ReadKeys", "Reply", "TableFace", "claude_reply", "json_reply", "parse_stdin", "read_fields",
           "render_hooks_json", "strip_hooks_json")

#: What marks a handler this project wrote into a team's file (its command runs the shim).
SHIM_MARK = " shim --to "


# ── reading a vendor's stdin ─────────────────────────────────────────────────────────────────────

@dataclass(frozen=True, slots=True)
class ReadKeys:
    """Where one vendor's stdin keeps each fact (the first key present wins)."""

    session: tuple[str, ...] = ("session_id",)
    cwd: tuple[str, ...] = ("cwd",)
    transcript: tuple[str, ...] = ("transcript_path",)
    tool: tuple[str, ...] = ("tool_name",)
    tool_input: tuple[str, ...] = ("tool_input",)
    #: The tool's arguments arrive as a JSON string (Copilot's ``toolArgs``).
    input_as_text: bool = False
    prompt: tuple[str, ...] = ("prompt",)
    #: Keys that are framing, not facts (never copied into the moment's fields).
    framing: tuple[str, ...] = ("hook_event_name", "session_id", "cwd", "transcript_path", "tool_name",
                                "tool_input", "prompt")


def _first(obj: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    return next((obj[k] for k in keys if k in obj), None)


def read_fields(vendor: str, keys: ReadKeys, obj: Mapping[str, Any]) -> dict[str, Any]:
    """The moment's fields (host vocabulary) of a vendor's stdin object: its tool call translated
    by the vendor's own tool table, every other fact under its own name."""
    from compat_adapter.dialects.common import host_call

    fields = {k: v for k, v in obj.items() if k not in keys.framing}
    tool, raw = _first(obj, keys.tool), _first(obj, keys.tool_input)
    if keys.input_as_text and isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raw = {"value": raw}
    if isinstance(tool, str) and tool:
        name, args = host_call(vendor, tool, dict(raw) if isinstance(raw, Mapping) else {})
        fields.update(tool_name=name or tool, tool_input=args)
        fields.setdefault("tool_use_id", obj.get("tool_use_id") or obj.get("toolUseId") or "port-call")
    prompt = _first(obj, keys.prompt)
    if isinstance(prompt, str):
        fields["prompt"] = prompt
    return fields


def parse_stdin(vendor: str, stdin: bytes) -> Mapping[str, Any]:
    """The stdin object; a clear error when the vendor sent something else."""
    from compat_adapter.errors import ProtocolError

    try:
        obj = json.loads(stdin.decode("utf-8") or "{}")
    except (UnicodeDecodeError, ValueError) as exc:
        raise ProtocolError(f"{vendor} sent its hook stdin that is not JSON: {exc}", vendor=vendor) from exc
    if not isinstance(obj, dict):
        raise ProtocolError(f"{vendor} sent a hook stdin that is not a JSON object", vendor=vendor)
    return obj


# ── answering in a vendor's words ────────────────────────────────────────────────────────────────

def json_reply(obj: Mapping[str, Any]) -> Reply:
    return Reply(stdout=json.dumps(obj, ensure_ascii=False) if obj else "")


def _common(answer: HookAnswer) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if answer.stop:
        out.update({"continue": False, "stopReason": answer.stop_reason or answer.reason or "stopped by a hook"})
    if answer.system_message:
        out["systemMessage"] = answer.system_message
    return out


def _context(answer: HookAnswer) -> str | None:
    return "\n".join(answer.additional_context) or None


def claude_reply(event: str, kind: str, answer: HookAnswer, *, decision_key: bool = True) -> Reply:
    """Claude's answer shape (Claude Code, Codex, CodeBuddy and Qwen read it): a pre-tool decision in
    ``hookSpecificOutput.permissionDecision``, a block as top-level ``decision: block``, context in
    ``hookSpecificOutput.additionalContext``. ``kind``: the point of the target's event."""
    out = _common(answer)
    specific: dict[str, Any] = {}
    if kind == "tools/pre-execute" and answer.decision in ("allow", "deny", "ask"):
        specific["permissionDecision"] = answer.decision
        if answer.reason:
            specific["permissionDecisionReason"] = answer.reason
    elif kind == "approval/request" and answer.decision in ("allow", "deny", "block"):
        # PermissionRequest: the approval's own answer, a behaviour and (for a refusal) its message.
        behavior = "allow" if answer.decision == "allow" else "deny"
        specific["decision"] = {"behavior": behavior, **({"message": answer.reason} if answer.reason and
                                                        behavior == "deny" else {})}
    elif answer.decision in ("deny", "block") and decision_key:
        out.update(decision="block", reason=answer.reason or "blocked by a hook")
    if (context := _context(answer)) is not None:
        specific["additionalContext"] = context
    if specific:
        out["hookSpecificOutput"] = {"hookEventName": event, **specific}
    return json_reply(out)


@dataclass(frozen=True, slots=True)
class TableFace:
    """A face made of data: a reader's keys, a reply function, and a JSON settings file whose
    ``hooks`` key holds Claude's group shape (``{Event: [{matcher, hooks: [handler]}]}``), which most
    vendors read. A vendor with another file shape gives its own ``render``/``strip``."""

    vendor: str
    file: str
    trust: str
    events: Mapping[str, str]
    answer: Callable[[str, str, HookAnswer], Reply]
    keys: ReadKeys = field(default_factory=ReadKeys)
    owns_file: bool = False
    #: The handler's timeout key and its unit's size in seconds (Gemini: ``timeout`` in ms → 0.001).
    timeout_key: str = "timeout"
    timeout_unit: float = 1.0
    #: The file's handler form: {"type": "command", <command_key>: …}.
    command_key: str = "command"
    matcher_all: str | None = None
    #: Host point → what a hook hosted there loses beyond what its answers' read-back shows (how the
    #: face makes up for an event the vendor lacks).
    point_losses: Mapping[str, tuple[Degradation, ...]] = field(default_factory=dict)

    def read(self, event: str, stdin: bytes, cwd: str) -> Moment:
        obj = parse_stdin(self.vendor, stdin)
        session = _first(obj, self.keys.session)
        return Moment(event=event, session_id=str(session or "port-session"),
                      cwd=str(_first(obj, self.keys.cwd) or cwd), transcript_path=_first(obj, self.keys.transcript),
                      fields=read_fields(self.vendor, self.keys, obj))

    def reply(self, event: str, answer: HookAnswer) -> Reply:
        return self.answer(event, self.point_of(event), answer)

    def point_of(self, event: str) -> str:
        return next((p for p, e in self.events.items() if e == event), "")

    def render(self, existing: str | None, entries: Sequence[EntrySpec]) -> str:
        return render_hooks_json(existing, entries, handler=self.handler, matcher_all=self.matcher_all)

    def strip(self, existing: str) -> str | None:
        return strip_hooks_json(existing)

    def handler(self, entry: EntrySpec) -> dict[str, Any]:
        timeout = round(entry.timeout_s / self.timeout_unit)
        return {"type": "command", self.command_key: entry.command, self.timeout_key: timeout}


def _load(existing: str | None) -> dict[str, Any]:
    from compat_adapter.errors import ConfigParseError

    if existing is None or not existing.strip():
        return {}
    try:
        data = json.loads(existing)
    except ValueError as exc:
        raise ConfigParseError(f"the target file is not JSON: {exc}; port writes into it only when it reads") from exc
    if not isinstance(data, dict):
        raise ConfigParseError("the target file is JSON but not an object; port leaves it alone")
    return data


def _ours(handler: Any) -> bool:
    return isinstance(handler, Mapping) and any(SHIM_MARK in str(handler.get(k, "")) for k in ("command", "bash"))


def strip_hooks_json(existing: str) -> str | None:
    """The settings without this project's groups (a group is ours when its handlers all run the
    shim); None when the file then holds nothing."""
    data = _load(existing)
    hooks = data.get("hooks")
    if isinstance(hooks, dict):
        for event in list(hooks):
            groups = hooks[event]
            if not isinstance(groups, list):
                continue
            kept = [g for g in groups if not (isinstance(g, Mapping) and (
                _ours(g) or (isinstance(g.get("hooks"), list) and g["hooks"] and all(_ours(h) for h in g["hooks"]))))]
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
        if not hooks:
            del data["hooks"]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n" if data else None


def render_hooks_json(existing: str | None, entries: Sequence[EntrySpec], *,
                      handler: Callable[[EntrySpec], dict[str, Any]], matcher_all: str | None) -> str:
    """The settings with one group per entry appended after the team's own groups of its event."""
    base = strip_hooks_json(existing) if existing is not None else None
    data = _load(base)
    hooks = data.setdefault("hooks", {})
    for entry in entries:
        group: dict[str, Any] = {"hooks": [handler(entry)]}
        if matcher_all is not None:
            group = {"matcher": matcher_all, **group}
        hooks.setdefault(entry.event, []).append(group)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
