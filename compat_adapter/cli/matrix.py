"""`compat-adapter matrix` and `compat-adapter surface`: the support matrix and a host surface."""

from __future__ import annotations

import argparse
import gc
import sys
from typing import Any

__all__ = ("add_commands",)


def _matrix(args: argparse.Namespace) -> int:
    # Loading the tables and grading every row makes some 30,000 objects that live until the
    # command ends, and leaves under a thousand in cycles: the cyclic collector's ~80 passes over
    # them while it builds were 3 % of the command's instructions and freed nothing the process
    # keeps. Paused while it builds (bounded: one matrix, ~35 MB resident either way), then as it was.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _write_matrix(args)
    finally:
        if collecting:
            gc.enable()


def _write_matrix(args: argparse.Namespace) -> int:
    from compat_adapter.errors import UnknownHost
    from compat_adapter.host.surfaces import surface_named

    try:
        surface = surface_named(args.host)
    except UnknownHost:
        # Not a host surface: a vendor CLI as host, every vendor's events graded on its host face
        # as `port` grades them (loaded only then: the surface matrix needs none of it).
        from compat_adapter.port.matrix import host_matrix, is_vendor_host, to_json as host_json
        from compat_adapter.port.matrix import to_markdown as host_markdown

        if not is_vendor_host(args.host):
            raise
        target, rows = host_matrix(args.host, args.vendor)
        sys.stdout.write((host_json(target, rows) + "\n") if args.format == "json" else host_markdown(target, rows))
        return 0
    from compat_adapter.matrix import build_matrix, to_json

    matrix = build_matrix(surface, vendor=args.vendor)
    if args.format == "json":
        sys.stdout.write(to_json(matrix) + "\n")
        return 0
    from compat_adapter.matrixdoc import to_markdown  # only the Markdown format loads its writer

    sys.stdout.write(to_markdown(matrix))
    return 0


def _surface(args: argparse.Namespace) -> int:
    import json

    from compat_adapter.host.surfaces import surface_named
    from compat_adapter.surface_check import check_surface

    surface = surface_named(args.host)
    missing = check_surface(surface)
    if args.json:
        print(json.dumps({"surface": surface.model_dump(mode="json"), "missing": list(missing)},
                         indent=2))
        return 1 if missing else 0
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


def add_commands(sub: argparse._SubParsersAction) -> dict[str, Any]:
    m = sub.add_parser("matrix", help="print the support matrix")
    m.add_argument("--format", choices=("md", "json"), default="md", help="markdown (default) or JSON")
    m.add_argument("--vendor", default=None, help="only this vendor's rows")
    m.add_argument("--host", default="embedded",
                   help="grade on this host's surface (embedded, dsh = published 0.1.0-rc.8, dsh-0.2), or on "
                        "a vendor CLI as host (claude, codex, copilot, opencode, workbuddy, gemini, qwen), as "
                        "`port --to` grades")

    s = sub.add_parser("surface", help="show a host surface and what the vendor rows miss on it")
    s.add_argument("--host", default="embedded", help="the host surface to show (embedded, dsh, dsh-0.2)")
    s.add_argument("--json", action="store_true", help="print the surface as JSON")
    return {"matrix": _matrix, "surface": _surface}
