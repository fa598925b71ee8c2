"""`compat-adapter port --to VENDOR [PATH]`: a project's hooks written into another agent's own
files, each entry running the original hook through `compat-adapter shim` with its vendor's
semantics and answering in the target's dialect.

Before writing: every hook's grade on the target and the losses, worst first (a guard that would
stop guarding first). ``--check`` exits 1 when the target's files differ from what port would write
(for CI), ``--dry-run`` writes nothing, ``--remove`` takes port's entries out again (the file's
bytes from before port, when port's write is still what it holds). Port never writes a vendor's
trust records: it says what the user must approve there.
"""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path
from typing import Any

__all__ = ("add_commands", "port_report")


def _port(args: argparse.Namespace) -> int:
    from compat_adapter.catalog import resolve_vendor, unit_of
    from compat_adapter.errors import BadArgument, NoSuchPath, NotAFolder
    from compat_adapter.port.files import expected_text, remove_port, write_port
    from compat_adapter.port.plan import plan_port

    root = Path(args.path)
    if not root.exists():
        raise NoSuchPath(f"{args.path}: no such folder", path=args.path)
    if not root.is_dir():
        raise NotAFolder(f"{args.path}: is a file, not a project folder", path=args.path)
    target = resolve_vendor(args.to).id
    face = unit_of(target).host
    if face is None:
        raise BadArgument(f"{target} has no host face: port cannot write hooks for it", vendor=target)
    if args.remove:
        change = remove_port(root, face, target, dry_run=args.dry_run)
        if args.json:
            print(json.dumps({"target": target, "file": face.file, "action": change.action, "note": change.note}))
        else:
            print(f"{face.file}: {change.action}" + (f" ({change.note})" if change.note else ""))
        return 0
    launcher, client_note = _launcher(args)
    plan = plan_port(root, target, launcher=launcher, sources=args.source or None)
    if args.check:
        want = expected_text(root, face, plan)
        path = root / plan.file
        have = path.read_text() if path.is_file() else None
        same = want == have
        if args.json:
            print(json.dumps({"target": target, "file": plan.file, "up_to_date": same}))
        else:
            print(f"{plan.file}: " + ("up to date" if same else "differs from what port would write"))
        return 0 if same else 1
    change = write_port(root, face, plan, dry_run=args.dry_run)
    if args.json:
        print(json.dumps({**port_report(plan, change.action), "client": launcher[0], "client_note": client_note},
                         indent=2))
    else:
        _print(plan, change.action, args.dry_run)
        if client_note and plan.entries:
            print(f"note: {client_note}")
    return 0


#: The compiled client's path is this install's: said where it is written, since a file a team
#: commits would name a program its other machines lack (and ``--check`` there would differ).
MACHINE_PATH = ("the entries start this machine's compiled shim client; for a file the team commits, port "
                "with --python-client, whose entries name compat-adapter on PATH")
#: What a call costs when the entries start Python: the fallback's price, said where it is chosen.
PYTHON_CLIENT_COST = ("each ported call starts Python (tens of milliseconds per call, several times a hook "
                      "written natively for the target)")


def _launcher(args: argparse.Namespace) -> tuple[list[str], str]:
    """The command the entries start, and what the person should know of it (empty: nothing).
    By default the compiled shim client, built once per install with the machine's C compiler: a
    call then starts no Python while the warm shim server runs; its path is this machine's, and
    port says so. Without a compiler the entries start compat-adapter's Python client instead, and
    port says so and what it costs."""
    from compat_adapter.errors import BadArgument
    from compat_adapter.port.fastclient import build_client
    from compat_adapter.statedir import state_home

    if args.launcher is not None or args.python_client:
        if args.fast_client:
            raise BadArgument("--fast-client names the compiled client; --launcher and --python-client another")
        launcher = shlex.split(args.launcher or "compat-adapter")
        return launcher, PYTHON_CLIENT_COST if args.python_client else ""
    try:
        client = str(build_client(state_home() / "bin"))
        return [client], f"{MACHINE_PATH} ({client})"
    except BadArgument as exc:
        if args.fast_client:
            raise
        return shlex.split("compat-adapter"), f"{exc.message}; so {PYTHON_CLIENT_COST}"


def port_report(plan: Any, action: str) -> dict[str, Any]:
    return {"target": plan.target, "file": plan.file, "action": action, "entries": len(plan.entries),
            "results": [r.model_dump(mode="json") for r in plan.results],
            "losses": [{"safety": s, "origin": r.id, "event": r.event, "capability": str(r.capability),
                        "code": str(d.code) if d else "unsupported", "text": d.text if d else r.reason}
                       for s, r, d in plan.losses()],
            "refused": list(plan.refused), "trust": plan.trust,
            "native_rules": [{"block": p, "behavior": b, "rule": t} for p, b, t in plan.native]}


def _print(plan: Any, action: str, dry_run: bool) -> None:
    counts: dict[str, int] = {}
    for r in plan.results:
        counts[str(r.capability)] = counts.get(str(r.capability), 0) + 1
    summary = ", ".join(f"{n} {c}" for c, n in sorted(counts.items())) or "no hook to port"
    print(f"port to {plan.target}: {summary}")
    for safety, r, d in plan.losses():
        print(f"  [{safety}] {r.id} ({r.vendor} {r.event}): " + (f"{d.code}: {d.text}" if d else f"UNSUPPORTED: {r.reason}"))
    for line in plan.refused:
        print(f"  not ported: {line}")
    verb = "would write" if dry_run and action == "write" else {"write": "wrote", "unchanged": "left unchanged",
                                                                  "none": "wrote nothing to"}.get(action, action)
    print(f"{verb} {plan.file} ({len(plan.entries)} entr{'y' if len(plan.entries) == 1 else 'ies'})")
    for block, behavior, rule in plan.native:
        print(f"  rule in {plan.target}'s own format: {block}.{behavior} {rule}")
    if plan.entries:
        print(f"before they run: {plan.trust}")


def _shim(args: argparse.Namespace) -> int:
    # The quick path: the call goes to a warm server when one runs (port/client.py).
    from compat_adapter.port.client import shim_main

    return shim_main(args.to, args.hooks)


def add_commands(sub: argparse._SubParsersAction) -> dict[str, Any]:
    p = sub.add_parser("port", help="write a project's hooks into another agent's own files")
    p.add_argument("path", nargs="?", default=".", help="the project folder (default: .)")
    p.add_argument("--to", required=True, help="the target vendor (claude, codex, copilot, opencode, workbuddy, "
                                                 "gemini, qwen)")
    p.add_argument("--from", dest="source", action="append", help="port only this vendor's hooks (repeatable)")
    p.add_argument("--check", action="store_true", help="exit 1 when the target's files differ from what port would write")
    p.add_argument("--dry-run", action="store_true", help="say what would be written; write nothing")
    p.add_argument("--remove", action="store_true", help="take port's entries out of the target's files again")
    p.add_argument("--launcher", default=None,
                   help="the command that starts compat-adapter in the written entries (default: the compiled "
                        "shim client, or compat-adapter where no C compiler can build it)")
    p.add_argument("--fast-client", action="store_true",
                   help="insist on the compiled shim client (the default): an error where no C compiler builds it")
    p.add_argument("--python-client", action="store_true",
                   help="write compat-adapter itself as the entries' launcher: every call then starts Python")
    p.add_argument("--json", action="store_true", help="print the plan and the losses as JSON")
    s = sub.add_parser("shim", help="(written by port) run ported hooks for the target that calls it")
    s.add_argument("--to", required=True, help="the vendor whose hook stdin this is")
    s.add_argument("hooks", help="the encoded hooks, as port wrote them")
    return {"port": _port, "shim": _shim}
