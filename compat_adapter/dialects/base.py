"""The dialect contract: a host moment in, a vendor payload out; a process outcome in, an answer out.

A dialect is pure. It never runs anything, reads no file and keeps no state between calls: the
router builds a :class:`Moment` from what happened on the host, asks the dialect for the vendor's
stdin payload, hands the bytes to ``runtime.process.run_command``, and gives the resulting
``ProcessOutcome`` back to the dialect, which reads it the way the vendor's own agent would and
returns a vendor-neutral :class:`HookAnswer`. Several answers for one event fold into one through
:meth:`Dialect.merge`, by the vendor's rules.

``Moment.fields`` speaks HOST vocabulary. The keys the dialects read (all optional):

- tools: ``tool_name`` (host name: ``bash``, ``write``, ``edit`` …), ``tool_input`` (host
  arguments), ``tool_use_id``, ``tool_response`` (text, or a mapping passed through as is),
  ``is_error``, ``exit_code``, ``duration_ms``, ``tool_calls`` (a batch: mappings with the same keys);
- prompts and turns: ``prompt``, ``transformed_prompt``, ``initial_prompt``, ``stop_hook_active``,
  ``last_assistant_message``, ``stop_reason``, ``response``;
- sessions and agents: ``source``, ``reason``, ``agent_id``, ``agent_type``, ``agent_name``,
  ``agent_display_name``, ``agent_description``, ``model`` (a string, or ``{previous, current}``),
  ``permission_mode``, ``status``, ``error`` (text or ``{message, name, stack}``),
  ``timestamp`` (epoch seconds);
- the session log's ``prompt_id`` (id of the last message the user typed) and ``model`` arrive
  in ``Moment.logged``;
- everything else by the vendor's own snake_case name (``trigger``, ``custom_instructions``,
  ``summary``, ``notification`` / ``notification_type`` / ``message`` / ``title``, ``file_path``,
  ``files``, ``worktree`` ``{path, head, branch}``, ``previous_model``, ``questions`` …);
- OpenCode bus events copy every field into ``properties`` with camelCase keys; its permission
  hooks read ``approval_id``, ``patterns`` and ``always``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    from compat_adapter.runtime.outcome import ProcessOutcome

__all__ = ("Chaining", "Decision", "Dialect", "Exporting", "HookAnswer", "Moment")

Decision = Literal["none", "allow", "deny", "ask", "block"]

_NOTHING: Mapping[str, Any] = MappingProxyType({})


def _empty() -> Mapping[str, Any]:
    return _NOTHING


@dataclass(frozen=True, slots=True)
class Moment:
    """What happened on the host, in host vocabulary, for one hook event."""

    #: The vendor's event name, spelled as the vendor spells it.
    event: str
    session_id: str
    cwd: str
    transcript_path: str | None = None
    #: The host turn number, when the moment belongs to a turn.
    turn: int | None = None
    #: Host-side facts; see the module docstring for the keys the dialects read.
    fields: Mapping[str, Any] = field(default_factory=_empty)
    #: Facts read back from the session log (``prompt_id``, ``model``): under `fields`, which win.
    #: Kept apart because only the dialects whose vendor sends them read them.
    logged: Mapping[str, Any] = field(default_factory=_empty)


@dataclass(frozen=True, slots=True)
class HookAnswer:
    """One hook's decoded answer (or several answers merged), in no vendor's vocabulary."""

    decision: Decision = "none"
    reason: str | None = None
    additional_context: tuple[str, ...] = ()
    #: Of ``additional_context``, the texts a hook printed as plain stdout rather than in a JSON
    #: field: a vendor may word the two apart for the model (Claude Code 2.1.332: "<hook> hook
    #: success: …" for the one, "<Event> hook additional context: …" for the other).
    printed: tuple[str, ...] = ()
    system_message: str | None = None
    #: ``continue: false``: the vendor halts the whole run.
    stop: bool = False
    stop_reason: str | None = None
    #: A tool-input rewrite, in the vendor's vocabulary; recorded, never applied.
    updated_input: Mapping[str, Any] | None = None
    #: A tool-output or response rewrite; recorded, never applied.
    updated_output: Any = None
    #: Copilot userPromptTransformed: the replacement prompt text.
    replacement_prompt: str | None = None
    #: Elicitation or question answers.
    answers: Mapping[str, Any] | None = None
    #: OpenCode shell.env variables (the caller filters which ones it may set).
    env: Mapping[str, str] = field(default_factory=_empty)
    #: Why the run failed by the vendor's rules; the action proceeds unless `decision` says otherwise.
    failed: str | None = None
    #: Output fields seen but not honoured, for the audit.
    ignored: tuple[str, ...] = ()
    #: The block's reason is the one the hook's JSON gave, though it exited 2: a vendor may word it
    #: as a JSON answer rather than an exit-2 one (Claude Code 2.1.332 quotes no command then).
    json_reason: bool = False


@runtime_checkable
class Dialect(Protocol):
    """One vendor's hook protocol, as pure functions."""

    vendor: str
    #: Whether the stdin payload ends with a newline.
    trailing_newline: bool
    #: Bytes of each output stream the vendor reads; the runner keeps this much and drops the rest.
    output_cap: int

    def validate_matcher(self, event: str, matcher: str | None) -> str | None:
        """None when the matcher is usable for `event`; else one sentence saying what is wrong."""
        ...

    def matches(self, event: str, matcher: str | None, subject: str | None) -> bool:
        """Whether a hook with `matcher` runs for `subject` (vendor vocabulary); invalid → False."""
        ...

    def payload(self, moment: Moment) -> dict[str, Any]:
        """The vendor's stdin object for `moment`, host tool names and arguments translated."""
        ...

    def encode(self, payload: Mapping[str, Any]) -> bytes:
        """The stdin bytes: compact UTF-8 JSON, plus a newline when the vendor sends one."""
        ...

    def decode(self, event: str, outcome: ProcessOutcome) -> HookAnswer:
        """Read one finished hook run the way the vendor does: exit code, stdout, stderr."""
        ...

    def merge(self, event: str, answers: Sequence[HookAnswer]) -> HookAnswer:
        """Fold the answers of every hook that ran for one event (config order) by vendor rules."""
        ...

    def subject(self, moment: Moment) -> str | None:
        """What the vendor tests a matcher against for this moment, in vendor vocabulary."""
        ...


@runtime_checkable
class Chaining(Protocol):
    """A dialect whose vendor hands each hook of a sequential run (a group's ``sequential: true``)
    the input as the hooks before it changed it; a dialect without this method hands every hook the
    same input."""

    def chained(self, event: str, payload: Mapping[str, Any], outcome: ProcessOutcome) -> dict[str, Any]:
        """The stdin object of the next hook of a sequential run, after a hook given ``payload``
        finished with ``outcome`` (read as the vendor reads it: only a run that succeeded counts)."""
        ...


@runtime_checkable
class Exporting(Protocol):
    """A dialect whose vendor gives each hook run variables drawn from the call itself (Crush's
    ``CRUSH_TOOL_NAME``, ``CRUSH_TOOL_INPUT_COMMAND`` …), beside the fixed ones its table lists
    (``VendorSpec.hook_vars``); a dialect without this method adds none."""

    def hook_env(self, moment: Moment, payload: Mapping[str, Any]) -> dict[str, str]:
        """The variables one run gets for ``moment``, whose stdin object is ``payload``."""
        ...
