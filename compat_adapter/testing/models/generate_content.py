"""Google's Gemini API, scripted: ``POST …/models/<model>:generateContent`` and
``:streamGenerateContent`` (server-sent events with ``?alt=sse``), plus ``:countTokens``.

A request that offers tools (``tools[].functionDeclarations``) is a main request and takes the next
turn. A side request that asks for JSON (``generationConfig.responseJsonSchema`` or
``responseSchema``: Gemini CLI's model router and its next-speaker check) gets an object built from
the schema, each enum answered with its first value, so that the client's parser accepts it and
the side request costs no turn; any other side request gets the fixed side text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from compat_adapter.testing.models.base import SIDE_TEXT, ModelServer, ModelTurn, Response, sse

__all__ = ("GenerateContentServer", "from_schema")

USAGE = {"promptTokenCount": 20, "candidatesTokenCount": 10, "totalTokenCount": 30}


def from_schema(schema: Any) -> Any:
    """A value that validates against a JSON schema (or the Gemini API's OpenAPI-style schema, whose
    types are upper case): the first enum value, a minimal object with every property, an empty list, a number's minimum."""
    if not isinstance(schema, Mapping):
        return SIDE_TEXT
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return from_schema(schema[key][0])
    kind = str(schema.get("type") or ("object" if "properties" in schema else "string")).lower()
    if kind == "object":
        props = schema.get("properties") or {}
        return {name: from_schema(sub) for name, sub in props.items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    return SIDE_TEXT


class GenerateContentServer(ModelServer):
    api = "generate-content"

    def handle(self, method: str, path: str, body: Any) -> Response:
        route = path.split("?", 1)[0]
        action = route.rsplit(":", 1)[-1] if ":" in route else ""
        if action == "countTokens":
            self.record(method, path, body, main=False)
            return Response(body={"totalTokens": 10})
        if action not in ("generateContent", "streamGenerateContent") or not isinstance(body, dict):
            self.record(method, path, body, main=False)
            return Response(404, {"error": {"code": 404, "message": f"no route {path}", "status": "NOT_FOUND"}})
        main = any(isinstance(t, Mapping) and t.get("functionDeclarations") for t in body.get("tools") or ())
        _, turn = self.record(method, path, body, main=main)
        config = body.get("generationConfig") or {}
        schema = config.get("responseJsonSchema") or config.get("responseSchema")
        if not main and schema is not None:
            turn = ModelTurn(text=json.dumps(from_schema(schema)))
        answer = {"candidates": [{"content": {"role": "model", "parts": self._parts(turn)},
                                  "finishReason": "STOP", "index": 0}],
                  "usageMetadata": USAGE, "modelVersion": route.rsplit("/", 1)[-1].split(":", 1)[0],
                  "responseId": self.next_id("resp-")}
        if action == "generateContent":
            return Response(body=answer)
        # One chunk holds the whole answer: the client joins chunks, so one is the simplest stream.
        return Response(stream=sse([(None, answer)]))

    @staticmethod
    def _parts(turn: ModelTurn) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        if turn.text is not None:
            parts.append({"text": turn.text})
        parts += [{"functionCall": {"name": c.name, "args": dict(c.arguments)}} for c in turn.calls]
        return parts
