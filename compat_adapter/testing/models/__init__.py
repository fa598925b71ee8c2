"""Scripted model servers, one per wire API, loopback only.

Each server answers a fixed list of model turns (text and tool calls) in order and logs every
request it receives, so that a test can read back byte for byte what a client (a real vendor CLI,
or a prompt/agent hook) sent the model. A request that offers no tools (a title or a router side
request) does not consume a turn: it gets a short fixed text.
"""

from compat_adapter.testing.models.base import ModelCall, ModelServer, ModelTurn, RequestRecord, turns_from_json

__all__ = ("ModelCall", "ModelServer", "ModelTurn", "RequestRecord", "serve_model", "turns_from_json")


def serve_model(api: str, turns: object, **options: object) -> ModelServer:
    """A started server for ``api`` (``anthropic``, ``responses``, ``chat`` or ``generate-content``)."""
    from compat_adapter.testing.models.anthropic import AnthropicServer
    from compat_adapter.testing.models.chat import ChatServer
    from compat_adapter.testing.models.generate_content import GenerateContentServer
    from compat_adapter.testing.models.responses import ResponsesServer

    kinds: dict[str, type[ModelServer]] = {"anthropic": AnthropicServer, "responses": ResponsesServer,
                                           "chat": ChatServer, "generate-content": GenerateContentServer}
    if api not in kinds:
        raise ValueError(f"unknown wire API {api!r}; one of {sorted(kinds)}")
    server = kinds[api](turns_from_json(turns), **options)  # type: ignore[arg-type]
    server.start()
    return server
