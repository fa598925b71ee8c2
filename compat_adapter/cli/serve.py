"""`compat-adapter serve --stdio`: the JSON-lines service a host (or its plugin) spawns."""

from __future__ import annotations

import argparse
from typing import Any

import anyio

from compat_adapter.errors import BadArgument

__all__ = ("add_commands",)


def _serve(args: argparse.Namespace) -> int:
    # Imported when chosen, as every command is (see compat_adapter.cli): the service loads the whole adapter.
    from compat_adapter.serve import serve_stdio

    if not args.stdio:
        raise BadArgument("serve speaks only over stdin/stdout for now: pass --stdio")
    return anyio.run(lambda: serve_stdio(state_dir=args.state_dir))


def add_commands(sub: argparse._SubParsersAction) -> dict[str, Any]:
    s = sub.add_parser("serve", help="speak the compat-adapter protocol (JSON lines) with a host")
    s.add_argument("--stdio", action="store_true",
                   help="read requests on stdin and write replies on stdout (INTEGRATION.md)")
    s.add_argument("--state-dir", default=None, help="where generated bridge configs are written")
    return {"serve": _serve}
