"""`compat-adapter trust`: review what a project's hook files would run, and trust them.

``trust [PATH…]`` shows every hook each file declares (vendor, event, matcher, command, the programs
it starts and the project files it runs), what changed since it was last trusted, then records the
trust; ``--revoke`` forgets it; ``--list`` shows every record and whether it still holds. A folder
means every default file of every vendor in it; a file is read as the vendor whose default files
include it (or ``--vendor``).

As in ``compat_adapter.cli``, the command imports what it runs only when it is chosen.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from compat_adapter.errors import CompatError, NoSuchPath, TrustNotConfirmed

__all__ = ("add_commands",)


def _targets(paths: Sequence[str], vendor: str | None, shared: str = "owner") -> list[tuple[str, Path, str]]:
    """(vendor, file, shown) for each file a PATH names, each real file once: a folder's files are
    the ones ``grade`` finds there (``importers.discover``), and a lone file's vendor is inferred
    the way ``grade`` infers it (``discover.readers_of``)."""
    from compat_adapter.catalog import resolve_vendor
    from compat_adapter.importers.discover import EVERY, discover, vendor_of

    chosen = resolve_vendor(vendor).id if vendor else None
    out: dict[str, tuple[str, Path, str]] = {}
    for given in paths:
        path = Path(given)
        if path.is_dir():
            # --vendor V: every file V reads, a shared one included (V asked for it by name).
            for vid, files in discover(path, shared=EVERY if chosen else shared).items():
                if chosen and vid != chosen:
                    continue
                for file in files:
                    shown = os.path.relpath(file) if not path.is_absolute() else str(file)
                    out.setdefault(os.path.realpath(file), (vid, file, shown))
        elif path.is_file():
            out.setdefault(os.path.realpath(path), (chosen or vendor_of(path, shared=shared), path, given))
        else:
            raise NoSuchPath(f"{given}: no such file or folder", path=given)
    return list(out.values())


def _hook_lines(seen: Any) -> list[str]:
    from compat_adapter.hookcommand import where_program

    lines = []
    for view in seen.hooks:
        on = f"{view.event} [{view.matcher}]" if view.matcher else view.event
        lines.append(f"  {view.vendor} {on}")
        lines.append(f"    command: {view.command}")
        if view.programs:
            lines.append(f"    starts:  {', '.join(where_program(p) for p in view.programs)}")
        if view.files:
            lines.append(f"    runs project files: {', '.join(view.files)}")
    return lines


def _changes(seen: Any) -> list[str]:
    record = seen.verdict.record
    if record is None:
        return []
    now = [v.line() for v in seen.hooks]
    diff = [f"    {line}" for line in difflib.unified_diff(list(record.hooks), now, "trusted", "now",
                                                           lineterm="", n=0)
            if not line.startswith("@@")]
    out = [f"  changed since trusted on {record.trusted_at} by `{record.command}`:"]
    out += diff or ["    (the hooks read the same; the file's bytes or a program it runs changed)"]
    programs = sorted({f for v in seen.hooks for f in v.files} | set(record.programs))
    from compat_adapter.trust import file_digest

    for name in programs:
        before, after = record.programs.get(name), file_digest(Path(record.project) / name)
        if before != after:
            state = "created" if before is None else "deleted" if after is None else "edited"
            out.append(f"    program {name}: {state} since trusted")
    return out


def _describe(seen: Any) -> list[str]:
    state = {"trusted": "trusted, unchanged", "untrusted": "not trusted yet",
             "changed": "CHANGED since it was trusted"}[seen.verdict.state]
    lines = [f"{seen.shown} ({seen.vendor}): {state}"]
    if seen.verdict.state == "changed":
        lines += _changes(seen)
    if seen.hooks:
        lines.append(f"  would run {len(seen.hooks)} hook(s):")
        lines += _hook_lines(seen)
    if seen.plugins:
        lines.append(f"  would load {len(seen.plugins)} OpenCode plugin(s) in the plugin host: "
                     + "; ".join(seen.plugins))
    elif not seen.hooks and not seen.rules:
        lines.append("  no hook that would run here")
    if seen.rules:
        lines.append("  rules: context for the model, carried whether trusted or not")
    if seen.permissions:
        lines.append(f"  {len(seen.permissions)} permission rule(s) and setting(s), enforced whether trusted or not "
                     "(a rule only refuses or asks here):")
        lines += [f"    {kind} {text}" for kind, text, _ in seen.permissions]
    if seen.refused:
        lines.append(f"  never run here ({len(seen.refused)}): "
                     + "; ".join(f"{r.code} {r.what}" for r in seen.refused))
    return lines


def _review_json(seen: Any) -> dict[str, Any]:
    record = seen.verdict.record
    return {"file": seen.shown, "vendor": seen.vendor, "project": str(seen.root),
            "state": seen.verdict.state, "rules": seen.rules,
            "hooks": [{"vendor": v.vendor, "event": v.event, "matcher": v.matcher, "command": v.command,
                       "programs": list(v.programs), "files": list(v.files)} for v in seen.hooks],
            "trusted_before": record.as_json() if record else None,
            "refused": [{"code": r.code, "what": r.what} for r in seen.refused],
            "permissions": [{"kind": kind, "rule": text, "origin": origin} for kind, text, origin in seen.permissions],
            "plugins": list(seen.plugins)}


def _confirm(count: int) -> bool:
    answer = input(f"Trust these {count} file(s): let their hooks run on this machine? [y/N] ")
    return answer.strip().lower() in ("y", "yes")


def _command_line(args: argparse.Namespace) -> str:
    words = ["compat-adapter", "trust", *args.paths] + (["--vendor", args.vendor] if args.vendor else [])
    return shlex.join(words)


def _trust(args: argparse.Namespace) -> int:
    from compat_adapter.importers.gate import review
    from compat_adapter.trust import TrustStore

    store = TrustStore()
    if args.list:
        return _list(store, args.json)
    paths = args.paths or ["."]
    if args.revoke:
        return _revoke(store, paths, args.json)
    reviews, unusable = [], []
    for vid, file, shown in _targets(paths, args.vendor, args.shared_as):
        try:
            reviews.append(review(vid, file, shown, store))
        except CompatError as failed:  # one unusable file is reported; the others are still reviewed
            unusable.append(failed)
    pending = [r for r in reviews if not r.verdict.trusted]
    if args.json:
        print(json.dumps({"files": [_review_json(r) for r in reviews],
                          "unusable": [exc.to_json() for exc in unusable]}, indent=2))
    else:
        for seen in reviews:
            print("\n".join(_describe(seen)))
        if not reviews and not unusable:
            print(f"no vendor hook or rules file under {', '.join(paths)} (where every vendor looks: "
                  "`compat-adapter grade` searches the same places)")
    for bad in unusable:  # an error line each, as every command's: on stderr, with what to do
        print(f"{bad.code}: {bad.message} — never trusted; the other files are reviewed as usual",
              file=sys.stderr)
    status = 2 if unusable else 0
    if not pending:
        if not args.json and reviews:
            print("nothing to trust: every file is trusted as it is")
        return status
    if not args.yes:
        if not sys.stdin.isatty():
            # No person to ask (an agent's shell, CI, a pipe): trust is never granted by default.
            raise TrustNotConfirmed(f"{len(pending)} file(s) would be trusted, but there is no terminal to "
                                    "ask on; nothing was recorded")
        if not _confirm(len(pending)):
            print("not trusted; nothing was recorded", file=sys.stderr)
            return 1
    command = _command_line(args)
    for seen in pending:
        store.record(seen.path, seen.hooks, command, root=seen.root, sha256=seen.sha256,
                     programs=seen.programs)
    if not args.json:
        print(f"trusted {len(pending)} file(s); their hooks run until a file or a program it runs changes "
              f"(`compat-adapter trust --revoke` undoes it)")
    return status


def _revoke(store: Any, paths: Sequence[str], as_json: bool) -> int:
    done = {p: store.revoke(Path(p)) for p in paths}
    if as_json:
        print(json.dumps({"revoked": [p for p, hit in done.items() if hit],
                          "not_trusted": [p for p, hit in done.items() if not hit]}, indent=2))
    else:
        for path, hit in done.items():
            print(f"revoked: {path}" if hit else f"was not trusted: {path}")
    return 0


def _list(store: Any, as_json: bool) -> int:
    from compat_adapter.trust import file_digest

    rows = []
    for record in store.records():
        base = Path(record.project)
        now = file_digest(base / record.file)
        programs_hold = all(file_digest(base / f) == sha for f, sha in record.programs.items())
        state = ("missing" if now is None else "trusted" if now == record.sha256 and programs_hold
                 else "changed")
        rows.append({"project": record.project, "file": record.file, "state": state,
                     **record.as_json()})
    if as_json:
        print(json.dumps({"records": rows}, indent=2))
        return 0
    if not rows:
        print("nothing is trusted yet")
    for row in rows:
        print(f"{row['state']:8} {Path(row['project']) / row['file']}  ({len(row['hooks'])} hook(s), "
              f"{row['trusted_at']}, by `{row['command']}`)")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> dict[str, Any]:
    t = sub.add_parser("trust", help="review a project's hook files and trust them to run",
                       epilog="exit status: 0 trusted (or nothing to trust); 1 answered no; 2 no terminal to "
                              "ask on and no --yes (TRUST_NOT_CONFIRMED), or a file unusable (the others "
                              "are still trusted)")
    t.add_argument("paths", nargs="*", metavar="PATH",
                   help="hook, config or rules files, or project folders (default: .)")
    t.add_argument("--vendor", default=None, help="read the files as this vendor's")
    t.add_argument("--shared-as", default="owner", metavar="VENDOR|owner|all",
                   help="a hook file several vendors read (a Claude plugin's hooks/hooks.json, which CodeBuddy "
                        "reads too): reviewed as the vendor whose layout it belongs to (owner, the default), "
                        "as VENDOR's, or as every reader's")
    t.add_argument("--revoke", action="store_true", help="forget the trust of these files or projects")
    t.add_argument("--list", action="store_true", help="list every trusted file and whether it changed")
    t.add_argument("--yes", action="store_true",
                   help="trust without asking; without it, trust asks on a terminal and refuses "
                        "(TRUST_NOT_CONFIRMED, exit 2) when there is none")
    t.add_argument("--json", action="store_true", help="print the result as JSON")
    return {"trust": _trust}
