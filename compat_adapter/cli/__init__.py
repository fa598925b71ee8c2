"""The `compat-adapter` command line.

Every error is one line, `CODE: message` then what to do, with exit status 2 for usage and input
errors; nothing prints a traceback for bad input.

Each command imports what it runs (the matrix, rich, a host, the service) only when it is chosen,
so starting the command line costs only what that command needs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from compat_adapter.cli.explain import add_commands as add_explain_commands
from compat_adapter.cli.grade import add_commands as add_grade_commands
from compat_adapter.cli.hooks import add_commands as add_hooks_commands
from compat_adapter.cli.serve import add_commands as add_serve_commands
from compat_adapter.cli.session import add_commands as add_session_commands
from compat_adapter.cli.trust import add_commands as add_trust_commands
from compat_adapter.errors import CompatError
from compat_adapter.host.surfaces import surface_named

__all__ = ("main",)

_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {}


def _command(name: str) -> Callable[[Callable[[argparse.Namespace], int]], Callable[[argparse.Namespace], int]]:
    def register(fn: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
        _COMMANDS[name] = fn
        return fn
    return register


@_command("matrix")
def _matrix(args: argparse.Namespace) -> int:
    from compat_adapter.matrix import build_matrix, to_json, to_markdown

    matrix = build_matrix(surface_named(args.host), vendor=args.vendor)
    sys.stdout.write(to_json(matrix) + "\n" if args.format == "json" else to_markdown(matrix))
    return 0


@_command("surface")
def _surface(args: argparse.Namespace) -> int:
    from compat_adapter.surface_check import check_surface

    surface = surface_named(args.host)
    missing = check_surface(surface)
    if args.json:
        print(json.dumps({"surface": surface.model_dump(mode="json"), "missing": list(missing)},
                         indent=2))
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"{surface.host} {surface.version}")
        table.add_column("seam or service")
        table.add_column("mode")
        for seam, mode in sorted(surface.seams.items()):
            table.add_row(seam, str(mode))
        for service in sorted(surface.services):
            table.add_row(service, "service")
        for package in sorted(surface.bridge_packages):
            table.add_row(package, "bridge package")
        console = Console()
        console.print(table)
        if missing:
            for item in missing:
                console.print(f"missing: {item}")
        else:
            console.print("nothing missing: every vendor row can be graded on this surface")
    return 1 if missing else 0


class _Version(argparse.Action):
    """``--version``: the package metadata is read only when it is asked for, not on every start."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        from compat_adapter.host.dsh.channel import version  # the one ``serve`` says in ``hello``

        print(f"compat-adapter {version()}")  # on stdout, as argparse's own version action
        parser.exit()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="compat-adapter", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True)

    m = sub.add_parser("matrix", help="print the support matrix")
    m.add_argument("--format", choices=("md", "json"), default="md", help="markdown (default) or JSON")
    m.add_argument("--vendor", default=None, help="only this vendor's rows")
    m.add_argument("--host", default="embedded",
                   help="grade on this host's surface (embedded, dsh = published 0.1.0-rc.8, dsh-0.2)")

    s = sub.add_parser("surface", help="show a host surface and what the vendor rows miss on it")
    s.add_argument("--host", default="embedded", help="the host surface to show (embedded, dsh, dsh-0.2)")
    s.add_argument("--json", action="store_true", help="print the surface as JSON")

    _COMMANDS.update(add_session_commands(sub))
    _COMMANDS.update(add_grade_commands(sub))
    _COMMANDS.update(add_explain_commands(sub))
    _COMMANDS.update(add_serve_commands(sub))
    _COMMANDS.update(add_trust_commands(sub))
    _COMMANDS.update(add_hooks_commands(sub))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed its one-line usage error
        return int(exc.code or 0) and 2
    try:
        return _COMMANDS[args.command](args)
    except CompatError as exc:
        return _fail(exc, args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader stopped early (`| head`): not an error; stop writing without a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except BaseExceptionGroup as group:
        # A task group wraps errors; the first stable one is what the user needs to see.
        for leaf in _leaves(group):
            if isinstance(leaf, CompatError):
                return _fail(leaf, args)
        raise


def _fail(exc: CompatError, args: argparse.Namespace) -> int:
    """One line on stderr, and under ``--json`` the error as JSON on stdout (docs/schema/error.schema.json)."""
    print(f"{exc.code}: {exc.message}" + (f" — {exc.hint}" if exc.hint else ""), file=sys.stderr)
    if getattr(args, "json", False) or getattr(args, "format", None) == "json":
        print(json.dumps({"error": exc.to_json()}, indent=2))
    return 2


def _leaves(group: BaseExceptionGroup) -> list[BaseException]:
    out: list[BaseException] = []
    for exc in group.exceptions:
        out.extend(_leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc])
    return out


if __name__ == "__main__":
    raise SystemExit(main())
