"""The one dispatch loop: for one point and one host moment, select → run → merge → apply → audit.

This is the shared core of the three routes this project owns (native-translate, native-seam and
the built-in Copilot bridge). :class:`Runner` holds the hooks mounted on each point, grouped by
vendor event, and :meth:`Runner.run` is the only place a hook run is audited. It never raises into
the host: every hook failure is an outcome the dialect decodes by the vendor's rules.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, MutableSequence, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import anyio

from compat_adapter.declare import Declared
from compat_adapter.dialects.base import Chaining, Dialect, HookAnswer, Moment
from compat_adapter.handlers.model import Complete
from compat_adapter.handlers.run import if_admits
from compat_adapter.host.protocol import AgentHandle, Host, SessionHandle, UserMessage, new_message
from compat_adapter.model import CommandHandler, EventRow, Handler, VendorSpec
from compat_adapter.routing.allowed import Allowed
from compat_adapter.routing.failclosed import Unanswered
from compat_adapter.routing.gates import fires_for
from compat_adapter.routing.hooklog import log_invoked, log_results
from compat_adapter.routing.hookrun import run_one
from compat_adapter.routing.hostfacts import session_facts
from compat_adapter.routing.notices import notices
from compat_adapter.routing.rewrite import Rewrites
from compat_adapter.routing.state import RunnerState
from compat_adapter.routing.reasked import Reasked
from compat_adapter.routing.unattended import Unattended
from compat_adapter.routing.verbatim import Verbatim
from compat_adapter.routing.verdicts import observe
from compat_adapter.runtime.inflight import InFlight, tracked
from compat_adapter.runtime.outcome import ProcessOutcome

if TYPE_CHECKING:
    from compat_adapter.registry import VendorUnit
    from compat_adapter.routing.points import Point
    from compat_adapter.routing.verdicts import Applied, Rule

__all__ = ("HOOK_SOURCE", "AuditRecord", "GroupResult", "HookEntry", "Runner",
           "make_entry", "run_group", "turn_of")

#: Source kind of every message this project injects or steers for a hook.
HOOK_SOURCE = "compat-adapter-hook"

_VERDICT_CACHE = 256

@dataclass(frozen=True, slots=True, eq=False)
class HookEntry:
    """One mounted hook: its resolved declaration and the settings resolved at registration.

    ``spec``, ``unit``, ``row``, ``handler`` and ``matcher`` are the declaration's own objects, kept
    as fields because the dispatch loop (and the verdict rules, through ``unit``) read them for every
    hook on every dispatch. Two entries are equal only when they are the same mounted hook.
    """

    id: str
    declared: Declared
    spec: VendorSpec
    unit: VendorUnit = field(repr=False, compare=False)
    row: EventRow
    handler: Handler | None
    matcher: str | None
    timeout_s: float
    dialect: Dialect = field(repr=False, compare=False)
    #: Matcher verdicts by subject: subjects repeat (tool names), matching need not.
    verdicts: dict[str | None, bool] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """What one hook run did and whether its answer reached the host."""

    hook_id: str
    vendor: str
    event: str
    point: str
    decision: str
    honoured: bool
    note: str
    exit_code: int | None
    cause: str | None
    duration_ms: float
    truncated: bool


@dataclass(frozen=True, slots=True)
class GroupResult:
    merged: HookAnswer
    ran: tuple[HookEntry, ...]
    answers: tuple[HookAnswer, ...]
    outcomes: tuple[ProcessOutcome, ...]
    moment: Moment | None = None
    """The host moment the hooks ran for (the rules word their texts from it)."""

    @property
    def empty(self) -> bool:
        return not self.ran


def turn_of(session: SessionHandle) -> int | None:
    """The open turn of a session: the last `turn/start` not yet followed by its `turn/end`."""
    for event in reversed(session.events):
        if event.type == "turn/end":
            return None
        if event.type == "turn/start":
            return int(event.data.get("turn", 0))
    return None


def admit(chosen: Sequence[HookEntry], moment: Moment, state: RunnerState
          ) -> tuple[list[HookEntry], list[HookEntry]]:
    """Of the hooks a matcher selected, those that run now and those that run in the background.

    A handler's ``if`` rule must match the call, and a ``once`` handler runs once per session
    (it is spent when it starts, as Claude removes it). ``async`` handlers go to the background.
    """
    now: list[HookEntry] = []
    later: list[HookEntry] = []
    payload: Mapping[str, Any] | None = None
    for entry in chosen:
        handler = entry.handler
        if handler is None:
            continue
        if handler.if_rule is not None:
            if payload is None:
                payload = entry.dialect.payload(moment)
            if not if_admits(handler, moment.event, payload, moment.cwd):
                continue
        if handler.once and not state.spend(moment.session_id, entry.id):
            continue
        (later if isinstance(handler, CommandHandler) and handler.run_async else now).append(entry)
    return now, later


def select(entries: Sequence[HookEntry], moment: Moment) -> list[HookEntry]:
    """The entries of one vendor event whose matcher selects this moment, in config order.

    This runs on every dispatch, so the subject is computed once per call and each entry
    remembers its verdict per subject.
    """
    if not entries or not fires_for(entries[0].row, moment):
        return []
    first = entries[0]
    if first.row.matcher_subject is None:  # the vendor has no matcher for this event
        return list(entries)
    subject: str | None = None
    asked = False  # the subject is computed once, at the first entry with a matcher
    chosen = []
    for entry in entries:
        matcher = entry.matcher
        if not matcher:
            chosen.append(entry)
            continue
        if not asked:
            subject, asked = first.dialect.subject(moment), True
        verdicts = entry.verdicts
        hit = verdicts.get(subject)
        if hit is None:
            hit = entry.dialect.matches(moment.event, matcher, subject)
            if len(verdicts) < _VERDICT_CACHE:  # file paths would grow it without end
                verdicts[subject] = hit
        if hit:
            chosen.append(entry)
    return chosen


async def run_group(entries: Sequence[HookEntry], moment: Moment) -> GroupResult:
    """Run the selected hooks of one vendor event, concurrently when the vendor does, then merge."""
    return await run_selected(select(entries, moment), moment)


async def run_selected(chosen: Sequence[HookEntry], moment: Moment, complete: Complete | None = None
                       ) -> GroupResult:
    """Run hooks already selected; answers are merged in config order whatever order the
    processes finished in."""
    if not chosen:
        return GroupResult(HookAnswer(), (), (), ())
    spec = chosen[0].spec
    # The table says whether the vendor coalesces identical commands (Claude Code and CodeBuddy do).
    if spec.dedupes_commands and len(chosen) > 1:
        chosen = _distinct(chosen)
    results: list[tuple[HookAnswer, ProcessOutcome] | None] = [None] * len(chosen)
    # One hook asking for a sequential run makes the whole event's run sequential (Gemini's and
    # Qwen's planners: `some(entry => entry.sequential)`), each hook fed what the one before changed.
    sequential = any(e.handler is not None and e.handler.sequential for e in chosen)
    if spec.concurrent and len(chosen) > 1 and not sequential:
        async def one(i: int) -> None:
            results[i] = await run_one(chosen[i], moment, complete)

        async with anyio.create_task_group() as tg:
            for i in range(len(chosen)):
                tg.start_soon(one, i)
    else:
        dialect = chosen[0].dialect
        chain = dialect if sequential and isinstance(dialect, Chaining) else None
        payload: Mapping[str, Any] | None = None
        for i, entry in enumerate(chosen):
            results[i] = _, outcome = await run_one(entry, moment, complete, payload)
            if chain is not None:
                payload = chain.chained(moment.event, payload or dialect.payload(moment), outcome)
    done = [r for r in results if r is not None]
    answers = tuple(a for a, _ in done)
    merged = chosen[0].dialect.merge(moment.event, answers)
    return GroupResult(merged, tuple(chosen), answers, tuple(o for _, o in done), moment)


def _distinct(chosen: Sequence[HookEntry]) -> list[HookEntry]:
    """The first hook of each distinct handler (a command hook: its command line), in config order."""
    seen: set[object] = set()
    kept = []
    for entry in chosen:
        handler = entry.handler
        # Claude keys a command hook by its command line, any other handler by what it is.
        key = handler.command if isinstance(handler, CommandHandler) else (handler or entry.id)
        if key not in seen:
            seen.add(key)
            kept.append(entry)
    return kept


def make_entry(id: str, declared: Declared) -> HookEntry:
    """The mounted form of a graded declaration; the dialect is the unit's the declaration carries."""
    spec, row, handler = declared.spec, declared.row, declared.handler
    own = handler.timeout_s if handler and handler.timeout_s else None
    timeout = own or row.timeout_s or spec.default_timeout_s
    if row.timeout_s is not None and spec.clamps_event_timeouts:
        # A vendor that clamps an event's timeout (Codex SessionEnd/Interrupt: 3 s) clamps hooks too.
        timeout = min(timeout, row.timeout_s)
    return HookEntry(id=id, declared=declared, spec=spec, unit=declared.unit, row=row, handler=handler,
                     matcher=declared.matcher, timeout_s=float(timeout), dialect=declared.unit.dialect)


def audit_records(group: GroupResult, point: str, honoured: bool, note: str
                  ) -> list[AuditRecord]:
    return [
        AuditRecord(
            hook_id=entry.id, vendor=entry.spec.id, event=entry.row.event, point=point,
            decision=answer.decision, honoured=honoured, note=note, exit_code=outcome.exit_code,
            cause=outcome.cause, duration_ms=outcome.duration_ms, truncated=outcome.truncated,
        )
        for entry, answer, outcome in zip(group.ran, group.answers, group.outcomes, strict=True)
    ]


def moment_for(event: str, session: SessionHandle | None, cwd: Path, fields: Mapping[str, Any],
               turn: int | None = None) -> Moment:
    return Moment(
        event=event, session_id=session.id if session is not None else "",
        cwd=str(session.cwd if session is not None else cwd),
        transcript_path=str(session.transcript_path) if session is not None and session.transcript_path else None,
        turn=turn, fields=dict(fields),
    )


_NO_SCENE: Mapping[str, Any] = MappingProxyType({})


@dataclass(slots=True)
class Group:
    """The hooks of one vendor event on one point, with the rule of the route they came by."""

    entries: tuple[HookEntry, ...]
    rule: Rule
    #: Selected entries by matcher subject: the same tool name picks the same hooks every time.
    chosen: dict[Any, tuple[HookEntry, ...]] = field(default_factory=dict)

    def select(self, moment: Moment) -> tuple[HookEntry, ...]:
        first = self.entries[0]
        if not fires_for(first.row, moment):
            return ()
        if first.row.matcher_subject is None:
            return self.entries
        subject = first.dialect.subject(moment)
        hit = self.chosen.get(subject)
        if hit is None:
            hit = tuple(select(self.entries, moment))
            if len(self.chosen) < _VERDICT_CACHE:  # file paths would grow it without end
                self.chosen[subject] = hit
        return hit


class Runner:
    """The hooks mounted on each point for one adapter, and the loop that runs them.

    Groups are kept in first-registration order and rebuilt only on mount and unmount (read on
    every dispatch)."""

    def __init__(self, host: Host, audit: MutableSequence[AuditRecord], owner: str = "") -> None:
        self.host = host
        self.audit = audit
        self.owner = owner  # who holds the host services its points use (the adapter's id)
        self.inflight = InFlight()  # runs under way: `close` cancels them, see `tracked`
        self._entries: dict[str, list[HookEntry]] = {}
        self._rules: dict[tuple[str, str], Rule] = {}
        self._groups: dict[str, list[Group]] = {}
        #: What listeners remember between dispatches, forgotten with its session or agent.
        self.state = RunnerState()
        #: The denies given at pre-execute, to be read by the model in the vendor's own words.
        self.verbatim = Verbatim()
        #: The input rewrites the hooks asked for, run as nested calls on tools/execute.
        self.rewrites = Rewrites(host)
        #: Asks whose vendor runs the call when nobody answers, or re-runs pre-tool hooks as it executes.
        self.unattended, self.reasked = Unattended(host), Reasked()
        #: The calls a pre-tool hook allowed (a rule's guard weighs it: see ``routing.allowed``).
        self.allowed = Allowed()
        #: The host's model for prompt and agent hooks (the optional `complete` part), if it has one.
        self.complete: Complete | None = host.complete if "model" in host.surface.services else None

    def add(self, entry: HookEntry, rule: Rule) -> None:
        self._entries.setdefault(entry.row.point, []).append(entry)
        self._rules[(entry.spec.id, entry.row.event)] = rule
        self._groups.pop(entry.row.point, None)

    def remove(self, entry: HookEntry) -> None:
        entries = self._entries.get(entry.row.point, [])
        if entry in entries:
            entries.remove(entry)
            self._groups.pop(entry.row.point, None)

    def holds(self, entry: HookEntry) -> bool:
        return entry in self._entries.get(entry.row.point, ())

    def has(self, point: Point) -> bool:
        return bool(self._entries.get(point.name))

    @property
    def closed(self) -> bool:
        return self.inflight.closed

    async def close(self) -> None:
        self._entries.clear()
        self._groups.clear()
        await self.inflight.close()
        self.state.clear()

    def groups(self, point: Point) -> list[Group]:
        cached = self._groups.get(point.name)
        if cached is None:
            by_event: dict[tuple[str, str], list[HookEntry]] = {}
            for entry in self._entries.get(point.name, ()):
                by_event.setdefault((entry.spec.id, entry.row.event), []).append(entry)
            cached = self._groups[point.name] = [Group(tuple(v), self._rules[k]) for k, v in by_event.items()]
        return cached

    def emit(self, point: Point, fields: Mapping[str, Any], session: SessionHandle | None, *,
             turn: int | None = None, keep: Keep | None = None) -> Awaitable[None] | None:
        """Run an emit point; None (no coroutine at all) when no hook's matcher selects it."""
        if not self._selects(point, fields, session, turn, keep):
            return None
        return self._emit(point, fields, session, turn, keep)

    def _selects(self, point: Point, fields: Mapping[str, Any], session: SessionHandle | None,
                 turn: int | None, keep: Keep | None) -> bool:
        """Whether a matcher of the point selects this moment: what a dispatch that runs nothing
        costs is this loop (each group's selection is cached by subject), not a task or a scope."""
        cwd = self.host.cwd
        for group in self.groups(point):
            first = group.entries[0]
            if (keep is None or keep(first)) and group.select(moment_for(first.row.event, session, cwd,
                                                                         fields, turn)):
                return True
        return False

    async def _emit(self, point: Point, fields: Mapping[str, Any], session: SessionHandle | None,
                    turn: int | None, keep: Keep | None) -> None:
        await self.run(point, fields, session=session, turn=turn, keep=keep)

    async def run(self, point: Point, fields: Mapping[str, Any], *, session: SessionHandle | None,
                  turn: int | None = None, scene: Mapping[str, Any] = _NO_SCENE,
                  keep: Keep | None = None) -> list[tuple[GroupResult, Applied]]:
        """Run the point's groups in order until one's rule gives a verdict; audit every run.

        Returns each group that ran with what its answer does here, the verdict (if any) last.
        A run that closing the runner (dispose) or a failure of this project cut short while
        hooks were deciding returns :class:`Unanswered`: a guard point's listener fails closed
        on it. A run the host queued before closing returns ``[]`` without starting anything.
        """
        if not self._selects(point, fields, session, turn, keep):
            return []  # the common case: no matcher selects the moment, nothing to track
        inflight = self.inflight
        asked: list[tuple[Group, tuple[HookEntry, ...]]] = []  # the group deciding now, if any
        with inflight.track():
            if inflight.closed:
                return []
            try:
                return await self._run(point, fields, session, turn, scene, keep, asked)
            except Exception as exc:  # noqa: BLE001 - a listener that raised would let the call through
                why = f"compat-adapter failed while they decided ({type(exc).__name__}: {exc})"
                self.host.log("error", f"{point.name}: {why}", point=point.name)
                return self._unanswered(point, asked, why)
        # Cancelled by close(): the cancel scope of ``track`` ended the body. Nothing awaits from
        # here on, so close() (woken by the run's end) still finds the audit complete.
        return self._unanswered(point, asked, f"the adapter {self.owner} was disposed" if self.owner
                                else "the adapter was disposed")

    def _unanswered(self, point: Point, asked: list[tuple[Group, tuple[HookEntry, ...]]],
                    why: str) -> Unanswered:
        """A run cut short: audited (while close() still waits for it) and answered as such."""
        group, hooks = asked[0] if asked else (None, ())
        # Only a group that can refuse fails closed: one that watches, or only adds context, cannot.
        guarded = group is not None and group.rule is not observe and group.entries[0].row.blocking == "verdict"
        cut = Unanswered(why, tuple(e.id for e in hooks), guarded)
        self.audit.extend(AuditRecord(
            hook_id=e.id, vendor=e.spec.id, event=e.row.event, point=point.name, decision="unanswered",
            honoured=True, note=cut.reason if cut.guarded else why, exit_code=None, cause="unanswered",
            duration_ms=0.0, truncated=False) for e in hooks)
        return cut

    async def _run(self, point: Point, fields: Mapping[str, Any], session: SessionHandle | None,
                   turn: int | None, scene: Mapping[str, Any], keep: Keep | None,
                   asked: list[tuple[Group, tuple[HookEntry, ...]]]) -> list[tuple[GroupResult, Applied]]:
        done: list[tuple[GroupResult, Applied]] = []
        for group in self.groups(point):
            first = group.entries[0]
            if keep is not None and not keep(first):
                continue
            moment = moment_for(first.row.event, session, self.host.cwd, fields, turn)
            chosen, later = admit(group.select(moment), moment, self.state)
            if session is not None and (chosen or later):
                # Only payloads read the log's facts: a dispatch that runs no hook does not scan it.
                moment = replace(moment, logged=session_facts(session))
            for entry in later:
                self.host.start_soon(self._in_background, entry, moment, point.name, scene.get("agent"))
            if not chosen:
                continue
            for entry in chosen:
                _status(self.host, entry)
            paired = point.log_pair and session is not None and turn is not None
            if paired:
                log_invoked(session, turn, chosen)  # type: ignore[arg-type]
            asked[:] = [(group, tuple(chosen))]
            result = await run_selected(chosen, moment, self.complete)
            asked.clear()
            if paired:
                log_results(session, turn, result)  # type: ignore[arg-type]
            applied = group.rule(result, first.row, scene)
            self.audit.extend(audit_records(result, point.name, applied.honoured, applied.note))
            if applied.halt is not None and session is not None:
                # continue:false: the session's turn ends before its next step (``halted``).
                self.state.halt(session.id, turn)
            for notice in notices(result, applied, fields, session.id if session is not None else None):
                self.host.notify(notice)  # what the vendor shows its user, where this host shows it
            done.append((result, applied))
            if applied.verdict is not None:
                break
        return done

    @tracked(lambda: None)
    async def _in_background(self, entry: HookEntry, moment: Moment, point: str,
                             agent: AgentHandle | None = None) -> None:
        """An ``async`` hook: it runs to its end, and nothing it answers reaches the host. An
        ``asyncRewake`` hook that exits 2 wakes the agent with its output, as Claude does."""
        _status(self.host, entry)
        answer, outcome = await run_one(entry, moment, self.complete)
        handler = entry.handler
        note = "async: ran in the background; its answer decides nothing"
        if isinstance(handler, CommandHandler) and handler.rewake and outcome.exit_code == 2:
            output = (outcome.stderr.strip() or outcome.stdout.strip())
            if agent is not None:
                prefix = handler.rewake_message or f"{entry.row.event} hook feedback:"
                agent.steer(new_message(f"{prefix}\n{output}", HOOK_SOURCE, f"{entry.spec.id}:{entry.row.event}"))
                note = "asyncRewake: exit 2 woke the agent with the hook's output"
            else:
                note = "asyncRewake: exit 2, but no agent to wake at this point"
                self.host.log("warning", f"hook {entry.id}: asyncRewake hook exited 2", output=output[:2000])
        group = GroupResult(answer, (entry,), (answer,), (outcome,))
        self.audit.extend(audit_records(group, point, False, note))


def _status(host: Host, entry: HookEntry) -> None:
    # Claude shows statusMessage in its spinner; the operator log is where this host shows it.
    if entry.handler is not None and entry.handler.status_message:
        host.log("info", f"hook {entry.id}: {entry.handler.status_message}", statusMessage=True)


#: Which groups a dispatch runs, asked of each group's first hook (all share vendor and row).
Keep = Callable[[HookEntry], bool]


def message(group: GroupResult, text: str, role: str = "user") -> UserMessage:
    """A sourced message for a hook's text, named after the vendor event that gave it."""
    first = group.ran[0]
    return new_message(text, HOOK_SOURCE, f"{first.spec.id}:{first.row.event}", role)


def context_messages(group: GroupResult, applied: Applied) -> tuple[UserMessage, ...]:
    """The context a rule decided, when it lands as a message of its own (see ``Applied.place``),
    in the role the vendor gives such a message (``VendorSpec.context_role``; a user message for
    a vendor that puts it in none)."""
    if not (applied.context and applied.place == "message"):
        return ()
    first = group.ran[0]
    return (message(group, applied.context, first.spec.role_of(first.row) or "user"),)
