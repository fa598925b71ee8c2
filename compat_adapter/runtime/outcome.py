"""What one run of a hook command did: the record every runner gives and every dialect reads.

Its own module, apart from :mod:`compat_adapter.runtime.process` (which starts processes and
imports what that takes), so that reading or grading outcomes (the dialects, ``compat-adapter
matrix``) loads no process machinery.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ("ProcessOutcome",)


@dataclass(frozen=True, slots=True)
class ProcessOutcome:
    """What one run of a command did. Built once, never changed."""

    exit_code: int | None  # None: killed (timeout), signal death, or never started
    stdout: str  # decoded utf-8 with errors="replace", capped
    stderr: str
    timed_out: bool
    truncated: bool  # stdout or stderr hit the cap (the rest was drained and dropped)
    cause: str | None  # None on a normal exit; else "timeout" | "signal" | "spawn-failed" | "cancelled"
    duration_ms: float
    signal: int | None = None
    timeout_s: float | None = None
    """The limit a timed-out run was stopped at (None unless ``timed_out``): CodeBuddy names it."""
