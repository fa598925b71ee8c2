"""Frozen data the whole project speaks: capabilities, routes, degradations, vendor rows, results.

Nothing here does I/O. Vendor tables (``vendors/<id>/table.py``) are built only from these types, and
every registration returns a :class:`CapabilityResult` built through :func:`capability_result`,
the one place that enforces the grading invariants.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

# The vocabularies live in their own module; they are re-exported here, where the tables import them.
from compat_adapter.vocabulary import (
    Capability,
    Degradation,
    DegradationCode,
    Frozen,
    NameSet,
    Route,
    SeamMode,
    Service,
    Surface,
    degrade,
)

__all__ = ("BridgeSpec", "Capability", "CapabilityResult", "CommandHandler", "Confidence", "Degradation",
           "DegradationCode", "EventRow", "Frozen", "Handler", "HookDeclaration", "HookPlace", "HookVar",
           "HttpHandler", "MatcherEngine", "McpToolHandler", "ModelHandler", "NameSet", "Route", "RulesDeclaration",
           "RulesFile", "RulesSpec", "SeamMode", "Service", "Surface", "ToolName", "UnsupportedVendor",
           "VendorSpec", "capability_result", "degrade")


#: Where a row's semantics come from (see :attr:`EventRow.confidence`).
Confidence = Literal["measured", "documented", "derived"]


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
    """Losses only where the host lacks this row's context role (:meth:`VendorSpec.role_of`)."""
    context_role: str | None = None
    """The role of this event's context message where it is not the vendor's own
    :attr:`VendorSpec.context_role` (Qwen puts only SessionStart context in its system instruction)."""
    blocking: Literal["verdict", "context", "continue", "observe"] = "observe"
    """What a hook answer can do here: decide a verdict, add context, force a step, or nothing."""
    matcher_subject: str | None = None
    """What the vendor matcher is tested against (tool name, source, agent type …); None: no matcher."""
    bridge_event: str | None = None
    """For official-bridge rows: the event name in the generated bridge config."""
    timeout_s: float | None = None
    """The vendor's default timeout for this event when it differs from the vendor-wide one."""
    fires_on: Literal["any", "success", "failure", "completed", "incomplete", "idle", "rejected",
                      "every-step", "created", "done"] = "any"
    """Which occurrences of the seam are this event: a host may publish one seam (tool results,
    status flips) where the vendor has several events. ``completed``: a success, or a shell command
    that ran and ended non-zero (its exit or a signal); ``incomplete``: any other failure;
    ``rejected``: only the approvals the host rejects; ``every-step`` (agent/pre-step): every step,
    a tool continuation too (with an empty prompt), not only a step that carries a typed prompt;
    ``created`` and ``done`` (todo/write): an item new to the list, an item whose status became
    completed (a todo row names one: vendors call these events by different names)."""
    idle_after_s: float | None = None
    """An idle row (``fires_on="idle"``) that the vendor fires only once the agent has stayed idle
    this long after a turn (Claude's idle notification: 60 s), on a timer that the agent's next
    turn or its end cancels; None: at once."""
    official: EventRow | None = None
    """The same event on the host's official bridge, taken when ``prefer="official"`` is asked for."""
    tools: tuple[str, ...] | None = None
    """The host tools this event fires for, where the vendor has an event per kind of tool (Cursor's
    beforeShellExecution fires only for shell calls); None: every call the seam sees."""
    confidence: Confidence = "measured"
    """Where the row's semantics come from: ``measured`` on the vendor's real CLI (the vendor lane),
    ``documented`` (its docs only, no CLI to check them), or ``derived`` (the forked vendor's row)."""

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
        if self.idle_after_s is not None and self.fires_on != "idle":
            raise ValueError(f"{self.event}: only an idle row waits for idleness (idle_after_s)")
        if (self.point == "todo/write") != (self.fires_on in ("created", "done")):
            # One todo/write record is several events; a row that names no change would never fire.
            raise ValueError(f"{self.event}: a todo/write row fires on created or done, and only it does")
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
    formats: tuple[str, ...] = ("markdown",)  # plain markdown: what most vendors' rules files are
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


class MatcherEngine(Frozen):
    """How a vendor reads a matcher pattern, in ``explain``'s words (the decision is the dialect's)."""

    engine: Literal["js-regex", "rust-regex", "anchored-regex"]
    """How a pattern that is not a list of exact names is read."""
    names: str | None
    """A Python ``re`` pattern for the matchers the vendor reads as a list of exact names; None: never."""
    names_events: tuple[str, ...] | None
    """The events on which ``names`` applies; None: every event."""
    match_all: tuple[str, ...]
    """Matchers that select everything, besides none, ``""`` and ``"*"``."""


#: Where a variable the vendor gives a hook takes its value from (see :class:`HookVar`).
HookVarSource = Literal["project", "plugin-root", "plugin-data", "hook-dir", "session", "none"]


class HookVar(Frozen):
    """One variable a vendor gives its command hooks, as the vendor gives it (measured on its CLI).

    ``source`` says where the value comes from: the session's project folder, the plugin the hook
    file belongs to (its folder, or the vendor's data folder for it), the folder of the hook file,
    the session id; ``none``: the vendor gives it and this host cannot (``note`` says why), so a
    hook that reads it is graded with that loss, never handed an empty value in silence."""

    name: str
    source: HookVarSource
    events: tuple[str, ...] | None = None
    """The events it is given on; None: every event."""
    note: str = ""
    """For ``none``: what the vendor gives and why this host does not."""


class HookPlace(Frozen):
    """Where one hook file sits, as its vendor reads it: the folder its commands are rooted at and,
    for a plugin's hooks file, the plugin (what ``${CLAUDE_PLUGIN_ROOT}`` and its kin name)."""

    root: str | None = None
    """The project folder the vendor runs the file's hooks in (None: the session's)."""
    plugin_root: str | None = None
    """The plugin folder, when the file is a plugin's hooks file."""
    plugin_name: str | None = None
    """The plugin's name (its manifest's ``name``, else its folder's), for its data folder."""
    hook_dir: str | None = None
    """The folder the hooks file is in (Copilot's ``COPILOT_HOOK_DIR``)."""


class VendorSpec(Frozen):
    """One vendor's table. The fields without a default are facts every vendor states: a table that
    leaves one out is refused when the vendor registers (``VENDOR_INCOMPLETE``), never defaulted."""

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
    shell_name: str | None = None
    """What that shell knows itself as (``$0``, and the prefix of its own error messages) where the
    vendor starts it by name, found on PATH: Gemini CLI spawns ``bash``, so a missing program reads
    ``bash: line 1: …`` there and ``/usr/bin/bash: line 1: …`` from a bash started by its path.
    None: the path it runs."""
    project_dir_env: tuple[str, ...]
    """Variables the vendor sets to the project directory for its hooks (``()``: none, stated)."""
    hook_vars: tuple[HookVar, ...]
    """Every other variable the vendor gives a command hook (plugin roots, session ids …), measured
    on its CLI; the project variables above are given on every event besides these. Both are facts
    every vendor states, ``()`` included: a table that leaves them out gives its hooks nothing in
    silence, so it is refused (``VENDOR_INCOMPLETE``)."""
    events: tuple[EventRow, ...]
    rules: RulesSpec
    plugin_runtime: str
    """Why the vendor's plugin runtime is out of scope (always UNSUPPORTED)."""
    tools: tuple[ToolName, ...] = ()
    unserved: tuple[tuple[str, str], ...] = ()
    """(event, why) for vendor events no route here serves: imported, one is UNSUPPORTED with why."""
    dedupes_commands: bool
    """Whether the vendor runs a command once when the same command is configured twice for an event."""
    clamps_event_timeouts: bool
    """Whether an event's own timeout (``EventRow.timeout_s``) also caps a hook's longer timeout."""
    handler_kinds: NameSet
    """The handler kinds the vendor runs (``command`` at least); a hook of another kind is UNSUPPORTED."""
    http_losses: tuple[Degradation, ...]
    """What an ``http`` handler of this vendor loses besides its row's losses (empty without http)."""
    matchers: MatcherEngine
    bad_matcher: Literal["refuses-config", "skips-hook"]
    """What the vendor does with a matcher that does not compile: refuses the whole config (so a
    bridge config holding it would not load), or skips that one hook."""
    exit2_blocks: bool
    """Whether a blocking hook's exit 2 blocks (the interpreter's error on stderr as the reason)."""
    failure_denies: tuple[str, ...]
    """Events on which any failing hook (one that cannot start, any non-zero exit) denies the call."""
    plugin_host: bool
    """Unread: the unit's ``PluginRuntime`` capability says it; it goes when the tables drop it."""
    plugin_title_request: bool = False
    """Whether a first prompt also makes a title request that runs the plugins' system transform."""
    confidence: Confidence = "measured"
    """Where its rules and runtime rows' semantics come from (each event row states its own)."""
    measured_on: str | None = None
    """The vendor release whose behaviour its rows follow: the one the vendor lane pins and ran
    (``2.1.332``); None when no release of the vendor was run to measure them."""

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

    def role_of(self, row: EventRow) -> str | None:
        """The role of ``row``'s context message: its own, else the vendor's (None: a user message)."""
        return row.context_role or self.context_role

    def losses_for(self, row: EventRow, roles: frozenset[str] | None = None) -> tuple[Degradation, ...]:
        """Every loss of one of this vendor's rows: the vendor's, the row's own, then its bridge's.

        ``roles``: the context roles of the host graded on (:attr:`Surface.context_roles`); the
        row's role losses count where the vendor's role is not among them (None: everywhere).
        Grading lists exactly these on the row's result; each is written once, at its scope.
        """
        bridge = self.bridge if row.route is Route.OFFICIAL_BRIDGE else None
        placed = roles is not None and self.role_of(row) in roles
        return (self.losses + row.degradations + (() if placed else row.role_losses)
                + (bridge.losses_for(row) if bridge else ()))


class UnsupportedVendor(Frozen):
    """A hook-capable agent with no unit here: ``grade`` names its project files as not a supported
    vendor rather than skip them in silence (``vendors/unsupported.py`` lists them)."""

    id: str
    name: str
    files: tuple[str, ...]
    """Where its hook files sit in a project: glob patterns relative to the project root."""
    settings: tuple[str, ...]
    """Settings files it shares with other settings (project paths): named only with a ``hooks`` key."""


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
    sequential: bool = False
    """Its matcher group asks for one hook after another (Gemini's and Qwen's ``sequential``): when
    any matching hook of an event asks, all of them run in order, each reading the input as the one
    before changed it."""


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
    fail_closed: bool = False
    """A run that fails (cannot start, crashes, times out, answers unreadably) denies the guarded
    action instead of letting it through (Cursor's ``failClosed``)."""


class HttpHandler(_HandlerFields):
    """An ``http`` hook: the payload POSTed to ``url``; the response body read like stdout."""

    url: str = Field(min_length=1)
    headers: tuple[tuple[str, str], ...] = ()
    allowed_env: tuple[str, ...] = ()
    """Variables that may be interpolated into header values; any other ``$VAR`` becomes empty."""
    refused_networks: tuple[str, ...] = ()
    """Address ranges (CIDR) the vendor never sends a hook to: a URL that resolves into one fails
    before any connection, as unreachable (Copilot refuses loopback, private and link-local ones)."""
    refused_hosts: tuple[str, ...] = ()
    """Host names the vendor never sends a hook to, whatever they resolve to (lower case)."""


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
    confidence: Confidence = "measured"
    """Whether the vendor semantics graded here were measured on its real CLI or only read from its
    documentation (:attr:`EventRow.confidence`)."""
    measured_on: str | None = None
    """The vendor release whose behaviour was graded (:attr:`VendorSpec.measured_on`)."""

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
