"""A DeepSeek Harness session (the official Python SDK) on your repository, with its own trusted
vendor hooks running (a Claude Code guard denies a real bash call: the command never runs, and
the model reads Claude's words).

Set up once (README, "In DSH"): install compat-adapter and ``deepseek-harness-sdk==0.2.1rc2`` into
one environment, and add the bundle to the ``sdk`` profile of your DSH home. The repository's
``.claude/settings.json`` (or ``.codex/hooks.json`` …) names its hooks; the bundle imports them at
session start under your trust store, so trust them first (``compat-adapter trust <file>``): a file
you have not trusted is held back, and the session says so.

The model options are the README command's: DeepSeek with your key (``--api-key`` or
``$DEEPSEEK_API_KEY``; ``--base-url`` or ``$DEEPSEEK_BASE_URL`` for another address of DeepSeek's
own API), or a local model: ``--openai URL`` (an OpenAI-compatible address, with its ``/v1``) or
``--anthropic URL`` (an Anthropic-compatible one), with ``--model`` naming the model the server
knows (``compat-adapter dsh-model`` writes the same profile patch for ``dsh``)::

    python sdk_guard.py ~/src/my-repo --home ~/.dsh --openai http://127.0.0.1:8080/v1 --model qwen3-coder "run the tests"
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from deepseek_harness import DeepSeekHarness

from compat_adapter.host.dsh.model import model_route, write_patch


def run(workspace: str, home: str, prompt: str, **options: object) -> Any:
    """One prompt in a new SDK session on ``workspace``; returns the SDK's RunResult. ``options``:
    the SDK's own (``base_url``, ``api_key``, ``model`` …)."""
    with DeepSeekHarness(cwd=workspace, dsh_home=home, **options) as harness:  # type: ignore[arg-type]
        return harness.run(prompt)


def model_options(openai: str | None, anthropic: str | None, model: str | None) -> dict[str, object]:
    """The SDK's options for a model choice: DeepSeek's own route, or a local address through the
    profile patch ``compat-adapter dsh-model`` writes (its route is what ``initialize`` names)."""
    route = model_route(openai=openai, anthropic=anthropic, model=model)
    if route.base_url is None:
        return {"model": model} if model else {}
    return {"patches": (str(write_patch(route)),), "provider": route.provider, "model": route.model}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="One prompt in a DSH session on a repository, its hooks running.")
    parser.add_argument("workspace", help="the repository the session runs in")
    parser.add_argument("prompt", nargs="?", default="remove the build folder")
    parser.add_argument("--home", default=os.environ.get("DSH_HOME") or os.path.expanduser("~/.dsh"),
                        help="the DSH home the bundle was added to (default: $DSH_HOME, else ~/.dsh)")
    local = parser.add_mutually_exclusive_group()
    local.add_argument("--openai", metavar="URL", help="a local OpenAI-compatible address, with its /v1")
    local.add_argument("--anthropic", metavar="URL", help="a local Anthropic-compatible address")
    parser.add_argument("--base-url", default=os.environ.get("DEEPSEEK_BASE_URL"),
                        help="another address of DeepSeek's own API (default: DeepSeek's)")
    parser.add_argument("--api-key", default=os.environ.get("DEEPSEEK_API_KEY"),
                        help="the model's key (default: $DEEPSEEK_API_KEY)")
    parser.add_argument("--model", default=None,
                        help="the model: a local server's name for it, or a DeepSeek route (default: the SDK's)")
    args = parser.parse_args(argv)
    options: dict[str, object] = {"base_url": args.base_url, "api_key": args.api_key,
                                  "initialize_timeout_seconds": 120,  # a loaded machine boots it slowly
                                  **model_options(args.openai, args.anthropic, args.model)}
    result = run(args.workspace, args.home, args.prompt, **options)
    # What the hooks told you (a blocked prompt, a stopReason, a systemMessage, a held-back file).
    for event in result.events:
        if event.get("type") == "plugin:compat-adapter/notice":
            print(f"compat-adapter: {event['data']['text']}", file=sys.stderr)
    print(result.final_response)
    return 0


if __name__ == "__main__":
    sys.exit(main())
