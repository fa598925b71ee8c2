"""``prompt`` and ``agent`` hooks: the vendor's prompt answered by the host's model.

The prompt gets the hook input where it says ``$ARGUMENTS`` (appended when it does not), and the
model is asked to reply ``{"ok": true|false, "reason": "…"}`` as Claude asks it. ``ok: false`` is
then written in the event's own words for the dialect to read like a command's stdout: a deny on
PreToolUse, ``decision: "block"`` with the reason elsewhere (Stop keeps working, UserPromptSubmit
is blocked); PermissionRequest and PermissionDenied ignore it, as Claude does. A reply that is not
that JSON is a non-blocking error.

The model comes from the host (the optional ``complete`` part of the host contract). The embedded
host takes an endpoint from configuration (:class:`ModelEndpoint`): an Anthropic Messages or an
OpenAI Chat Completions server; the DSH host asks the composition's own model. An ``agent`` hook
here is one model call without tools.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeGuard

from compat_adapter.errors import CompatError
from compat_adapter.handlers.outcome import answered, failed, timed_out
from compat_adapter.host.protocol import ModelRequest
from compat_adapter.model import ModelHandler
from compat_adapter.runtime import callenv
from compat_adapter.runtime.outcome import ProcessOutcome

__all__ = ("ModelEndpoint", "ask_endpoint", "endpoint_from_env", "run_model_hook")

_SYSTEM = {
    "prompt": ("You check one event of a coding agent for a hook. Read the instructions and the event "
               "data, then answer with one JSON object and nothing else: "
               '{"ok": true} when the condition holds, or {"ok": false, "reason": "why"} when it does not.'),
    "agent": ("You verify one event of a coding agent for a hook, from the event data given. Answer "
              'with one JSON object and nothing else: {"ok": true} when it passes, or '
              '{"ok": false, "reason": "why"} when it does not.'),
}
_IGNORES_OK = frozenset({"PermissionRequest", "PermissionDenied"})


ModelApi = Literal["anthropic", "chat"]


def _is_api(value: str) -> TypeGuard[ModelApi]:
    return value in ("anthropic", "chat")


@dataclass(frozen=True, slots=True)
class ModelEndpoint:
    """A model server the embedded host asks: Anthropic Messages or OpenAI Chat Completions."""

    api: ModelApi
    base_url: str
    model: str
    api_key_env: str | None = None
    """The variable holding the key (read when asking, never stored)."""


def endpoint_from_env(environ: Mapping[str, str] = os.environ) -> ModelEndpoint | None:
    """``COMPAT_ADAPTER_MODEL_URL``, ``_MODEL_API`` (anthropic | chat) and ``_MODEL_NAME``, or None."""
    url = environ.get("COMPAT_ADAPTER_MODEL_URL")
    if not url:
        return None
    api = environ.get("COMPAT_ADAPTER_MODEL_API", "anthropic")
    if not _is_api(api):
        raise ValueError(f"COMPAT_ADAPTER_MODEL_API is anthropic or chat, not {api!r}")
    return ModelEndpoint(api=api, base_url=url, model=environ.get("COMPAT_ADAPTER_MODEL_NAME", "default"),
                         api_key_env=environ.get("COMPAT_ADAPTER_MODEL_KEY_ENV"))


async def ask_endpoint(endpoint: ModelEndpoint, request: ModelRequest) -> str:
    """The model's text answer; raises httpx errors and ValueError for an answer without text."""
    key = callenv.environ().get(endpoint.api_key_env, "") if endpoint.api_key_env else ""
    base = endpoint.base_url.rstrip("/")
    headers: dict[str, str] = {}
    if endpoint.api == "anthropic":
        url = f"{base}/v1/messages"
        headers["anthropic-version"] = "2023-06-01"
        if key:
            headers["x-api-key"] = key
        body: dict[str, Any] = {"model": endpoint.model, "max_tokens": 1024, "system": request.system,
                                "messages": [{"role": "user", "content": request.prompt}]}
    else:
        url = f"{base}/v1/chat/completions"
        if key:
            headers["authorization"] = f"Bearer {key}"
        body = {"model": endpoint.model, "messages": [{"role": "system", "content": request.system},
                                                       {"role": "user", "content": request.prompt}]}
    import httpx  # here, not at the top: reading an endpoint (grade, a host's start) needs none of it

    async with httpx.AsyncClient(timeout=request.timeout_s, trust_env=False) as client:
        response = await client.post(url, json=body, headers=headers)
        response.raise_for_status()
        data = response.json()
    if endpoint.api == "anthropic":
        texts = [b.get("text", "") for b in data.get("content", []) if b.get("type") == "text"]
    else:
        texts = [c.get("message", {}).get("content") or "" for c in data.get("choices", [])[:1]]
    if not texts:
        raise ValueError("the model answered without text")
    return "".join(texts)


def build_prompt(prompt: str, payload_json: str) -> str:
    if "$ARGUMENTS" in prompt:
        return prompt.replace("$ARGUMENTS", payload_json)
    return f"{prompt}\n\n{payload_json}"


def _verdict(text: str) -> tuple[bool, str] | None:
    match = re.search(r"\{.*\}", text, re.DOTALL)
    if match is None:
        return None
    try:
        reply = json.loads(match.group(0))
    except ValueError:
        return None
    if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
        return None
    reason = reply.get("reason")
    return reply["ok"], reason if isinstance(reason, str) else ""


def _blocked(event: str, reason: str) -> str:
    if event == "PreToolUse":
        return json.dumps({"hookSpecificOutput": {"hookEventName": event, "permissionDecision": "deny",
                                                  "permissionDecisionReason": reason}})
    return json.dumps({"decision": "block", "reason": reason})


Complete = Callable[[ModelRequest], Awaitable[str]]


async def run_model_hook(handler: ModelHandler, event: str, payload_json: str, *,
                         complete: Complete | None, timeout_s: float, limit: int) -> ProcessOutcome:
    import httpx

    started = time.perf_counter()
    if complete is None:
        return failed(f"{handler.kind} hook: this host has no model to ask", started)
    request = ModelRequest(system=_SYSTEM[handler.kind], prompt=build_prompt(handler.prompt, payload_json),
                           model=handler.model, timeout_s=timeout_s)
    try:
        text = await complete(request)
    except (httpx.TimeoutException, TimeoutError):
        return timed_out(f"{handler.kind} hook: the model did not answer within {timeout_s:g} s", started, timeout_s)
    except (httpx.HTTPError, CompatError, ValueError, KeyError, TypeError, AttributeError) as exc:
        return failed(f"{handler.kind} hook: the model could not be asked: {type(exc).__name__}: {exc}", started)
    verdict = _verdict(text)
    if verdict is None:
        return failed(f"{handler.kind} hook: the model's reply is not {{\"ok\": …}} JSON: {text[:200]}", started)
    ok, reason = verdict
    if ok or event in _IGNORES_OK:
        return answered("", started, limit)
    return answered(_blocked(event, reason or f"{handler.kind} hook condition not met"), started, limit)
