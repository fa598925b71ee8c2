"""The JSON-lines channel both sides of the serve protocol speak, and its stdio transport.

The wire (specified in INTEGRATION.md, "The serve protocol"): UTF-8, one JSON object per line.

* request — ``{"id": <string|number>, "method": <string>, "params": {...}}``;
* reply — ``{"id": <the request's id>, "result": ...}`` or ``{"id": ..., "error": {"code", "message"}}``;
* notification — ``{"method": ..., "params": {...}}`` without an id; never answered.

Both sides send requests; ids are scoped to the side that sent the request, so a message with a
``method`` is always an incoming request or notification and a message with ``result``/``error``
is always a reply. Replies may come in any order: every request runs in its own task, so a slow
hook never holds up another dispatch. Notifications are handled in arrival order, before anything
read after them (the session-log mirror depends on it). A bad line gets an error reply (``id`` null
when none could be read) and the channel keeps reading: ``PROTOCOL_ERROR`` for a line that is not a
usable message, ``NESTING_TOO_DEEP`` for one nested deeper than :data:`~compat_adapter.jsonlimits.
MAX_DEPTH`, ``INPUT_TOO_LARGE`` for one over :data:`MAX_LINE` (skipped up to its newline without
being held). Ids are strings or numbers a JavaScript peer reads back unchanged (finite, integers
within ±2**53); anything else is refused.

Every request read is answered. At end of input the requests still in hand run to their reply
(a reply is still written: the peer may read after it stopped writing), while requests this side
sent can no longer be answered and fail at once; then the channel ends. A ``last`` request
(``dispose``) waits for the requests accepted before it, then answers, then the channel ends.

The wire host (:mod:`compat_adapter.host.wire.host`) runs on it: ``compat-adapter serve --stdio``
over its own stdin and stdout (:func:`stdio_lines`), the DSH lane over a socket the bundle connects to.
"""

from __future__ import annotations

import json
import math
import os
import sys
import threading
from collections.abc import Awaitable, Callable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass
from importlib.metadata import version as package_version
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
from anyio.abc import TaskGroup

from compat_adapter.errors import CompatError, InputTooLarge, ProtocolError
from compat_adapter.jsonlimits import loads_json
from compat_adapter.jsontext import js_read

__all__ = ("MAX_LINE", "PROTOCOL_VERSION", "Channel", "stdio_lines", "version")

#: Bumped when a message shape changes incompatibly.
PROTOCOL_VERSION = 1
#: Longest line accepted; a longer one is a protocol error (nothing legitimate is this big).
MAX_LINE = 16 * 1024 * 1024

#: What the stdio reader hands on in place of an over-long line (a real line ends with ``\n``).
_TOO_LONG = b"\x00line too long"
#: JavaScript numbers are doubles: past this an integer id comes back as another number.
_SAFE_INTEGER = 2**53 - 1

RequestHandler = Callable[[dict[str, Any]], Awaitable[Any]]
NotificationHandler = Callable[[dict[str, Any]], None]


@dataclass(slots=True)
class _Pending:
    done: anyio.Event
    reply: dict[str, Any] | None = None


class Channel:
    """One JSON-lines connection: requests both ways, replies matched by id, notifications in order.

    :param read_line: returns the next line (with or without its ``\\n``); ``b""`` at end of input.
    :param write: writes bytes and flushes.
    """

    def __init__(self, read_line: Callable[[], Awaitable[bytes]],
                 write: Callable[[bytes], Awaitable[None]], *, name: str = "peer") -> None:
        self._read_line = read_line
        self._write = write
        self.name = name
        self._requests: dict[str, RequestHandler] = {}
        self._last: set[str] = set()
        self._notifications: dict[str, NotificationHandler] = {}
        self._pending: dict[int, _Pending] = {}
        self._ids = 0
        self._send, self._outbox = anyio.create_memory_object_stream[bytes](math.inf)
        self._tg: TaskGroup | None = None
        self.closed = anyio.Event()
        self._out_closed = False
        self._input_ended = False
        self._answering = 0
        self._answers_changed = anyio.Event()
        #: Why the channel ended (``"eof"``, ``"closed"`` or an error text).
        self.end_reason: str | None = None

    # ── registration ──
    def on_request(self, method: str, handler: RequestHandler, *, last: bool = False) -> None:
        """Answer ``method`` with ``handler``; ``last``: the channel finishes after that reply."""
        self._requests[method] = handler
        if last:
            self._last.add(method)

    def on_notification(self, method: str, handler: NotificationHandler) -> None:
        self._notifications[method] = handler

    # ── sending ──
    def _put(self, message: Mapping[str, Any]) -> None:
        if self._out_closed:  # finished: nothing more goes out
            return
        try:
            # allow_nan off: NaN and Infinity are no JSON, a JavaScript peer's JSON.parse throws.
            line = json.dumps(message, ensure_ascii=False, separators=(",", ":"), default=str,
                              allow_nan=False)
        except (ValueError, RecursionError) as exc:
            if "method" in message and "id" in message:  # our own request: its caller is told
                raise ProtocolError(f"{message['method']} is not writable as JSON: {exc}") from None
            if "result" not in message:  # a notification (or an error reply): nothing to answer
                _stderr(f"compat-adapter serve: a message could not be written as JSON: {exc}")
                return
            # A result that is no JSON (NaN, nested too deep): the peer gets an error instead.
            line = json.dumps({"id": message["id"], "error": _error_json(ProtocolError(
                f"the result is not writable as JSON: {exc}"))}, separators=(",", ":"))
        self._send.send_nowait(line.encode("utf-8") + b"\n")

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        """Send a notification now (synchronous: it is queued in order with everything else)."""
        self._put({"method": method, "params": dict(params or {})})

    async def request(self, method: str, params: Mapping[str, Any] | None = None, *,
                      timeout_s: float | None = None) -> Any:
        """Send a request and wait for its reply.

        :raises ProtocolError: the peer replied with an error (its code is ``context["remote_code"]``),
            the channel closed first, or ``timeout_s`` passed.
        """
        if self.closed.is_set() or self._input_ended:
            raise ProtocolError(f"the channel to {self.name} is closed ({self.end_reason or 'end of input'})")
        self._ids += 1
        rid = self._ids
        pending = self._pending[rid] = _Pending(anyio.Event())
        try:
            self._put({"id": rid, "method": method, "params": dict(params or {})})
            with anyio.fail_after(timeout_s) if timeout_s else nullcontext():
                await pending.done.wait()
        except TimeoutError:
            raise ProtocolError(f"{self.name} did not answer {method} within {timeout_s} s",
                                method=method) from None
        finally:
            self._pending.pop(rid, None)
        reply = pending.reply
        if reply is None:
            raise ProtocolError(f"the channel to {self.name} closed before it answered {method} "
                                f"({self.end_reason})", method=method)
        if "error" in reply:
            error = reply["error"] if isinstance(reply["error"], Mapping) else {}
            # The peer's own code is kept as context; the error raised here is ours.
            raise ProtocolError(str(error.get("message", "error")), method=method,
                                remote_code=str(error.get("code", "UNKNOWN")))
        return reply.get("result")

    # ── running ──
    async def run(self) -> None:
        """Read until end of input, dispatching each message; returns when the peer is gone or
        :meth:`finish` was called and everything queued has been written."""
        async with anyio.create_task_group() as tg:
            self._tg = tg

            async def read() -> None:
                try:
                    await self._reader(tg)
                    self._end_input()
                    # What was read is answered before the channel ends.
                    await self._until_answered(0)
                finally:
                    self.finish(self.end_reason or "eof")

            async def write() -> None:
                await self._writer()
                # Everything queued is out: nothing more will be read or answered.
                tg.cancel_scope.cancel()

            tg.start_soon(write)
            tg.start_soon(read)
        self._tg = None

    def _end_input(self) -> None:
        """No more input: our own requests can never be answered now, so they fail at once."""
        self._input_ended = True
        for pending in self._pending.values():
            pending.done.set()

    async def _until_answered(self, others: int) -> None:
        """Wait until at most ``others`` requests are still being answered."""
        while self._answering > others:
            await self._answers_changed.wait()

    def _answer_done(self) -> None:
        self._answering -= 1
        self._answers_changed.set()
        self._answers_changed = anyio.Event()

    def finish(self, reason: str = "closed") -> None:
        """End the channel: pending requests fail now, queued messages are still written, then
        reading stops and handlers still running are cancelled."""
        if self.end_reason is None:
            self.end_reason = reason
        if self.closed.is_set():
            return
        self.closed.set()
        for pending in self._pending.values():
            pending.done.set()
        self._out_closed = True
        self._send.close()

    async def _writer(self) -> None:
        async with self._outbox:
            async for data in self._outbox:
                try:
                    await self._write(data)
                except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                    self.finish("the peer stopped reading")
                    return

    async def _reader(self, tg: TaskGroup) -> None:
        while True:
            try:
                line = await self._read_line()
            except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
                self.end_reason = f"read failed: {exc}"
                return
            except CompatError as exc:  # a line the transport refused (too long): answered, skipped
                self._put({"id": None, "error": _error_json(exc)})
                continue
            if not line:
                self.end_reason = "eof"
                return
            if not line.strip():
                continue
            self._handle(line, tg)

    def _handle(self, line: bytes, tg: TaskGroup) -> None:
        try:
            message = loads_json(line, where="a serve line")
        except CompatError as exc:  # nested too deep: refused, answered to its id when it has one
            self._put({"id": _shallow_id(line), "error": _error_json(exc)})
            return
        except (ValueError, UnicodeDecodeError) as exc:
            self._protocol_error(None, f"the line is not JSON: {exc}")
            return
        if not isinstance(message, dict):
            self._protocol_error(None, "a message is a JSON object")
            return
        mid = message.get("id")
        if mid is not None and not _valid_id(mid):
            self._protocol_error(None, "an id is a string, or a finite number (integers within ±2**53)")
            return
        method = message.get("method")
        if method is None:
            if "result" in message or "error" in message:
                pending = self._pending.get(mid) if isinstance(mid, int) else None
                if pending is not None:
                    pending.reply = message
                    pending.done.set()
                # A reply nobody waits for (timed out, or never asked) is dropped.
                return
            self._protocol_error(mid, "a message has a method, or a result or error")
            return
        if not isinstance(method, str):
            self._protocol_error(mid, "method is a string")
            return
        params = message.get("params", {})
        if not isinstance(params, dict):
            self._protocol_error(mid, "params is a JSON object")
            return
        if mid is None:
            handler = self._notifications.get(method)
            if handler is not None:
                try:
                    handler(params)
                except Exception as exc:  # noqa: BLE001 - a bad notification never ends the service
                    _stderr(f"compat-adapter serve: notification {method} failed: {exc!r}")
            return
        self._answering += 1
        tg.start_soon(self._answer, mid, method, params)

    def _protocol_error(self, mid: Any, text: str) -> None:
        self._put({"id": mid, "error": _error_json(ProtocolError(text))})

    async def _answer(self, mid: Any, method: str, params: dict[str, Any]) -> None:
        try:
            await self._answer_one(mid, method, params)
        finally:
            self._answer_done()

    async def _answer_one(self, mid: Any, method: str, params: dict[str, Any]) -> None:
        handler = self._requests.get(method)
        if handler is None:
            self._protocol_error(mid, f"unknown method {method!r}")
            return
        if method in self._last:
            # The requests accepted before this one are answered first (a dispose waits for the
            # dispatches it follows).
            await self._until_answered(1)
        try:
            result = await handler(params)
        except CompatError as exc:
            self._put({"id": mid, "error": _error_json(exc)})
            return
        except Exception as exc:  # noqa: BLE001 - the peer gets the failure, the service goes on
            self._put({"id": mid, "error": {"code": "COMPAT_ERROR",
                                            "message": f"{type(exc).__name__}: {exc}"}})
            return
        self._put({"id": mid, "result": result})
        if method in self._last:
            self.finish(f"{method} requested")


def _shallow_id(line: bytes) -> Any:
    """The id of a request too deep to take, read without recursion (so a peer waiting on it
    hears at once instead of timing out); None when it has no usable one or is no request."""
    try:
        message = js_read(line.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(message, dict) or "method" not in message:
        return None
    mid = message.get("id")
    return mid if mid is not None and _valid_id(mid) else None


def _valid_id(mid: object) -> bool:
    """A string, or a number a JavaScript peer parses back to the same value."""
    if isinstance(mid, bool):
        return False
    if isinstance(mid, str):
        return True
    if isinstance(mid, int):
        return abs(mid) <= _SAFE_INTEGER
    return isinstance(mid, float) and math.isfinite(mid)


def _error_json(exc: CompatError) -> dict[str, Any]:
    return exc.to_json()


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def stdio_lines() -> tuple[Callable[[], Awaitable[bytes]], Callable[[bytes], Awaitable[None]]]:
    """Line reader and writer over this process's stdin and stdout.

    Lines are read by a daemon thread: a read blocked on a silent peer must never keep the process
    alive once the service is done.
    """
    in_fd = sys.stdin.fileno()
    out_fd = sys.stdout.fileno()
    send, receive = anyio.create_memory_object_stream[bytes](16)
    started = False

    def pump(token: Any) -> None:
        # Raw reads on the descriptor: a buffered stdin object would hold its lock while blocked,
        # and interpreter shutdown aborts on a daemon thread holding that lock. Only the new chunk
        # is searched for newlines, and an over-long line is dropped as it arrives (never held
        # whole): one marker goes on in its place, and reading resumes after its newline.
        pending = bytearray()
        skipping = False
        while True:
            try:
                chunk = os.read(in_fd, 65536)
            except OSError:
                chunk = b""
            out: list[bytes] = []
            start = 0
            while True:
                end = chunk.find(b"\n", start)
                if end < 0:
                    break
                if skipping:
                    skipping = False
                elif len(pending) + end + 1 - start > MAX_LINE + 1:
                    out.append(_TOO_LONG)
                else:
                    out.append(bytes(pending) + chunk[start:end + 1])
                pending.clear()
                start = end + 1
            if not skipping:
                pending += chunk[start:]
                if len(pending) > MAX_LINE:
                    out.append(_TOO_LONG)
                    pending.clear()
                    skipping = True
            if not chunk:
                if pending:
                    out.append(bytes(pending) + b"\n")
                out.append(b"")
            try:
                for line in out:
                    anyio.from_thread.run(send.send, line, token=token)
            except Exception:  # noqa: BLE001 - the loop is gone: nobody reads any more
                return
            if not chunk:
                return

    async def read_line() -> bytes:
        nonlocal started
        if not started:
            started = True
            threading.Thread(target=pump, args=(anyio.lowlevel.current_token(),),
                             name="compat-adapter-stdin", daemon=True).start()
        try:
            line = await receive.receive()
        except anyio.EndOfStream:
            return b""
        if line is _TOO_LONG or (line and not line.endswith(b"\n")):
            raise InputTooLarge(f"a line is longer than {MAX_LINE} bytes; it was skipped",
                                limit=MAX_LINE)
        return line

    async def write(data: bytes) -> None:
        view = memoryview(data)
        while view:
            # In a thread: a peer slow to read must not stall the event loop (and so our reads).
            written = await anyio.to_thread.run_sync(os.write, out_fd, view)
            view = view[written:]

    return read_line, write


def version() -> str:
    """The installed compat-adapter version, as said in ``hello`` (``0.0.0`` in a source checkout
    without package metadata)."""
    try:
        return package_version("compat-adapter")
    except Exception:  # noqa: BLE001 - a source checkout without metadata
        return "0.0.0"
