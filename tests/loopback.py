"""Real servers on loopback for the handler tests: an HTTP recorder and a scripted model server.

Both are :class:`http.server.ThreadingHTTPServer` instances on 127.0.0.1 with an ephemeral port,
run in a daemon thread, recording every request (path, headers, body) for the test to read back.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Reply:
    status: int = 200
    body: str = ""
    delay_s: float = 0.0


@dataclass
class LoopbackServer:
    url: str
    requests: list[Recorded] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)
    """Answers in order; the last one repeats."""


def _handler(state: LoopbackServer, answer: Any) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            record = Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            state.requests.append(record)
            reply = answer(state, record)
            if reply.delay_s:
                time.sleep(reply.delay_s)
            data = reply.body.encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


def _next(state: LoopbackServer, _: Recorded) -> Reply:
    index = min(len(state.requests) - 1, len(state.replies) - 1)
    return state.replies[index] if state.replies else Reply()


@contextmanager
def _serve(state: LoopbackServer, answer: Any) -> Iterator[LoopbackServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state, answer))
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def http_server(*replies: Reply) -> Iterator[LoopbackServer]:
    """A server answering POSTs with ``replies`` in order (the last one repeats)."""
    with _serve(LoopbackServer("", replies=list(replies)), _next) as state:
        yield state


def _model_answer(state: LoopbackServer, record: Recorded) -> Reply:
    reply = _next(state, record)
    if reply.status != 200:
        return reply
    if record.path.endswith("/v1/messages"):
        body = {"id": "msg_1", "type": "message", "role": "assistant", "model": "scripted",
                "content": [{"type": "text", "text": reply.body}], "stop_reason": "end_turn",
                "usage": {"input_tokens": 1, "output_tokens": 1}}
    elif record.path.endswith("/v1/chat/completions"):
        body = {"id": "chat_1", "object": "chat.completion", "model": "scripted",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": reply.body}}]}
    else:
        return Reply(404, '{"error": "no such endpoint"}')
    return Reply(200, json.dumps(body), reply.delay_s)


@contextmanager
def model_server(*texts: str) -> Iterator[LoopbackServer]:
    """A scripted model answering Anthropic Messages and OpenAI Chat Completions requests with
    ``texts`` in order (the last one repeats)."""
    with _serve(LoopbackServer("", replies=[Reply(body=t) for t in texts]), _model_answer) as state:
        yield state
