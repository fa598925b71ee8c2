"""What each vendor shows the model for a hook's answer, word for word, as the vendor lane observed.

The dialects decide *what* an answer means (deny, block, context, stop); this module says *how the
vendor words it* for the model: the deny text of a blocked tool call, the label of hook context,
the text of a Stop continuation, the feedback of a post-tool block. The seams then put the text as
close as the host allows to where the vendor puts it (a deny is the tool's error result, a
continuation a steered message of the same turn, and context where :meth:`Voice.place` says: a
sourced message before the next model call, a part of the user's prompt message, or text appended to
the tool's result).

Each vendor's own voice lives in its unit (``vendors/<id>/voice.py``), measured by the vendor lane
(``vendor-lane/README.md`` §2), and :func:`compat_adapter.catalog.voice_of` hands it out; the base
:class:`Voice` keeps the hook's own reason as it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

__all__ = ("Call", "Place", "PostBlock", "Said", "Voice", "call_of", "label")

#: Where a vendor puts a post-tool block: the result stays and feedback follows it ("context"),
#: the result is replaced by the reason ("replace"), or the block is ignored ("ignored").
PostBlock = Literal["context", "replace", "ignored"]

#: Where a vendor puts hook context: its own message before the next model call ("message"), a part
#: of the user's prompt message before or after what the user typed ("before-prompt",
#: "after-prompt"; session-start context waits for the first prompt), or the end of the tool's
#: result ("result").
Place = Literal["message", "before-prompt", "after-prompt", "result"]


@dataclass(frozen=True, slots=True)
class Said:
    """One hook answer as the vendor words it: who said it and why."""

    event: str
    tool: str | None
    """The vendor's name of the tool, on tool events."""
    command: str
    """The hook's command line (Claude and CodeBuddy quote it back to the model)."""
    reason: str
    exit2: bool
    """The answer came by exit code 2 (stderr) rather than by a JSON reason."""
    tool_command: str | None = None
    """The shell command of a Bash call (Codex names it in a deny)."""
    source: str | None = None
    """The config file the hook came from (Codex names it in a Stop continuation)."""
    index: int = 0
    """The hook's place among the event's hooks."""
    cwd: str | None = None
    """The project folder the hook ran for (Copilot names the hook file relative to it)."""


@dataclass(frozen=True, slots=True)
class Call:
    """The host's tool call an event is about, in host words: its tool and the call's id (the
    model's own id on a host that keeps it). A vendor may name both beside a hook's context."""

    tool: str
    id: str


def call_of(fields: Mapping[str, object]) -> Call | None:
    """The call of a tool event's host facts (``tool_name``, ``tool_use_id``); None off tool events."""
    tool, call = fields.get("tool_name"), fields.get("tool_use_id")
    return Call(tool, call) if isinstance(tool, str) and isinstance(call, str) and call else None


def label(said: Said) -> str:
    """The hook's label as Claude-like vendors print it: ``Event`` or ``Event:Tool``."""
    return f"{said.event}:{said.tool}" if said.tool else said.event


@dataclass(frozen=True, slots=True)
class Voice:
    """One vendor's wording. Each method returns the exact text the vendor's model reads."""

    vendor: str
    post_block: PostBlock = "context"
    pre_tool_context: bool = False
    """Whether pre-tool additionalContext reaches the model (Claude: yes; Codex, CodeBuddy: dropped)."""
    stop_guard: int | None = None
    """Consecutive Stop continuations after which the vendor lets the turn end anyway."""
    stop_again: bool = True
    """Whether the vendor runs its Stop hooks again at the end of a turn one of them already
    continued (Kimi Code: no, until the turn ends; its runStop, 2.1.0)."""
    places: Mapping[str, Place] = field(default_factory=lambda: MappingProxyType({}))
    """Event → where its context lands, for the events whose context is not a message of its own."""
    result_separator: str = "\n"
    """What comes between a tool's result and the context appended to it."""
    halt_runs_call: bool = False
    """Whether a pre-tool continue:false (with no deny) still lets the call run before the agent
    stops (Claude Code, measured) rather than stopping it unrun (CodeBuddy, measured)."""
    merged_reason: bool = False
    """Whether a block is worded with the reason of the merged answer (every hook's, joined by the
    dialect's merge: Gemini CLI) rather than with the first blocking hook's own reason."""

    def deny(self, said: Said) -> str:
        return said.reason

    def ask_denied(self, said: Said) -> str | None:
        """An ``ask`` that no one can answer (no approval channel): the vendor denies, in these
        words; None when the vendor's words for it are unknown (the host's own words stay)."""
        return self.deny(said)

    def context(self, event: str, tool: str | None, text: str, failed: bool = False) -> str:
        return text

    def printed(self, event: str, subject: str | None, text: str) -> str:
        """Context a hook printed as plain stdout (``HookAnswer.printed``); ``subject``: what the
        event's matcher is tested against (a session's source). Worded as any context unless the
        vendor words it apart."""
        return self.context(event, None, text)

    def contexts(self, event: str, tool: str | None, subject: str | None, texts: Sequence[str],
                 printed: Sequence[str] = (), failed: bool = False, call: Call | None = None) -> tuple[str, ...]:
        """Each context text as the model reads it, the printed ones by :meth:`printed`; ``call``: the
        host's call on tool events (a vendor that names the call beside the text reads it)."""
        return tuple(self.printed(event, subject, t) if t in printed else self.context(event, tool, t, failed)
                     for t in texts)

    def place(self, event: str, failed: bool = False) -> Place:
        return self.places.get(event, "message")

    def post_feedback(self, said: Said) -> str:
        return said.reason

    def permission_denied(self, said: Said) -> str | None:
        """The tool result the model reads when a permission hook refuses the call; None when the
        vendor's words for it were not measured (the host's own words stay)."""
        return None

    def stop(self, said: Said) -> str:
        return said.reason

    # ── what the vendor shows the person, never the model (a Notice) ──

    def prompt_blocked(self, said: Said, prompt: str) -> str:
        """What the vendor shows its user when a prompt hook blocks the prompt."""
        return said.reason

    def stopped(self, said: Said, reason: str) -> str | None:
        """What the vendor shows its user when a hook (``said``: which) answers ``continue: false``
        with ``reason`` (its stopReason, or the host's words when it gave none); None when it
        shows nothing of it."""
        return reason

    def system_message(self, said: Said, text: str) -> str:
        """What the vendor shows its user for a hook's (``said``: which) ``systemMessage``."""
        return text
