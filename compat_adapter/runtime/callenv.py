"""The environment of the call being served: the process's own, or the one a caller handed over.

A hook run takes its variables from the environment of whoever asked for it. In a process that
serves one call and leaves, that is ``os.environ``. The warm shim server
(:mod:`compat_adapter.port.server`) serves many calls at once in one long-lived process, each with
the environment of the target CLI that made it, so it cannot set ``os.environ`` (calls would see
each other's variables): it sets this context's environment instead, and every reader on a hook's
way (its environment, its shell, the state folder, a model endpoint's key) asks :func:`environ`.

A context variable, not a global: each task and thread of the server sees only its own call's.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ("environ", "serving")

_CALL: ContextVar[Mapping[str, str] | None] = ContextVar("compat_adapter_call_environ", default=None)


def environ() -> Mapping[str, str]:
    """The environment of the call being served (``os.environ`` when none was handed over)."""
    given = _CALL.get()
    return os.environ if given is None else given


@contextmanager
def serving(env: Mapping[str, str]) -> Iterator[None]:
    """Serve a call with ``env`` as its environment, in this context and the tasks it starts."""
    token = _CALL.set(dict(env))
    try:
        yield
    finally:
        _CALL.reset(token)
