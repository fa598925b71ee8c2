"""The one place that runs a hook command, and the environment policy for it.

`run_command` runs ``/bin/sh -c <command>`` in its own session, so the shell and everything it
starts share one process group that we own:

- the payload goes in on stdin, which is then closed (``/dev/null`` when there is none); a hook
  that never reads it is fine;
- stdout and stderr are drained to the end but only the first ``max_output_bytes`` of each are
  kept, so a hook that prints 100 MB costs no more memory than one that prints the cap;
- on timeout the whole group gets SIGTERM, then SIGKILL after ``grace_s``; output written
  meanwhile is still read;
- the group also gets SIGKILL as soon as the shell exits (a backgrounded child would otherwise
  hold the pipes open until the timeout) and whenever we leave, including when the caller is
  cancelled;
- a process that left the group on purpose (its own ``setsid``) cannot be killed by us; if it
  still holds a pipe we stop reading ``grace_s`` after the shell is gone. A run therefore lasts at
  most ``timeout_s + 2 * grace_s`` plus reaping;
- it never raises for a failing hook: a spawn error, a timeout or a signal death is a
  `ProcessOutcome` with a ``cause``. Only the caller's own cancellation propagates, after the group
  has been killed, so ``cause="cancelled"`` is never produced here; it is left for callers that
  record a run their own cancellation cut short.

On a timeout ``signal`` names the signal that ended the shell (SIGTERM or SIGKILL), when known.

Environment policy (`hook_environment`): a hook sees the parent environment minus every variable
whose name contains KEY, PASSWORD, SECRET, TOKEN or CREDENTIAL (any case, anywhere in the name,
see `SCRUB_PATTERN`) and minus every ``DSH_*`` variable (the host's own settings, any case), then
the caller's ``add`` variables on top, unfiltered, because those are the documented vendor
variables (``CLAUDE_PROJECT_DIR`` …) that the caller chose on purpose.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import time
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from subprocess import DEVNULL, PIPE
from types import MappingProxyType

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, Process

__all__ = ("BASH", "SCRUB_PATTERN", "ProcessOutcome", "hook_environment", "run_command")

#: Names of parent variables that never reach a hook (searched anywhere in the name).
SCRUB_PATTERN: re.Pattern[str] = re.compile(r"KEY|PASSWORD|SECRET|TOKEN|CREDENTIAL", re.IGNORECASE)

_HOST_PREFIX = "DSH_"
_NO_VARS: Mapping[str, str] = MappingProxyType({})
_SHELL = "/bin/sh"
#: bash where the machine has it: DSH's shell executor and Copilot's `bash` handlers run with it.
BASH = shutil.which("bash") or _SHELL
# Reaping a SIGKILLed group is quick; the bound only guards against a process stuck in the kernel.
_REAP_LIMIT_S = 10.0


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


def hook_environment(base: Mapping[str, str], *, add: Mapping[str, str] = _NO_VARS) -> dict[str, str]:
    """The environment a hook gets: `base` minus secrets and ``DSH_*`` names, then `add` on top."""
    env = {
        name: value
        for name, value in base.items()
        if not SCRUB_PATTERN.search(name) and not name.upper().startswith(_HOST_PREFIX)
    }
    env.update(add)
    return env


class _Capture:
    """One output stream: keeps the first `limit` bytes, counts the rest as dropped."""

    __slots__ = ("buffer", "limit", "dropped", "done")

    def __init__(self, limit: int) -> None:
        self.buffer = bytearray()
        self.limit = limit
        self.dropped = False
        self.done = anyio.Event()

    async def drain(self, stream: ByteReceiveStream) -> None:
        try:
            # Keep reading after the cap: a hook blocked on a full pipe would never exit.
            async for chunk in stream:
                room = self.limit - len(self.buffer)
                if room > 0:
                    self.buffer += chunk[:room]
                if len(chunk) > room:
                    self.dropped = True
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            pass
        finally:
            self.done.set()

    def text(self) -> str:
        return self.buffer.decode("utf-8", errors="replace")


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    # ESRCH: the group is already gone; EPERM: only reachable when the pid was recycled into
    # someone else's group, which we must not touch anyway.
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def _feed(stdin: ByteSendStream, payload: bytes) -> None:
    # A hook may exit (or close stdin) without reading: that is not an error of ours.
    with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        if payload:
            await stdin.send(payload)
    # Closing is what gives the hook EOF; without it a `cat`-style hook waits forever.
    with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        await stdin.aclose()


def _spawn_failed(message: str, started: float) -> ProcessOutcome:
    return ProcessOutcome(
        exit_code=None,
        stdout="",
        stderr=message,
        timed_out=False,
        truncated=False,
        cause="spawn-failed",
        duration_ms=(time.perf_counter() - started) * 1000.0,
    )


def _cwd_problem(cwd: Path) -> str | None:
    try:
        if cwd.is_dir():
            return None
        if cwd.exists():
            return f"cannot run hook: working directory {str(cwd)!r} is not a directory"
    except OSError as exc:
        return f"cannot run hook: working directory {str(cwd)!r} is not accessible: {exc}"
    return f"cannot run hook: working directory {str(cwd)!r} does not exist"


async def run_command(
    command: str,
    *,
    stdin: bytes | None,
    cwd: Path,
    env: Mapping[str, str],
    timeout_s: float,
    max_output_bytes: int = 1_048_576,
    grace_s: float = 2.0,
    shell: str = _SHELL,
) -> ProcessOutcome:
    """Run `command` through ``<shell> -c`` (default ``/bin/sh``) in its own process group; see the
    module docstring."""
    started = time.perf_counter()
    cwd = Path(cwd)
    problem = _cwd_problem(cwd)
    if problem is not None:
        return _spawn_failed(problem, started)
    try:
        # Shielded: a cancellation landing mid-spawn would leave a started shell nobody kills.
        # It is delivered at the next checkpoint instead, inside the try/finally below.
        with anyio.CancelScope(shield=True):
            proc: Process = await anyio.open_process(
                [shell, "-c", command],
                stdin=PIPE if stdin is not None else DEVNULL,
                stdout=PIPE,
                stderr=PIPE,
                cwd=cwd,
                env=dict(env),
                start_new_session=True,  # setsid(): the group id is the shell's pid
            )
    except (OSError, ValueError, TypeError) as exc:
        # OSError: missing shell, cwd removed meanwhile, fd exhaustion …; ValueError: a NUL byte
        # in the command or the environment; TypeError: a non-string in the environment.
        return _spawn_failed(f"cannot run hook: {type(exc).__name__}: {exc}", started)

    pgid = proc.pid
    limit = max(0, max_output_bytes)
    out, err = _Capture(limit), _Capture(limit)
    leader_code: int | None = None
    try:
        async with anyio.create_task_group() as tg:
            assert proc.stdout is not None and proc.stderr is not None
            # The readers run until the very end, so output written while the hook handles
            # SIGTERM is kept and a full pipe never blocks its cleanup.
            tg.start_soon(out.drain, proc.stdout)
            tg.start_soon(err.drain, proc.stderr)
            if stdin is not None:
                assert proc.stdin is not None
                # Its own task: a grandchild holding stdin open must not hide the shell's exit.
                tg.start_soon(_feed, proc.stdin, stdin)
            with anyio.move_on_after(timeout_s):
                leader_code = await proc.wait()
            if leader_code is None:
                _signal_group(pgid, signal.SIGTERM)
                with anyio.move_on_after(grace_s):
                    await proc.wait()
            # Leader done (or out of time): whatever it left behind would hold the pipes open.
            _signal_group(pgid, signal.SIGKILL)
            # A process that left the group (its own setsid) can still hold a pipe: read what
            # is left for at most the grace period, then stop listening.
            with anyio.move_on_after(grace_s):
                await out.done.wait()
                await err.done.wait()
            tg.cancel_scope.cancel()
    finally:
        # Also reached on the caller's cancellation: nothing of the hook outlives this call.
        _signal_group(pgid, signal.SIGKILL)
        with anyio.move_on_after(_REAP_LIMIT_S, shield=True):
            await proc.aclose()

    duration_ms = (time.perf_counter() - started) * 1000.0
    timed_out = leader_code is None
    code = proc.returncode if timed_out else leader_code
    died_by = -code if code is not None and code < 0 else None
    if timed_out:
        cause: str | None = "timeout"
    elif died_by is not None:
        cause = "signal"
    else:
        cause = None
    return ProcessOutcome(
        exit_code=None if timed_out or died_by is not None else code,
        stdout=out.text(),
        stderr=err.text(),
        timed_out=timed_out,
        truncated=out.dropped or err.dropped,
        cause=cause,
        duration_ms=duration_ms,
        signal=died_by,
    )
