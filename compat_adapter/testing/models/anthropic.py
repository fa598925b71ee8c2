"""The Anthropic Messages API, scripted: ``POST /v1/messages`` with and without streaming."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from compat_adapter.testing.models.base import ModelServer, ModelTurn, Response, sse

__all__ = ("AnthropicServer",)

MODEL = "claude-opus-5-5"
#: The ids of its tool calls: ``toolu_0001`` on.
CALL_PREFIX = "toolu_"


class AnthropicServer(ModelServer):
    api = "anthropic"
    call_prefix = CALL_PREFIX

    def handle(self, method: str, path: str, body: Any) -> Response:
        route = path.split("?", 1)[0]
        if method == "GET" and route.startswith("/v1/models"):
            return Response(body={"data": [{"type": "model", "id": MODEL, "display_name": "Mock"}],
                                  "has_more": False})
        if route.endswith("/count_tokens"):
            self.record(method, path, body, main=False)
            return Response(body={"input_tokens": 10})
        if route != "/v1/messages" or not isinstance(body, dict):
            self.record(method, path, body, main=False)
            return Response(404, {"type": "error", "error": {"type": "not_found_error", "message": path}})
        _, turn = self.record(method, path, body, main=bool(body.get("tools")))
        if turn.error is not None:
            # A request the API refuses (not overloaded: a client retries those, and never this).
            return Response(400, {"type": "error", "error": {"type": "invalid_request_error", "message": turn.error}})
        model = str(body.get("model") or MODEL)
        blocks = self._blocks(turn)
        stop = "tool_use" if turn.calls else "end_turn"
        if body.get("stream"):
            return Response(stream=self._stream(model, blocks, stop))
        return Response(body={"id": self.next_id("msg_"), "type": "message", "role": "assistant", "model": model,
                              "content": blocks, "stop_reason": stop, "stop_sequence": None,
                              "usage": {"input_tokens": 20, "output_tokens": 10}})

    def _blocks(self, turn: ModelTurn) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = []
        if turn.text is not None:
            blocks.append({"type": "text", "text": turn.text})
        for c in turn.calls:
            blocks.append({"type": "tool_use", "id": self.next_id(CALL_PREFIX), "name": c.name,
                           "input": dict(c.arguments)})
        return blocks

    def _stream(self, model: str, blocks: list[dict[str, Any]], stop: str) -> Iterator[bytes]:
        events: list[tuple[str | None, Any]] = [("message_start", {"type": "message_start", "message": {
            "id": self.next_id("msg_"), "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 20, "output_tokens": 1}}})]
        for i, block in enumerate(blocks):
            start: dict[str, Any]
            delta: dict[str, Any]
            if block["type"] == "text":
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            else:
                start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            events += [("content_block_start", {"type": "content_block_start", "index": i, "content_block": start}),
                       ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}),
                       ("content_block_stop", {"type": "content_block_stop", "index": i})]
        events += [("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                      "usage": {"output_tokens": 10}}),
                   ("message_stop", {"type": "message_stop"})]
        return sse(events)
