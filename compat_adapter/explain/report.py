"""The shape of an ``explain`` report: frozen pydantic models, so that ``--json`` output has a
published JSON Schema generated from the very classes that build it (``docs/schema/``)."""

from __future__ import annotations

from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

__all__ = ("SCHEMA_VERSION", "ExplainReport", "HookExplained", "HostView", "IfDecision", "Lint", "MatcherDecision",
           "PermissionSide", "PermissionsExplained", "Read", "RuleCheck", "RunResult", "VendorView")

#: Bumped when a field changes meaning or goes away (adding one is compatible).
SCHEMA_VERSION: Final = 1


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class MatcherDecision(_Frozen):
    """Whether the hook's matcher selects this event, and why."""

    pattern: str | None
    """The matcher as written (None: the hook has none)."""
    subject: str | None
    """What the vendor tests the matcher against (a tool name in the vendor's vocabulary …)."""
    subject_key: str | None
    """Which payload fact the subject is (``tool_name``, ``source`` …); None: the event has no matcher."""
    engine: str
    """How the vendor reads the pattern: ``none``, ``match-all``, ``exact-names``, ``js-regex`` (unanchored),
    ``rust-regex`` (RE2), ``anchored-regex`` (Copilot ``^(?:P)$``)."""
    matched: bool
    why: str


class IfDecision(_Frozen):
    """A handler's ``if`` rule (Claude permission-rule syntax) and whether it admits this call."""

    rule: str | None
    admitted: bool
    why: str


class RunResult(_Frozen):
    """One real run of the hook through the project's one runner."""

    stdin: str
    """The bytes sent on stdin, in the vendor's framing (UTF-8 text)."""
    exit_code: int | None
    stdout: str
    stderr: str
    duration_ms: float
    cause: str | None = None
    """Why there is no exit code (timeout, signal, spawn failure)."""
    truncated: bool = False
    timeout_s: float


class Read(_Frozen):
    """One text the model reads because of the hook, and where it lands."""

    place: str
    """``tool_result`` (in place of, or appended to, the tool's output), ``prompt`` (inside the prompt's own
    message), ``message:<role>`` (a message of its own: system, user, developer), ``result`` (shown to the
    user instead of a model call)."""
    text: str


class VendorView(_Frozen):
    """What the vendor's own agent would do with the hook's answer (from the dialect and its voice)."""

    decision: str
    """The merged decision: ``none``, ``allow``, ``deny``, ``ask``, ``block``."""
    reason: str | None = None
    effect: str
    """One sentence: what happens next at the vendor."""
    tool_runs: bool | None = None
    """On tool-gating events: whether the tool call runs."""
    input_rewritten: bool | None = None
    """Whether a rewritten tool input is what runs."""
    turn_continues: bool | None = None
    """On stop events: whether the agent takes another step."""
    prompt_blocked: bool | None = None
    """On prompt events: whether the prompt never reaches the model."""
    halted: bool = False
    """``continue: false``: the vendor stops the agent."""
    reads: tuple[Read, ...] = ()
    failed: str | None = None
    """Why the run failed by the vendor's rules (the action proceeds unless the decision says otherwise)."""
    ignored: tuple[str, ...] = ()
    """Output fields the vendor sees but does nothing with here."""
    fires: bool = True
    """Whether the vendor's non-interactive run fires the event at all (CodeBuddy ``-p``: no SessionEnd)."""


class HostView(_Frozen):
    """What this project does with the same answer on the chosen host."""

    host: str
    capability: str
    route: str
    rule: str
    """The verdict rule that reads the answer (``pre_tool``, ``observe`` …; ``bridge``: the host's own)."""
    honoured: bool | None
    note: str
    verdict: str | None = None
    """The host verdict, as ``Kind(value)``."""
    halted: bool = False
    """``continue: false``: the host ends the turn before its next step (or rejects the prompt)."""
    reads: tuple[Read, ...] = ()
    shown: tuple[str, ...] = ()
    """What the person is shown (the host's notices: a blocked prompt, a stopReason, a systemMessage)."""
    degradations: tuple[str, ...] = ()
    """``code: text`` of every loss the grade lists for this hook."""


class Lint(_Frozen):
    code: str
    """``exit2-empty-stderr``, ``timeout-milliseconds``, ``guard-no-timeout``, ``powershell-exit``,
    ``matcher-matches-no-tool``, ``loads-twice``, ``invalid-matcher``."""
    origin: str
    text: str


class HookExplained(_Frozen):
    origin: str
    vendor: str
    event: str
    handler: str
    """The command line (or the handler's kind and target)."""
    matcher: MatcherDecision
    if_rule: IfDecision
    fires: bool
    why_not: str | None = None
    """Why the hook does not run for this event (matcher, ``if``, refused, another handler deduplicated)."""
    run: RunResult | None = None
    vendor_view: VendorView | None = None
    """This hook's answer alone, read the vendor's way."""
    differences: tuple[str, ...] = ()
    """Each difference between the vendor's and the host's handling, named by its degradation code."""


class RuleCheck(_Frozen):
    """One permission rule of the files, checked against the tool call."""

    origin: str
    behavior: str
    """``allow``, ``ask`` or ``deny``."""
    rule: str
    matches: bool
    capability: str
    """Its grade on the host (an UNSUPPORTED rule guards nothing there)."""
    reason: str | None = None


class PermissionSide(_Frozen):
    """What one side does with the call once its rules and its hooks are weighed."""

    decision: str
    """``deny``, ``ask``, ``allow`` (a rule allows it) or ``none`` (no rule matches)."""
    rule: str | None = None
    """The deciding rule as written."""
    decided_by: str
    """``rule``, ``hook`` (a hook's answer stands over the rules), or ``none``."""
    reads: str | None = None
    """What the model reads when the call is refused."""
    effect: str


class PermissionsExplained(_Frozen):
    """The permission rules of the files against a tool call: the vendor's verdict beside the host's."""

    rules: tuple[RuleCheck, ...]
    vendor: PermissionSide
    host: PermissionSide


class ExplainReport(_Frozen):
    """``compat-adapter explain --json``."""

    schema_version: Literal[1] = SCHEMA_VERSION
    vendor: str
    event: str
    confidence: Literal["measured", "documented", "derived"] = "measured"
    """Where the vendor side's semantics come from: measured on its real CLI, or only read from its
    documentation (a vendor with no CLI here)."""
    measured_on: str | None = None
    """The vendor release whose behaviour the vendor side follows (measured on its real CLI in the
    vendor lane); None when no release of the vendor was run."""
    subject: str | None
    """What the vendor tests matchers against for this event."""
    payload: dict[str, object]
    """The vendor's stdin payload, as the dialect builds it."""
    files: tuple[str, ...]
    hooks: tuple[HookExplained, ...]
    vendor_view: VendorView | None
    """Every hook that ran, merged by the vendor's rules: what the vendor would do."""
    host_view: HostView | None
    """What the host does with the same merged answer."""
    differences: tuple[str, ...]
    lints: tuple[Lint, ...]
    refused: tuple[str, ...] = ()
    """``CODE: what — reason`` for hooks of the files that will never run here."""
    not_replayed: tuple[str, ...] = ()
    """What the files hold that explain does not replay (OpenCode plugins: ``grade`` lists their hooks)."""
    permissions: PermissionsExplained | None = None
    """For a tool call: the files' permission rules, checked; None when they have none."""
