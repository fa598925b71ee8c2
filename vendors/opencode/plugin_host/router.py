"""The plugin-host route: OpenCode plugins' own callbacks, run in a sidecar, as hooks on host seams.

:class:`PluginHostRouter` owns one :class:`~vendors.opencode.plugin_host.host.PluginHost` per adapter
(one Bun sidecar, its own process group, killed on :meth:`close`). The service loads a project's
plugins through :meth:`PluginHostRouter.load`, grades every key they return, and mounts each ADAPTED
one: the entry's ``declared.origin`` names the plugin, its row's event is the hook key. Per point,
the hooks of one key run in mount order on one shared ``output``, as OpenCode runs them:

* ``tool.execute.before`` on ``tools/pre-execute``: a throw denies with the plugin's message (the
  model reads it bare, as in OpenCode: ``verbatim``); a mutation of ``output.args`` runs as the
  call's new input where the host can (``rewrite``: a nested call on ``tools/execute``), else it is
  audited and not applied;
* ``tool.execute.after`` on ``tools/post-execute``: a changed ``output.output`` replaces what the
  model reads (through the host's result block);
* ``shell.env`` through the host's shell-environment registry (the host keeps ``DSH_*`` names);
* ``chat.message`` on ``agent/pre-step``: changed text parts replace the prompt, added text parts
  follow it;
* ``experimental.chat.system.transform`` on ``agent/pre-step`` too, after ``chat.message``: OpenCode
  calls it before every model request, so it runs before every step (and once more on a session's
  first prompt, for the session-title request OpenCode makes and this host does not, where the
  vendor's table says it makes one: ``VendorSpec.plugin_title_request``); lines that
  differ from the last ones given reach the model as one sourced system message;
* ``permission.ask`` on ``approval/request``; ``event`` on the host moments that stand for bus
  events.

A throw in ``chat.message`` refuses the prompt (OpenCode calls no model), one in
``tool.execute.after`` fails the call with the thrown message as its result (both measured); any
other throw is what OpenCode makes of it, a session error: logged, audited, and the moment goes on
as if the hook had not answered. Every run is one audit record.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable, MutableSequence, Sequence
from pathlib import Path
from typing import Any

from compat_adapter.vendor import (
    EXECUTE_SEAM,
    ApprovalOutcome,
    ApprovalRequest,
    AuditRecord,
    CapabilityResult,
    Declared,
    Host,
    HookEntry,
    HookState,
    PostToolDecision,
    PreStepDecision,
    PreStepEvent,
    PreToolDecision,
    Rewrites,
    ToolExecution,
    ToolPostEvent,
    Surface,
    Unanswered,
    UserMessage,
    Verbatim,
    can_rewrite,
    new_message,
    points,
    reworded,
)
from vendors.opencode.plugin_host import payloads
from vendors.opencode.plugin_host.grade import LoadReport, plugin_declarations
from vendors.opencode.plugin_host.host import PluginHost
from vendors.opencode.plugin_host.sidecar import CallResult
from vendors.opencode.plugin_host.sources import PluginSource, file_source

__all__ = ("PLUGIN_SOURCE", "PluginHostRouter")

#: Source kind of every message a plugin adds to what the model reads.
PLUGIN_SOURCE = "compat-adapter-plugin"
_DSH_KEY = re.compile(r"DSH_[A-Z][A-Z0-9_]*")
SYSTEM_TRANSFORM = "experimental.chat.system.transform"
#: The keys that run on ``agent/pre-step``, in the order OpenCode calls them for a prompt.
_STEP_KEYS = ("chat.message", SYSTEM_TRANSFORM)
#: The host moments that stand for OpenCode bus events (see ``plugin_host.payloads.bus_events``).
_EVENT_POINTS = (points.SESSION_CREATED, points.AGENT_STATUS, points.AGENT_ERROR, points.INBOX)

Next = Callable[[], Awaitable[Any]]


class PluginHostRouter:
    """plugin-host: mounts plugin callbacks on their points; one sidecar per adapter."""

    def __init__(self, host: Host, adapter_id: str, audit: MutableSequence[AuditRecord]) -> None:
        self._host = host
        self._adapter_id = adapter_id
        self._audit = audit
        self.plugins = PluginHost(host.cwd)
        #: Mounted entries by hook key, in mount order (the order OpenCode loaded them).
        self._by_key: dict[str, list[HookEntry]] = {}
        self._unsubscribe: dict[str, Callable[[], None]] = {}
        self._closed = False
        #: A throw's message is what OpenCode's model reads, bare: put right after the host's deny.
        self._verbatim = Verbatim()
        #: Mutated ``output.args`` run as a nested call, as OpenCode runs the mutated args.
        self._rewrites = Rewrites(host)
        #: Per agent, the system lines last given to the model (a step re-sends nothing unchanged).
        self._system_given: dict[str, tuple[str, ...]] = {}
        #: Sessions whose first prompt has had OpenCode's title-request transform call.
        self._titled: set[str] = set()

    # ── loading ──
    async def load(self, root: Path, sources: tuple[PluginSource, ...] | None = None
                   ) -> tuple[LoadReport, ...]:
        """Load plugins in this adapter's sidecar (started on first use)."""
        return await self.plugins.load(root, sources)

    async def declarations(self, root: Path, files: Sequence[str | Path] | None, sources: Sequence[PluginSource] | None,
                           surface: Surface) -> list[tuple[CapabilityResult, Declared | None]]:
        """Load ``sources`` (or only ``files``, or the project's own plugins) in this adapter's sidecar
        and grade every key they return, each with the declaration to mount (None: never mounted)."""
        if sources is None and files is not None:
            sources = tuple(file_source(root, Path(f)) for f in files)
        return plugin_declarations(await self.load(root, None if sources is None else tuple(sources)), surface)

    # ── Router ──
    async def mount(self, entry: HookEntry) -> None:
        key = entry.row.event
        self._by_key.setdefault(key, []).append(entry)
        self._subscribe(key)

    async def flush(self) -> None:
        """Nothing to flush: a listener mounts at once."""

    def state(self, entry: HookEntry) -> HookState:
        held = entry in self._by_key.get(entry.row.event, ())
        running = held and not self._closed and self.plugins.sidecar is not None
        note = None
        if held and self.plugins.sidecar is not None and self.plugins.sidecar.restarts:
            note = f"the plugin sidecar was restarted {self.plugins.sidecar.restarts} time(s)"
        return HookState(held=held, running=running, note=note)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for unsubscribe in self._unsubscribe.values():
            unsubscribe()
        self._unsubscribe.clear()
        self._by_key.clear()
        await self.plugins.close()

    # ── subscriptions ──
    def _subscribe(self, key: str) -> None:
        if key in self._unsubscribe:
            return
        host = self._host
        if key in ("tool.execute.before", "tool.execute.after"):
            # One post-execute listener serves both: it puts a before-hook's deny in OpenCode's words.
            if key == "tool.execute.before":
                self._unsubscribe[key] = host.on(points.PRE_EXECUTE.seam, self._pre_execute)
                if can_rewrite(host):
                    self._unsubscribe[EXECUTE_SEAM] = host.on(EXECUTE_SEAM, self._rewrites.on_execute)
            else:
                self._unsubscribe[key] = lambda: None
            if "post-execute" not in self._unsubscribe:
                self._unsubscribe["post-execute"] = host.on(points.POST_EXECUTE.seam, self._post_execute)
        elif key == "shell.env":
            self._unsubscribe[key] = host.register_shell_env(f"compat-adapter-{self._adapter_id}-plugins",
                                                             self._shell_env)
        elif key in _STEP_KEYS:
            # One listener for both keys, so that they run in OpenCode's order whatever mounts first.
            if points.PRE_STEP.name not in self._unsubscribe:
                self._unsubscribe[points.PRE_STEP.name] = host.on(points.PRE_STEP.seam, self._pre_step)
            if key == SYSTEM_TRANSFORM and points.DISPOSED.seam in host.surface.seams:
                # What the transform keeps per agent and session goes with the agent.
                self._unsubscribe[points.DISPOSED.seam] = host.on(points.DISPOSED.seam, self._forget)
        elif key == "permission.ask":
            self._unsubscribe[key] = host.on(points.APPROVAL.seam, self._approval)
        elif key == "event":
            offs = [host.on(point.seam, self._bus) for point in _EVENT_POINTS]

            def off_all() -> None:
                for off in offs:
                    off()
            self._unsubscribe[key] = off_all
        # `dispose` needs no seam: the sidecar calls it when it is closed.

    # ── running ──
    async def _run(self, key: str, input: Any, output: Any) -> tuple[CallResult, list[HookEntry]]:
        entries = list(self._by_key.get(key, ()))
        if not entries or self._closed:
            return CallResult(output), []
        started = time.perf_counter()
        timeout = min(e.timeout_s for e in entries)
        result = await self.plugins.call([str(e.declared.origin) for e in entries], key, input, output,
                                         timeout_s=timeout)
        return CallResult(result.output, result.error, result.plugin,
                          (time.perf_counter() - started) * 1000), entries

    def _record(self, entries: list[HookEntry], point: str, result: CallResult, decision: str,
                honoured: bool, note: str) -> None:
        for entry in entries:
            failed = result.error is not None and result.plugin == entry.declared.origin
            self._audit.append(AuditRecord(
                hook_id=entry.id, vendor=entry.spec.id, event=entry.row.event, point=point,
                decision=decision if failed or result.error is None else "none", honoured=honoured,
                note=note, exit_code=None, cause="threw" if failed else None,
                duration_ms=result.duration_ms, truncated=False))
        if result.error is not None and decision not in ("deny", "block"):
            # Outside tool.execute.before a throw is a session error in OpenCode.
            self._host.log("error", f"OpenCode plugin {result.plugin} {entries[0].row.event}: {result.error}",
                           plugin=result.plugin)

    def kept(self) -> dict[str, int]:
        """How many agents and sessions this route keeps something for (the growth test reads it)."""
        return {"system_given": len(self._system_given), "titled": len(self._titled)}

    def _forget(self, event: Any) -> None:
        self._system_given.pop(event.agent.id, None)
        self._titled.discard(event.agent.session.id)

    async def _pre_execute(self, execution: ToolExecution, next: Next) -> PreToolDecision:
        if not self._by_key.get("tool.execute.before") or self._rewrites.nested(execution):
            # A rewrite's nested call: the hooks already ran on the model's call.
            return await next()
        input, output = payloads.tool_before(execution)
        original = dict(output["args"])
        asked = tuple(e.id for e in self._by_key["tool.execute.before"])
        try:
            result, entries = await self._run("tool.execute.before", input, output)
        except Exception as exc:  # noqa: BLE001 - a listener that raised would let the call through
            why = f"the plugin host failed ({type(exc).__name__}: {exc})"
            return PreToolDecision("deny", Unanswered(why, asked, True).reason)
        if result.error is not None and self._closed:
            # Disposing the adapter ended the sidecar under the call: no plugin decided it.
            why = f"the adapter {self._adapter_id} was disposed"
            return PreToolDecision("deny", Unanswered(why, asked, True).reason)
        if result.error is not None:
            self._record(entries, points.PRE_EXECUTE.name, result, "deny", True, "denied by a throw")
            return self._verbatim.deny(execution, result.error)
        args = result.output.get("args") if isinstance(result.output, dict) else None
        rewritten = isinstance(args, dict) and args != original
        applied = rewritten and can_rewrite(self._host)
        if applied:
            self._rewrites.want(execution, payloads.host_arguments(execution.name, args))  # type: ignore[arg-type]
        note = ("args mutated; the call runs with them" if applied else
                "args mutated; input rewrite ignored (no tools/execute seam)" if rewritten else "no throw")
        self._record(entries, points.PRE_EXECUTE.name, result, "rewrite" if applied else "allow",
                     applied or not rewritten, note)
        return await next()

    async def _post_execute(self, event: ToolPostEvent, next: Next) -> PostToolDecision:
        if self._rewrites.nested(event.execution):
            return await next()  # tool.execute.after runs once, on the model's call
        said = self._verbatim.take(event)
        if said is not None:
            # OpenCode runs no tool.execute.after for a call a before-hook threw on.
            return await reworded(said, next)
        if not self._by_key.get("tool.execute.after"):
            return await next()
        input, output = payloads.tool_after(event)
        original = output["output"]
        result, entries = await self._run("tool.execute.after", input, output)
        downstream: PostToolDecision = await next()
        if result.error is not None and not self._closed and downstream.kind != "block":
            # A throw fails the call: the model reads the thrown message as its result (measured,
            # lane case opencode:post_block).
            self._record(entries, points.POST_EXECUTE.name, result, "block", True, "a throw: the call failed")
            return PostToolDecision("block", result.error, downstream.additional_contexts)
        text = result.output.get("output") if isinstance(result.output, dict) else None
        if result.error is not None or not isinstance(text, str) or text == original:
            self._record(entries, points.POST_EXECUTE.name, result, "none", True, "output kept")
            return downstream
        if downstream.kind == "block":
            self._record(entries, points.POST_EXECUTE.name, result, "rewrite", False,
                         "output rewrite lost to a block further down")
            return downstream
        self._record(entries, points.POST_EXECUTE.name, result, "rewrite", True, "output rewritten")
        return PostToolDecision("block", text, downstream.additional_contexts)

    async def _shell_env(self, execution: ToolExecution) -> dict[str, str]:
        session = execution.agent.session if execution.agent is not None else None
        cwd = str(session.cwd if session is not None else self._host.cwd)
        input, output = payloads.shell_env(execution, cwd)
        result, entries = await self._run("shell.env", input, output)
        env = result.output.get("env") if isinstance(result.output, dict) else None
        given = {str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {}
        # The host takes DSH_* names only (its registry would log every other one as an error).
        kept = {k: v for k, v in given.items() if _DSH_KEY.fullmatch(k)}
        dropped = sorted(set(given) - set(kept))
        self._record(entries, points.SHELL_ENV.name, result, "env", result.error is None,
                     "variables" + (f"; non-DSH_* names dropped: {dropped}" if dropped else ""))
        return {} if result.error is not None else kept

    async def _pre_step(self, event: PreStepEvent, next: Next) -> PreStepDecision:
        changed = await self._chat_message(event)
        if changed is None:
            # chat.message threw: OpenCode's prompt fails there and no model is called (measured,
            # lane case opencode:prompt_block).
            return PreStepDecision("reject")
        system = await self._system_transform(event)
        if not changed and system is None:
            return await next()
        downstream: PreStepDecision = await next()
        if downstream.kind != "enter":
            return downstream
        messages = tuple(UserMessage(m.id, changed[m.id], m.source) if m.id in changed else m
                         for m in downstream.messages)
        return PreStepDecision("enter", messages if system is None else (*messages, system))

    async def _chat_message(self, event: PreStepEvent) -> dict[str, str] | None:
        """``chat.message`` on a step that carries prompts: the prompt texts it changed, by id; None
        when a hook threw (the prompt goes no further)."""
        prompts = tuple(m for m in event.messages if m.source.kind == "user")
        if not prompts or not self._by_key.get("chat.message"):
            return {}
        input, output = payloads.chat_message(event.agent.session.id, event.agent.id, prompts)
        result, entries = await self._run("chat.message", input, output)
        if result.error is not None and not self._closed:
            self._record(entries, points.PRE_STEP.name, result, "block", True, "a throw: the prompt is refused")
            return None
        parts = [] if result.error is not None else payloads.text_parts(result.output)
        known = {m.id: m for m in prompts}
        changed = {pid: text for pid, text in parts if pid in known and known[pid].text != text}
        added = [text for pid, text in parts if pid not in known]
        if added:
            # OpenCode sends an added part inside the same user message; here a message is one
            # text, so each added part is a paragraph of its own after the last prompt's text (the
            # separator every context part uses on this host: routing/seams/prompts.py).
            last = prompts[-1].id
            changed[last] = "\n\n".join([changed.get(last, known[last].text), *added])
        self._record(entries, points.PRE_STEP.name, result, "context" if changed else "none", True,
                     f"{len(changed)} prompt message(s) changed, {len(added)} part(s) added")
        return changed

    async def _system_transform(self, event: PreStepEvent) -> UserMessage | None:
        """``experimental.chat.system.transform`` before this step's model request: the message that
        carries its lines when they differ from the last ones this agent's model was given."""
        if not self._by_key.get(SYSTEM_TRANSFORM):
            return None
        session = event.agent.session.id
        input = {"sessionID": session, "model": {}}
        titles = any(e.spec.plugin_title_request for e in self._by_key[SYSTEM_TRANSFORM])
        if titles and session not in self._titled and any(m.source.kind == "user" for m in event.messages):
            # OpenCode's first prompt of a session also starts a session-title request, and the
            # transform runs for it too; this host makes no such request, so what the plugin
            # pushes for it reaches no model. A vendor that makes none (its table says) has no such call.
            self._titled.add(session)
            result, entries = await self._run(SYSTEM_TRANSFORM, input, {"system": []})
            self._record(entries, points.PRE_STEP.name, result, "none", True,
                         "OpenCode's session-title request (none here): lines dropped")
        result, entries = await self._run(SYSTEM_TRANSFORM, input, {"system": []})
        system = result.output.get("system") if isinstance(result.output, dict) else None
        lines = tuple(str(s) for s in system if isinstance(s, str)) if isinstance(system, list) else ()
        fresh = result.error is None and bool(lines) and lines != self._system_given.get(event.agent.id)
        if fresh:
            self._system_given[event.agent.id] = lines
        self._record(entries, points.PRE_STEP.name, result, "context" if fresh else "none", True,
                     f"{len(lines)} system line(s)" + ("" if fresh or not lines else ", already given"))
        if not fresh:
            return None
        # OpenCode sends them as system text: a system message where the host has one (measured,
        # lane case opencode:session_context), a user message elsewhere.
        return new_message("\n".join(lines), PLUGIN_SOURCE, "opencode:experimental.chat.system.transform",
                           role="system")

    async def _approval(self, request: ApprovalRequest, next: Next) -> ApprovalOutcome:
        if not self._by_key.get("permission.ask"):
            return await next()
        input, output = payloads.permission(request)
        result, entries = await self._run("permission.ask", input, output)
        status = result.output.get("status") if isinstance(result.output, dict) else None
        if result.error is None and status in ("allow", "deny"):
            self._record(entries, points.APPROVAL.name, result, status, True, status)
            return ApprovalOutcome.ALLOWED_ONCE if status == "allow" else ApprovalOutcome.REJECTED
        self._record(entries, points.APPROVAL.name, result, "ask", True, "left to the host")
        return await next()

    async def _bus(self, moment: Any) -> None:
        for event in payloads.bus_events(moment):
            result, entries = await self._run("event", event, None)
            if entries:
                self._record(entries, "plugin/event", result, "observe", True, event["type"])
