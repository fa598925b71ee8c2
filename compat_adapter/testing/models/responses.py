"""The OpenAI Responses API, scripted: ``POST …/responses`` streamed the way Codex reads it
(``response.created``, one ``output_item.added``/``done`` pair per item, ``response.completed``)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from compat_adapter.testing.models.base import ModelServer, Response, sse

__all__ = ("ResponsesServer",)

MODEL = "mock-model"
#: The ids of its tool calls: ``call_0001`` on.
CALL_PREFIX = "call_"


class ResponsesServer(ModelServer):
    api = "responses"
    call_prefix = CALL_PREFIX

    def handle(self, method: str, path: str, body: Any) -> Response:
        route = path.split("?", 1)[0]
        if method == "GET" and route.endswith("/models"):
            return Response(body={"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "mock"}],
                                  "models": []})
        if not route.endswith("/responses") or not isinstance(body, dict):
            self.record(method, path, body, main=False)
            return Response(404, {"error": {"message": f"no route {path}", "type": "not_found"}})
        _, turn = self.record(method, path, body, main=bool(body.get("tools")))
        items: list[dict[str, Any]] = []
        if turn.text is not None:
            items.append({"type": "message", "id": self.next_id("msg_"), "role": "assistant", "status": "completed",
                          "content": [{"type": "output_text", "text": turn.text, "annotations": []}]})
        for c in turn.calls:
            items.append({"type": "function_call", "id": self.next_id("fc_"), "call_id": self.next_id(CALL_PREFIX),
                          "name": c.name, "arguments": json.dumps(dict(c.arguments)), "status": "completed"})
        response = {"id": self.next_id("resp_"), "object": "response", "created_at": int(time.time()),
                    "status": "completed", "model": str(body.get("model") or MODEL), "output": items,
                    "usage": {"input_tokens": 20, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 10,
                              "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 30}}
        if not body.get("stream"):
            return Response(body=response)
        return Response(stream=self._stream(response, items))

    @staticmethod
    def _stream(response: dict[str, Any], items: list[dict[str, Any]]) -> Iterator[bytes]:
        started = {**response, "status": "in_progress", "output": []}
        events: list[tuple[str | None, Any]] = [("response.created", {"type": "response.created",
                                                                      "response": started})]
        for i, item in enumerate(items):
            events.append(("response.output_item.added", {"type": "response.output_item.added", "output_index": i,
                                                          "item": item}))
            if item["type"] == "message":
                text = item["content"][0]["text"]
                events.append(("response.output_text.delta", {"type": "response.output_text.delta", "item_id":
                                                              item["id"], "output_index": i, "content_index": 0,
                                                              "delta": text}))
            events.append(("response.output_item.done", {"type": "response.output_item.done", "output_index": i,
                                                         "item": item}))
        events.append(("response.completed", {"type": "response.completed", "response": response}))
        return sse(events)
