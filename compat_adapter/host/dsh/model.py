"""The model a DSH session talks to: DeepSeek with a key, or a local OpenAI- or Anthropic-compatible
address, as one profile patch for ``dsh --patch`` and the SDK's ``patches``.

DSH 0.2.1 reaches DeepSeek through its own provider (``deepseek-official``: the key in
``DEEPSEEK_API_KEY``, DeepSeek's model names). Every other model goes through its pi-ai provider
(``@deepseek-ai/dsh-llm-pi-ai``), which every profile mounts with no route until an ``llm-pi-ai``
section names one: ``providers.<id>: {api, baseURL, apiKeyEnv, models: [{id, …}]}``, ``api`` being
``openai-completions`` or ``anthropic-messages``. A session runs on a route when the profile's
``agent-default-model`` names it (``dsh headless``, the web app) or the SDK's ``initialize`` does
(``provider``, ``model``). So a model choice is a patch of those two rows, written here from the
address; the key stays in the environment (``apiKeyEnv`` names the variable), never in the file.

The file is JSON, which DSH's YAML loader reads as it is: an address or a model name can hold no
YAML syntax that would change what the patch says.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from compat_adapter.errors import BadArgument
from compat_adapter.statedir import private_dir

__all__ = ("DEEPSEEK_PROVIDER", "KEY_ENV", "LOCAL_PROVIDER", "ModelRoute", "model_route", "patch_rows",
           "write_patch")

Wire = Literal["deepseek", "openai", "anthropic"]

#: DSH's own DeepSeek provider, and the route a DeepSeek session takes unless told (the default of
#: DSH's sdk, headless and web profiles).
DEEPSEEK_PROVIDER = "deepseek-official"
DEEPSEEK_MODEL = "deepseek-flash"
#: The pi-ai route this patch declares for a local address (a credential record id: lowercase, hyphenated).
LOCAL_PROVIDER = "local-model"
#: The variable the key is read from on every route: DSH's own for DeepSeek, and the same for a
#: local address so that one command line serves both (a local server that checks no key takes any).
KEY_ENV = "DEEPSEEK_API_KEY"
#: pi-ai's wire protocol for each local kind.
_API = {"openai": "openai-completions", "anthropic": "anthropic-messages"}
#: What a local route is declared to hold and answer (pi-ai knows nothing of a local model, and
#: refuses a route without them); DSH compacts the conversation against the first.
CONTEXT_WINDOW = 128_000
MAX_TOKENS = 8_192


@dataclass(frozen=True, slots=True)
class ModelRoute:
    """One model choice: the wire, the model's name, the address (None: DeepSeek's own) and the
    variable holding the key."""

    wire: Wire
    model: str
    base_url: str | None = None
    key_env: str = KEY_ENV

    @property
    def provider(self) -> str:
        return DEEPSEEK_PROVIDER if self.wire == "deepseek" else LOCAL_PROVIDER


def _address(url: str, flag: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadArgument(f"{flag} takes an http(s) address such as http://127.0.0.1:8080, not {url!r}")
    return url.rstrip("/")


def model_route(*, openai: str | None = None, anthropic: str | None = None, model: str | None = None,
                key_env: str = KEY_ENV) -> ModelRoute:
    """The route the options name: ``openai`` (an OpenAI-compatible address, with its ``/v1``),
    ``anthropic`` (an Anthropic-compatible one, without), or neither (DeepSeek with a key)."""
    if openai and anthropic:
        raise BadArgument("name one model address: --openai or --anthropic, not both")
    if not key_env or not key_env.replace("_", "").isalnum():
        raise BadArgument(f"--key-env takes an environment variable's name, not {key_env!r}")
    if not openai and not anthropic:
        return ModelRoute("deepseek", model or DEEPSEEK_MODEL, None, key_env)
    wire: Wire = "openai" if openai else "anthropic"
    address = _address(openai or anthropic or "", f"--{wire}")
    if not model:
        raise BadArgument("a local address needs --model: the name its server knows the model by")
    return ModelRoute(wire, model, address, key_env)


def patch_rows(route: ModelRoute) -> list[dict[str, object]]:
    """The profile patch: a local route declared in ``llm-pi-ai``, and the session's default model."""
    rows: list[dict[str, object]] = []
    if route.wire != "deepseek":
        rows.append({"id": "llm-pi-ai", "config": {"providers": {LOCAL_PROVIDER: {
            "displayName": f"{route.model} at {route.base_url}", "api": _API[route.wire], "baseURL": route.base_url,
            "apiKeyEnv": route.key_env,
            "models": [{"id": route.model, "contextWindow": CONTEXT_WINDOW, "maxTokens": MAX_TOKENS}]}}}})
    elif route.key_env != KEY_ENV:
        rows.append({"id": "llm-deepseek", "config": {"apiKeyEnv": route.key_env}})
    rows.append({"id": "agent-default-model", "config": {"provider": route.provider, "model": route.model}})
    return rows


def write_patch(route: ModelRoute, folder: Path | None = None) -> Path:
    """The patch file for ``route`` (named by its content, so a second call finds it written), in
    ``folder`` or the user's private state folder."""
    text = json.dumps(patch_rows(route), indent=2) + "\n"
    where = folder if folder is not None else private_dir("dsh-models")
    assert where is not None  # private_dir creates it
    path = where / f"model-{hashlib.sha256(text.encode()).hexdigest()[:16]}.yml"
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        part = path.with_suffix(f".{os.getpid()}.part")
        part.write_text(text, encoding="utf-8")
        os.replace(part, path)
    return path
