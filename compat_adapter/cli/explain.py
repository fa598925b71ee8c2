"""`compat-adapter explain`: replay one event against a vendor's hook config and show, hook by hook,
the matcher and `if` decisions, the real run, what the vendor would do and what the host does.

Exit 0 when the vendor and the host agree on every hook that fired, 1 when a difference is found,
2 for unusable input (as every command).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ("add_commands",)


def _question(args: argparse.Namespace) -> Any:
    from compat_adapter.errors import BadArgument
    from compat_adapter.explain import Question

    given = [x is not None for x in (args.payload, args.tool, args.prompt)]
    if sum(given) > 1:
        raise BadArgument("give one of --payload, --tool (with --input) or --prompt")
    if args.input is not None and args.tool is None:
        raise BadArgument("--input goes with --tool NAME")
    payload = tool_input = None
    if args.payload is not None:
        payload = _json_object(Path(args.payload).read_text(encoding="utf-8") if args.payload != "-"
                               else sys.stdin.read(), f"--payload {args.payload}")
    if args.input is not None:
        tool_input = _json_object(args.input, "--input")
    root = Path(args.project) if args.project else Path.cwd()
    return Question(vendor=args.vendor, event=args.event, tool=args.tool, tool_input=tool_input, prompt=args.prompt,
                    payload=payload, files=tuple(Path(f) for f in args.files), root=root, host=args.host,
                    trust_all=True if args.trust_all else None, prefer=args.prefer)


def _json_object(text: str, where: str) -> dict[str, Any]:
    from compat_adapter.errors import BadArgument

    try:
        value = json.loads(text)
    except ValueError as exc:
        raise BadArgument(f"{where} is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise BadArgument(f"{where} must be a JSON object, not {type(value).__name__}")
    return value


def _explain(args: argparse.Namespace) -> int:
    if args.code is not None:
        from compat_adapter.cli.codes import explain_code

        return explain_code(args.code, args.host, args.vendor)
    if not args.vendor:
        from compat_adapter.errors import BadArgument

        raise BadArgument("explain needs --vendor (whose hooks to replay), or --code CODE")
    import anyio

    from compat_adapter.explain import explain

    report = anyio.run(explain, _question(args))
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        from compat_adapter.explain.render import render

        render(report)
    return 1 if report.differences else 0


def add_commands(sub: argparse._SubParsersAction) -> dict[str, Any]:
    e = sub.add_parser("explain", help="replay one event against a hook config: the vendor's verdict beside the host's",
                       description=__doc__.split("\n\n")[0])
    e.add_argument("--code", nargs="?", const="", default=None, metavar="CODE",
                   help="explain a code a report prints (a loss such as env-differs, UNTRUSTED, fails-open, "
                        "CONFIG_PARSE_ERROR …) instead of replaying; alone, list every code")
    e.add_argument("--vendor", default=None,
                   help="whose hooks these are: a vendor id or alias (`compat-adapter matrix` lists them)")
    e.add_argument("--event", default=None,
                   help="the vendor's event name (default: its pre-tool event with --tool, its prompt event "
                        "with --prompt, the payload's own event with --payload)")
    e.add_argument("--payload", metavar="FILE", default=None,
                   help="a vendor-shaped stdin payload (JSON file, - for stdin) to replay")
    e.add_argument("--tool", metavar="NAME", default=None,
                   help="a tool call: the tool's name in the vendor's vocabulary")
    e.add_argument("--input", metavar="JSON", default=None, help="the tool call's arguments as a JSON object")
    e.add_argument("--prompt", metavar="TEXT", default=None, help="a user prompt to replay")
    e.add_argument("files", nargs="*", help="the vendor's hook config files (default: found in the project)")
    e.add_argument("--project", metavar="DIR", default=None,
                   help="the project folder: the hooks' working directory, searched when no file is named "
                        "(default: .)")
    e.add_argument("--host", default="embedded", help="grade on this host's surface (embedded, dsh, dsh-0.2)")
    e.add_argument("--prefer", choices=("fidelity", "official"), default="fidelity",
                   help="route policy, as for grade")
    e.add_argument("--json", action="store_true",
                   help="print the report as JSON (schema: docs/schema/explain.schema.json)")
    e.add_argument("--trust-all", action="store_true",
                   help="DANGEROUS: run hooks from files nobody trusted (`compat-adapter trust`)")
    return {"explain": _explain}
