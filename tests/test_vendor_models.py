"""The scripted model servers: each wire API answers its turns in order, streams the way its
clients read it, logs every request, and binds loopback only."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from compat_adapter.testing.models import ModelServer, call_ids, serve_model
from compat_adapter.testing.models.base import EXHAUSTED_TEXT, SIDE_TEXT

TURNS = [{"calls": [{"name": "bash", "arguments": {"command": "ls"}}]}, {"text": "done"}]


def post(server: ModelServer, path: str, body: dict[str, Any]) -> tuple[str, bytes]:
    req = urllib.request.Request(server.base_url + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.headers.get("Content-Type", ""), resp.read()


def sse_data(raw: bytes) -> list[tuple[str | None, Any]]:
    out = []
    for block in raw.decode().split("\n\n"):
        if not block.strip():
            continue
        name, data = None, None
        for line in block.splitlines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data = line[6:]
        assert data is not None, block
        out.append((name, data if data == "[DONE]" else json.loads(data)))
    return out


def test_anthropic_streams_a_tool_use_then_text_and_logs(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    with serve_model("anthropic", TURNS, log_path=log) as server:
        kind, raw = post(server, "/v1/messages?beta=true", {"stream": True, "tools": [{"name": "Bash"}],
                                                             "messages": [{"role": "user", "content": "hi"}]})
        events = sse_data(raw)
        assert kind == "text/event-stream"
        names = [n for n, _ in events]
        assert names[0] == "message_start" and names[-1] == "message_stop"
        start = next(d for n, d in events if n == "content_block_start")["content_block"]
        assert start == {"type": "tool_use", "id": "toolu_0001", "name": "bash", "input": {}}
        delta = next(d for n, d in events if n == "content_block_delta")["delta"]
        assert json.loads(delta["partial_json"]) == {"command": "ls"}
        stop = next(d for n, d in events if n == "message_delta")["delta"]["stop_reason"]
        assert stop == "tool_use"
        # A request without tools (a title request) does not take a turn.
        _, side = post(server, "/v1/messages", {"messages": []})
        assert json.loads(side)["content"] == [{"type": "text", "text": SIDE_TEXT}]
        _, second = post(server, "/v1/messages", {"tools": [{}], "messages": []})
        assert json.loads(second)["content"] == [{"type": "text", "text": "done"}]
        assert json.loads(second)["stop_reason"] == "end_turn"
        _, third = post(server, "/v1/messages", {"tools": [{}], "messages": []})
        assert json.loads(third)["content"][0]["text"] == EXHAUSTED_TEXT
    steps = [json.loads(line)["step"] for line in log.read_text().splitlines()]
    assert steps == [1, 0, 2, 3]
    assert [r.step for r in server.main_requests] == [1, 2, 3]


def test_responses_streams_items_the_way_codex_reads_them() -> None:
    with serve_model("responses", TURNS) as server:
        _, raw = post(server, "/v1/responses", {"stream": True, "tools": [{}], "input": []})
        events = sse_data(raw)
        assert [n for n, _ in events] == ["response.created", "response.output_item.added",
                                          "response.output_item.done", "response.completed"]
        item = events[2][1]["item"]
        assert item["type"] == "function_call" and item["name"] == "bash" and item["call_id"] == "call_0001"
        assert json.loads(item["arguments"]) == {"command": "ls"}
        assert events[-1][1]["response"]["output"] == [item]
        _, raw = post(server, "/v1/responses", {"stream": True, "tools": [{}], "input": []})
        deltas = [d["delta"] for n, d in sse_data(raw) if n == "response.output_text.delta"]
        assert deltas == ["done"]


def test_chat_streams_tool_calls_and_usage_then_done() -> None:
    with serve_model("chat", TURNS) as server:
        _, raw = post(server, "/v1/chat/completions", {"stream": True, "stream_options": {"include_usage": True},
                                                        "tools": [{}], "messages": []})
        events = sse_data(raw)
        assert events[-1] == (None, "[DONE]")
        chunks = [d for _, d in events[:-1]]
        call = next(c for c in chunks if c["choices"] and "tool_calls" in c["choices"][0]["delta"])
        assert call["choices"][0]["delta"]["tool_calls"][0]["function"] == {"name": "bash",
                                                                             "arguments": '{"command": "ls"}'}
        assert [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]][-1] == "tool_calls"
        assert chunks[-1]["usage"]["total_tokens"] == 30
        _, plain = post(server, "/v1/chat/completions", {"tools": [{}], "messages": []})
        body = json.loads(plain)
        assert body["choices"][0]["message"] == {"role": "assistant", "content": "done"}


@pytest.mark.parametrize("api", ["chat", "anthropic", "responses"])
def test_call_ids_are_the_ids_the_scripted_model_gives_its_calls(api: str) -> None:
    # The lane's embedded side names its scripted calls with these, so that a vendor that names the
    # model's call to the model (Cline's hook_context) reads the same id on both sides.
    two = [{"calls": [{"name": "bash", "arguments": {"command": "a"}}]},
           {"calls": [{"name": "bash", "arguments": {"command": "b"}}]}]
    path = {"chat": "/v1/chat/completions", "anthropic": "/v1/messages", "responses": "/v1/responses"}[api]
    body: dict[str, Any] = {"tools": [{}], "messages": [], "input": [], "model": "m", "max_tokens": 10}
    with serve_model(api, two) as server:
        given = [json.dumps(json.loads(post(server, path, body)[1])) for _ in two]
    ids = call_ids(api)
    assert ids is not None
    for text, expected in zip(given, [next(ids), next(ids)], strict=True):
        assert f'"{expected}"' in text
    assert call_ids("generate-content") is None  # Gemini's API names no call: the client numbers them


def test_a_request_carrying_a_side_marker_takes_no_turn_though_it_offers_tools() -> None:
    """Qwen Code 0.24.4 sends its managed-memory extraction agent's request, with tools, after a
    text-only turn (vendor lane, qwen:text_only): known by its content, it is a side request."""
    marker = "You are now acting as the managed memory extraction subagent"
    with serve_model("chat", [{"text": "first"}, {"text": "second"}], side_markers=(marker,)) as server:
        _, one = post(server, "/v1/chat/completions", {"tools": [{}], "messages": [{"role": "user", "content": "hi"}]})
        aux = {"tools": [{}], "messages": [{"role": "system", "content": marker + " for an AI coding assistant."}]}
        _, side = post(server, "/v1/chat/completions", aux)
        _, two = post(server, "/v1/chat/completions", {"tools": [{}], "messages": [{"role": "user", "content": "go"}]})
    assert [json.loads(b)["choices"][0]["message"]["content"] for b in (one, side, two)] == ["first", SIDE_TEXT,
                                                                                             "second"]
    assert [r.step for r in server.requests] == [1, 0, 2] and len(server.main_requests) == 2


def test_unknown_route_is_a_404_and_logged() -> None:
    with serve_model("chat", []) as server:
        with pytest.raises(urllib.error.HTTPError) as err:
            post(server, "/v1/embeddings", {"input": "x"})
        assert err.value.code == 404
        err.value.close()
        assert [r.path for r in server.requests] == ["/v1/embeddings"]


def test_servers_bind_loopback_only() -> None:
    from compat_adapter.testing.models.chat import ChatServer

    with pytest.raises(ValueError, match="loopback"):
        ChatServer([], host="0.0.0.0")
    with pytest.raises(ValueError, match="unknown wire API"):
        serve_model("gemini", [])
