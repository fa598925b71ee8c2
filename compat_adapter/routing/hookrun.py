"""One hook run: a mounted hook's payload in its vendor's encoding, its process, its answer.

The dispatch loop (:mod:`compat_adapter.routing.dispatch`) selects the hooks of a moment and calls
:func:`run_one` for each; here is what a vendor's runner does for one hook: the environment, shell
and folder it starts the command with, and the reading of what the command said.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compat_adapter.dialects.base import Dialect, Exporting, HookAnswer, Moment
from compat_adapter.handlers.model import Complete
from compat_adapter.handlers.run import HandlerRun, run_handler
from compat_adapter.hookvars import given
from compat_adapter.model import CommandHandler, VendorSpec
from compat_adapter.routing.gates import closed
from compat_adapter.runtime.callenv import environ
from compat_adapter.runtime.process import BASH, ProcessOutcome, hook_environment

if TYPE_CHECKING:
    from compat_adapter.routing.dispatch import HookEntry

__all__ = ("answer_of", "decode", "run_one")


#: Whether a dialect class exports variables, per class: a Protocol's isinstance walks its members
#: on every check, and a warm server asks once per hook run.
_EXPORTS: dict[type, bool] = {}


def _exports(dialect: Dialect) -> bool:
    kind = type(dialect)
    found = _EXPORTS.get(kind)
    if found is None:
        found = _EXPORTS[kind] = isinstance(dialect, Exporting)
    return found


def _env_for(entry: HookEntry, moment: Moment, payload: Mapping[str, Any]) -> dict[str, str]:
    # The variables the vendor gives its hooks (its project folder, a plugin's folder …), as it gives
    # them, so that scripts written for it find their files; then those it draws from the call.
    add = given(entry.spec, entry.declared.place, event=entry.row.event, cwd=moment.cwd,
                session=moment.session_id)
    if _exports(entry.dialect):
        add.update(entry.dialect.hook_env(moment, payload))  # type: ignore[attr-defined]
    if isinstance(entry.handler, CommandHandler):
        add.update(dict(entry.handler.env))
    return hook_environment(environ(), add=add)


def _shell_for(spec: VendorSpec) -> str:
    """The shell the vendor runs a command hook with on a POSIX host."""
    if spec.shell == "bash":
        return BASH
    if spec.shell == "user":
        return environ().get("SHELL") or "/bin/sh"
    return "/bin/sh"


def _cwd_for(entry: HookEntry, cwd: str) -> Path:
    handler = entry.handler
    if isinstance(handler, CommandHandler) and handler.cwd:
        # Copilot's `cwd` is relative to the repository root; an absolute one stands as given.
        return Path(cwd) / handler.cwd
    return Path(cwd)


async def run_one(entry: HookEntry, moment: Moment, complete: Complete | None = None,
                  payload: Mapping[str, Any] | None = None) -> tuple[HookAnswer, ProcessOutcome]:
    """Run one hook for ``moment``; ``payload``: its stdin object when a hook before it in a
    sequential run changed it (else the dialect's payload of the moment)."""
    dialect = entry.dialect
    if payload is None:
        payload = dialect.payload(moment)
    outcome = await run_handler(entry.handler, HandlerRun(  # type: ignore[arg-type]
        event=moment.event,
        payload=payload,
        stdin=dialect.encode(payload),
        cwd=_cwd_for(entry, moment.cwd),
        project_dir=Path(moment.cwd),
        env=_env_for(entry, moment, payload),
        timeout_s=entry.timeout_s,
        limit=dialect.output_cap,  # what the vendor reads (Copilot: 10 MiB)
        shell=_shell_for(entry.spec),
        shell_name=entry.spec.shell_name,
        complete=complete,
    ))
    return answer_of(entry, moment.event, outcome), outcome


def answer_of(entry: HookEntry, event: str, outcome: ProcessOutcome) -> HookAnswer:
    """What a run of ``entry`` answers, read by its vendor's rules (the outcome alone decides)."""
    # A fail-closed handler (Cursor's failClosed) turns a run that failed into a deny.
    return closed(entry.row, entry.handler, decode(entry.dialect, event, outcome))


def decode(dialect: Dialect, event: str, outcome: ProcessOutcome) -> HookAnswer:
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
