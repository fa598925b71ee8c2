"""Outcomes of the handler kinds that are not processes, in the one shape every dialect decodes.

A web request, an MCP call or a model answer is read by the vendor like a command's stdout, with
the vendor's rules for failures: so each is reported as a :class:`ProcessOutcome` — exit 0 with
the body on stdout when it answered, exit 1 (a non-blocking error in every vendor but Copilot's
preToolUse, hence the ``unanswered`` cause) with the reason on stderr when it did not, and a timeout
as a timeout.
"""

from __future__ import annotations

import time

from compat_adapter.runtime.outcome import ProcessOutcome

__all__ = ("UNANSWERED", "UNREACHABLE", "answered", "failed", "timed_out")


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0


def _cap(text: str, limit: int) -> tuple[str, bool]:
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text, False
    return data[:limit].decode("utf-8", errors="replace"), True


def answered(stdout: str, started: float, limit: int, *, exit_code: int = 0, stderr: str = "") -> ProcessOutcome:
    out, cut = _cap(stdout, limit)
    err, cut_err = _cap(stderr, limit)
    return ProcessOutcome(exit_code=exit_code, stdout=out, stderr=err, timed_out=False,
                          truncated=cut or cut_err, cause=None, duration_ms=_ms(started))


#: The cause of a request that got no usable answer (a non-2xx status; exit 1 all the same): a
#: dialect reads it apart from a command's exit 1 where its vendor does.
UNANSWERED = "unanswered"
#: The cause of a request that reached no one (the name did not resolve, the connection was
#: refused or broke, or the vendor refuses the address): Copilot CLI 1.0.102 denies a preToolUse
#: call on it, as on a command that errored, though its documentation says fail-open.
UNREACHABLE = "unreachable"


def failed(message: str, started: float, cause: str = UNANSWERED) -> ProcessOutcome:
    """No answer: a non-blocking error whose stderr says why."""
    return ProcessOutcome(exit_code=1, stdout="", stderr=message, timed_out=False, truncated=False,
                          cause=cause, duration_ms=_ms(started))


def timed_out(message: str, started: float, timeout_s: float | None = None) -> ProcessOutcome:
    return ProcessOutcome(exit_code=None, stdout="", stderr=message, timed_out=True, truncated=False,
                          cause="timeout", duration_ms=_ms(started), timeout_s=timeout_s)
