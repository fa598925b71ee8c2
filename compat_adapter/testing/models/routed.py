"""An Anthropic-shaped scripted model that answers each conversation from its own script.

DeepSeek Harness 0.2.1 runs a subagent beside its parent (its ``subagent`` tool returns at once
and the child's answer arrives later as a message), so the parent's and the child's requests
interleave in no fixed order. Each child conversation is known by its task: the first text of its
first user message is the ``prompt`` the parent's call gave. A request whose conversation opens
with a routed prompt (or, for a one-off call such as a prompt hook's question, begins with it)
takes that prompt's next turn; every other request takes the main script's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from compat_adapter.testing.models.anthropic import AnthropicServer
from compat_adapter.testing.models.base import EXHAUSTED_TEXT, ModelTurn

__all__ = ("RoutedAnthropicServer", "first_user_text")


def first_user_text(body: Any) -> str | None:
    """The first text block of the request's first user message (the conversation's task)."""
    messages = body.get("messages") if isinstance(body, Mapping) else None
    for message in messages or ():
        if not isinstance(message, Mapping) or message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        for block in content or ():
            if isinstance(block, Mapping) and block.get("type") == "text":
                return str(block.get("text", ""))
        return None
    return None


class RoutedAnthropicServer(AnthropicServer):
    """:class:`AnthropicServer` with per-conversation scripts (see the module's docstring)."""

    def __init__(self, turns: Iterable[ModelTurn], **options: Any) -> None:
        super().__init__(turns, **options)
        self._routes: dict[str, list[ModelTurn]] = {}

    def route(self, routes: Mapping[str, Iterable[ModelTurn]], *, add: bool = False) -> None:
        """Answer the conversations whose task is one of ``routes``' prompts from its turns
        (``add``: beside the routes already set)."""
        with self._lock:
            fresh = {prompt: list(turns) for prompt, turns in routes.items()}
            self._routes = {**self._routes, **fresh} if add else fresh

    def record(self, method: str, path: str, body: Any, main: bool) -> tuple[int, ModelTurn]:
        task = first_user_text(body)
        turn: ModelTurn | None = None
        with self._lock:
            routed = None
            if task is not None:
                routed = self._routes.get(task)
                if routed is None:
                    routed = next((t for p, t in self._routes.items() if task.startswith(p)), None)
            if routed is not None:
                turn = routed.pop(0) if routed else ModelTurn(EXHAUSTED_TEXT)
        if turn is None:
            return super().record(method, path, body, main)
        # Logged beside the main script's requests (step 0), answered with its route's turn.
        super().record(method, path, body, False)
        return 0, turn
