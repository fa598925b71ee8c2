"""`compat-adapter explain`: replay one event against a vendor's hook config and show, hook by hook,
the matcher and `if` decisions, the real run, what the vendor would do and what the host does.

Exit 0 when the vendor and the host agree on every hook that fired, 1 when a difference is found,
2 for unusable input (as every command: an unreadable hook file, an unknown tool). The hooks run in
a scratch copy of the project unless ``--in-place``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
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
    if args.tool is not None:
        _known_tool(args.vendor, args.tool)
    root = Path(args.project) if args.project else Path.cwd()
    return Question(vendor=args.vendor, event=args.event, tool=args.tool, tool_input=tool_input, prompt=args.prompt,
                    payload=payload, files=tuple(Path(f) for f in args.files), root=root, host=args.host,
                    trust_all=True if args.trust_all else None, prefer=args.prefer)


def _known_tool(vendor: str, tool: str) -> None:
    """A tool neither the vendor nor the host names here is refused (exit 2, as in `run`): the
    replay would otherwise answer for a call that never happens. MCP tools are the user's own."""
    from compat_adapter.catalog import host_tool, resolve_vendor
    from compat_adapter.errors import BadArgument

    spec = resolve_vendor(vendor)
    if host_tool(spec.id, tool) is not None or tool in {t.host for t in spec.tools} or tool.startswith("mcp"):
        return
    import difflib

    names = list(dict.fromkeys(t.vendor for t in spec.tools))
    near = difflib.get_close_matches(tool, names, n=1)
    raise BadArgument(f"unknown tool {tool!r} for {spec.id}" + (f" (did you mean {near[0]!r}?)" if near else "")
                      + f": its tools on this host are {', '.join(names)}; a {spec.id} tool this host does not "
                      "have never reaches a hook here", tool=tool)


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

    question = _question(args)
    if args.in_place:
        report = anyio.run(explain, question)
    else:
        report = _in_scratch(question)
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        from compat_adapter.cli.scratch import SCRATCH_NOTE
        from compat_adapter.explain.render import render

        render(report)
        if not args.in_place:
            print(SCRATCH_NOTE.format(root=args.project or "."))
    # A file that could not be read is never an answer, as in every command (exit 2).
    if _unusable(report.refused):
        for line in _unusable(report.refused):
            print(line, file=sys.stderr)
        return 2
    return 1 if report.differences else 0


def _unusable(refused: Sequence[str]) -> list[str]:
    from compat_adapter.errors import ERROR_CODES

    return [line for line in refused if line.split(":", 1)[0] in ERROR_CODES]


def _in_scratch(question: Any) -> Any:
    """Replay in a scratch copy of the project: the hooks run there, the project is untouched."""
    import dataclasses
    import os

    import anyio

    from compat_adapter.catalog import resolve_vendor
    from compat_adapter.cli.scratch import scratch_project
    from compat_adapter.explain import explain

    root = Path(os.path.realpath(question.root))
    vendor = resolve_vendor(question.vendor).id
    with scratch_project(root, [(vendor, f) for f in question.files]) as copy:
        def moved(file: Path) -> Path:
            real = Path(os.path.realpath(file))
            return copy / real.relative_to(root) if real.is_relative_to(root) else file

        report = anyio.run(explain, dataclasses.replace(question, root=copy,
                                                        files=tuple(moved(f) for f in question.files)))
        # Said in the project's own paths: the copy is gone when the user reads them.
        return report.model_validate_json(report.model_dump_json().replace(str(copy), str(root)))


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
    e.add_argument("--in-place", action="store_true",
                   help="run the hooks in the project itself; by default they run in a scratch copy of it, "
                        "so what they write or delete is never the project's")
    e.add_argument("--trust-all", action="store_true",
                   help="DANGEROUS: run hooks from files nobody trusted (`compat-adapter trust`)")
    return {"explain": _explain}
