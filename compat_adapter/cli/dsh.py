"""`compat-adapter dsh-model`: the model a DeepSeek Harness session talks to, as a profile patch.

It prints the patch file's path, for ``dsh --profile headless --patch "$(compat-adapter dsh-model …)"``
(the README's session command) and the SDK's ``patches`` (``examples/dsh/sdk_guard.py``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

__all__ = ("add_commands",)


def _model(args: argparse.Namespace) -> int:
    from compat_adapter.host.dsh.model import model_route, write_patch

    route = model_route(openai=args.openai, anthropic=args.anthropic, model=args.model, key_env=args.key_env)
    print(write_patch(route, Path(args.folder) if args.folder else None))
    return 0


def add_commands(sub: argparse._SubParsersAction) -> dict[str, Any]:
    from compat_adapter.host.dsh.model import KEY_ENV

    s = sub.add_parser("dsh-model", help="write the DSH profile patch that picks a session's model; print its path",
                       description="DeepSeek with a key (no address), or a local OpenAI- or Anthropic-compatible "
                                   "address. The key stays in the environment: the patch names the variable.")
    where = s.add_mutually_exclusive_group()
    where.add_argument("--openai", metavar="URL", help="an OpenAI-compatible address, with its /v1 "
                                                      "(e.g. http://127.0.0.1:8080/v1)")
    where.add_argument("--anthropic", metavar="URL", help="an Anthropic-compatible address, without /v1 "
                                                         "(e.g. http://127.0.0.1:8080)")
    s.add_argument("--model", help="the model's name (a local server's own; default for DeepSeek: deepseek-flash)")
    s.add_argument("--key-env", default=KEY_ENV, help=f"the variable holding the key (default: {KEY_ENV})")
    s.add_argument("--folder", help="where the patch is written (default: compat-adapter's private state folder)")
    return {"dsh-model": _model}
