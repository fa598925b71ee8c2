"""Hook processes the caller runs: the compiled shim client starts a call's hook for the server.

The warm server (:mod:`compat_adapter.port.server`) decides everything about a ported call: which
hooks, with what payload, variables, folder and limits, and what their outcomes mean to the target.
Starting a process is the one step it does not do best: a spawn from its Python costs about twice
the fork and exec of a small C process (measured: 2.2 to 3.4 ms against the 1.5 ms a target CLI's own
spawn of the same guard costs). So when the caller is the compiled client (``port/client.c``), the
server hands it each run as an ``R`` frame and reads back what the run did; the client owns what it
starts as the hook launcher does (its session, every descendant, the timeout, the kill).

One run at a time: hooks a vendor runs at once find the client busy and run in the server, each
with its own launcher, so a concurrent run is never queued behind another.

The frames (bytes on the call's socket, after the call's own request):

* server → client, a run: ``R <blob> <args> <env> <stdin> <timeout ms> <grace ms> <max bytes>\\n``,
  then the blob (the folder, each argument, each ``NAME=value``, every one ended by a NUL byte) and
  the stdin bytes (``-1``: none, the hook reads ``/dev/null``);
* client → server, the run's pid as soon as it is started: ``P <pid>\n`` (its process group's id
  too: a server whose caller was killed outright, before it could end the run, kills that group);
* client → server, what it did: ``<x|s|t|a> <code> <dropped> <stdout bytes> <stderr bytes>\\n`` and
  the two texts (``x`` exited with ``code``, ``s`` died of signal ``code``, ``t`` stopped at its
  timeout, ``code`` then its status, a signal as its negative; ``a``: exited 0 silently, and the
  client has answered the target from the forecast below, so the call is over);
* server → client, a run it no longer wants (its call was cancelled): ``K``; the client kills it;
* server → client, right after the call's only run (:func:`compat_adapter.port.shim.answer_for`
  knows when a call has one), the forecast: ``A <exit> <stdout bytes> <stderr bytes>\n`` and the
  two texts, the call's whole answer should the run exit 0 and print nothing (a guard that lets a
  call through). Its run ending so, the client answers the target at once and reports ``a``; the
  server then ends the call where it stands. Otherwise the client waits for the server's answer.

The forecast takes the server's reading of the outcome off the call's path: the round trip and a
cold pass through the runtime after the hook is done (measured under Codex: 0.76 ms of a ported
call's 5.6). It costs nothing per call: the reply to a silent run reads no moment, only the
hook's vendor, event and target (:func:`compat_adapter.port.shim.answer_for` keeps it per hook).
Answering again after an ``a`` would only take the CPU from the target, which goes on meanwhile.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import anyio.lowlevel

from compat_adapter.runtime.outcome import ProcessOutcome

if TYPE_CHECKING:
    from compat_adapter.hostface import Reply
    from compat_adapter.port.callsocket import CallSocket

__all__ = ("ClientRuns", "outcome_of", "silent_outcome")

#: Longest header line of a run's answer (its five numbers).
_HEAD_MAX = 256
#: A timeout the client counts in milliseconds; longer is as good as none.
_FOREVER_MS = 10**12


class ClientRuns:
    """The hook runs of one call, made by its compiled client over the call's socket ``stream``
    (its request read there first). ``on_answered``: told when the client has answered the call
    from its forecast (the call is then over)."""

    def __init__(self, stream: CallSocket, on_answered: Callable[[], object] | None = None) -> None:
        self.stream = stream
        self.busy = False
        #: A run was cut short mid-frame: the stream's place is lost, so no run goes there again.
        self.broken = False
        self.on_answered = on_answered
        self.runs = 0
        #: The forecast's frame, sent with the call's first run.
        self.foretold = b""

    def foretell(self, reply: Reply) -> None:
        """The call's reply should its one run, about to start here, exit 0 and print nothing."""
        out, err = reply.stdout.encode(), reply.stderr.encode()
        self.foretold = f"A {reply.exit_code} {len(out)} {len(err)}\n".encode() + out + err

    async def run(self, program: Sequence[str], *, stdin: bytes | None, cwd: Path, env: Mapping[str, str],
                  timeout_s: float, grace_s: float, max_output_bytes: int) -> ProcessOutcome | None:
        strings = (str(cwd), *program, *(f"{k}={v}" for k, v in env.items()))
        if self.busy or self.broken or any("\0" in s for s in strings):
            # A NUL byte cannot reach a process: the server's own spawn says so in its words.
            return None
        self.busy = True
        started = time.perf_counter()
        blob = b"".join(s.encode("utf-8", "surrogateescape") + b"\0" for s in strings)
        head = (f"R {len(blob)} {len(program)} {len(env)} {-1 if stdin is None else len(stdin)} "
                f"{_ms(timeout_s)} {_ms(grace_s)} {max(0, max_output_bytes)}\n")
        done = False
        group = 0
        # The forecast goes with the call's first run only (the one it was made for).
        told, self.foretold = (self.foretold if not self.runs else b""), b""
        self.runs += 1
        try:
            await self.stream.send(head.encode() + blob + (stdin or b"") + told)
            said = (await self.stream.receive_until(b"\n", _HEAD_MAX)).decode()
            group = int(said.removeprefix("P "))
            line = (await self.stream.receive_until(b"\n", _HEAD_MAX)).decode()
            kind, code_text, dropped, out_n, err_n = line.split()
            body = await self.stream.receive_exactly(int(out_n) + int(err_n)) if int(out_n) + int(err_n) else b""
            done = True
        finally:
            self.busy = False
            if not done:
                self.broken = True
                # Cancelled (or the stream failed) mid-run: the client kills what it started; a
                # client killed outright cannot, and its hook's group is killed here.
                if group > 0:
                    try:
                        os.killpg(group, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
                with anyio.CancelScope(shield=True), anyio.move_on_after(1.0):
                    try:
                        await self.stream.send(b"K")
                    except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                        pass
        if kind == "a":
            kind = "x"
            if self.on_answered is not None:
                self.on_answered()
                await anyio.lowlevel.checkpoint()  # the call's end (its cancellation) is delivered here
        return outcome_of(kind, int(code_text), dropped == "1", body[:int(out_n)], body[int(out_n):], timeout_s,
                          (time.perf_counter() - started) * 1000.0)


def silent_outcome() -> ProcessOutcome:
    """A run that exited 0 and printed nothing, as the client's frame ``x 0 0 0 0`` is read."""
    return outcome_of("x", 0, False, b"", b"", 0.0, 0.0)


def outcome_of(kind: str, code: int, dropped: bool, out: bytes, err: bytes, timeout_s: float,
               duration_ms: float) -> ProcessOutcome:
    """What a run the client reported did (``kind``, ``code``, ``dropped`` and the two texts as
    its frame gives them), as every run's outcome reads."""
    timed_out = kind == "t"
    died_by = code if kind == "s" else -code if timed_out and code < 0 else None
    return ProcessOutcome(
        exit_code=code if kind == "x" else None,
        stdout=out.decode("utf-8", errors="replace"),
        stderr=err.decode("utf-8", errors="replace"),
        timed_out=timed_out,
        truncated=dropped,
        cause="timeout" if timed_out else "signal" if kind == "s" else None,
        duration_ms=duration_ms,
        signal=died_by,
        timeout_s=timeout_s if timed_out else None,
    )


def _ms(seconds: float) -> int:
    return _FOREVER_MS if not seconds < _FOREVER_MS / 1000 else max(0, int(seconds * 1000))
