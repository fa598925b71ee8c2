"""The one place that runs a hook command.

`run_command` runs ``/bin/sh -c <command>`` (or the vendor's shell) under a hook launcher
(`compat_adapter.runtime.launcher`), in a session of its own, so that every process the hook starts
is ours to end. Launchers are forked by one long-lived launch server per host process
(`compat_adapter.runtime.spawner`): no interpreter starts per run, so hooks the vendor starts at
once finish together here too.

- the launcher is a child subreaper: a descendant that leaves the process group (``setsid``,
  double fork) is re-parented to it, not to init. Where this process may create a cgroup v2
  directory (`compat_adapter.runtime.cgroup`), the shell also runs inside a fresh one, which no
  descendant can leave and ``cgroup.kill`` empties at once;
- the payload goes in on stdin, which is then closed (``/dev/null`` when there is none); a hook
  that never reads it is fine;
- stdout and stderr are drained to the end but only the first ``max_output_bytes`` of each are
  kept, so a hook that prints 100 MB costs no more memory than one that prints the cap;
- on timeout every descendant gets SIGTERM, then SIGKILL after ``grace_s``; output written
  meanwhile is still read;
- every descendant also gets SIGKILL as soon as the shell exits (a backgrounded child would
  otherwise hold the pipes open until the timeout) and whenever we leave, including when the
  caller is cancelled. A run lasts at most ``timeout_s + 2 * grace_s`` plus reaping;
- it never raises for a failing hook: a spawn error, a timeout or a signal death is a
  `ProcessOutcome` with a ``cause``. Only the caller's own cancellation propagates, after the hook
  has been killed, so ``cause="cancelled"`` is never produced here; it is left for callers that
  record a run their own cancellation cut short.

On a timeout ``signal`` names the signal that ended the shell (SIGTERM or SIGKILL), when known.

The launcher and its server run with an empty initial environment, so ``/proc/$PPID/environ`` (and
its parent's) read by a hook holds nothing of the host; the hook's own environment is the scrubbed
one it is given. Limits that remain, each pinned by a test in ``tests/test_process_tree.py``:

- without a cgroup, a hook that SIGKILLs its own launcher (``kill -9 $PPID``) orphans anything
  it had already moved out of the process group; with a cgroup it is still killed;
- a process started on the hook's behalf by something outside its tree (``systemd-run``, ``at``,
  a daemon reached over a socket) is not a descendant and is not tracked;
- a shell started by ``posix_spawn`` (a spare's, or any without a cgroup) has glibc's two own
  signals, 32 and 33, ignored: glibc's spawn child sets them to SIG_IGN before ``exec``, and
  Python's ``posix_spawn`` may not name them. glibc, musl and Go programs install their own
  handlers for both, and Node's libuv resets only signals 1 to 31 for the hooks it starts;
- hooks run as the host's user, so ``/proc/<host pid>/environ`` — the host's own initial
  environment — stays readable to them (the launcher and its server only hide it two hops up);
- without ``sys.executable`` (an embedding), or with ``COMPAT_ADAPTER_HOOK_LAUNCHER=off`` in the
  host's environment, there is no launcher: the process group is killed, a process that left it is
  not, and ``/proc/$PPID/environ`` may be the host's. What the launcher costs is one more process
  (forked by the small server ahead of the run; the server starts once, on the first run), which
  joins its cgroup before the run comes and takes the next run once nothing of this one is left;
  ``off`` saves it.

Environment policy: `hook_environment`, see `compat_adapter.runtime.environment`. A command that
dash or bash would only find and exec (``./guard.sh``) starts without the shell, with the argv,
environment and exit status the shell would have given: `compat_adapter.runtime.shellexec`.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import time
from collections.abc import Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from subprocess import DEVNULL, PIPE

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, Process

from compat_adapter.runtime.callenv import call_runner, environ
from compat_adapter.runtime.cgroup import HookCgroup, cgroup_parent
from compat_adapter.runtime.environment import hook_environment
from compat_adapter.runtime.hooklauncher import KILL_NOW
from compat_adapter.runtime.outcome import ProcessOutcome
from compat_adapter.runtime.shellexec import direct_exec
from compat_adapter.runtime.spawner import Launched, LaunchRefused, launch

__all__ = ("BASH", "ProcessOutcome", "hook_environment", "run_command")

_SHELL = "/bin/sh"
#: bash where the machine has it: DSH's shell executor and Copilot's `bash` handlers run with it.
BASH = shutil.which("bash") or _SHELL
#: The interpreter that runs the launch server; without one (an embedding with no
#: ``sys.executable``) hooks run directly under the group kill.
_PYTHON: str | None = sys.executable if sys.executable and os.access(sys.executable, os.X_OK) else None
# Reaping a SIGKILLed group is quick; the bound only guards against a process stuck in the kernel.
_REAP_LIMIT_S = 10.0


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


def _cgroups() -> str | None:
    parent = cgroup_parent()
    return str(parent) if parent is not None else None


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    # ESRCH: the group is already gone; EPERM: only reachable when the pid was recycled into
    # someone else's group, which we must not touch anyway. A launcher that never said its pid
    # (it refused the run) has none: killpg(0) would signal our own group.
    if pgid <= 0:
        return
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


def _sent_at_once(proc: Process | Launched, payload: bytes) -> int:
    """How much of the payload went into the launcher's stdin pipe without waiting (a hook that
    may have closed it already: all of it, as `_feed` counts it)."""
    if not isinstance(proc, Launched) or proc.stdin is None:
        return 0
    try:
        return proc.stdin.send_nowait(payload)
    except anyio.BrokenResourceError:
        return len(payload)


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


def _direct_on() -> bool:
    # COMPAT_ADAPTER_DIRECT_EXEC=off: every command through its shell, as before.
    return environ().get("COMPAT_ADAPTER_DIRECT_EXEC", "on").lower() != "off"


def _cwd_problem(cwd: Path) -> str | None:
    try:
        if cwd.is_dir():
            return None
        if cwd.exists():
            return f"cannot run hook: working directory {str(cwd)!r} is not a directory"
    except OSError as exc:
        return f"cannot run hook: working directory {str(cwd)!r} is not accessible: {exc}"
    return f"cannot run hook: working directory {str(cwd)!r} does not exist"


def _shell_problem(shell: str) -> str | None:
    # Checked here so that a missing shell stays a spawn failure: the launcher could only report
    # it as the shell's exit code 127.
    if not os.path.isfile(shell) or not os.access(shell, os.X_OK):
        return f"cannot run hook: {shell!r} is not an executable file"
    return None


class _Tree:
    """The signals a run needs, sent to the launcher (which owns every descendant) or, without
    one, to the shell's process group."""

    __slots__ = ("proc", "launched", "finished", "_cgroup")

    def __init__(self, proc: Process | Launched, launched: bool) -> None:
        self.proc, self.launched = proc, launched
        self.finished = False
        self._cgroup: HookCgroup | None = None

    @property
    def cgroup(self) -> HookCgroup | None:
        """The run's cgroup, once its launcher has said which (it says so before anything else)."""
        if self._cgroup is None:
            where = self.proc.cgroup if isinstance(self.proc, Launched) else None
            if where is not None:
                self._cgroup = HookCgroup(Path(where))  # read on every step of the run's end
        return self._cgroup

    def terminate(self) -> None:
        if self.launched:
            with suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGTERM)
        else:
            _signal_group(self.proc.pid, signal.SIGTERM)

    def kill(self) -> None:
        """SIGKILL every process of the hook; with a launcher, only once it has been asked."""
        if self.launched and self.proc.returncode is None:
            with suppress(ProcessLookupError):
                self.proc.send_signal(KILL_NOW)
        else:
            self.finish()

    def finish(self) -> None:
        # After the launcher is gone (or without one): whatever is left in our group or cgroup.
        _signal_group(self.proc.pid, signal.SIGKILL)
        cgroup = self.cgroup
        if cgroup is not None and not self.finished:
            # Once is enough: a member cannot leave the cgroup, and its removal kills again. An
            # empty one (the launcher reaped everything) is removed here instead.
            cgroup.clear()
        self.finished = self.proc.returncode is not None


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
    argv: Sequence[str] | None = None,
    shell_name: str | None = None,
) -> ProcessOutcome:
    """Run `command` through ``<shell> -c`` (default ``/bin/sh``) under the hook launcher; see the
    module docstring. With ``argv`` (exec form) that program runs instead, with no shell at all:
    ``argv[0]`` must be an executable path (``command`` is then only for messages). ``shell_name``:
    what the shell knows itself as (``$0``, its error messages' prefix), given after the command as a
    POSIX shell's ``-c`` takes it, for a vendor that starts its shell by name (``bash``)."""
    started = time.perf_counter()
    cwd = Path(cwd)
    program = list(argv) if argv is not None else [shell, "-c", command, *([shell_name] if shell_name else [])]
    # A command the shell would only find and exec starts without it (`runtime.shellexec`).
    direct = direct_exec(shell, command, cwd, env) if argv is None and _direct_on() else None
    if direct is not None:
        program, env = list(direct.argv), direct.env
    problem = _cwd_problem(cwd) or (None if direct is not None else _shell_problem(program[0]))
    if problem is not None:
        return _spawn_failed(problem, started)
    caller = call_runner()
    if caller is not None:
        # The call's own client starts the process (a ported call's compiled client: cheaper).
        done = await caller.run(program, stdin=stdin, cwd=cwd, env=env, timeout_s=timeout_s, grace_s=grace_s,
                                max_output_bytes=max_output_bytes)
        if done is not None:
            return done if direct is None else direct.seen_by_shell(done)
    python = _PYTHON if environ().get("COMPAT_ADAPTER_HOOK_LAUNCHER", "on").lower() != "off" else None
    launched = python is not None
    try:
        # Shielded: a cancellation landing mid-spawn would leave a started shell nobody kills.
        # It is delivered at the next checkpoint instead, inside the try/finally below.
        with anyio.CancelScope(shield=True):
            if python is not None:
                # Not waiting for the launcher's start: stdin is fed while it forks, and a
                # refusal comes back through wait() (below: a spawn failure all the same).
                proc: Process | Launched = await launch(
                    program, python=python, env=env, cwd=cwd, with_stdin=stdin is not None,
                    cgroup=_cgroups(), wait_started=False)
            else:
                proc = await anyio.open_process(
                    program,
                    stdin=PIPE if stdin is not None else DEVNULL,
                    stdout=PIPE,
                    stderr=PIPE,
                    cwd=cwd,
                    env=dict(env),
                    start_new_session=True,  # setsid(): the group id is the shell's pid
                )
    except (OSError, ValueError, TypeError, LaunchRefused) as exc:
        # OSError: cwd removed meanwhile, fd exhaustion …; ValueError: a NUL byte in the command
        # or the environment; TypeError: a non-string in the environment; LaunchRefused: the
        # launcher could not enter the working directory.
        message = str(exc) if isinstance(exc, LaunchRefused) else f"cannot run hook: {type(exc).__name__}: {exc}"
        return _spawn_failed(message, started)

    tree = _Tree(proc, launched)
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
                # A payload the pipe takes at once is written now (a task per run costs more than
                # the write); the rest in its own task: a grandchild holding stdin open must not
                # hide the shell's exit.
                sent = _sent_at_once(proc, stdin)
                if sent and sent == len(stdin):
                    with suppress(OSError):
                        await proc.stdin.aclose()
                else:
                    tg.start_soon(_feed, proc.stdin, stdin[sent:])
            with anyio.move_on_after(timeout_s):
                leader_code = await proc.wait()
            if leader_code is None:
                tree.terminate()
                with anyio.move_on_after(grace_s):
                    await proc.wait()
                tree.kill()
                with anyio.move_on_after(_REAP_LIMIT_S):
                    await proc.wait()
            # Leader done (or out of time): whatever it left behind would hold the pipes open.
            # The launcher has killed its descendants before exiting; this is for the rest.
            tree.finish()
            # Without a launcher a process that left the group (its own setsid) can still hold
            # a pipe: read what is left for at most the grace period, then stop listening.
            with anyio.move_on_after(grace_s):
                await out.done.wait()
                await err.done.wait()
            tg.cancel_scope.cancel()
    finally:
        # Also reached on the caller's cancellation: nothing of the hook outlives this call.
        with anyio.move_on_after(_REAP_LIMIT_S, shield=True):
            tree.kill()
            await proc.wait()
        tree.finish()
        with anyio.move_on_after(_REAP_LIMIT_S, shield=True):
            await proc.aclose()
            if tree.cgroup is not None:
                await tree.cgroup.remove()

    refused = proc.refused if isinstance(proc, Launched) else None
    if refused is not None:
        return _spawn_failed(refused, started)
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
    outcome = ProcessOutcome(
        exit_code=None if timed_out or died_by is not None else code,
        stdout=out.text(),
        stderr=err.text(),
        timed_out=timed_out,
        truncated=out.dropped or err.dropped,
        cause=cause,
        duration_ms=duration_ms,
        signal=died_by,
        timeout_s=timeout_s if timed_out else None,
    )
    # A program started without its shell ends as the shell would have reported it, on either path.
    return outcome if direct is None else direct.seen_by_shell(outcome)
