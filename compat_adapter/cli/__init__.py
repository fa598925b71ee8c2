"""The `compat-adapter` command line.

Every error is one line, `CODE: message` then what to do, with exit status 2 for usage and input
errors; nothing prints a traceback for bad input.

Each command imports what it runs (the matrix, rich, a host, the service) only when it is chosen,
so starting the command line costs only what that command needs.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from compat_adapter.errors import CompatError

__all__ = ("main",)

#: Every command → the module that defines it (its ``add_commands``), in the order ``--help`` lists
#: them. A command's module, and what it imports, loads only when that command is chosen (or for
#: the top-level ``--help``, which lists them all): `compat-adapter matrix` pays for no host, no
#: service, no rich.
_MODULES: dict[str, str] = {
    "matrix": "compat_adapter.cli.matrix",
    "surface": "compat_adapter.cli.matrix",
    "demo": "compat_adapter.cli.session",
    "run": "compat_adapter.cli.session",
    "grade": "compat_adapter.cli.grade",
    "explain": "compat_adapter.cli.explain",
    "serve": "compat_adapter.cli.serve",
    "trust": "compat_adapter.cli.trust",
    "hooks": "compat_adapter.cli.hooks",
    "doctor": "compat_adapter.cli.doctor",
    "dsh-model": "compat_adapter.cli.dsh",
}

_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {}


class _Version(argparse.Action):
    """``--version``: the package metadata is read only when it is asked for, not on every start."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        from compat_adapter.host.wire.channel import version  # the one ``serve`` says in ``hello``

        print(f"compat-adapter {version()}")  # on stdout, as argparse's own version action
        parser.exit()


def _chosen(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names, when it names one before anything else the top level reads (the
    top level takes only ``-h`` and ``--version``, neither with a value)."""
    first = next((arg for arg in argv if not arg.startswith("-")), None)
    before = argv[:argv.index(first)] if first is not None else argv
    return first if first in _MODULES and not before else None


def _parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; the commands it built go to ``_COMMANDS``. With ``argv`` that names a command
    first, only that command's module is loaded and its parser built in full; every other command
    is a bare name in its place, so the top-level usage and errors read as with every module loaded."""
    parser = argparse.ArgumentParser(prog="compat-adapter", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True)
    chosen = _chosen(argv) if argv is not None else None
    wanted = {_MODULES[chosen]} if chosen else set(_MODULES.values())
    for name, module in _MODULES.items():
        if name in sub.choices:
            continue  # added with the other commands of its module
        if module in wanted:
            _COMMANDS.update(importlib.import_module(module).add_commands(sub))
        else:
            sub.add_parser(name)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if argv is not None:
        return _main(argv)
    try:
        return _main(sys.argv[1:])
    finally:
        # Called with no arguments, main is this process's command line (the console script exits
        # with its status): the interpreter's last collection at exit would walk every object the
        # command made only to free what the exit frees anyway (4 % of `matrix`'s instructions).
        # Frozen, they are left to the exit; finalizers are not promised at exit in any case.
        gc.freeze()


def _main(argv: Sequence[str]) -> int:
    parser = _parser(argv)
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
        import json  # here: a command that succeeds (the matrix writes JSON with pydantic) needs none

        print(json.dumps({"error": exc.to_json()}, indent=2))
    return 2


def _leaves(group: BaseExceptionGroup) -> list[BaseException]:
    out: list[BaseException] = []
    for exc in group.exceptions:
        out.extend(_leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc])
    return out


if __name__ == "__main__":
    raise SystemExit(main())
