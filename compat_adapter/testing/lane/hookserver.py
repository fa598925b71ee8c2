"""A case's own web server for its ``http`` hooks, the same on both sides of the lane.

A scenario that names ``http_server`` in its options (``{"port": …, "answer": …}``) gets one: inside
the vendor's sandbox (its own network namespace, where every port is free) and beside the embedded
host on this machine's loopback, for the run of that case only. It answers every POST with the
case's JSON ``answer`` (200), and counts what reached it, so that a vendor which refuses the URL
before connecting is seen to have sent nothing.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

__all__ = ("serve_hooks",)


@contextmanager
def serve_hooks(spec: Mapping[str, Any], log_path: Path | None = None) -> Iterator[list[dict[str, Any]]]:
    """Serve ``spec["answer"]`` on ``127.0.0.1:spec["port"]`` until the block ends; yields the
    list of requests received (path and body), which is also written to `log_path` as JSON lines."""
    received: list[dict[str, Any]] = []
    answer = json.dumps(spec["answer"]).encode()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the http.server protocol
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            entry = {"path": self.path, "body": body.decode("utf-8", "replace")}
            with lock:
                received.append(entry)
                if log_path is not None:
                    with log_path.open("a") as f:
                        f.write(json.dumps(entry) + "\n")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
            pass  # what came is in `received`

    server = ThreadingHTTPServer(("127.0.0.1", int(spec["port"])), Handler)
    thread = threading.Thread(target=server.serve_forever, name="lane-hook-server", daemon=True)
    thread.start()
    try:
        yield received
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
