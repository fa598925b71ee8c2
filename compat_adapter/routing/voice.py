"""What each vendor shows the model for a hook's answer, word for word, as the vendor lane observed.

The dialects decide *what* an answer means (deny, block, context, stop); this module says *how the
vendor words it* for the model: the deny text of a blocked tool call, the label of hook context,
the text of a Stop continuation, the feedback of a post-tool block. The seams then put the text as
close as the host allows to where the vendor puts it (a deny is the tool's error result, a
continuation a steered message of the same turn, and context where :meth:`Voice.place` says: a
sourced message before the next model call, a part of the user's prompt message, or text appended to
the tool's result).

Source: ``vendor-lane/README.md`` §2 (Claude Code 2.1.328, Codex 0.169.0, CodeBuddy Code 2.163.0,
Copilot CLI 1.0.102). A vendor without a voice here keeps the hook's own reason as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

__all__ = ("VOICES", "Place", "Said", "Voice", "voice_of")

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


def _label(said: Said) -> str:
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
    places: Mapping[str, Place] = field(default_factory=lambda: MappingProxyType({}))
    """Event → where its context lands, for the events whose context is not a message of its own."""
    result_separator: str = "\n"
    """What comes between a tool's result and the context appended to it."""
    halt_runs_call: bool = False
    """Whether a pre-tool continue:false (with no deny) still lets the call run before the agent
    stops (Claude Code, measured) rather than stopping it unrun (CodeBuddy, measured)."""
    message_role: str = "user"
    """Who the model reads context of place ``message`` from: the vendor's own ``system`` (Claude)
    or ``developer`` (Codex) message, else a user message (the host delivers the role it can)."""

    def deny(self, said: Said) -> str:
        return said.reason

    def ask_denied(self, said: Said) -> str | None:
        """An ``ask`` that no one can answer (no approval channel): the vendor denies, in these
        words; None when the vendor's words for it are unknown (the host's own words stay)."""
        return self.deny(said)

    def context(self, event: str, tool: str | None, text: str, failed: bool = False) -> str:
        return text

    def place(self, event: str, failed: bool = False) -> Place:
        return self.places.get(event, "message")

    def post_feedback(self, said: Said) -> str:
        return said.reason

    def stop(self, said: Said) -> str:
        return said.reason


class ClaudeVoice(Voice):
    """Claude Code: a hook label before every text, the command quoted on exit-2 answers."""

    def deny(self, said: Said) -> str:
        if said.exit2:
            return f"{_label(said)} hook error: [{said.command}]: {said.reason}"
        return f"{_label(said)} hook error: {said.reason}"

    def ask_denied(self, said: Said) -> str:
        # Claude in -p cannot ask: the tool result is the hook's reason, unlabelled.
        return said.reason

    def context(self, event: str, tool: str | None, text: str, failed: bool = False) -> str:
        label = f"{event}:{tool}" if tool else event
        return f"{label} hook additional context: {text}"

    def post_feedback(self, said: Said) -> str:
        return f'{_label(said)} hook blocking error from command: "{said.command}": {said.reason}'

    def stop(self, said: Said) -> str:
        if said.exit2:
            return f"Stop hook feedback:\n[{said.command}]: {said.reason}"
        return f"Stop hook feedback:\n{said.reason}"


class CodexVoice(Voice):
    """Codex: a deny names the command; context is bare; a Stop block is a tagged user prompt."""

    def deny(self, said: Said) -> str:
        text = f"Command blocked by {said.event} hook: {said.reason}"
        return f"{text}. Command: {said.tool_command}" if said.tool_command is not None else text

    def stop(self, said: Said) -> str:
        run_id = f"stop:{said.index}:{said.source or ''}"
        return f'<hook_prompt hook_run_id="{run_id}">{said.reason}</hook_prompt>'


_COPILOT_DENIED = "Denied by preToolUse hook"


class CodeBuddyVoice(Voice):
    """CodeBuddy: a deny keeps the ``Error:`` envelope; context in system-reminder parts; a Stop
    block quotes the command in a user query."""

    def deny(self, said: Said) -> str:
        return f"Error: {said.reason}"

    def ask_denied(self, said: Said) -> str | None:
        # CodeBuddy takes an ask to its own permission rules (and runs PreToolUse again there);
        # what it shows when nothing can answer was not observed.
        return None

    def context(self, event: str, tool: str | None, text: str, failed: bool = False) -> str:
        role = "tool-hint" if event in ("PostToolUse", "PostToolUseFailure") else "hook"
        return f'<system-reminder data-role="{role}">{text}</system-reminder>'

    def stop(self, said: Said) -> str:
        return f"<user_query>Stop hook feedback:\n[{said.command}]: {said.reason}</user_query>"


class CopilotVoice(Voice):
    """Copilot: a deny names the hook event (an exit-2 deny drops stderr and names the exit code);
    pre-tool context a labelled user message, post-tool context appended to the result under a
    line naming the tool, prompt context a <system_reminder> after the prompt, session-start
    context bare. The PascalCase spellings are the same events to Copilot."""

    def deny(self, said: Said) -> str:
        if said.reason.startswith(_COPILOT_DENIED):
            return said.reason  # the dialect's words already (a hook that errored is a deny)
        reason = "hook exited with code 2" if said.exit2 else said.reason
        return f"{_COPILOT_DENIED}: {reason}"

    def ask_denied(self, said: Said) -> str:
        return f"{_COPILOT_DENIED} (unable to ask user for confirmation): {said.reason}"

    def context(self, event: str, tool: str | None, text: str, failed: bool = False) -> str:
        name = _COPILOT_EVENTS.get(event, event)
        if name == "preToolUse":
            return f"Additional context from preToolUse hook:\n{text}"
        if name in ("postToolUse", "postToolUseFailure"):
            outcome = "failed" if failed else "succeeded"
            return f'Tool "{tool}" {outcome}. Additional guidance from {name} hooks:\n{text}'
        if name == "userPromptSubmitted":
            return f"<system_reminder>\n{text}\n</system_reminder>"
        return text

    def place(self, event: str, failed: bool = False) -> Place:
        # A failing tool's context is a user message of its own (measured with postToolUseFailure).
        return "message" if failed else super().place(_COPILOT_EVENTS.get(event, event))


#: Copilot's PascalCase spellings → its own event names (the words it uses for the model).
_COPILOT_EVENTS: Mapping[str, str] = MappingProxyType({
    "PreToolUse": "preToolUse", "PostToolUse": "postToolUse", "PostToolUseFailure": "postToolUseFailure",
    "UserPromptSubmit": "userPromptSubmitted", "SessionStart": "sessionStart",
})

#: The vendors whose wording this project reproduces on its own routes.
VOICES: Mapping[str, Voice] = MappingProxyType({
    # A pre-tool continue:false (lane case claude:pre_halt): Claude Code runs the call, then stops.
    "claude": ClaudeVoice("claude", pre_tool_context=True, stop_guard=8, halt_runs_call=True,
                          message_role="system"),
    # Codex 0.169.0 shows pre-tool context as a developer message (the lane saw it; older notes
    # say dropped).
    "codex": CodexVoice("codex", post_block="replace", pre_tool_context=True, message_role="developer"),
    "workbuddy": CodeBuddyVoice("workbuddy", post_block="ignored", places=MappingProxyType({
        "PostToolUse": "result", "PostToolUseFailure": "result",
        "UserPromptSubmit": "before-prompt", "SessionStart": "before-prompt"})),
    "copilot": CopilotVoice("copilot", post_block="replace", pre_tool_context=True, result_separator="\n\n",
                            places=MappingProxyType({"postToolUse": "result", "postToolUseFailure": "result",
                                                     "userPromptSubmitted": "after-prompt"})),
})

_PLAIN = Voice("plain", post_block="replace")


def voice_of(vendor: str) -> Voice:
    """The vendor's wording; a vendor without one keeps the hook's own reason as it is."""
    return VOICES.get(vendor, _PLAIN)
