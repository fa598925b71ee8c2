"""The environment of the call being served: the process's own, or the one a caller handed over.

A hook run takes its variables from the environment of whoever asked for it. In a process that
serves one call and leaves, that is ``os.environ``. The warm shim server
(:mod:`compat_adapter.port.server`) serves many calls at once in one long-lived process, each with
the environment of the target CLI that made it, so it cannot set ``os.environ`` (calls would see
each other's variables): it sets this context's environment instead, and every reader on a hook's
way (its environment, its shell, the state folder, a model endpoint's key) asks :func:`environ`.

A call may also bring the one who runs its hook processes (:class:`CallRunner`): the compiled
shim client starts a hook itself, a fork and an exec of a small process, where a spawn from the
server's Python costs about twice as much (:mod:`compat_adapter.port.callerruns`).

A context variable, not a global: each task and thread of the server sees only its own call's.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from compat_adapter.runtime.outcome import ProcessOutcome

__all__ = ("CallRunner", "call_runner", "environ", "serving")


class CallRunner(Protocol):
    """Who runs a hook process for the call being served, in place of this process."""

    async def run(self, program: Sequence[str], *, stdin: bytes | None, cwd: Path, env: Mapping[str, str],
                  timeout_s: float, grace_s: float, max_output_bytes: int) -> ProcessOutcome | None:
        """What the run did; None: it cannot take this run (one is under way): run it here."""
        ...


_CALL: ContextVar[Mapping[str, str] | None] = ContextVar("compat_adapter_call_environ", default=None)
_RUNNER: ContextVar[CallRunner | None] = ContextVar("compat_adapter_call_runner", default=None)


def environ() -> Mapping[str, str]:
    """The environment of the call being served (``os.environ`` when none was handed over)."""
    given = _CALL.get()
    return os.environ if given is None else given


def call_runner() -> CallRunner | None:
    """Who runs the hook processes of the call being served, when not this process."""
    return _RUNNER.get()


@contextmanager
def serving(env: Mapping[str, str], runner: CallRunner | None = None) -> Iterator[None]:
    """Serve a call with ``env`` as its environment (and ``runner`` running its hook processes), in
    this context and the tasks it starts."""
    token, ran = _CALL.set(dict(env)), _RUNNER.set(runner)
    try:
        yield
    finally:
        _RUNNER.reset(ran)
        _CALL.reset(token)
