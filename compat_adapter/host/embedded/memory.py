"""The embedded host: a faithful, network-free Python model of the DeepSeek Harness seams.

``MemoryHost`` publishes :data:`~compat_adapter.host.surfaces.EMBEDDED_SURFACE` (minus whatever
it was built without), dispatches every seam in its real mode with DSH's defaults
(:mod:`~compat_adapter.host.embedded.seams`), keeps sessions with an append-only log
(:mod:`~compat_adapter.host.embedded.session`), runs scripted agents over real tools
(:mod:`~compat_adapter.host.embedded.agent`, :mod:`~compat_adapter.host.embedded.loop`,
:mod:`~compat_adapter.host.embedded.tools`) and reaches the optional services through the runtime
modules, imported only when first used (:mod:`~compat_adapter.runtime.services`)::

    async with MemoryHost(tmp_path, log_dir=tmp_path / "logs") as host:
        host.on("tools/pre-execute", policy)
        agent = await host.create_agent(script=[call("bash", command="ls"), "done"])
        result = await agent.run_turn("list the files")
        await host.settle()

Leaving the ``async with`` disposes every agent (``agent/disposed``), waits (bounded) for
background work, unmounts bridges, stops services and finally cancels what is left.
"""

from __future__ import annotations

import contextvars
import inspect
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any
from uuid import uuid4

import anyio
from anyio.abc import TaskGroup

from compat_adapter.errors import HostSurfaceMismatch, InvalidDeclaration
from compat_adapter.handlers.model import ModelEndpoint, ask_endpoint, endpoint_from_env
from compat_adapter.host.embedded.agent import MemoryAgent, StartSource
from compat_adapter.host.embedded.bridges import MountedBridge, mount
from compat_adapter.host.embedded.loop import run_nested
from compat_adapter.host.embedded.notices import SessionNotices
from compat_adapter.host.timers import Timers
from compat_adapter.host.embedded.seams import Default, Listener, Seams
from compat_adapter.runtime.services import HOST_USER, Services
from compat_adapter.host.embedded.session import MemorySession, Sessions
from compat_adapter.runtime.shellenv import ShellEnv
from compat_adapter.host.protocol import (
    AgentCreated,
    ApprovalOutcome,
    ApprovalRequest,
    BridgeMount,
    Host,
    LspResult,
    ModelRequest,
    SessionCreated,
    SessionEventNotice,
    SettingsUpdated,
    ShellEnvResolver,
    Surface,
    ToolExecution,
    ToolResult,
    Worktree,
)
from compat_adapter.host.records import HostRecord
from compat_adapter.host.script import Script
from compat_adapter.host.surfaces import EMBEDDED_SURFACE

__all__ = ("HostRecord", "MemoryHost")

_logger = logging.getLogger("compat_adapter.host")
_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
           "error": logging.ERROR, "critical": logging.CRITICAL}
_SOURCES = frozenset({"startup", "resume", "clear", "compact"})
# Set inside the host's background tasks: settle() there would wait for itself.
_IN_BACKGROUND: contextvars.ContextVar[bool] = contextvars.ContextVar("in_background",
                                                                     default=False)


class MemoryHost(SessionNotices, Timers, Host):
    """The embedded host. Use it as ``async with MemoryHost(cwd) as host``.

    :param cwd: where sessions start (the session cwd of every tool and hook).
    :param log_dir: when given, each session's log is also written to ``<log_dir>/<id>.jsonl``.
    :param shell, fs_watch, lsp, worktrees, bridges: switch parts off; a part switched off is absent
        from :attr:`surface` (``shell=False`` removes ``shell`` and ``shellEnv``) and its method
        raises ``NotImplementedError``.
    :param lsp_command: the language server command line (default: the runtime's default).
    :param approver: answers ``approval/request`` when every listener calls ``next()``:
        ``approver(ApprovalRequest) -> ApprovalOutcome`` (or awaitable). Without one the answer is
        ``unavailable`` and the tool is denied (fail closed).
    :param clock: the time source of log records (epoch seconds).
    :param max_steps_per_turn: the host's runaway guard; a turn that would take more steps ends
        with reason ``max-steps``.
    :param subagent_start_wait_s: how long a child waits for background ``subagent/start``
        listeners before its first step.
    :param close_grace_s: how long leaving the host waits for running turns and background work
        before cancelling them.
    :param max_records: operator-log entries kept in :attr:`records` (the newest).
    :param max_detached_sessions: sessions whose agent is gone kept for a later ``resume`` (the
        newest; see :class:`~compat_adapter.host.embedded.session.Sessions`).
    :param model: the model server prompt and agent hooks ask; without one (and without
        ``COMPAT_ADAPTER_MODEL_URL``) the surface has no ``model`` service and they are UNSUPPORTED.
    """

    def __init__(self, cwd: Path, *, log_dir: Path | None = None, shell: bool = True,
                 fs_watch: bool = True, lsp: bool = True, worktrees: bool = True,
                 bridges: bool = True, lsp_command: Sequence[str] | None = None,
                 approver: Callable[[ApprovalRequest], Any] | None = None,
                 clock: Callable[[], float] = time.time, max_steps_per_turn: int = 64,
                 subagent_start_wait_s: float = 10.0, close_grace_s: float = 10.0,
                 model: ModelEndpoint | None = None, max_records: int = 1000,
                 max_detached_sessions: int = 64) -> None:
        self._cwd = Path(cwd)
        #: The model prompt and agent hooks ask (``COMPAT_ADAPTER_MODEL_URL`` … when not given).
        self.model = model if model is not None else endpoint_from_env()
        self._log_dir = None if log_dir is None else Path(log_dir)
        self.shell = shell
        self._fs_watch = fs_watch
        self._lsp = lsp
        self._worktrees = worktrees
        self._bridges = bridges
        self._lsp_command = None if lsp_command is None else tuple(lsp_command)
        self._approver = approver
        self._clock = clock
        self.max_steps_per_turn = max_steps_per_turn
        self.subagent_start_wait_s = subagent_start_wait_s
        self.close_grace_s = close_grace_s

        off: list[str] = []
        if not shell:
            off += ["shell", "shellEnv"]
        if not fs_watch:
            off.append("fs.watch")
        if not lsp:
            off.append("lsp")
        if not worktrees:
            off.append("worktrees")
        no_bridges = () if bridges else tuple(EMBEDDED_SURFACE.bridge_packages)
        self._surface = EMBEDDED_SURFACE.without(services=off, bridges=no_bridges)
        if self.model is not None:
            self._surface = self._surface.model_copy(
                update={"services": self._surface.services | {"model"}})

        #: Operator log (see :meth:`log`), oldest first; a ring, so that adapters registering and
        #: disposing for the host's whole life do not grow it.
        self.records: deque[HostRecord] = deque(maxlen=max_records)
        self._seams = Seams(self._surface.seams, self.log, self._spawn)
        self._sessions = Sessions(max_detached_sessions)
        self._agents: dict[str, MemoryAgent] = {}
        self._counters: dict[str, int] = {}
        self._shell_env = ShellEnv(self.log)
        self._settings: dict[str, tuple[int, Any]] = {}
        self._mounts: dict[MountedBridge, str] = {}
        self._services = Services(close_grace_s)
        self._tg: TaskGroup | None = None
        self._closing = False
        self._pending = 0
        self._idle: anyio.Event | None = None
        # Open emit() calls, each collecting the background work its listeners start.
        self._captures: list[list[anyio.Event]] = []

    # ── lifecycle ──
    async def __aenter__(self) -> MemoryHost:
        if self._tg is not None or self._closing:
            raise RuntimeError("a MemoryHost can be entered once")
        self._idle = anyio.Event()
        self._idle.set()
        tg = anyio.create_task_group()
        await tg.__aenter__()
        self._tg = tg
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> bool | None:
        tg = self._tg
        assert tg is not None, "MemoryHost exited without being entered"
        try:
            with anyio.CancelScope(shield=True):
                await self._close()
        finally:
            # From here on nothing new starts; what is still running is cancelled.
            self._closing = True
            tg.cancel_scope.cancel()
            self._tg = None
            # The body's own exception is not handed to the task group: it would come back
            # wrapped in an ExceptionGroup, and callers expect the error they raised.
            await tg.__aexit__(None, None, None)
        return None

    async def _close(self) -> None:
        with anyio.move_on_after(self.close_grace_s):
            for agent in reversed(list(self._agents.values())):
                await agent.dispose()
            await self.settle()
        for agent in reversed(list(self._agents.values())):
            # Still running after the grace period: disposed without waiting; its turn is
            # cancelled with the task group.
            agent.dispose_nowait()
        for mounted in reversed(list(self._mounts)):
            try:
                with anyio.move_on_after(self.close_grace_s):
                    await mounted.unmount()
            except Exception as exc:  # noqa: BLE001 - shutdown continues past a bad bridge
                self.log("error", "bridge unmount failed", package=mounted.package, error=repr(exc))
        self._mounts.clear()
        await self._services.close()
        with anyio.move_on_after(self.close_grace_s):
            await self.settle()
        for session in self._sessions.values():
            session.close()

    # ── Host contract ──
    @property
    def surface(self) -> Surface:
        return self._surface

    @property
    def cwd(self) -> Path:
        return self._cwd

    def on(self, seam: str, listener: Listener, prepend: bool = False) -> Callable[[], None]:
        """Subscribe ``listener`` to ``seam`` in the seam's mode; returns the unsubscribe function.

        :raises HostSurfaceMismatch: the seam is not in this host's surface.
        """
        return self._seams.on(seam, listener, prepend)

    def get_agent(self, agent_id: str) -> MemoryAgent | None:
        return self._agents.get(agent_id)

    def log(self, level: str, message: str, /, **fields: Any) -> None:
        self.records.append(HostRecord(level, message, fields))
        _logger.log(_LEVELS.get(level, logging.INFO), "%s %s", message, fields if fields else "")

    async def complete(self, request: ModelRequest) -> str:
        if self.model is None:
            raise NotImplementedError("no model endpoint configured")
        return await ask_endpoint(self.model, request)

    def start_soon(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> None:
        self._spawn(lambda: fn(*args))

    async def settle(self) -> None:
        """Wait until no background work is left (emit listeners, drivers, bridge runs …),
        including work that the awaited work started. Not callable from that work itself."""
        if _IN_BACKGROUND.get():
            raise RuntimeError("settle() called from the host's own background work would wait "
                               "for itself")
        while True:
            if self._pending == 0:
                # One more scheduling round: work that was about to start gets to register.
                await anyio.sleep(0)
                if self._pending == 0:
                    return
            assert self._idle is not None
            await self._idle.wait()

    # ── dispatch (used by the loop, bridges and tests) ──
    async def waterfall(self, seam: str, event: Any, default: Default) -> Any:
        """Run ``seam``'s listeners as a waterfall ending in ``default()``; see
        :mod:`compat_adapter.host.embedded.seams`."""
        return await self._seams.waterfall(seam, event, default)

    async def serial(self, seam: str, event: Any) -> Any:
        return await self._seams.serial(seam, event)

    def emit(self, seam: str, event: Any) -> list[anyio.Event]:
        """Notify ``seam``'s listeners; returns one "done" event per piece of background work they
        started (an async listener, or ``start_soon`` called from a listener). Most callers ignore
        it; the subagent tool waits on it."""
        captured: list[anyio.Event] = []
        self._captures.append(captured)
        try:
            self._seams.emit(seam, event)
        finally:
            self._captures.remove(captured)
        return captured

    def listener_count(self, seam: str) -> int:
        return self._seams.count(seam)

    async def default_approval(self, request: ApprovalRequest) -> ApprovalOutcome:
        """The ``approval/request`` default: the configured approver, else ``unavailable``."""
        if self._approver is None:
            return ApprovalOutcome.UNAVAILABLE
        try:
            answer = self._approver(request)
            if inspect.isawaitable(answer):
                answer = await answer
            return ApprovalOutcome(answer)
        except Exception as exc:  # noqa: BLE001 - DSH normalises a throwing answerer
            self.log("error", "approver failed; unavailable", error=repr(exc))
            return ApprovalOutcome.UNAVAILABLE

    # ── sessions and agents ──
    def create_session(self, cwd: Path | None = None) -> MemorySession:
        """A new session (``session/created``); :meth:`create_agent` makes one when not given."""
        session_id = f"session-{uuid4().hex[:12]}"
        path = None if self._log_dir is None else self._log_dir / f"{session_id}.jsonl"
        session = MemorySession(session_id, Path(cwd) if cwd is not None else self._cwd, path,
                                publish=self._publish_session_event, clock=self._clock)
        self._sessions.add(session)
        self.emit("session/created", SessionCreated(session))
        return session

    def get_session(self, session_id: str) -> MemorySession | None:
        return self._sessions.get(session_id)

    @property
    def sessions(self) -> tuple[MemorySession, ...]:
        return self._sessions.values()

    @property
    def agents(self) -> tuple[MemoryAgent, ...]:
        """Live agents (children included while they run), oldest first."""
        return tuple(self._agents.values())

    async def create_agent(self, *, source: StartSource = "startup",
                           session: MemorySession | str | None = None,
                           script: Script | None = None, model: str = "scripted/model-a",
                           parent: MemoryAgent | None = None) -> MemoryAgent:
        """A new agent, live (reachable through :meth:`get_agent`) before ``agent/created``
        (serial, ``AgentCreated(agent, source)``) is awaited.

        Give an existing ``session`` with source ``resume``/``clear``/``compact`` to model those
        starts; without one a new session is made (``session/created``).
        """
        self._require_running()
        if source not in _SOURCES:
            raise InvalidDeclaration(f"unknown start source {source!r}", source=source)
        if isinstance(session, str):
            found = self._sessions.get(session)
            if found is None:
                raise InvalidDeclaration(f"no session {session!r} on this host", session=session)
            session = found
        if session is None:
            session = self.create_session()
        agent = MemoryAgent(self, self.next_id("agent"), session,
                            parent_id=None if parent is None else parent.id, source=source,
                            script=script, model=model)
        self._agents[agent.id] = agent
        self._sessions.attach(session)
        session.agent = agent
        await self.serial("agent/created", AgentCreated(agent, source))
        return agent

    def next_id(self, prefix: str) -> str:
        """``<prefix>-<n>``, numbered per prefix on this host."""
        n = self._counters.get(prefix, 0) + 1
        self._counters[prefix] = n
        return f"{prefix}-{n}"

    def forget_agent(self, agent: MemoryAgent) -> None:
        """Drop a disposed agent from the live set (its session is kept while among the newest)."""
        self._agents.pop(agent.id, None)
        if agent.session.agent is agent:
            agent.session.agent = None
            self._sessions.detach(agent.session)

    def _publish_session_event(self, notice: SessionEventNotice) -> None:
        self.emit("session/event", notice)

    # ── settings ──
    def update_settings(self, namespace: str, document: Any) -> int:
        """Replace a settings document: bumps its revision, emits ``settings/document-updated``."""
        revision = self._settings.get(namespace, (0, None))[0] + 1
        self._settings[namespace] = (revision, document)
        self.emit("settings/document-updated", SettingsUpdated(namespace, revision))
        return revision

    def settings_document(self, namespace: str) -> tuple[int, Any]:
        """``(revision, document)``; ``(0, None)`` for a namespace never written."""
        return self._settings.get(namespace, (0, None))

    # ── shell environment ──
    def register_shell_env(self, name: str, resolve: ShellEnvResolver) -> Callable[[], None]:
        """Add a contributor of ``DSH_*`` variables to the model's ``bash`` runs."""
        if not self.shell:
            raise NotImplementedError("this host has no shell executor")
        return self._shell_env.register(name, resolve)

    async def collect_shell_env(self, execution: ToolExecution) -> dict[str, str]:
        """The ``DSH_*`` snapshot for one shell run (see :class:`ShellEnv`)."""
        return await self._shell_env.collect(execution)

    async def execute_nested(self, parent: ToolExecution, call_id: str,
                             arguments: Mapping[str, Any]) -> ToolResult:
        return await run_nested(self, parent, call_id, arguments)

    # ── optional services ──
    async def mount_bridge(self, package: str, config_path: Path, *, user: str | None = None) -> BridgeMount:
        if not self._bridges:
            raise NotImplementedError("bridges are switched off on this host")
        if package not in self._surface.bridge_packages:
            raise HostSurfaceMismatch(f"bridge package {package!r} is not offered by this host",
                                      package=package)
        mounted = await mount(self, package, Path(config_path))
        # Held until unmounted, then forgotten: a remount replaces a mount, never adds one.
        self._mounts[mounted] = HOST_USER if user is None else user
        mounted.on_unmount.append(lambda m: self._mounts.pop(m, None))
        return mounted

    @property
    def mounts(self) -> tuple[BridgeMount, ...]:
        """The bridges mounted now, oldest first."""
        return tuple(self._mounts)

    async def watch(self, path: Path, changed: Callable[[tuple[str, ...]], Awaitable[None]],
                    *, debounce_ms: int = 250, user: str | None = None) -> Callable[[], Awaitable[None]]:
        if not self._fs_watch:
            raise NotImplementedError("fs.watch is switched off on this host")
        return await self._services.watch(self._require_running(), path, changed, debounce_ms=debounce_ms,
                                          user=HOST_USER if user is None else user)

    async def lsp_query(self, operation: str, file_path: Path, line: int = 0,
                        character: int = 0, *, user: str | None = None) -> LspResult:
        if not self._lsp:
            raise NotImplementedError("lsp is switched off on this host")
        from compat_adapter.runtime.lsp import LspService

        def factory() -> Any:
            if self._lsp_command is None:
                return LspService(self._cwd)
            return LspService(self._cwd, self._lsp_command)

        service = await self._services.shared(self._require_running(), "lsp", factory,
                                              HOST_USER if user is None else user, once=True)
        return await service.query(operation, Path(file_path), line, character)

    async def list_worktrees(self, cwd: Path) -> tuple[Worktree, ...]:
        if not self._worktrees:
            raise NotImplementedError("worktrees are switched off on this host")
        from compat_adapter.runtime.worktrees import list_worktrees

        return await list_worktrees(Path(cwd))

    async def watch_worktrees(self, cwd: Path,
                              changed: Callable[[tuple[Worktree, ...], tuple[Worktree, ...]],
                                                Awaitable[None]],
                              *, interval_s: float = 0.5, user: str | None = None) -> Callable[[], Awaitable[None]]:
        if not self._worktrees:
            raise NotImplementedError("worktrees are switched off on this host")
        return await self._services.poll_worktrees(self._require_running(), cwd, changed, interval_s=interval_s,
                                                   user=HOST_USER if user is None else user)

    async def release(self, service: str, user: str) -> None:
        if service == "bridges":
            for mounted in [m for m, u in self._mounts.items() if u == user]:
                await mounted.unmount()
        await self._services.release(service, user)

    def services_in_use(self) -> Mapping[str, tuple[str, ...]]:
        """Service → the users holding it now (``""``: the host itself, for unnamed callers)."""
        return self._services.in_use()

    # ── background work ──
    def _require_running(self) -> TaskGroup:
        if self._tg is None or self._closing:
            raise RuntimeError("the MemoryHost is not running; use `async with MemoryHost(...)`")
        return self._tg

    def _spawn(self, factory: Callable[[], Awaitable[Any]]) -> anyio.Event:
        tg = self._require_running()
        done = anyio.Event()
        if self._pending == 0:
            self._idle = anyio.Event()
        self._pending += 1
        tg.start_soon(self._background, factory, done)
        for captured in self._captures:
            captured.append(done)
        return done

    async def _background(self, factory: Callable[[], Awaitable[Any]], done: anyio.Event) -> None:
        _IN_BACKGROUND.set(True)
        try:
            await factory()
        except Exception as exc:  # noqa: BLE001 - background failures never take the host down
            self.log("error", "background task failed", error=repr(exc))
        finally:
            done.set()
            self._pending -= 1
            if self._pending == 0 and self._idle is not None:
                self._idle.set()
