"""The Host contract: what any agent host must offer compat-adapter, and what it may offer.

Two hosts implement it: the embedded host (``host/embedded/``) and a real DeepSeek Harness reached
over a JSON-lines channel (``host/dsh/``). Nothing here may be something only the embedded host could
provide, so every payload is plain data and every handle is a small protocol.

Seams dispatch in one of three modes (as in DSH/Cordis):

* ``waterfall`` — ``async listener(event, next) -> verdict``. Listeners run in registration order;
  calling ``await next()`` runs the rest and finally the seam's default; returning without calling
  it vetoes everything after, the default included.
* ``serial`` — ``async listener(event) -> None``, awaited one after the other.
* ``emit`` — ``listener(event) -> None | Awaitable``; observe-only. The host runs awaitable results
  in the background and :meth:`Host.settle` waits for them.
"""

from __future__ import annotations

import abc
import itertools
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import anyio

# The answers a listener gives live apart (the routing rules need only them); the contract names them.
from compat_adapter.host.answers import (
    ApprovalOutcome,
    AskUserQuestionAnswer,
    PostToolDecision,
    PreStepDecision,
    PreToolDecision,
    QuestionAnswer,
)

# The surface is plain data the grader reads too, so it lives in the model; the contract names it.
from compat_adapter.model import SeamMode, Surface

__all__ = (
    "AgentCreated",
    "AgentError",
    "AgentHandle",
    "AgentRef",
    "AgentStatus",
    "ApprovalOutcome",
    "ApprovalRequest",
    "AskUserQuestionAnswer",
    "BridgeMount",
    "Host",
    "InboxInserted",
    "LogEvent",
    "LspResult",
    "MessageSource",
    "ModelRequest",
    "Notice",
    "PostToolDecision",
    "PreStepDecision",
    "PreStepEvent",
    "PreToolDecision",
    "Question",
    "QuestionAnswer",
    "SEAM_DEFAULTS",
    "SeamMode",
    "SessionCreated",
    "SessionEventNotice",
    "SessionHandle",
    "SettingsUpdated",
    "ShellEnvResolver",
    "SubagentEnd",
    "SubagentStart",
    "Surface",
    "ToolExecution",
    "ToolPostEvent",
    "ToolResult",
    "TurnStopping",
    "UserMessage",
    "UserQuestionsRequest",
    "Worktree",
    "new_message",
    "validate_host",
)


# ── messages and log ────────────────────────────────────────────────────────────────────────────

@dataclass(frozen=True, slots=True)
class MessageSource:
    kind: str
    """`user`, `plugin`, `compat-adapter-rules`, `compat-adapter-hook`, `hooks-claude-code` …"""
    name: str | None = None
    """The plugin, hook id or file behind the message, when there is one."""


_message_ids = itertools.count(1)


@dataclass(frozen=True, slots=True)
class UserMessage:
    id: str
    text: str
    source: MessageSource
    role: str = "user"
    """Who the model reads it from: ``user``, or context the vendor puts in a ``system`` or
    ``developer`` message. A host that has such messages delivers it as one (DSH 0.2: a v4
    ``developer/message``; the embedded host: a record of that role); another host delivers it as
    a user message."""


def new_message(text: str, kind: str, name: str | None = None, role: str = "user") -> UserMessage:
    return UserMessage(id=f"m{next(_message_ids)}", text=text, source=MessageSource(kind, name), role=role)


@dataclass(frozen=True, slots=True)
class Notice:
    """What a hook or the adapter tells the person, never the model: a blocked prompt's reason as
    the vendor shows it, a ``stopReason``, a ``systemMessage``, a hook file held back."""

    kind: Literal["blocked", "stopped", "message", "held"]
    text: str
    """Word for word what the vendor shows its user (the hook's own text where it shows that)."""
    session_id: str | None = None
    """The session it belongs to (None: the host's, before any session)."""
    origin: str | None = None
    """Who says it: a hook id, ``<vendor>:<event>``, or the file held back."""
    ends_turn: bool = False
    """The turn it is said in ends without another step (a block or a ``continue: false``)."""


@dataclass(frozen=True, slots=True)
class LogEvent:
    """One durable session-log record (the `session/event` feed carries these)."""

    seq: int
    type: str
    data: Mapping[str, Any]
    time: float


@runtime_checkable
class SessionHandle(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def cwd(self) -> Path: ...
    @property
    def transcript_path(self) -> Path | None: ...
    @property
    def events(self) -> Sequence[LogEvent]: ...
    def append(self, type: str, data: Mapping[str, Any]) -> LogEvent: ...


@runtime_checkable
class AgentHandle(Protocol):
    """What a listener may do with an agent."""

    @property
    def id(self) -> str: ...
    @property
    def session(self) -> SessionHandle: ...
    @property
    def parent_id(self) -> str | None: ...
    def inject(self, message: UserMessage) -> None:
        """Queue model-facing context for the next pre-step without waking the driver."""
    def steer(self, message: UserMessage) -> None:
        """Put a message in the next-step inbox: a running turn takes another step."""


AgentRef = AgentHandle


# ── seam payloads ───────────────────────────────────────────────────────────────────────────────

@dataclass(frozen=True, slots=True)
class ToolExecution:
    call_id: str
    name: str
    """Host tool name (`bash`, `write`, `edit`, `read` …)."""
    arguments: Mapping[str, Any]
    agent: AgentHandle | None = None


@dataclass(frozen=True, slots=True)
class ToolResult:
    is_error: bool
    text: str
    """Result content flattened to text (what the model sees)."""
    value: Any = None


@dataclass(frozen=True, slots=True)
class ToolPostEvent:
    execution: ToolExecution
    result: ToolResult


@dataclass(frozen=True, slots=True)
class PreStepEvent:
    agent: AgentHandle
    messages: tuple[UserMessage, ...]
    """The claimed inbox batch; empty on tool-continuation steps."""
    turn: int
    step: int


@dataclass(frozen=True, slots=True)
class TurnStopping:
    agent: AgentHandle
    turn: int
    last_assistant_message: str | None = None


@dataclass(frozen=True, slots=True)
class AgentCreated:
    agent: AgentHandle
    source: Literal["startup", "resume", "clear", "compact"]


@dataclass(frozen=True, slots=True)
class AgentError:
    agent: AgentHandle
    turn: int | None
    step: int | None
    error: str


@dataclass(frozen=True, slots=True)
class AgentStatus:
    agent: AgentHandle
    status: Literal["idle", "running"]


@dataclass(frozen=True, slots=True)
class InboxInserted:
    agent: AgentHandle
    message: UserMessage


@dataclass(frozen=True, slots=True)
class SubagentStart:
    run_id: str
    child_id: str
    parent: AgentHandle
    provider: str = "local"
    local: bool = True


@dataclass(frozen=True, slots=True)
class SubagentEnd:
    run_id: str
    child_id: str
    parent: AgentHandle
    stop_reason: str
    last_assistant_message: str | None = None
    provider: str = "local"
    local: bool = True


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    agent: AgentHandle
    tool_name: str
    call_id: str | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    question: str
    options: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class UserQuestionsRequest:
    questions: tuple[Question, ...]
    agent: AgentHandle | None = None


@dataclass(frozen=True, slots=True)
class SettingsUpdated:
    namespace: str
    revision: int


@dataclass(frozen=True, slots=True)
class SessionCreated:
    session: SessionHandle


@dataclass(frozen=True, slots=True)
class SessionEventNotice:
    """Payload of the `session/event` emit seam: one durable record just committed."""

    session: SessionHandle
    event: LogEvent
    agent: AgentHandle | None = None


@dataclass(frozen=True, slots=True)
class Worktree:
    path: str
    head: str | None
    branch: str | None


@dataclass(frozen=True, slots=True)
class LspResult:
    kind: Literal["hover", "locations", "diagnostics"]
    data: Any


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One question to the host's model (a prompt or agent hook)."""

    system: str
    prompt: str
    model: str | None
    """The model the vendor names; the host answers with its own."""
    timeout_s: float


#: What a waterfall returns when every listener calls ``next()``. ``user-questions/request`` has
#: no answer by default: the host raises "no provider" instead.
SEAM_DEFAULTS: Mapping[str, object] = {
    "tools/pre-execute": PreToolDecision("allow"),
    "tools/execute": "the tool body's result",
    "tools/post-execute": PostToolDecision("accept"),
    "agent/pre-step": "enter with the claimed messages",
    "approval/request": ApprovalOutcome.UNAVAILABLE,
    "user-questions/request": None,
}


@runtime_checkable
class BridgeMount(Protocol):
    """A mounted official bridge; unmount removes its listeners and stops its runs."""

    @property
    def package(self) -> str: ...
    @property
    def config_path(self) -> Path: ...
    async def unmount(self) -> None: ...


Listener = Callable[..., Any]
Unsubscribe = Callable[[], None]
ShellEnvResolver = Callable[[ToolExecution], Mapping[str, str] | Awaitable[Mapping[str, str]]]


class Host(abc.ABC):
    """The contract. Abstract methods are required; the rest are optional and degrade.

    An optional part that a host lacks must also be absent from its :attr:`surface`, so grading
    refuses the rows that need it instead of mounting a no-op.
    """

    # ── required ──
    @property
    @abc.abstractmethod
    def surface(self) -> Surface:
        """The seams, services and bridge packages this host offers now."""

    @abc.abstractmethod
    def on(self, seam: str, listener: Listener, *, prepend: bool = False) -> Unsubscribe:
        """Subscribe to a seam in its mode; returns the function that unsubscribes."""

    @abc.abstractmethod
    def get_agent(self, agent_id: str) -> AgentHandle | None:
        """A live agent by id (subagent children included while they run)."""

    @abc.abstractmethod
    def log(self, level: str, message: str, /, **fields: Any) -> None:
        """Operator log (not the session log): registrations, refusals, infrastructure faults."""

    @abc.abstractmethod
    def start_soon(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> None:
        """Run a background task the host owns; :meth:`settle` waits for it."""

    @abc.abstractmethod
    async def settle(self) -> None:
        """Wait until background work started through the host (emit listeners included) is done."""

    @property
    @abc.abstractmethod
    def cwd(self) -> Path:
        """The working directory sessions start in."""

    # ── optional ──
    def notify(self, notice: Notice) -> None:
        """Show the person a :class:`Notice` where this host shows things to its user (the embedded
        host: a ``notice`` session record; DSH: a plugin record the SDK streams, and the turn's end).
        A host without such a place degrades to its operator log, as this default does."""
        self.log("warning", f"notice for the person ({notice.kind}): {notice.text}",
                 session=notice.session_id, origin=notice.origin)

    def call_later(self, delay_s: float, fn: Callable[..., Awaitable[Any]], *args: Any) -> Unsubscribe:
        """Start ``fn`` as background work after ``delay_s``; the answer cancels the wait. The wait is no
        background work; a host without timers of its own waits in :meth:`start_soon` (settle waits)."""
        cancel = anyio.Event()
        async def due() -> None:  # noqa: E306 - the wait and its cancel belong together
            with anyio.move_on_after(delay_s):
                await cancel.wait()
            if not cancel.is_set():
                await fn(*args)
        self.start_soon(due)
        return cancel.set

    async def mount_bridge(self, package: str, config_path: Path, *, user: str | None = None) -> BridgeMount:
        """Mount an official bridge package on a generated config file; the mount is ``user``'s
        (``release("bridges", user)`` unmounts what it left mounted)."""
        raise NotImplementedError

    async def watch(self, path: Path, changed: Callable[[tuple[str, ...]], Awaitable[None]],
                    *, debounce_ms: int = 250, user: str | None = None) -> Callable[[], Awaitable[None]]:
        """Watch a directory; ``changed`` gets the changed paths. Returns an async close.
        The watch is ``user``'s until closed or released (see :meth:`release`)."""
        raise NotImplementedError

    async def lsp_query(self, operation: str, file_path: Path, line: int = 0,
                        character: int = 0, *, user: str | None = None) -> LspResult:
        """Ask the host's language service (`hover`, `diagnostics`, `goToDefinition` …). A
        language server started for the query stays up for ``user`` until it is released."""
        raise NotImplementedError

    async def list_worktrees(self, cwd: Path) -> tuple[Worktree, ...]:
        """The git worktrees of the repository at ``cwd`` (empty outside a repository)."""
        raise NotImplementedError

    async def watch_worktrees(self, cwd: Path,
                              changed: Callable[[tuple[Worktree, ...], tuple[Worktree, ...]],
                                                Awaitable[None]],
                              *, interval_s: float = 0.5, user: str | None = None
                              ) -> Callable[[], Awaitable[None]]:
        """Poll the git worktrees at ``cwd``; the first poll is the baseline, later ones call
        ``changed(added, removed)``. Returns an async close; the poller is ``user``'s."""
        raise NotImplementedError

    async def release(self, service: str, user: str) -> None:
        """``user`` is done with ``service``: what it opened there stops (watches, pollers …), and a
        service the host started for its users (a language server, a file watcher) stops with its last
        user; one asked for with ``user=None`` is the host's own until it closes. Releasing what ``user``
        does not hold does nothing; a host that keeps nothing per user (this default) has nothing to release."""
        return None

    async def complete(self, request: ModelRequest) -> str:
        """The host's model answers one prompt with text (raises on a failed call)."""
        raise NotImplementedError

    def register_shell_env(self, name: str, resolve: ShellEnvResolver) -> Unsubscribe:
        """Contribute `DSH_*` variables to the model's shell tool runs (``resolve`` may be async)."""
        raise NotImplementedError

    async def execute_nested(self, parent: ToolExecution, call_id: str,
                             arguments: Mapping[str, Any]) -> ToolResult:
        """From a ``tools/execute`` listener of ``parent``: run ``parent``'s tool as a nested call ``call_id``
        with ``arguments`` through the host's whole tool pipeline (pre-execute, approval, around-dispatch,
        post-execute); its result (DSH: ``ctx.tools.execute`` with ``parent`` the outer call's token)."""
        raise NotImplementedError


#: Optional method → the service name it stands for in a surface.
OPTIONAL_PARTS: Mapping[str, str] = {
    "mount_bridge": "bridges",
    "watch": "fs.watch",
    "lsp_query": "lsp",
    "list_worktrees": "worktrees",
    "watch_worktrees": "worktrees",
    "register_shell_env": "shellEnv",
    "complete": "model",
    "execute_nested": "tools",
}

REQUIRED_PARTS: tuple[str, ...] = ("surface", "on", "get_agent", "log", "start_soon", "settle", "cwd")


def validate_host(host: object) -> tuple[str, ...]:
    """List what a host lacks: required parts as `missing: X`, optional ones as `degraded: X`.

    A required part missing makes the object no host at all; an optional part missing is fine as
    long as the surface does not claim the service (that is reported as `claims: X`).
    """
    problems: list[str] = []
    for name in REQUIRED_PARTS:
        if not hasattr(type(host), name) and not hasattr(host, name):
            problems.append(f"missing: {name}")
    if problems:
        return tuple(problems)
    surface = host.surface  # type: ignore[attr-defined]
    for method, service in OPTIONAL_PARTS.items():
        impl = getattr(type(host), method, None)
        overridden = impl is not None and impl is not getattr(Host, method, None)
        claimed = bool(surface.bridge_packages) if service == "bridges" else service in surface.services
        if not overridden:
            problems.append(f"degraded: {method} ({service})")
            if claimed:
                problems.append(f"claims: {service} without {method}")
    return tuple(problems)
