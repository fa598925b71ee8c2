"""Frozen data the whole project speaks: capabilities, routes, degradations, vendor rows, results.

Nothing here does I/O. Vendor tables (``vendors/*.py``) are built only from these types, and
every registration returns a :class:`CapabilityResult` built through :func:`capability_result`,
the one place that enforces the grading invariants.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ("BridgeSpec", "Capability", "CapabilityResult", "CommandHandler", "Handler", "HttpHandler",
           "McpToolHandler", "ModelHandler", "Degradation", "DegradationCode", "EventRow", "Frozen",
           "HookDeclaration", "RulesDeclaration", "RulesFile", "RulesSpec", "Route", "SeamMode", "Service",
           "Surface", "ToolName", "VendorSpec", "capability_result", "degrade")


class Frozen(BaseModel):
    """Base for every value object: immutable, no unknown keys.

    Field docstrings document the fields in the source, where readers and documentation tools
    find them; they are not copied into the JSON schema (pydantic's ``use_attribute_docstrings``
    re-reads every class's source at import, 12-25 ms of ``import compat_adapter``). Validators
    are built on a model's first use, not at import (``defer_build``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Capability(StrEnum):
    DIRECT = "DIRECT"
    ADAPTED = "ADAPTED"
    CARRY = "CARRY"
    UNSUPPORTED = "UNSUPPORTED"


class Route(StrEnum):
    """Who runs a hook, and whether its answer can reach the host. An :class:`EventRow` validator
    keeps the label and the row's behaviour in agreement."""

    OFFICIAL_BRIDGE = "official-bridge"
    """The host's own bridge runs it from a config we write."""
    NATIVE_TRANSLATE = "native-translate"
    """Our translation on a seam: the answer reaches the host as the vendor's would, or the vendor
    itself only observes the event (``blocking="observe"`` without an observe-only loss)."""
    NATIVE_SEAM = "native-seam"
    """Observe-only: the vendor could act on the answer, the seam cannot; the row says so with an
    observe-only loss, and a blocking answer is audited and ignored."""
    BUILTIN_BRIDGE = "builtin-bridge"
    """Our own Copilot bridge, for a vendor the host has no bridge for."""
    PLUGIN_HOST = "plugin-host"
    """OpenCode plugins loaded as written in a sidecar JS runtime; each callback is a hook on its point."""
    CARRY = "carry"
    UNSUPPORTED = "unsupported"


class DegradationCode(StrEnum):
    """The closed vocabulary of losses. Counts in the matrix come from these codes, never from text."""

    OBSERVE_ONLY = "observe-only"
    """The hook runs, but nothing it answers can change what the host does."""
    APPROXIMATE = "approximate"
    """The host moment only approximates the vendor's event; it may fire at other times."""
    INPUT_REWRITE_IGNORED = "input-rewrite-ignored"
    """Tool-input rewrites (updatedInput, modifiedArgs, modifiedInput) are not applied."""
    OUTPUT_REWRITE_IGNORED = "output-rewrite-ignored"
    """Tool-output or response rewrites are not applied."""
    PAYLOAD_FIELD_MISSING = "payload-field-missing"
    """The stdin payload lacks or flattens fields the vendor sends."""
    TIMING_DIFFERS = "timing-differs"
    """The hook runs at a different moment (or frequency) than in the vendor."""
    MATCHER_NARROWED = "matcher-narrowed"
    """A matcher selects differently here, or cannot narrow at all."""
    DECISION_NARROWED = "decision-narrowed"
    """Some of the vendor's decisions (ask, allow, block, always-allow …) have no effect here."""
    OUTPUT_FIELD_IGNORED = "output-field-ignored"
    """Some output fields (plain-stdout context, systemMessage, sessionTitle …) are not consumed."""
    NO_LOOP_GUARD = "no-loop-guard"
    """No consecutive-block cap: an unconditional blocking hook keeps forcing steps."""
    ENV_DIFFERS = "env-differs"
    """The hook's environment differs from the vendor's (variables missing or renamed)."""
    TIMEOUT_DIFFERS = "timeout-differs"
    """The default timeout differs from the vendor's."""
    EXIT_CODE_DIFFERS = "exit-code-differs"
    """An exit-code convention of the vendor is treated differently here."""
    REAUTHORED = "reauthored"
    """The vendor's in-process callback body cannot be carried; the hook must be a command."""
    NO_PUBLIC_API = "no-public-api"
    """The vendor product has no public hook API; another engine's dialect is assumed."""
    MESSAGE_PROVENANCE = "message-provenance"
    """Injected or steered messages carry a different source than in the vendor."""
    OWN_TRANSLATION = "own-translation"
    """No bridge exists for this vendor; this project re-implements the dialect."""
    POLLED = "polled"
    """The moment is detected by polling, bounded by the poll interval."""
    SCOPE_DIFFERS = "scope-differs"
    """Only part of what the vendor covers is visible here (in-process children, DSH_* env …)."""
    TEXT_DIFFERS = "text-differs"
    """What the model reads differs in wording from the vendor's own text (a host prefix …)."""
    MODEL_DIFFERS = "model-differs"
    """A prompt or agent hook is answered by the host's model, not the one the vendor would ask."""
    FIELD_IGNORED = "field-ignored"
    """A handler field the vendor reads (or at least accepts) is not honoured here."""


class Degradation(Frozen):
    code: DegradationCode
    """Stable machine code from the closed vocabulary."""
    text: str = Field(min_length=1)
    """One sentence, in our words, saying exactly what is lost."""


def degrade(code: str | DegradationCode, text: str) -> Degradation:
    """Shorthand the vendor tables use to list one loss."""
    return Degradation(code=DegradationCode(code), text=text)


class Service(StrEnum):
    """Host services a row may need besides its seams."""

    SHELL = "shell"
    """A shell executor: without it no command hook can run."""
    SHELL_ENV = "shellEnv"
    FS_WATCH = "fs.watch"
    LSP = "lsp"
    WORKTREES = "worktrees"
    AGENTS = "agents"
    APPROVAL = "approval"
    USER_QUESTIONS = "userQuestions"
    SUBAGENTS = "subagents"
    SETTINGS = "settings"
    MODEL = "model"
    """A model the host lets hooks ask (prompt and agent hooks)."""
    TOOLS = "tools"
    """The host's tool registry: a nested call through its whole pipeline (DSH ``ctx.tools.execute``)."""


class SeamMode(StrEnum):
    """How a host seam dispatches (see ``compat_adapter.host.protocol``)."""

    WATERFALL = "waterfall"
    SERIAL = "serial"
    EMIT = "emit"


class Surface(Frozen):
    """What one host actually offers. Grading reads only this, never the host object."""

    host: str
    version: str
    seams: Mapping[str, SeamMode]
    """Seam name → dispatch mode."""
    services: frozenset[str]
    """Service names (see :class:`Service`): shell, fs.watch, lsp …"""
    bridge_packages: frozenset[str] = frozenset()
    """Official bridge packages the host can mount."""
    unserved: Mapping[str, str] = Field(default_factory=dict)
    """Row points whose seam exists but that this host never produces (point → why)."""
    context_roles: frozenset[str] = frozenset()
    """Roles besides ``user`` this host gives hook context in (``system``, ``developer``)."""

    def without(self, *, seams: Sequence[str] = (), services: Sequence[str] = (),
                bridges: Sequence[str] = ()) -> Surface:
        """A copy with parts removed: how tests and other hosts describe a smaller composition."""
        return Surface(
            host=self.host,
            version=self.version,
            seams={k: v for k, v in self.seams.items() if k not in seams},
            services=self.services - set(services),
            bridge_packages=self.bridge_packages - set(bridges),
            unserved=self.unserved,
            context_roles=self.context_roles,
        )


class EventRow(Frozen):
    """One vendor event and how this project routes it onto a host."""

    event: str
    """The vendor's own event name, spelled as the vendor spells it."""
    route: Route
    seams: tuple[str, ...]
    """Host seams the route listens on (event names); may be empty when a service drives it."""
    point: str
    """The translation or observation point: bridge event, native point such as `git/worktrees`."""
    services: tuple[Service, ...] = ()
    """Host services needed besides the shell (which every command hook needs)."""
    degradations: tuple[Degradation, ...] = ()
    """Losses of this row alone; what its vendor or its bridge loses on every row is stated there."""
    role_losses: tuple[Degradation, ...] = ()
    """Losses only where the host lacks the vendor's :attr:`VendorSpec.context_role`."""
    blocking: Literal["verdict", "context", "continue", "observe"] = "observe"
    """What a hook answer can do here: decide a verdict, add context, force a step, or nothing."""
    matcher_subject: str | None = None
    """What the vendor matcher is tested against (tool name, source, agent type …); None: no matcher."""
    bridge_event: str | None = None
    """For official-bridge rows: the event name in the generated bridge config."""
    timeout_s: float | None = None
    """The vendor's default timeout for this event when it differs from the vendor-wide one."""
    fires_on: Literal["any", "success", "failure", "completed", "incomplete", "idle"] = "any"
    """Which occurrences of the seam are this event: a host may publish one seam (tool results,
    status flips) where the vendor has several events. ``completed``: a success, or a shell command
    that ran and ended non-zero (its exit or a signal); ``incomplete``: any other failure."""
    official: EventRow | None = None
    """The same event on the host's official bridge, taken when ``prefer="official"`` is asked for."""

    @model_validator(mode="after")
    def _route_shape(self) -> EventRow:
        if self.route in (Route.CARRY, Route.UNSUPPORTED):
            raise ValueError("a hook row routes to a seam; carry and unsupported are results, not rows")
        if self.route is Route.OFFICIAL_BRIDGE and not self.bridge_event:
            raise ValueError(f"{self.event}: an official-bridge row names its bridge event")
        # The route label says what the row does. A bridge route names who runs the hook, so an
        # observe-only bridged row keeps its bridge label and says what it loses with the loss.
        observe_only = any(d.code is DegradationCode.OBSERVE_ONLY for d in self.degradations)
        if observe_only and self.blocking != "observe":
            raise ValueError(f"{self.event}: an observe-only row's answer reaches nothing (blocking='observe')")
        if self.route is Route.NATIVE_SEAM and not observe_only:
            raise ValueError(f"{self.event}: a native-seam row only watches and says what that loses "
                             "(an observe-only loss); an event the vendor only watches is native-translate")
        if self.route is Route.NATIVE_TRANSLATE and observe_only:
            raise ValueError(f"{self.event}: a row that only watches an event the vendor acts on is native-seam")
        if (o := self.official) and (o.route, o.event, self.route) != (Route.OFFICIAL_BRIDGE, self.event, self.route) \
                or (o and self.route is Route.OFFICIAL_BRIDGE):
            raise ValueError(f"{self.event}: the official alternative is the same event on the official bridge")
        return self


class ToolName(Frozen):
    """One entry of a vendor's tool vocabulary: the vendor's name and the host's name for it."""

    vendor: str
    host: str
    arguments: tuple[tuple[str, str], ...] = ()
    """Vendor argument name → host argument name, where they differ."""


class RulesSpec(Frozen):
    formats: tuple[str, ...]
    default_sources: tuple[str, ...]
    """Glob patterns relative to a project root, in the vendor's own order."""
    note: str
    """What carrying these rules means for this vendor, in one or two sentences."""


class BridgeSpec(Frozen):
    """The host's official bridge as one vendor's hooks meet it, and what its rows lose there.

    A bridge loss is stated here once, for the rows it is true of, and never on a row: most
    compare the bridge with the vendor ("where Claude Code starts them all at once"), so the same
    bridge package carries different losses for different vendors.
    """

    package: str
    """The host package that runs the bridge."""
    dialect: Literal["claude-code", "codex"]
    """The bridge config dialect."""
    losses: tuple[Degradation, ...] = ()
    """True of every row routed through the bridge."""
    answer_losses: tuple[Degradation, ...] = ()
    """True of every bridged row whose answer reaches the host (``blocking`` is not observe)."""
    block_losses: tuple[Degradation, ...] = ()
    """True of every bridged row whose answer can block (``blocking`` is verdict or continue)."""
    tool_losses: tuple[Degradation, ...] = ()
    """True of every bridged row matched on the tool name."""

    def losses_for(self, row: EventRow) -> tuple[Degradation, ...]:
        """This bridge's losses on one of the rows it runs."""
        out = self.losses
        if row.blocking != "observe":
            out += self.answer_losses
        if row.blocking in ("verdict", "continue"):
            out += self.block_losses
        if row.matcher_subject == "tool_name":
            out += self.tool_losses
        return out


class VendorSpec(Frozen):
    id: str
    aliases: tuple[str, ...] = ()
    losses: tuple[Degradation, ...] = ()
    """True of every row of this vendor, whatever its route (the environment scrub, no public API …)."""
    bridge: BridgeSpec | None = None
    """The official bridge this vendor's bridged rows go through."""
    default_timeout_s: float
    """The vendor's own default per-hook timeout."""
    context_role: str | None = None
    """The role of the vendor's hook-context message (Claude ``system``, Codex ``developer``)."""
    concurrent: bool
    """Whether the vendor runs the matching hooks of one event concurrently."""
    shell: Literal["sh", "bash", "user"] = "sh"
    """The shell the vendor runs a command hook with on POSIX: `sh -c`, `bash -c`, or `$SHELL -c`."""
    project_dir_env: tuple[str, ...] = ()
    """Variables the vendor sets to the project directory for its hooks."""
    events: tuple[EventRow, ...]
    rules: RulesSpec
    plugin_runtime: str
    """Why the vendor's plugin runtime is out of scope (always UNSUPPORTED)."""
    tools: tuple[ToolName, ...] = ()
    unserved: tuple[tuple[str, str], ...] = ()
    """(event, why) for vendor events no route here serves: imported, one is UNSUPPORTED with why."""

    @model_validator(mode="after")
    def _unique_events(self) -> VendorSpec:
        names = [row.event for row in self.events]
        if len(names) != len(set(names)):
            raise ValueError(f"{self.id}: duplicate event rows")
        if set(names) & {name for name, _ in self.unserved}:
            raise ValueError(f"{self.id}: an event is both served and unserved")
        if any(row.route is Route.OFFICIAL_BRIDGE or row.official for row in self.events) and not self.bridge:
            raise ValueError(f"{self.id}: bridged rows need a bridge")
        for row in (r for event in self.events for r in (event, event.official) if r is not None):
            losses = self.losses_for(row)
            if not losses:
                raise ValueError(f"{self.id} {row.event}: every row loses something (there is no DIRECT row)")
            if len(set(losses)) != len(losses):
                # A loss is stated once, at its scope: a row never repeats its vendor's or bridge's.
                raise ValueError(f"{self.id} {row.event}: a loss is listed twice")
        return self

    @property
    def bridge_package(self) -> str | None:
        """The host package of the official bridge this vendor's bridged rows need."""
        return self.bridge.package if self.bridge else None

    @property
    def bridge_dialect(self) -> str | None:
        """The bridge config dialect (`claude-code` or `codex`)."""
        return self.bridge.dialect if self.bridge else None

    def unserved_reason(self, event: str) -> str | None:
        """Why this vendor event has no route here, when it is one of :attr:`unserved`."""
        return next((why for name, why in self.unserved if name == event), None)

    def row(self, event: str) -> EventRow | None:
        for row in self.events:
            if row.event == event:
                return row
        return None

    def losses_for(self, row: EventRow, roles: frozenset[str] | None = None) -> tuple[Degradation, ...]:
        """Every loss of one of this vendor's rows: the vendor's, the row's own, then its bridge's.

        ``roles``: the context roles of the host graded on (:attr:`Surface.context_roles`); the
        row's role losses count where the vendor's role is not among them (None: everywhere).
        Grading lists exactly these on the row's result; each is written once, at its scope.
        """
        bridge = self.bridge if row.route is Route.OFFICIAL_BRIDGE else None
        placed = roles is not None and self.context_role in roles
        return (self.losses + row.degradations + (() if placed else row.role_losses)
                + (bridge.losses_for(row) if bridge else ()))


class _HandlerFields(Frozen):
    """What every handler kind shares: when it runs and what it says while it runs."""

    timeout_s: float | None = None
    """None: the vendor's default applies."""
    if_rule: str | None = None
    """Claude's ``if``: one permission rule (``Bash(git *)``) the tool call must match."""
    once: bool = False
    """Run at most once per session (then it is spent)."""
    status_message: str | None = None
    """Claude's spinner text while the hook runs; logged here."""
    ignored: tuple[str, ...] = ()
    """Fields of the vendor's handler that are not honoured here, by name (graded)."""


class CommandHandler(_HandlerFields):
    """A command hook, normalised from any vendor's handler shape."""

    command: str = Field(min_length=1)
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    args: tuple[str, ...] | None = None
    """Exec form: ``command`` is the program and these its arguments; no shell."""
    shell: Literal["bash", "powershell"] | None = None
    """Claude's ``shell``: None is the vendor's default shell."""
    run_async: bool = False
    """In the background: the hook cannot block and its answer decides nothing."""
    rewake: bool = False
    """Claude's ``asyncRewake``: background, and an exit 2 wakes the agent with its output."""
    rewake_message: str | None = None
    """The prefix of the wake-up reminder (Claude's internal ``rewakeMessage``)."""


class HttpHandler(_HandlerFields):
    """An ``http`` hook: the payload POSTed to ``url``; the response body read like stdout."""

    url: str = Field(min_length=1)
    headers: tuple[tuple[str, str], ...] = ()
    allowed_env: tuple[str, ...] = ()
    """Variables that may be interpolated into header values; any other ``$VAR`` becomes empty."""


class McpToolHandler(_HandlerFields):
    """An ``mcp_tool`` hook: one tool of an MCP server named in the vendor's MCP config."""

    server: str = Field(min_length=1)
    tool: str = Field(min_length=1)
    input_json: str = "{}"
    """The tool arguments as JSON text; string values may hold ``${path}`` into the hook input."""


class ModelHandler(_HandlerFields):
    """A ``prompt`` or ``agent`` hook: the vendor's prompt, answered by the host's model."""

    kind: Literal["prompt", "agent"]
    prompt: str = Field(min_length=1)
    model: str | None = None
    """The model the vendor would ask; the host's model answers here."""
    continue_on_block: bool = False


#: Every handler kind this project runs.
Handler = CommandHandler | HttpHandler | McpToolHandler | ModelHandler


class HookDeclaration(Frozen):
    """What a preset or importer declares: vendor and event named explicitly, never guessed."""

    vendor: str
    event: str
    matcher: str | None = None
    handler: Handler | None = None
    """None when the handler can never run here (a callable); the grader says why."""
    handler_kind: Literal["command", "http", "mcp_tool", "prompt", "agent", "callable"] = "command"
    id: str | None = None
    origin: str | None = None
    """Where the declaration came from (file and place), for messages."""


class RulesDeclaration(Frozen):
    vendor: str
    sources: tuple[str, ...]
    base_dir: str | None = None
    id: str | None = None


class RulesFile(Frozen):
    path: str
    bytes: int
    sha256: str


class CapabilityResult(Frozen):
    """The frozen answer to one registration. Build it with :func:`capability_result`."""

    id: str
    vendor: str
    event: str
    """The vendor event, `rules` for rules, `plugin-runtime` for the runtime row."""
    capability: Capability
    route: Route
    seams: tuple[str, ...] = ()
    services: tuple[str, ...] = ()
    point: str | None = None
    degradations: tuple[Degradation, ...] = ()
    reason: str | None = None
    matcher: str | None = None
    files: tuple[RulesFile, ...] = ()
    alternative: str | None = None
    """The other route this hook could take here, and in one line what it would lose."""

    @model_validator(mode="after")
    def _invariants(self) -> CapabilityResult:
        cap = self.capability
        if cap is Capability.ADAPTED and not self.degradations:
            raise ValueError("ADAPTED needs at least one degradation")
        if cap is Capability.DIRECT and self.degradations:
            raise ValueError("DIRECT carries no degradation")
        if cap is Capability.UNSUPPORTED:
            if not self.reason:
                raise ValueError("UNSUPPORTED needs a reason")
            if self.route is not Route.UNSUPPORTED:
                raise ValueError("UNSUPPORTED is never routed")
        elif self.route is Route.UNSUPPORTED:
            raise ValueError("only UNSUPPORTED takes the unsupported route")
        if cap is Capability.CARRY:
            if self.route is not Route.CARRY or self.seams != ("agent/created",):
                raise ValueError("CARRY is for rules and lands on agent/created")
        elif self.route is Route.CARRY:
            raise ValueError("the carry route is only for CARRY")
        return self

    @property
    def mounted(self) -> bool:
        """Whether this result may ever be mounted on a host."""
        return self.capability is not Capability.UNSUPPORTED


def capability_result(**fields: Any) -> CapabilityResult:
    """The one constructor for results; raises ``ValueError`` when an invariant is broken."""
    return CapabilityResult.model_validate(fields)
