"""The OpenAI Chat Completions API, scripted: ``POST …/chat/completions``, streamed or not."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from compat_adapter.testing.models.base import ModelServer, Response, sse

__all__ = ("ChatServer",)

MODEL = "mock-model"
#: The ids of its tool calls: ``call_0001`` on.
CALL_PREFIX = "call_"


class ChatServer(ModelServer):
    api = "chat"
    call_prefix = CALL_PREFIX

    def handle(self, method: str, path: str, body: Any) -> Response:
        route = path.split("?", 1)[0]
        if method == "GET" and route.endswith("/models"):
            return Response(body={"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "mock"}]})
        if not route.endswith("/chat/completions") or not isinstance(body, dict):
            self.record(method, path, body, main=False)
            return Response(404, {"error": {"message": f"no route {path}", "type": "not_found"}})
        _, turn = self.record(method, path, body, main=bool(body.get("tools")))
        model = str(body.get("model") or MODEL)
        calls = [{"id": self.next_id(CALL_PREFIX), "type": "function",
                  "function": {"name": c.name, "arguments": json.dumps(dict(c.arguments))}} for c in turn.calls]
        finish = "tool_calls" if calls else "stop"
        rid = self.next_id("chatcmpl-")
        usage = {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30}
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": turn.text}
            if calls:
                message["tool_calls"] = calls
            return Response(body={"id": rid, "object": "chat.completion", "created": int(time.time()),
                                  "model": model, "usage": usage,
                                  "choices": [{"index": 0, "message": message, "finish_reason": finish}]})
        return Response(stream=self._stream(rid, model, turn.text, calls, finish, usage,
                                            bool((body.get("stream_options") or {}).get("include_usage"))))

    @staticmethod
    def _stream(rid: str, model: str, text: str | None, calls: list[dict[str, Any]], finish: str,
                usage: dict[str, int], with_usage: bool) -> Iterator[bytes]:
        created = int(time.time())

        def chunk(delta: dict[str, Any], reason: str | None = None, **extra: Any) -> tuple[None, Any]:
            return None, {"id": rid, "object": "chat.completion.chunk", "created": created, "model": model,
                          "choices": [{"index": 0, "delta": delta, "finish_reason": reason}], **extra}

        events = [chunk({"role": "assistant", "content": ""})]
        if text:
            events.append(chunk({"content": text}))
        for i, c in enumerate(calls):
            events.append(chunk({"tool_calls": [{"index": i, **c}]}))
        events.append(chunk({}, finish))
        if with_usage:
            events.append((None, {"id": rid, "object": "chat.completion.chunk", "created": created, "model": model,
                                  "choices": [], "usage": usage}))
        events.append((None, "[DONE]"))
        return sse(events)
