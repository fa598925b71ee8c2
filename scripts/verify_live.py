"""Verify every vendor row end to end on a host with a real hook; print a table.

Usage: ``verify_live.py [--json] [--vendor V] [--host embedded|dsh] [--prefer fidelity|official]``. By
default a row that the host's official bridge can also carry is checked on both routes. The last line
is always ``N passed, M failed``
(with ``--json`` it follows the JSON document, so the document stays valid on its own lines). The
exit status is 0 only when every row passed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import anyio

# Run from a checkout without installing: the package sits next to this folder.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from compat_adapter.testing.live import RowCheck, verify_all  # noqa: E402


def _table(results: tuple[RowCheck, ...]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(stderr=False, width=160)
    vendors: dict[str, list[RowCheck]] = {}
    for check in results:
        vendors.setdefault(check.vendor, []).append(check)
    for vendor, checks in vendors.items():
        passed = sum(c.passed for c in checks)
        table = Table(title=f"{vendor}: {passed}/{len(checks)} passed", title_justify="left",
                      show_lines=False, expand=True)
        table.add_column("event", no_wrap=True)
        table.add_column("route", no_wrap=True)
        table.add_column("result", no_wrap=True)
        table.add_column("detail", overflow="fold", ratio=1)
        for c in checks:
            table.add_row(c.event, c.route, "[green]pass[/]" if c.passed else "[red]FAIL[/]",
                          c.detail)
        console.print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--vendor", help="verify one vendor's rows only")
    parser.add_argument("--host", choices=("embedded", "dsh"), default="embedded",
                        help="the host to verify on: the embedded host, or the real DeepSeek Harness "
                             "lane (bash scripts/dsh_lane.sh); every row graded ADAPTED there")
    parser.add_argument("--prefer", choices=("fidelity", "official"), default=None,
                        help="check one route policy only (default: both, for the rows that have two)")
    args = parser.parse_args(argv)
    if args.vendor is not None:
        from compat_adapter.catalog import resolve_vendor
        from compat_adapter.errors import CompatError

        try:
            args.vendor = resolve_vendor(args.vendor).id
        except CompatError as exc:
            parser.error(exc.message)

    def progress(check: RowCheck) -> None:
        if not args.json:
            mark = "." if check.passed else "F"
            print(mark, end="", flush=True, file=sys.stderr)

    started = time.monotonic()
    results = anyio.run(lambda: verify_all(progress, vendor=args.vendor, host=args.host, prefer=args.prefer))
    elapsed = time.monotonic() - started
    passed = sum(c.passed for c in results)
    failed = len(results) - passed
    if args.json:
        document = {"host": args.host, "results": [c.as_dict() for c in results], "passed": passed,
                    "failed": failed, "seconds": round(elapsed, 1)}
        print(json.dumps(document, indent=2))
    else:
        print(file=sys.stderr)
        _table(results)
        print(f"wall time {elapsed:.1f} s")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and results else 1


if __name__ == "__main__":
    sys.exit(main())
