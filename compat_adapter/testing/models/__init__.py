"""Scripted model servers, one per wire API, loopback only.

Each server answers a fixed list of model turns (text and tool calls) in order and logs every
request it receives, so that a test can read back byte for byte what a client (a real vendor CLI,
or a prompt/agent hook) sent the model. A request that offers no tools (a title or a router side
request) does not consume a turn: it gets a short fixed text.
"""

import itertools
from collections.abc import Iterator

from compat_adapter.testing.models.base import (
    ModelCall,
    ModelServer,
    ModelTurn,
    RequestRecord,
    numbered,
    turns_from_json,
)

__all__ = ("ModelCall", "ModelServer", "ModelTurn", "RequestRecord", "call_ids", "serve_model", "turns_from_json")


def _server_of(api: str) -> type[ModelServer]:
    from compat_adapter.testing.models.anthropic import AnthropicServer
    from compat_adapter.testing.models.chat import ChatServer
    from compat_adapter.testing.models.generate_content import GenerateContentServer
    from compat_adapter.testing.models.responses import ResponsesServer

    kinds: dict[str, type[ModelServer]] = {"anthropic": AnthropicServer, "responses": ResponsesServer,
                                           "chat": ChatServer, "generate-content": GenerateContentServer}
    if api not in kinds:
        raise ValueError(f"unknown wire API {api!r}; one of {sorted(kinds)}")
    return kinds[api]


def serve_model(api: str, turns: object, **options: object) -> ModelServer:
    """A started server for ``api`` (``anthropic``, ``responses``, ``chat`` or ``generate-content``)."""
    server = _server_of(api)(turns_from_json(turns), **options)  # type: ignore[arg-type]
    server.start()
    return server


def call_ids(api: str) -> Iterator[str] | None:
    """The ids the scripted model of ``api`` gives its tool calls, in order (``call_0001`` …), so
    that a scripted host can name its calls as the model did; None where the API names none."""
    prefix = _server_of(api).call_prefix
    return None if prefix is None else (numbered(prefix, n) for n in itertools.count(1))
