"""What the three scripted model servers share: the turn script, the request log, the HTTP plumbing.

The servers run on a thread (``http.server``) so that a test, a driver or a subprocess wrapper can
start one next to a real CLI without an event loop. They bind loopback only; anything else is
refused at construction.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

__all__ = ("EXHAUSTED_TEXT", "SIDE_TEXT", "ModelCall", "ModelServer", "ModelTurn", "RequestRecord", "Response",
           "numbered", "turns_from_json")

#: What the model says once its turns are used up, and to requests that offer no tools.
EXHAUSTED_TEXT = "(script exhausted)"
SIDE_TEXT = "ok"

LOOPBACK = ("127.0.0.1", "::1", "localhost")


@dataclass(frozen=True, slots=True)
class ModelCall:
    """One tool call: the tool's name as the client offered it and its JSON arguments."""

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ModelTurn:
    """One model answer: text, tool calls, or both (no calls: the model stops); or, with
    ``error``, a request the API refuses with that message (a server that speaks errors answers so)."""

    text: str | None = None
    calls: tuple[ModelCall, ...] = ()
    error: str | None = None
    #: Seconds the model takes before it answers (a real model's latency; the script's default is none).
    delay: float = 0.0


def turns_from_json(data: object) -> tuple[ModelTurn, ...]:
    """``[{"text": …, "calls": [{"name", "arguments"}]}, "bare text", …]`` → turns."""
    if isinstance(data, tuple) and all(isinstance(t, ModelTurn) for t in data):
        return data
    if not isinstance(data, list | tuple):
        raise ValueError("model turns are a list")
    out = []
    for item in data:
        if isinstance(item, ModelTurn):
            out.append(item)
        elif isinstance(item, str):
            out.append(ModelTurn(text=item))
        elif isinstance(item, Mapping):
            calls = tuple(ModelCall(str(c["name"]), dict(c.get("arguments", {}))) for c in item.get("calls", ()))
            out.append(ModelTurn(item.get("text"), calls, delay=float(item.get("delay", 0.0))))
        else:
            raise ValueError(f"not a model turn: {item!r}")
    return tuple(out)


@dataclass(frozen=True, slots=True)
class RequestRecord:
    """One logged request. ``step`` is the 1-based turn it consumed (0: a side request)."""

    index: int
    method: str
    path: str
    body: Any
    step: int
    at: float

    def as_json(self) -> dict[str, Any]:
        return {"i": self.index, "method": self.method, "path": self.path, "step": self.step, "at": self.at,
                "body": self.body}


@dataclass(slots=True)
class Response:
    """What a wire API answers: a JSON body, or a stream of server-sent-event chunks."""

    status: int = 200
    body: Any = None
    stream: Iterable[bytes] | None = None
    content_type: str = "application/json"


def numbered(prefix: str, n: int) -> str:
    """The ``n``-th id of a kind a scripted model gives (``call_0001``)."""
    return f"{prefix}{n:04d}"


class ModelServer:
    """A scripted model on ``http://127.0.0.1:<port>``; subclasses speak one wire API."""

    api = "base"
    #: What the ids of the model's tool calls start with (``<prefix>0001``, one counter per run);
    #: None where the wire API names no call (the client numbers them).
    call_prefix: str | None = None

    def __init__(self, turns: Iterable[ModelTurn], *, host: str = "127.0.0.1", port: int = 0,
                 log_path: Path | None = None, side_markers: Iterable[str] = ()) -> None:
        if host not in LOOPBACK:
            raise ValueError(f"a scripted model binds loopback only, not {host!r}")
        self.turns = tuple(turns)
        #: Texts that mark a request the client makes for itself although it offers tools (an
        #: auxiliary agent of the CLI's own): such a request is a side request, by its content.
        self.side_markers = tuple(m for m in side_markers if m)
        self.requests: list[RequestRecord] = []
        #: The key each request carried (``Authorization: Bearer …`` or ``x-api-key``), in order.
        self.keys: list[str] = []
        self.log_path = log_path
        self._lock = threading.Lock()
        self._next = 0
        self._ids: dict[str, itertools.count[int]] = {}
        self._httpd = ThreadingHTTPServer((host, port), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # ── life cycle ──────────────────────────────────────────────────────────────────────────────
    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ModelServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), name=f"model-{self.api}",
                                        daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ModelServer:
        return self.start() if self._thread is None else self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ── the script ──────────────────────────────────────────────────────────────────────────────
    def load(self, turns: Iterable[ModelTurn]) -> None:
        """Answer the next main requests from ``turns``, from the first (a runtime that stays up
        across sessions gets each session's script this way; the request log is kept)."""
        with self._lock:
            self.turns = tuple(turns)
            self._next = 0

    def next_id(self, prefix: str) -> str:
        counter = self._ids.setdefault(prefix, itertools.count(1))
        return numbered(prefix, next(counter))

    def record(self, method: str, path: str, body: Any, main: bool) -> tuple[int, ModelTurn]:
        """Log a request; a main request (one offering tools) takes the next turn, unless its
        content carries one of the side markers."""
        if main and self.side_markers:
            text = json.dumps(body, ensure_ascii=False) if not isinstance(body, str) else body
            main = not any(m in text for m in self.side_markers)
        with self._lock:
            if main:
                step = self._next + 1
                turn = self.turns[self._next] if self._next < len(self.turns) else ModelTurn(EXHAUSTED_TEXT)
                self._next += 1
            else:
                step, turn = 0, ModelTurn(SIDE_TEXT)
            rec = RequestRecord(len(self.requests), method, path, body, step, time.time())
            self.requests.append(rec)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(rec.as_json()) + "\n")
        if turn.delay:
            time.sleep(turn.delay)  # this request's thread only: the server answers others meanwhile
        return step, turn

    @property
    def main_requests(self) -> list[RequestRecord]:
        return [r for r in self.requests if r.step]

    # ── the wire API (subclasses) ───────────────────────────────────────────────────────────────
    def handle(self, method: str, path: str, body: Any) -> Response:
        raise NotImplementedError


def sse(events: Iterable[tuple[str | None, Any]]) -> Iterator[bytes]:
    """Server-sent events; an event name of ``None`` writes a bare ``data:`` line."""
    for name, data in events:
        payload = data if isinstance(data, str) else json.dumps(data)
        head = f"event: {name}\n" if name else ""
        yield f"{head}data: {payload}\n\n".encode()


def _handler_for(server: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
            pass  # every request is in the server's own log

        def _body(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if not raw:
                return None
            try:
                return json.loads(raw)
            except ValueError:
                return raw.decode("utf-8", "replace")

        def _answer(self, method: str) -> None:
            bearer = self.headers.get("Authorization") or ""
            server.keys.append(bearer.removeprefix("Bearer ") or self.headers.get("x-api-key") or "")
            try:
                response = server.handle(method, self.path, self._body())
            except Exception as exc:  # a bug in a scripted server must show, not hang the client
                response = Response(500, {"error": {"message": f"scripted model failed: {exc!r}"}})
            self.send_response(response.status)
            if response.stream is None:
                data = json.dumps(response.body).encode()
                self.send_header("Content-Type", response.content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for chunk in response.stream:
                self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")

        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            self._answer("POST")

        def do_GET(self) -> None:  # noqa: N802
            self._answer("GET")

    return Handler
