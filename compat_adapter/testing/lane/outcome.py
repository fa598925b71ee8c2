"""The normalized outcome of one scenario run, the same shape for the real vendor and for
compat-adapter on the embedded host, so that the two can be compared field by field.

What the model reads is taken from the model server's request log (real vendor) or from the
session log (embedded host) and flattened into :class:`Item` s: one piece of text, who says it
(``user``, ``system``, ``developer``, ``tool``), and whether it shares a message with the prompt.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from compat_adapter.testing.lane.scenarios import MARKERS, PROMPT

__all__ = ("HookRun", "Item", "Landing", "Outcome", "Refusal", "landings", "new_items", "normalize_text", "wire_items")

#: A read item longer than this is cut in the report (vendor system prompts run to tens of KB).
READ_CAP = 600


@dataclass(frozen=True, slots=True)
class HookRun:
    """One hook invocation as the self-recording hook saw it: what it received and answered."""

    event: str
    stdin: Any
    stdout: str = ""
    stderr: str = ""
    exit: int = 0
    label: str | None = None
    """What the case named this hook (one of several of its event), when it did."""


@dataclass(frozen=True, slots=True)
class Item:
    role: str
    kind: str
    """``text``, ``tool_result`` or ``tool_call``."""
    text: str
    message: int
    with_prompt: bool = False
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class Landing:
    """Where a marker first reached the model: ``tool_result``, ``prompt`` (inside the prompt's own
    message), ``message:<role>`` (a message of its own), and the paragraph that carries it."""

    place: str
    line: str


@dataclass(frozen=True, slots=True)
class Refusal:
    """One entry the import refused, and where it was written: which hook of the case it is."""

    code: str
    reason: str
    event: str | None = None
    """The event it was written under (None: a whole file, a switch, a plugin …)."""
    label: str | None = None
    """The label of the case's hook it is, when the case labels hooks and this one is known."""


@dataclass(frozen=True, slots=True)
class Outcome:
    side: str
    case: str
    hooks: tuple[HookRun, ...] = ()
    tool_ran: bool = False
    rewritten: bool = False
    """The rewritten command's output reached the model."""
    tool_result: str | None = None
    """The first tool result the model read (normalized), or None when it read none."""
    landings: Mapping[str, Landing] = field(default_factory=dict)
    model_calls: int = 0
    """Model requests that consumed a scripted turn."""
    reads: tuple[tuple[Item, ...], ...] = ()
    """Per model request, what it carried that the previous one did not (text the model reads next)."""
    error: str | None = None
    refused: tuple[Refusal, ...] = ()
    degradations: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Embedded side: each registered event → the degradation codes its grade lists."""
    notes: tuple[str, ...] = ()
    texts: tuple[tuple[Item, ...], ...] = field(default=(), repr=False)
    """Per model request, every item it carried, whole (not in the report: the real-config lane
    looks in it for the text real hooks wrote)."""
    graded: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    """Embedded side: per registered hook, in the file's order, its event, its handler (as JSON)
    and the degradation codes of its own grade."""
    shown: tuple[str, ...] | None = ()
    """What the person was shown that a hook said (texts with a ``SHOWN_MARKERS`` mark): the real
    CLI's output, or the embedded host's notice records; None where the vendor's driver does not
    read its CLI's output (not observed, so never compared)."""

    @property
    def invoked(self) -> tuple[str, ...]:
        """The hooks that fired, by event (or by the label the case gave a hook)."""
        return tuple(h.label or h.event for h in self.hooks)

    def as_json(self) -> dict[str, Any]:
        return {"side": self.side, "case": self.case, "invoked": list(self.invoked),
                "hooks": [{"event": h.event, "stdin": h.stdin, "stdout": h.stdout, "stderr": h.stderr,
                           "exit": h.exit, "label": h.label} for h in self.hooks],
                "tool_ran": self.tool_ran, "rewritten": self.rewritten, "tool_result": self.tool_result,
                "landings": {k: {"place": v.place, "line": v.line} for k, v in self.landings.items()},
                "model_calls": self.model_calls, "error": self.error,
                "refused": [{"code": r.code, "reason": r.reason, "event": r.event, "label": r.label}
                            for r in self.refused],
                "degradations": {k: list(v) for k, v in self.degradations.items()}, "notes": list(self.notes),
                "shown": None if self.shown is None else list(self.shown),
                "reads": [[{"role": i.role, "kind": i.kind, "text": i.text} for i in step] for step in self.reads]}


def normalize_text(text: str, roots: Iterable[str]) -> str:
    """Run-specific absolute paths become ``<run>`` so that two runs compare."""
    for root in sorted(roots, key=len, reverse=True):
        text = text.replace(root, "<run>")
    return text


def _text_of(content: Any) -> list[str]:
    if content is None:
        return []
    if isinstance(content, str):
        return [content]
    if isinstance(content, Mapping):
        return [str(content.get("text", ""))] if "text" in content else [json.dumps(content)]
    out: list[str] = []
    for part in content:
        if isinstance(part, Mapping) and part.get("type") in ("text", "input_text", "output_text"):
            out.append(str(part.get("text", "")))
        elif isinstance(part, str):
            out.append(part)
    return out


def _message_items(index: int, role: str, texts: Sequence[str]) -> list[Item]:
    with_prompt = any(PROMPT in t for t in texts)
    return [Item(role, "text", t, index, with_prompt) for t in texts]


def wire_items(api: str, body: Mapping[str, Any]) -> list[Item]:
    """The text items of one model request, in order, for a wire API."""
    items: list[Item] = []
    if api == "anthropic":
        system = body.get("system")
        items += _message_items(-1, "system", _text_of(system))
        for i, m in enumerate(body.get("messages") or ()):
            content = m.get("content")
            if isinstance(content, list):
                for part in content:
                    if isinstance(part, Mapping) and part.get("type") == "tool_result":
                        text = "\n".join(_text_of(part.get("content")))
                        items.append(Item("tool", "tool_result", text, i, is_error=bool(part.get("is_error"))))
                texts = _text_of([p for p in content if isinstance(p, Mapping) and p.get("type") == "text"])
            else:
                texts = _text_of(content)
            items += _message_items(i, str(m.get("role")), texts)
        return items
    if api == "responses":
        items += _message_items(-1, "system", _text_of(body.get("instructions")))
        for i, entry in enumerate(body.get("input") or ()):
            kind = entry.get("type")
            if kind == "function_call_output":
                output = entry.get("output")
                items.append(Item("tool", "tool_result", output if isinstance(output, str) else json.dumps(output), i))
            elif kind == "message":
                items += _message_items(i, str(entry.get("role")), _text_of(entry.get("content")))
        return items
    if api == "generate-content":
        return _content_items(body)
    for i, m in enumerate(body.get("messages") or ()):
        role = str(m.get("role", "system"))
        if role == "tool":
            items.append(Item("tool", "tool_result", "\n".join(_text_of(m.get("content"))), i))
        elif role != "assistant":
            items += _message_items(i, role, _text_of(m.get("content")))
    return items


def _content_items(body: Mapping[str, Any]) -> list[Item]:
    """The Gemini API's request: ``systemInstruction.parts`` and ``contents[].parts``, where a
    tool's result is a ``functionResponse`` whose ``response`` holds ``output`` or ``error``."""
    def texts(parts: Any) -> list[str]:
        return [str(p["text"]) for p in parts or () if isinstance(p, Mapping) and "text" in p]

    system = body.get("systemInstruction")
    items = _message_items(-1, "system", texts(system.get("parts") if isinstance(system, Mapping) else ()))
    for i, content in enumerate(body.get("contents") or ()):
        if not isinstance(content, Mapping) or content.get("role") == "model":
            continue
        parts = content.get("parts") or ()
        for part in parts:
            answer = part.get("functionResponse") if isinstance(part, Mapping) else None
            if isinstance(answer, Mapping):
                response = answer.get("response")
                response = response if isinstance(response, Mapping) else {}
                text = next((response[k] for k in ("output", "error") if isinstance(response.get(k), str)),
                            json.dumps(response))
                items.append(Item("tool", "tool_result", text, i, is_error="error" in response))
        items += _message_items(i, str(content.get("role", "user")), texts(parts))
    return items


def landings(requests: Sequence[Sequence[Item]], roots: Iterable[str]) -> dict[str, Landing]:
    """For each marker, the first item of the first request that carries it."""
    roots = list(roots)
    out: dict[str, Landing] = {}
    for marker in MARKERS:
        for items in requests:
            hit = next((i for i in items if marker in i.text), None)
            if hit is None:
                continue
            if hit.kind == "tool_result":
                place = "tool_result"
            elif hit.with_prompt:
                place = "prompt"
            else:
                place = f"message:{hit.role}"
            # In a message, the paragraph that carries the marker: the hook's text with the vendor's
            # own framing, without unrelated parts (a prompt's timestamp, a memory block). In a tool
            # result, the line: the tool's own output runs up to the appended hook text.
            if place == "tool_result":
                text = next(ln for ln in hit.text.splitlines() if marker in ln)
            else:
                text = next(p for p in hit.text.split("\n\n") if marker in p)
            out[marker] = Landing(place, normalize_text(text.strip(), roots))
            break
    return out


def new_items(requests: Sequence[Sequence[Item]]) -> tuple[tuple[Item, ...], ...]:
    """Per request, the items not already in the previous request (by role, kind and text)."""
    out = []
    seen: set[tuple[str, str, str]] = set()
    for items in requests:
        fresh = tuple(Item(i.role, i.kind, i.text[:READ_CAP], i.message, i.with_prompt, i.is_error) for i in items
                      if (i.role, i.kind, i.text) not in seen and i.role != "assistant")
        seen |= {(i.role, i.kind, i.text) for i in items}
        out.append(fresh)
    return tuple(out)
