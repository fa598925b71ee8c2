"""`compat-adapter grade`: grade a vendor's files, or every vendor's files in a project folder.

``grade --vendor V FILE…`` reads the named files as V's. ``grade`` with no file, or with folders,
finds every vendor's files in each folder (``importers.discover``) and grades them all at once:
each row names its vendor, hooks that would load twice on one host are flagged, and each command
hook carries its preflight findings (a program not on PATH, a missing script, an unset variable, a
guard that would fail open). Exit 2 only for unusable input: an unreadable file, or one that is not
JSON/TOML at all. The grading is ``compat_adapter.project.grade_project``; this module renders it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from compat_adapter.vocabulary import Safety

__all__ = ("add_commands", "strict_status")


def strict_status(report: dict[str, Any], fail_on: str) -> int:
    """``--strict``: 1 when a row's worst class is ``fail_on`` or worse, or when nothing was graded
    (an empty or mistyped folder is never a pass); else 0."""
    if not report["rows"]:
        return 1
    threshold = Safety(fail_on).rank
    return 1 if any(r["safety"] is not None and Safety(r["safety"]).rank <= threshold for r in report["rows"]) else 0


def _grade(args: argparse.Namespace) -> int:
    from compat_adapter.project import grade_project

    report = grade_project(args.files, vendor=args.vendor, host=args.host, trust_all=args.trust_all,
                           shared_as=args.shared_as, prefer=args.prefer)
    if args.sarif:
        from compat_adapter.cli.reports import sarif
        from compat_adapter.host.wire.channel import version

        print(json.dumps(sarif(report, Path.cwd(), version()), indent=2))
    elif args.json:
        print(json.dumps(report, indent=2))
    else:
        from compat_adapter.cli.gradeview import render

        named = bool(args.vendor) and any(not Path(f).is_dir() for f in args.files)
        render(report, verbose=args.verbose, graded=args.files or ["."], named=named)
    if report["unusable"]:
        return 2  # a file CI could not read is never a pass, whatever else graded
    if args.strict and not report["rows"]:
        import sys

        print(f"--strict: nothing to grade in {', '.join(args.files or ['.'])}; an empty or mistyped folder is "
              "never a pass", file=sys.stderr)
    return strict_status(report, args.fail_on) if args.strict else 0


_TRUST_ALL_HELP = ("DANGEROUS: run hooks from files nobody trusted (`compat-adapter trust`); "
                   "warns on every file")


def add_commands(sub: argparse._SubParsersAction) -> dict[str, Any]:
    g = sub.add_parser("grade", help="grade a vendor's files, or every vendor's files in a project",
                       epilog="exit status: 0 graded; 1 with --strict when a guard is disarmed (or worse than "
                              "--fail-on allows) or nothing was graded; 2 when a "
                              "file is unusable (it is in the report, the JSON and the SARIF too) or the "
                              "command is misused")
    g.add_argument("--vendor", default=None,
                   help="the vendor of the named files (for folders: only this vendor's files)")
    g.add_argument("files", nargs="*",
                   help="hook files (of --vendor, else of the vendor that reads them where they sit), or "
                        "project folders (default: .)")
    g.add_argument("--host", default="embedded", help="grade on this host's surface (embedded, dsh, dsh-0.2)")
    g.add_argument("--json", action="store_true",
                   help="print the report as JSON (schema: docs/schema/grade.schema.json)")
    g.add_argument("--sarif", action="store_true", help="print SARIF 2.1.0 (for CI annotations of a pull request)")
    g.add_argument("--verbose", "-v", action="store_true", help="every row in full, each with all its losses")
    g.add_argument("--strict", action="store_true",
                   help="exit 1 when a hook's worst loss or finding is of the --fail-on class or worse (by "
                        "default: a disarmed guard — UNSUPPORTED, cannot start, fails open, never fires, "
                        "observe-only), or when nothing was found to grade")
    g.add_argument("--fail-on", default=str(Safety.DISARMS_GUARD), choices=[str(c) for c in Safety],
                   help="the safety class --strict fails on, and every worse one (default: disarms-guard)")
    g.add_argument("--trust-all", action="store_true", help=_TRUST_ALL_HELP)
    g.add_argument("--shared-as", default="owner", metavar="VENDOR|owner|all",
                   help="a hook file several vendors read (a Claude plugin's hooks/hooks.json, which CodeBuddy "
                        "reads too) is loaded once, as the vendor whose layout it belongs to (owner, the "
                        "default); VENDOR loads it as that reader's, all as every reader's (it then runs "
                        "once per vendor)")
    g.add_argument("--prefer", choices=("fidelity", "official"), default="fidelity",
                   help="route policy: fidelity (default) translates every event it can with the vendor's own "
                        "semantics; official keeps the host's official bridge for the events it carries")
    return {"grade": _grade}
