"""Run the hooks of one vendor event for one host moment: select, run, decode, merge, audit.

This is the shared core of the three routes this project owns (native-translate, native-seam and
the built-in Copilot bridge). It never raises into the host: every hook failure is an outcome the
dialect decodes by the vendor's rules, and every run is recorded in the adapter's audit.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import anyio

from compat_adapter.dialects import dialect_for
from compat_adapter.dialects.base import Dialect, HookAnswer, Moment
from compat_adapter.host.protocol import SessionHandle
from compat_adapter.model import EventRow, HookDeclaration, VendorSpec
from compat_adapter.runtime.process import BASH, ProcessOutcome, hook_environment, run_command

__all__ = ("AuditRecord", "GroupResult", "HookEntry", "run_group", "turn_of")

_VERDICT_CACHE = 256
_UNSET = object()


@dataclass(frozen=True, slots=True)
class HookEntry:
    """One mounted hook: its declaration, row and the settings resolved at registration."""

    id: str
    spec: VendorSpec
    row: EventRow
    decl: HookDeclaration
    timeout_s: float
    dialect: Dialect = field(repr=False, compare=False)
    #: Matcher verdicts by subject: subjects repeat (tool names), matching need not.
    verdicts: dict[str | None, bool] = field(default_factory=dict, repr=False, compare=False)

    @property
    def matcher(self) -> str | None:
        return self.decl.matcher


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


def _env_for(entry: HookEntry, cwd: str) -> dict[str, str]:
    # Each vendor's documented project variables, so scripts written for it find their files.
    add = dict.fromkeys(entry.spec.project_dir_env, cwd)
    add.update(dict(entry.decl.handler.env if entry.decl.handler else ()))
    return hook_environment(os.environ, add=add)


def _shell_for(spec: VendorSpec) -> str:
    """The shell the vendor runs a command hook with on a POSIX host."""
    if spec.shell == "bash":
        return BASH
    if spec.shell == "user":
        return os.environ.get("SHELL") or "/bin/sh"
    return "/bin/sh"


def _cwd_for(entry: HookEntry, cwd: str) -> Path:
    handler = entry.decl.handler
    if handler and handler.cwd:
        # Copilot's `cwd` is relative to the repository root; an absolute one stands as given.
        return Path(cwd) / handler.cwd
    return Path(cwd)


async def _run_one(entry: HookEntry, moment: Moment) -> tuple[HookAnswer, ProcessOutcome]:
    dialect = entry.dialect
    payload = dialect.payload(moment)
    outcome = await run_command(
        entry.decl.handler.command,  # type: ignore[union-attr]
        stdin=dialect.encode(payload),
        cwd=_cwd_for(entry, moment.cwd),
        env=_env_for(entry, moment.cwd),
        timeout_s=entry.timeout_s,
        max_output_bytes=dialect.output_cap,  # what the vendor reads (Copilot: 10 MiB)
        shell=_shell_for(entry.spec),
    )
    return _decode(dialect, moment.event, outcome), outcome


def _decode(dialect: Dialect, event: str, outcome: ProcessOutcome) -> HookAnswer:
    """The dialect's reading of a run; output the dialect cannot even parse counts as no output.

    A decoder that raises (JSON nested deeper than the parser allows raises RecursionError, not a
    parse error) must not make the listener raise: the host would treat that as "no verdict" and
    let a fail-closed vendor's call through. Read again without stdout, the exit code still
    decides by the vendor's rules (Copilot preToolUse exit 1 still denies).
    """
    try:
        return dialect.decode(event, outcome)
    except Exception as exc:  # noqa: BLE001 - see the docstring
        blank = replace(outcome, stdout="")
        try:
            answer = dialect.decode(event, blank)
        except Exception:  # noqa: BLE001 - the decoder fails on the exit code alone: no answer
            answer = HookAnswer()
        problem = f"hook output could not be read ({type(exc).__name__}); read as no output"
        failed = f"{answer.failed}; {problem}" if answer.failed else problem
        return replace(answer, failed=failed)


def select(entries: Sequence[HookEntry], moment: Moment) -> list[HookEntry]:
    """The entries of one vendor event whose matcher selects this moment, in config order.

    This runs on every dispatch, so the subject is computed once per call and each entry
    remembers its verdict per subject.
    """
    if not entries:
        return []
    first = entries[0]
    if first.row.matcher_subject is None:  # the vendor has no matcher for this event
        return list(entries)
    subject = _UNSET
    chosen = []
    for entry in entries:
        matcher = entry.decl.matcher
        if not matcher:
            chosen.append(entry)
            continue
        if subject is _UNSET:
            subject = first.dialect.subject(moment)
        verdicts = entry.verdicts
        hit = verdicts.get(subject)  # type: ignore[arg-type]
        if hit is None:
            hit = entry.dialect.matches(moment.event, matcher, subject)  # type: ignore[arg-type]
            if len(verdicts) < _VERDICT_CACHE:  # file paths would grow it without end
                verdicts[subject] = hit  # type: ignore[index]
        if hit:
            chosen.append(entry)
    return chosen


async def run_group(entries: Sequence[HookEntry], moment: Moment) -> GroupResult:
    """Run the selected hooks of one vendor event, concurrently when the vendor does, then merge.

    Answers are merged in config order whatever order the processes finished in.
    """
    chosen = select(entries, moment)
    if not chosen:
        return GroupResult(HookAnswer(), (), (), ())
    spec = chosen[0].spec
    results: list[tuple[HookAnswer, ProcessOutcome] | None] = [None] * len(chosen)
    if spec.concurrent and len(chosen) > 1:
        async def one(i: int) -> None:
            results[i] = await _run_one(chosen[i], moment)

        async with anyio.create_task_group() as tg:
            for i in range(len(chosen)):
                tg.start_soon(one, i)
    else:
        for i, entry in enumerate(chosen):
            results[i] = await _run_one(entry, moment)
    done = [r for r in results if r is not None]
    answers = tuple(a for a, _ in done)
    merged = chosen[0].dialect.merge(moment.event, answers)
    return GroupResult(merged, tuple(chosen), answers, tuple(o for _, o in done))


def make_entry(id: str, spec: VendorSpec, row: EventRow, decl: HookDeclaration) -> HookEntry:
    timeout = (decl.handler.timeout_s if decl.handler and decl.handler.timeout_s else None) \
        or row.timeout_s or spec.default_timeout_s
    if row.timeout_s is not None:
        # Vendors that clamp an event's timeout (Codex SessionEnd/Interrupt: 3 s) clamp hooks too.
        timeout = min(timeout, row.timeout_s) if spec.id == "codex" else timeout
    return HookEntry(id=id, spec=spec, row=row, decl=decl, timeout_s=float(timeout),
                     dialect=dialect_for(spec.id))


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
        event=event,
        session_id=session.id if session is not None else "",
        cwd=str(session.cwd if session is not None else cwd),
        transcript_path=str(session.transcript_path) if session is not None and session.transcript_path else None,
        turn=turn,
        fields=dict(fields),
    )
