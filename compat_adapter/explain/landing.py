"""Where each vendor puts a hook's text for the model, and the frames it adds around the voice's words.

``routing/voice.py`` says how a vendor words a deny, a context, a Stop continuation; this table adds
what an ``explain`` reader also needs and the seams do not: in which message the text lands at the
real vendor (measured by the vendor lane, ``reference/vendor-lane/README.md`` §2 and the lane's
recorded outcomes), whether the vendor runs a rewritten tool input, and what it does with ``ask``
in a non-interactive run. A frame is applied only when the voice's own text does not already carry
it, so that a voice that learns the frame does not get it twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ("FACTS", "Facts", "facts_of", "framed")

#: Event kinds, by the host seam a vendor row sits on.
KINDS: Mapping[str, str] = MappingProxyType({
    "tools/pre-execute": "pre", "tools/post-execute": "post", "agent/pre-step": "prompt",
    "agent/turn-stopping": "stop", "agent/created": "session", "approval/request": "permission",
})


@dataclass(frozen=True, slots=True)
class Facts:
    """One vendor's placement facts."""

    #: Event kind → where additional context lands (``message:<role>``, ``prompt``, ``tool_result``);
    #: a kind not listed drops it.
    context: Mapping[str, str] = field(default_factory=dict)
    #: Event kind → a frame around the voice's context text (``{text}``, ``{event}``, ``{tool}``).
    context_frame: Mapping[str, str] = field(default_factory=dict)
    #: A frame around the voice's deny text (the tool result the model reads).
    deny_frame: str = "{text}"
    #: Where a post-tool block's feedback lands when the result stays (voice ``post_block == "context"``).
    post_feedback: str = "message:system"
    #: Where a Stop continuation lands.
    stop: str = "message:user"
    #: Whether the vendor runs a rewritten tool input.
    rewrites_input: bool = True
    #: What ``ask`` does in a non-interactive run: ``deny`` (the model reads ``ask_frame`` around the hook's
    #: reason) or ``allow`` (nobody is asked and the call runs).
    ask_unattended: str = "deny"
    ask_frame: str = "{text}"


FACTS: Mapping[str, Facts] = MappingProxyType({
    "claude": Facts(context={"session": "message:system", "prompt": "message:system", "pre": "message:system",
                             "post": "message:system"}),
    "codex": Facts(context={"session": "message:developer", "prompt": "message:developer",
                            "pre": "message:developer", "post": "message:developer"}, ask_unattended="allow"),
    "workbuddy": Facts(context={"session": "prompt", "prompt": "prompt", "post": "tool_result"},
                       deny_frame="Error: {text}", ask_unattended="allow"),
    "copilot": Facts(context={"session": "message:user", "prompt": "prompt", "pre": "message:user",
                              "post": "tool_result"},
                     context_frame={"prompt": "<system_reminder>\n{text}\n</system_reminder>",
                                    "pre": "Additional context from {event} hook:\n{text}",
                                    "post": "Additional guidance from {event} hooks:\n{text}"},
                     deny_frame="Denied by preToolUse hook: {text}",
                     ask_frame="Denied by preToolUse hook (unable to ask user for confirmation): {text}"),
    "opencode": Facts(context={"session": "message:system", "prompt": "prompt", "post": "tool_result"}),
})


def facts_of(vendor: str) -> Facts:
    return FACTS.get(vendor, Facts())


def framed(frame: str, text: str, **names: str | None) -> str:
    """``text`` in ``frame``, unless the text already carries the frame's fixed words."""
    head = frame.split("{text}", 1)[0].format(**{k: v or "" for k, v in names.items()})
    if head and text.startswith(head):
        return text
    return frame.format(text=text, **{k: v or "" for k, v in names.items()})
