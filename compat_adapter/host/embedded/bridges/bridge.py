"""One mounted official bridge: the seam listeners both DSH hook bridges share.

A :class:`Dialect` (``claude_code.py``, ``codex.py``) says what differs — events, payload shape,
environment, whether ``ask`` counts, where plain stdout is context. :class:`MountedBridge` does
the rest the way DSH's bridges do (``dsh-seams.md`` §5.2, ≥0.1.7 column):

* ``SessionStart`` on the serial ``agent/created`` seam, awaited, tracked so unmount kills it;
  context → ``agent.inject``; decisions ignored; no ``hook/*`` records.
* ``UserPromptSubmit`` on ``agent/pre-step`` (skipped on steps without messages): deny → reject;
  else the downstream decision plus one context message after its messages.
* ``PreToolUse`` on ``tools/pre-execute``: deny → deny; ask → ask (Claude only); else ``next()``
  (allow never pre-approves).
* ``PostToolUse`` on ``tools/post-execute``: deny → block with feedback and context; else the
  downstream decision with our context in front of its contexts.
* ``Stop`` on ``agent/turn-stopping``: deny → ``agent.steer`` (no consecutive-block cap).
* ``SubagentStart`` / ``SubagentStop`` (Claude only) on the emit seams, detached: start context →
  the live child's ``inject``; stop is observe-only.

Hooks of one point run serially in config order; each turn-scoped run is logged as a
``hook/invoked`` / ``hook/result`` pair inside the turn.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import anyio

from compat_adapter.host.embedded.bridges.protocol import (
    DEFAULT_HOOK_TIMEOUT_S,
    DEFAULT_STDERR_SUMMARY_MAX_CHARS,
    CommandHook,
    DetachedRuns,
    HookConfig,
    HookOutput,
    MatcherGroup,
    MatcherMode,
    MergedOutcome,
    ParseOptions,
    encode_payload,
    hook_invoked_record,
    hook_result_record,
    matches_matcher,
    merge_hook_outputs,
    next_handler_id,
    run_hook,
)
from compat_adapter.host.protocol import (
    AgentCreated,
    AgentHandle,
    Host,
    PostToolDecision,
    PreStepDecision,
    PreStepEvent,
    PreToolDecision,
    SessionHandle,
    SubagentEnd,
    SubagentStart,
    ToolExecution,
    ToolPostEvent,
    TurnStopping,
    UserMessage,
    new_message,
)
from compat_adapter.runtime.process import hook_environment

__all__ = ("EXECUTOR_ENV", "SUBAGENT_TYPE", "BridgeOptions", "Dialect", "MountedBridge", "Site")

#: The only agent type DSH reports for subagents.
SUBAGENT_TYPE = "general-purpose"

#: What DSH's shell executor sets for every command it runs, hooks included.
EXECUTOR_ENV: Mapping[str, str] = MappingProxyType({"NO_COLOR": "1", "TERM": "dumb",
                                                   "PAGER": "cat", "GIT_PAGER": "cat"})

_FALLBACK = {
    "PreToolUse": "blocked by PreToolUse hook",
    "PostToolUse": "blocked by PostToolUse hook",
    "Stop": "continue: blocked by Stop hook",
}


#: Matcher verdicts kept per mounted bridge.
_MATCH_CACHE = 256


@dataclass(frozen=True, slots=True)
class BridgeOptions:
    """The bridge's own config (DSH's plugin config), beside the hooks file."""

    #: ``${CLAUDE_PROJECT_DIR}`` substitution and the variable's value (Claude); else session cwd.
    project_dir: Path | None = None
    #: ``${CLAUDE_PLUGIN_ROOT}`` substitution (Claude; never exported).
    plugin_root: Path | None = None
    #: Stamped on every Codex payload.
    model: str = ""
    default_timeout_s: float = DEFAULT_HOOK_TIMEOUT_S
    stderr_summary_max_chars: int = DEFAULT_STDERR_SUMMARY_MAX_CHARS


@dataclass(frozen=True, slots=True)
class Site:
    """Where a point fires: the session facts a payload and a run need."""

    session: SessionHandle | None
    cwd: Path
    #: The turn the point belongs to (None outside any turn).
    turn: int | None

    @property
    def session_id(self) -> str:
        return self.session.id if self.session is not None else ""


_Matched = tuple[MatcherGroup, CommandHook]
PayloadBuilder = Callable[[str, Site, Mapping[str, Any], BridgeOptions], dict[str, Any]]
EnvBuilder = Callable[[Site, BridgeOptions], Mapping[str, str]]


@dataclass(frozen=True, slots=True)
class Dialect:
    """Everything that differs between the two official bridges."""

    name: MatcherMode
    package: str
    #: DSH plugin name: warning prefix and the message source kind.
    label: str
    #: Vendor event → seam it listens on.
    events: Mapping[str, str]
    trailing_newline: bool
    honours_ask: bool
    #: Events where plain (non-JSON) exit-0 stdout is context.
    plain_stdout_context: frozenset[str]
    warns_updated_input: bool
    payload: PayloadBuilder
    env: EnvBuilder
    substitutions: Callable[[BridgeOptions], Mapping[str, str]]
    timeout_keys: tuple[str, ...] = ("timeout",)
    skip_async: bool = False
    runs_only: str = "only command hooks run"

    def parse_options(self, options: BridgeOptions) -> ParseOptions:
        return ParseOptions(mode=self.name, label=self.label, events=frozenset(self.events),
                            timeout_keys=self.timeout_keys, skip_async=self.skip_async,
                            substitutions=self.substitutions(options), runs_only=self.runs_only)


def _last_turn(session: SessionHandle) -> int | None:
    # DSH 0.1.1 scans the log for the last `turn/start`; ≈0.2 keeps the same answer in a projection.
    for event in reversed(session.events):
        if event.type == "turn/start":
            turn = event.data.get("turn")
            return turn if isinstance(turn, int) else None
    return None


def _plain(value: Any) -> Any:
    """Frozen host data → JSON-ready values (mappings become dicts, sequences lists)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


class MountedBridge:
    """A bridge mounted on a host with a parsed config; :meth:`unmount` undoes everything."""

    def __init__(self, host: Host, dialect: Dialect, config_path: Path,
                 config: HookConfig | None, options: BridgeOptions) -> None:
        self._host = host
        self._dialect = dialect
        self._config_path = config_path
        self._config = config
        self._options = options
        self._detached = DetachedRuns()
        self._unsubscribes: list[Callable[[], None]] = []
        self._mounted = True
        #: Point runs under way in seam listeners, and the event set when the last one leaves.
        self._running = 0
        self._quiet: anyio.Event | None = None
        #: Called once unmounted (the host forgets this mount).
        self.on_unmount: list[Callable[[MountedBridge], object]] = []
        #: (event, subject) → the hooks whose matcher selects it. The config never changes for a
        #: mount and subjects repeat (tool names), so each pair is matched once, not per dispatch.
        self._matches: dict[tuple[str, str | None], tuple[_Matched, ...]] = {}

    # ── BridgeMount ──
    @property
    def package(self) -> str:
        return self._dialect.package

    @property
    def config_path(self) -> Path:
        return self._config_path

    @property
    def dialect(self) -> str:
        return self._dialect.name

    @property
    def loaded(self) -> bool:
        """False when the config could not be loaded (nothing is registered then)."""
        return self._config is not None

    @property
    def events(self) -> tuple[str, ...]:
        """The vendor events this mount listens for."""
        return tuple(self._config.events) if self._config is not None else ()

    async def unmount(self) -> None:
        """Remove the listeners, cancel detached runs (their hooks are killed) and wait for the
        point runs under way in seam listeners: those finish the hook they are running, so a
        verdict already being decided still counts (a remount leaves no gap), but start no
        further hook. When this returns, nothing of this mount runs any more."""
        if not self._mounted:
            return
        self._mounted = False
        for unsubscribe in reversed(self._unsubscribes):
            unsubscribe()
        self._unsubscribes.clear()
        await self._detached.drain()
        while self._running:
            self._quiet = self._quiet or anyio.Event()
            await self._quiet.wait()
        for forget in self.on_unmount:
            forget(self)
        self.on_unmount.clear()

    # ── registration ──
    def subscribe(self) -> None:
        if self._config is None:
            return
        listeners: Mapping[str, Callable[..., Any]] = {
            "SessionStart": self._on_agent_created,
            "UserPromptSubmit": self._on_pre_step,
            "PreToolUse": self._on_pre_tool,
            "PostToolUse": self._on_post_tool,
            "Stop": self._on_turn_stopping,
            "SubagentStart": self._on_subagent_start,
            "SubagentStop": self._on_subagent_end,
        }
        seams = self._host.surface.seams
        for event in self._config.events:
            seam = self._dialect.events[event]
            if seam not in seams:
                self._host.log("warning", f"{self._dialect.label}: the host has no {seam} seam; "
                               f"{event} hooks will not run", seam=seam, event=event)
                continue
            self._unsubscribes.append(self._host.on(seam, listeners[event]))

    # ── running one point ──
    def _site(self, agent: AgentHandle | None, turn: int | None = None) -> Site:
        if agent is None:
            return Site(session=None, cwd=self._host.cwd, turn=turn)
        session = agent.session
        return Site(session=session, cwd=Path(session.cwd),
                    turn=turn if turn is not None else _last_turn(session))

    def _matched(self, point: str, subject: str | None) -> tuple[_Matched, ...]:
        assert self._config is not None
        found = self._matches.get((point, subject))
        if found is None:
            found = tuple(
                (group, hook)
                for group in self._config.events.get(point, ())
                if subject is None or matches_matcher(group.matcher, subject, self._dialect.name)
                for hook in group.hooks
            )
            if len(self._matches) < _MATCH_CACHE:  # arbitrary subjects (paths) would grow it
                self._matches[(point, subject)] = found
        return found

    async def _run_point(self, point: str, subject: str | None, site: Site,
                         fields: Mapping[str, Any], *, records: bool) -> MergedOutcome | None:
        """Run every matching hook serially in config order; None when none matched."""
        matched = self._matched(point, subject)
        if not matched:
            return None
        dialect, options = self._dialect, self._options
        stdin = encode_payload(dialect.payload(point, site, fields, options),
                               trailing_newline=dialect.trailing_newline)
        env = hook_environment(os.environ, add={**EXECUTOR_ENV, **dialect.env(site, options)})
        turn = site.turn if records else None  # records belong to a turn: none outside one
        session = site.session if turn is not None else None
        outputs: list[HookOutput] = []
        for group, hook in matched:
            if not self._mounted:
                break  # unmounted meanwhile: the hooks already run decide, no further one starts
            handler_id = next_handler_id(dialect.name, point)
            if session is not None and turn is not None:
                session.append("hook/invoked", hook_invoked_record(
                    turn=turn, point=point, dialect=dialect.name, handler_id=handler_id,
                    matcher=group.matcher))
            run = await run_hook(hook, point=point, stdin=stdin, cwd=site.cwd, env=env,
                                 default_timeout_s=options.default_timeout_s)
            if session is not None and turn is not None:
                session.append("hook/result", hook_result_record(
                    turn=turn, point=point, handler_id=handler_id, run=run,
                    stderr_summary_max_chars=options.stderr_summary_max_chars))
            outputs.append(self._context_from_plain_stdout(point, run.output))
            self._warn_ignored(point, handler_id, run.output)
        return merge_hook_outputs(outputs)

    def _context_from_plain_stdout(self, point: str, output: HookOutput) -> HookOutput:
        if (point in self._dialect.plain_stdout_context and output.exit_code == 0
                and not output.structured and output.stdout):
            return replace(output, additional_context=output.stdout)
        return output

    def _warn_ignored(self, point: str, handler_id: str, output: HookOutput) -> None:
        label = self._dialect.label
        if output.updated_input is not None and self._dialect.warns_updated_input:
            self._host.log("warning", f"{label}: {point} hook returned updatedInput; input "
                           "rewriting is not supported, the original input is used",
                           handlerId=handler_id)
        if output.system_message:
            self._host.log("warning", f"{label}: {point} hook returned a systemMessage; it is "
                           "logged, not shown", handlerId=handler_id,
                           systemMessage=output.system_message)

    async def _guarded(self, point: str, subject: str | None, site: Site,
                       fields: Mapping[str, Any], *, records: bool) -> MergedOutcome | None:
        # A dispatch that took its listener snapshot before unmount still reaches us: run nothing.
        if not self._mounted:
            return None
        self._running += 1
        # A bridge fault must never take the host's seam down: it fails open, like a failed hook.
        try:
            return await self._run_point(point, subject, site, fields, records=records)
        except Exception as exc:
            self._host.log("error", f"{self._dialect.label}: {point} hooks failed: "
                           f"{type(exc).__name__}: {exc}", point=point)
            return None
        finally:
            self._running -= 1
            if not self._running and self._quiet is not None:
                self._quiet.set()
                self._quiet = None

    def _message(self, texts: tuple[str, ...]) -> UserMessage:
        # The published bridges send the hooks' context as it is, with no notice in front
        # (dsh-bridges-verdicts.md: 38 recorded verdicts differed on that alone).
        text = "\n\n".join(texts)
        return new_message(text, self._dialect.label)

    # ── listeners ──
    async def _on_agent_created(self, event: AgentCreated) -> None:
        # Awaited on the serial seam (≥0.1.7), yet tracked: unmount cancels it and kills the hook.
        await self._detached.run(self._session_start, event)

    async def _session_start(self, event: AgentCreated) -> None:
        merged = await self._guarded("SessionStart", event.source, self._site(event.agent, None),
                                     {"source": event.source}, records=False)
        if merged is not None and merged.additional_context:
            event.agent.inject(self._message(merged.additional_context))

    async def _on_pre_step(self, event: PreStepEvent, next_: Callable[[], Any]) -> Any:
        # Tool-continuation steps carry no messages: there is no prompt to submit.
        if not event.messages:
            return await next_()
        prompt = "".join(message.text for message in event.messages)
        merged = await self._guarded("UserPromptSubmit", None, self._site(event.agent, event.turn),
                                     {"prompt": prompt}, records=True)
        if merged is None:
            return await next_()
        if merged.decision == "deny":
            return PreStepDecision("reject")
        downstream = await next_()
        if merged.additional_context and isinstance(downstream, PreStepDecision) \
                and downstream.kind == "enter":
            context = self._message(merged.additional_context)
            return replace(downstream, messages=(*downstream.messages, context))
        return downstream

    async def _on_pre_tool(self, execution: ToolExecution, next_: Callable[[], Any]) -> Any:
        fields = {"tool_name": execution.name, "tool_input": _plain(execution.arguments),
                  "tool_use_id": execution.call_id}
        merged = await self._guarded("PreToolUse", execution.name, self._site(execution.agent),
                                     fields, records=True)
        if merged is not None and merged.decision == "deny":
            return PreToolDecision("deny", merged.reason or _FALLBACK["PreToolUse"])
        if merged is not None and merged.decision == "ask" and self._dialect.honours_ask:
            return PreToolDecision("ask", merged.reason)
        # allow never pre-approves: the rest of the chain (and its default) still decides.
        return await next_()

    async def _on_post_tool(self, event: ToolPostEvent, next_: Callable[[], Any]) -> Any:
        execution = event.execution
        fields = {"tool_name": execution.name, "tool_input": _plain(execution.arguments),
                  "tool_use_id": execution.call_id, "tool_response": event.result.text}
        merged = await self._guarded("PostToolUse", execution.name, self._site(execution.agent),
                                     fields, records=True)
        if merged is None:
            return await next_()
        contexts = (self._message(merged.additional_context),) if merged.additional_context else ()
        if merged.decision == "deny":
            return PostToolDecision("block", feedback=merged.reason or _FALLBACK["PostToolUse"],
                                    additional_contexts=contexts)
        downstream = await next_()
        if contexts and isinstance(downstream, PostToolDecision):
            return replace(downstream,
                           additional_contexts=(*contexts, *downstream.additional_contexts))
        return downstream

    async def _on_turn_stopping(self, event: TurnStopping) -> None:
        # No consecutive-block cap and stop_hook_active is always false, as in DSH
        # (TODO(stop-loop-guard) upstream): an always-blocking hook is bounded by the host only.
        merged = await self._guarded("Stop", None, self._site(event.agent, event.turn),
                                     {"stop_hook_active": False}, records=True)
        if merged is not None and merged.decision == "deny":
            event.agent.steer(self._message((merged.reason or _FALLBACK["Stop"],)))

    # The child is looked up when the seam fires: by the time a detached run starts, a finished
    # child may already be gone.
    def _on_subagent_start(self, event: SubagentStart) -> None:
        child, site = self._child_site(event.child_id)
        self._host.start_soon(self._detached.run, self._subagent_start, event, child, site)

    def _on_subagent_end(self, event: SubagentEnd) -> None:
        _, site = self._child_site(event.child_id)
        self._host.start_soon(self._detached.run, self._subagent_stop, event, site)

    def _child_site(self, child_id: str) -> tuple[AgentHandle | None, Site]:
        child = self._host.get_agent(child_id)
        if child is None:
            return None, Site(session=None, cwd=self._host.cwd, turn=None)
        session = child.session
        return child, Site(session=session, cwd=Path(session.cwd), turn=None)

    async def _subagent_start(self, event: SubagentStart, child: AgentHandle | None,
                              site: Site) -> None:
        merged = await self._guarded("SubagentStart", SUBAGENT_TYPE, site,
                                     {"agent_id": event.child_id, "agent_type": SUBAGENT_TYPE},
                                     records=False)
        # Only a live in-process child can take context.
        if merged is not None and merged.additional_context and child is not None:
            child.inject(self._message(merged.additional_context))

    async def _subagent_stop(self, event: SubagentEnd, site: Site) -> None:
        await self._guarded("SubagentStop", SUBAGENT_TYPE, site,
                            {"agent_id": event.child_id, "agent_type": SUBAGENT_TYPE,
                             "stop_hook_active": False}, records=False)
