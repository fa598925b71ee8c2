"""The wire host: the Host contract on the service side of a JSON-lines channel to any runtime.

``WireHost`` runs over a :class:`~compat_adapter.host.wire.channel.Channel`. The peer is the
runtime's side (for DeepSeek Harness, the Cordis plugin of ``host/dsh/bundle/``); it publishes its
surface in ``hello`` (a plain ``surface``, or a report a registered host kind reads), forwards the
seam events this side subscribed to as ``dispatch`` requests and applies the verdicts and effects
that come back. The same routes and :class:`~compat_adapter.service.CompatAdapter` run unchanged:

* a waterfall listener's ``await next()`` becomes a ``next`` request back to the peer, which runs
  the rest of the runtime's chain (other listeners, the seam's default) and returns its verdict;
* ``agent.inject`` / ``agent.steer`` during a dispatch ride back in its reply (``effects``); later
  ones are sent as notifications. A message whose ``role`` is ``system`` or ``developer`` is context
  the peer puts in such a message where its runtime has one (DSH 0.2: a v4 ``developer/message``);
* every durable session record arrives as a ``session/event`` notification, so listeners read a
  mirror of the real log (``turn_of`` and friends work), and ``session.append`` goes to the real
  log as a notification, in order with everything else. A mirror is released with its agent
  (``agent/disposed``, ``agent/gone``), and at most ``max_sessions`` are kept (the oldest goes);
* ``mount_bridge`` has the peer load an official bridge; services it lacks run here (``services.py``).
"""

from __future__ import annotations

import contextvars
import inspect
import logging
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import anyio
from anyio.abc import TaskGroup

from compat_adapter.errors import HostSurfaceMismatch, MountFailed, ProtocolError
from compat_adapter.host.wire.channel import Channel
from compat_adapter.host.wire.services import ServiceSide
from compat_adapter.host.wire.notices import ChannelNotices
from compat_adapter.host.timers import Timers
from compat_adapter.host.wire.codec import (decode_event, decode_result, decode_verdict, encode_message,
                                            encode_verdict, plain)
from compat_adapter.host.protocol import (
    Host,
    LogEvent,
    ModelRequest,
    SeamMode,
    SessionEventNotice,
    Surface,
    ToolExecution,
    ToolResult,
    UserMessage,
)
from compat_adapter.host.records import HostRecord
from compat_adapter.host.surfaces import HostKind, host_kind
from compat_adapter.host.sessionlog import SessionLog

__all__ = ("HostRecord", "RecordReading", "WireAgent", "WireHost", "WireSession")

_logger = logging.getLogger("compat_adapter.host.wire")
_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
           "error": logging.ERROR, "critical": logging.CRITICAL}

# The open dispatch's effect list; None outside a dispatch.
_EFFECTS: contextvars.ContextVar[list[dict[str, Any]] | None] = contextvars.ContextVar(
    "wire_effects", default=None)


@dataclass(slots=True)
class _OpenExecute:
    """An open ``tools/execute`` dispatch: the results the plugin holds, by the Python object
    that stands for each (what ``next`` returned, a nested call's outcome)."""

    dispatch: Any
    held: dict[int, tuple[str, ToolResult]] = field(default_factory=dict)

    def hold(self, kind: str, result: ToolResult) -> ToolResult:
        self.held[id(result)] = (kind, result)
        return result

    def verdict(self, result: Any) -> dict[str, Any]:
        kind, held = self.held.get(id(result), ("", None))
        # Only a result the plugin holds can answer: a listener cannot make one up.
        return {"kind": kind if held is result else "not-held"}


_EXECUTE: contextvars.ContextVar[_OpenExecute | None] = contextvars.ContextVar("wire_execute", default=None)


class RecordReading(Protocol):
    """Reads one session's records, in order, in the contract's vocabulary (a host kind may write
    its records in its own shape: DSH's content blocks, ``host/dsh/records.py``)."""

    def read(self, event: LogEvent) -> list[LogEvent]: ...


class _AsWritten:
    """The records of a peer that already speaks the contract's vocabulary."""

    def read(self, event: LogEvent) -> list[LogEvent]:
        return [event]


# ── session and agent proxies ──────────────────────────────────────────────────────────────────

class WireSession(SessionLog):
    """A mirror of one real DSH session log, fed by ``session/event`` notifications."""

    __slots__ = ("_host", "_id", "_cwd", "_path", "_events", "_reader")

    def __init__(self, host: WireHost, session_id: str, cwd: Path, transcript_path: Path | None,
                 reader: RecordReading) -> None:
        self._host = host
        self._id = session_id
        self._cwd = cwd
        self._path = transcript_path
        self._events: list[LogEvent] = []
        self._reader = reader

    def append(self, type: str, data: Mapping[str, Any]) -> LogEvent:
        """Append to the real log. The returned record is provisional (``seq`` -1): the committed
        one, with DSH's sequence number, comes back on the feed into :attr:`events`."""
        record = plain(dict(data))
        self._host._channel.notify("session/append", {"session": self._id, "type": type,
                                                       "data": record})
        return LogEvent(seq=-1, type=type, data=record, time=0.0)

    def _mirror(self, event: LogEvent) -> list[LogEvent]:
        """Mirror one real record, read in the contract's vocabulary (see ``records``)."""
        read = self._reader.read(event)
        self._events.extend(read)
        return read

    def __repr__(self) -> str:
        return f"<WireSession {self._id} events={len(self._events)}>"


class WireAgent:
    """A handle on one live DSH agent (its id is its session id, as in DSH)."""

    __slots__ = ("_host", "_id", "_session", "_parent_id")

    def __init__(self, host: WireHost, agent_id: str, session: WireSession, parent_id: str | None) -> None:
        self._host = host
        self._id = agent_id
        self._session = session
        self._parent_id = parent_id

    @property
    def id(self) -> str:
        return self._id

    @property
    def session(self) -> WireSession:
        return self._session

    @property
    def parent_id(self) -> str | None:
        return self._parent_id

    def inject(self, message: UserMessage) -> None:
        self._host._effect("inject", self._id, message)

    def steer(self, message: UserMessage) -> None:
        self._host._effect("steer", self._id, message)

    def __repr__(self) -> str:
        return f"<WireAgent {self._id}>"


# ── the host ───────────────────────────────────────────────────────────────────────────────────

@dataclass(eq=False, slots=True)
class _Mount:
    host: WireHost
    package: str
    config_path: Path
    mount_id: str
    loaded: bool
    warnings: tuple[str, ...] = ()
    gone: bool = False

    async def unmount(self) -> None:
        if self.gone:
            return
        self.gone = True
        if not self.host._channel.closed.is_set():
            await self.host._channel.request("unmount_bridge", {"mount": self.mount_id})


class WireHost(ServiceSide, ChannelNotices, Timers, Host):
    """The Host contract over a :class:`~compat_adapter.host.wire.channel.Channel` to a runtime: call
    :meth:`attach` before the channel runs; the surface is known once the peer's ``hello`` arrived
    (:meth:`welcome`). ``kind``: the host kind whose hello this is (its surface reader and record
    reader); by default the one the hello names (``host``), else a plain ``surface``."""

    def __init__(self, channel: Channel, *, cwd: Path, tg: TaskGroup, max_records: int = 1000,
                 max_sessions: int = 256, kind: HostKind | None = None) -> None:
        self._channel = channel
        self._cwd = Path(cwd)
        self._tg = tg
        self._surface: Surface | None = None
        self._listeners: dict[str, list[Callable[..., Any]]] = {}
        self._sessions: OrderedDict[str, WireSession] = OrderedDict()
        self._max_sessions = max_sessions
        self._kind = kind
        self._agents: dict[str, WireAgent] = {}
        self._pending = 0
        self._idle = anyio.Event()
        self._idle.set()
        #: Operator log, the newest ``max_records``, oldest first (also sent to the composition's
        #: logger): a ring, so that adapters coming and going do not grow it.
        self.records: deque[HostRecord] = deque(maxlen=max_records)
        #: The runtime's own report from ``hello`` (DSH: services, versions, bridges, tools).
        self.composition: Mapping[str, Any] = {}

    # ── wiring ──
    def attach(self) -> None:
        self._channel.on_request("dispatch", self._dispatch)
        self._channel.on_notification("session/event", self._on_session_event)
        self._channel.on_notification("agent/gone", self._on_agent_gone)
        self._attach_services()

    def welcome(self, params: Mapping[str, Any]) -> Surface:
        """Take the peer's ``hello``: its surface, given directly or as its host kind's report."""
        if self._kind is None and params.get("host") is not None and "surface" not in params:
            self._kind = host_kind(str(params["host"]))
        if self._kind is not None and self._kind.read_hello is not None:
            self.composition = dict(params.get("composition") or {})
            surface = self._kind.read_hello(params)
        elif "surface" in params:
            try:
                surface = Surface.model_validate(params["surface"])
            except ValueError as exc:
                raise ProtocolError(f"hello carries an invalid surface: {exc}") from exc
        else:
            raise ProtocolError("hello carries a surface, or names its host kind (host) with its report")
        if params.get("cwd"):
            self._cwd = Path(str(params["cwd"]))
        self._surface = surface
        return surface

    # ── Host contract ──
    @property
    def surface(self) -> Surface:
        if self._surface is None:
            raise ProtocolError("the host has not said hello yet: its surface is unknown")
        return self._surface

    @property
    def cwd(self) -> Path:
        return self._cwd

    def on(self, seam: str, listener: Callable[..., Any], *, prepend: bool = False) -> Callable[[], None]:
        if seam not in self.surface.seams:
            raise HostSurfaceMismatch(f"host {self.surface.host} {self.surface.version} has no "
                                      f"{seam} seam", seam=seam)
        listeners = self._listeners.setdefault(seam, [])
        if not listeners:
            # The plugin starts forwarding this seam; in order with everything sent after it.
            self._channel.notify("subscribe", {"seam": seam})
        listeners.insert(0, listener) if prepend else listeners.append(listener)

        def unsubscribe() -> None:
            if listener in listeners:
                listeners.remove(listener)
                if not listeners:
                    self._channel.notify("unsubscribe", {"seam": seam})
        return unsubscribe

    def get_agent(self, agent_id: str) -> WireAgent | None:
        return self._agents.get(agent_id)

    def log(self, level: str, message: str, /, **fields: Any) -> None:
        self.records.append(HostRecord(level, message, fields))
        _logger.log(_LEVELS.get(level, logging.INFO), "%s %s", message, fields if fields else "")
        self._channel.notify("log", {"level": level, "message": message, "fields": plain(fields)})

    def start_soon(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> None:
        self._begin()
        self._tg.start_soon(self._background, fn, args)

    async def settle(self) -> None:
        while True:
            if self._pending == 0:
                await anyio.sleep(0)
                if self._pending == 0:
                    return
            await self._idle.wait()

    async def mount_bridge(self, package: str, config_path: Path, *, user: str | None = None) -> _Mount:
        if package not in self.surface.bridge_packages:
            raise HostSurfaceMismatch(f"bridge package {package!r} is not in this composition",
                                      package=package)
        try:
            reply = await self._channel.request("mount_bridge", {"package": package,
                                                                 "config_path": str(config_path),
                                                                 "user": user})
        except ProtocolError as exc:
            raise MountFailed(f"the composition could not mount {package}: {exc.message}",
                              package=package) from exc
        mount = _Mount(self, package, Path(config_path), str(reply["mount"]),
                       bool(reply.get("loaded", True)), tuple(reply.get("warnings") or ()))
        for warning in mount.warnings:
            self.log("warning", warning, package=package, config_path=str(config_path))
        return mount

    async def release(self, service: str, user: str) -> None:
        """What ``user`` holds goes: the bridge mounts still up in the plugin (with the last Codex
        mount the ``bash`` alias it provided), or what it opened of the services this side brings."""
        if service != "bridges" or self._channel.closed.is_set():
            return await self._release_brought(service, user) if service != "bridges" else None
        try:
            await self._channel.request("release", {"service": service, "user": user})
        except ProtocolError as exc:  # a plugin that cannot release still unmounted on request
            self.log("warning", f"the plugin could not release {service} for {user}: {exc.message}")

    def listener_count(self, seam: str) -> int:
        return len(self._listeners.get(seam, ()))

    async def plugin_state(self) -> Mapping[str, Any]:
        """What the plugin holds now: forwarded seams, bridge mounts, services it provides,
        dispatches and emits in flight."""
        return await self._channel.request("plugin.state", {})

    async def complete(self, request: ModelRequest) -> str:
        """The composition's own model answers (the provider and model of a live agent), through
        the plugin; raises TimeoutError after ``request.timeout_s`` and ProtocolError on a failed call."""
        with anyio.fail_after(request.timeout_s):
            reply = await self._channel.request("complete", {"system": request.system, "prompt": request.prompt,
                                                             "model": request.model})
        text = reply.get("text") if isinstance(reply, Mapping) else None
        if not isinstance(text, str):
            raise ProtocolError("the composition's model answered without text")
        return text

    # ── background work ──
    def _begin(self) -> None:
        if self._pending == 0:
            self._idle = anyio.Event()
        self._pending += 1

    def _end(self) -> None:
        self._pending -= 1
        if self._pending == 0:
            self._idle.set()

    async def _background(self, fn: Callable[..., Awaitable[Any]], args: tuple[Any, ...]) -> None:
        try:
            await fn(*args)
        except Exception as exc:  # noqa: BLE001 - background failures never take the host down
            self.log("error", "background task failed", error=repr(exc))
        finally:
            self._end()

    # ── proxies ──
    def session_from(self, data: Mapping[str, Any]) -> WireSession:
        """The mirror of the session ``data`` names (``{id, cwd?, transcript_path?}``), made on
        first sight."""
        sid = str(data["id"])
        session = self._sessions.get(sid)
        if session is None:
            path = data.get("transcript_path")
            reader = self._kind.records() if self._kind is not None and self._kind.records else _AsWritten()
            session = WireSession(self, sid, Path(str(data.get("cwd") or self._cwd)),
                                  Path(path) if path else None, reader)
            self._sessions[sid] = session
            while len(self._sessions) > self._max_sessions:
                # The oldest mirror goes: a peer that never says its sessions ended cannot grow it.
                self._sessions.popitem(last=False)
        return session

    @property
    def session_count(self) -> int:
        """How many session mirrors this host holds (released with their agents, and bounded)."""
        return len(self._sessions)

    def _release(self, agent_id: str) -> None:
        """An agent is gone: forget its handle, and its session's mirror unless another agent
        (a subagent sharing it) still holds the session."""
        agent = self._agents.pop(agent_id, None)
        sid = agent.session.id if agent is not None else agent_id
        if not any(a.session.id == sid for a in self._agents.values()):
            self._sessions.pop(sid, None)

    def agent_from(self, data: Mapping[str, Any]) -> WireAgent:
        """The handle on the agent ``data`` names (``{id, session?, parent_id?}``), made on first
        sight."""
        aid = str(data["id"])
        agent = self._agents.get(aid)
        if agent is None:
            session = self.session_from(data.get("session") or {"id": aid})
            agent = WireAgent(self, aid, session, data.get("parent_id"))
            self._agents[aid] = agent
        return agent

    def _effect(self, op: str, agent_id: str, message: UserMessage) -> None:
        effect = {"op": op, "agent": agent_id, "message": encode_message(message)}
        effects = _EFFECTS.get()
        if effects is not None:
            effects.append(effect)
        else:
            self._channel.notify(f"agent/{op}", effect)

    # ── incoming ──
    def _on_session_event(self, params: dict[str, Any]) -> None:
        session = self.session_from(params["session"])
        raw = params["event"]
        record = LogEvent(seq=int(raw.get("seq", -1)), type=str(raw["type"]),
                          data=raw.get("data") or {}, time=float(raw.get("time") or 0.0))
        read = session._mirror(record)
        listeners = self._listeners.get("session/event")
        if listeners:
            agent = self._agents.get(session.id)
            for one in read:
                notice = SessionEventNotice(session=session, event=one, agent=agent)
                for listener in list(listeners):
                    self._run_emit_listener(listener, notice)

    def _on_agent_gone(self, params: dict[str, Any]) -> None:
        self._release(str(params["id"]))

    def _run_emit_listener(self, listener: Callable[..., Any], event: Any) -> None:
        try:
            result = listener(event)
        except Exception as exc:  # noqa: BLE001 - an emit listener's failure is contained
            self.log("error", "emit listener failed", error=repr(exc))
            return
        if inspect.isawaitable(result):
            async def wait() -> None:
                await result
            self.start_soon(wait)

    async def execute_nested(self, parent: ToolExecution, call_id: str,
                             arguments: Mapping[str, Any]) -> ToolResult:
        open_execute = _EXECUTE.get()
        if open_execute is None:
            raise ProtocolError("a nested tool call is made from inside a tools/execute listener")
        reply = await self._channel.request("execute_nested", {
            "dispatch": open_execute.dispatch, "call_id": call_id, "arguments": plain(arguments)})
        return open_execute.hold("nested", decode_result(parent.name, reply))

    async def _dispatch(self, params: dict[str, Any]) -> dict[str, Any]:
        seam = str(params.get("seam"))
        mode = self.surface.seams.get(seam)
        if mode is None:
            raise ProtocolError(f"dispatch for {seam!r}, which is not in the surface")
        event = decode_event(self, seam, params.get("event") or {})
        if seam == "agent/disposed":
            self._release(event.agent.id)
        did = params.get("dispatch")
        listeners = list(self._listeners.get(seam, ()))
        effects: list[dict[str, Any]] = []
        token = _EFFECTS.set(effects)
        open_execute = _OpenExecute(did) if seam == "tools/execute" else None
        execute_token = _EXECUTE.set(open_execute)
        self._begin()
        try:
            verdict: Any = None
            if mode is SeamMode.WATERFALL:
                verdict = await self._waterfall(seam, listeners, event, did)
            elif mode is SeamMode.SERIAL:
                for listener in listeners:
                    result = listener(event)
                    if inspect.isawaitable(result):
                        await result
            else:
                # Emit: the plugin does not wait for this reply; running the listeners to the end
                # here lets their effects ride back and lets settle() on either side wait for them.
                for listener in listeners:
                    try:
                        result = listener(event)
                        if inspect.isawaitable(result):
                            await result
                    except Exception as exc:  # noqa: BLE001 - contained, as emit listeners are
                        self.log("error", "emit listener failed", seam=seam, error=repr(exc))
        finally:
            _EFFECTS.reset(token)
            _EXECUTE.reset(execute_token)
            self._end()
        if open_execute is not None:
            return {"verdict": open_execute.verdict(verdict), "effects": effects}
        return {"verdict": encode_verdict(seam, verdict), "effects": effects}

    async def _waterfall(self, seam: str, listeners: list[Callable[..., Any]], event: Any,
                         did: Any) -> Any:
        async def downstream() -> Any:
            reply = await self._channel.request("next", {"dispatch": did})
            open_execute = _EXECUTE.get()
            if seam == "tools/execute" and open_execute is not None:
                return open_execute.hold("downstream", decode_result(event.name, reply))
            return decode_verdict(seam, reply)

        async def call(i: int) -> Any:
            if i == len(listeners):
                return await downstream()
            result = listeners[i](event, lambda: call(i + 1))
            if inspect.isawaitable(result):
                result = await result
            return result
        return await call(0)
