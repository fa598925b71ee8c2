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
import dataclasses
import json
import shlex
from pathlib import Path
from typing import Any

__all__ = ("add_commands", "port_report")


def _port(args: argparse.Namespace) -> int:
    from compat_adapter.catalog import resolve_vendor, unit_of
    from compat_adapter.errors import BadArgument, NoSuchPath, NotAFolder
    from compat_adapter.port.clientname import guard_absent_client
    from compat_adapter.port.fastclient import CLIENT_NAME
    from compat_adapter.port.files import expected_text, remove_port, write_port
    from compat_adapter.port.plan import plan_port

    if args.install_client:
        return _install_client(args)
    if not args.to:
        raise BadArgument("port needs --to VENDOR (or --install-client alone)")
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
    launcher, client_note, missing = _launcher(args)
    plan = plan_port(root, target, launcher=launcher, sources=args.source or None)
    effect = ""
    if launcher == [CLIENT_NAME]:  # a clone may lack it: a guard must refuse then, or port says it will not
        entries, effect = guard_absent_client(target, plan.entries)
        plan = dataclasses.replace(plan, entries=entries)
    if args.check:
        want = expected_text(root, face, plan)
        path = root / plan.file
        have = path.read_text() if path.is_file() else None
        same = want == have
        missing = missing if plan.entries else ""
        if args.json:
            print(json.dumps({"target": target, "file": plan.file, "up_to_date": same, "client_missing": missing}))
        else:
            print(f"{plan.file}: " + ("up to date" if same else "differs from what port would write")
                  + ("" if same or not client_note else f" (note: {client_note})"))
            if missing:
                print(missing)
        return 0 if same and not missing else 1
    change = write_port(root, face, plan, dry_run=args.dry_run)
    if args.json:
        print(json.dumps({**port_report(plan, change.action), "client": launcher[0], "client_note": client_note,
                          "client_missing_effect": effect}, indent=2))
    else:
        _print(plan, change.action, args.dry_run)
        if client_note and plan.entries:
            print(f"note: {client_note}")
        if effect:
            print(f"note: {effect}")
    return 0


#: The compiled client's path is this install's where it cannot carry its bare name: said where
#: it is written, since a file a team commits would name a program its other machines lack (and
#: ``--check`` there would differ).
MACHINE_PATH = ("the entries start this machine's compiled shim client by its path, not as compat-adapter-shim on "
                "PATH; for a file the team commits, port where the install's scripts folder is on PATH and "
                "writable, or with --python-client, whose entries name compat-adapter on PATH")
#: What a call costs when the entries start Python: the fallback's price, said where it is chosen.
PYTHON_CLIENT_COST = ("each ported call starts Python (tens of milliseconds per call, several times a hook "
                      "written natively for the target)")


def _launcher(args: argparse.Namespace) -> tuple[list[str], str, str]:
    """The command the entries start, what the person should know of it (empty: nothing), and,
    for ``--check``, the missing client's report (empty: none).
    By default the compiled shim client, built once per install with the machine's C compiler and
    placed as ``compat-adapter-shim`` in the install's scripts folder: a call then starts no Python
    while the warm shim server runs, and the entries name it by bare name (the same file on every
    machine). Where that name on PATH is not this install's client, the entries name its path and
    port says why. Without a compiler the entries start compat-adapter's Python client instead,
    and port says so and what it costs."""
    from compat_adapter.errors import BadArgument
    from compat_adapter.port.clientname import choose_client
    from compat_adapter.port.fastclient import install_build

    if args.launcher is not None or args.python_client:
        if args.fast_client:
            raise BadArgument("--fast-client names the compiled client; --launcher and --python-client another")
        launcher = shlex.split(args.launcher or "compat-adapter")
        return launcher, PYTHON_CLIENT_COST if args.python_client else "", ""
    try:
        built = install_build()
    except BadArgument as exc:
        if args.fast_client:
            raise
        return shlex.split("compat-adapter"), f"{exc.message}; so {PYTHON_CLIENT_COST}", ""
    # --check and --dry-run write nothing, the client's stable name included: they say it is missing.
    choice = choose_client(built, install=not (args.check or args.dry_run))
    if choice.portable:
        return list(choice.launcher), choice.missing if args.dry_run else "", choice.missing if args.check else ""
    return list(choice.launcher), f"{MACHINE_PATH} ({choice.launcher[0]}): {choice.why_not}", ""


def _install_client(args: argparse.Namespace) -> int:
    """``port --install-client``: build the compiled client and place it as compat-adapter-shim (a
    teammate's one step after cloning a project whose ported entries name it); exit 1, saying why,
    where the entries could not name it on this machine."""
    from compat_adapter.port.clientname import choose_client
    from compat_adapter.port.fastclient import install_build

    built = install_build()
    choice = choose_client(built, install=True)
    if args.json:
        print(json.dumps({"client": choice.launcher[0], "built": str(built), "installed": choice.portable,
                          "client_note": choice.why_not}))
    elif choice.portable:
        print(f"compat-adapter-shim is on PATH: this install's compiled client ({built})")
    else:
        print(f"compat-adapter-shim not placed: {choice.why_not} (the client is at {built})")
    return 0 if choice.portable else 1


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
    p.add_argument("--to", help="the target vendor (claude, codex, copilot, opencode, workbuddy, gemini, qwen)")
    p.add_argument("--from", dest="source", action="append", help="port only this vendor's hooks (repeatable)")
    p.add_argument("--check", action="store_true", help="exit 1 when the target's files differ from what port would write")
    p.add_argument("--dry-run", action="store_true", help="say what would be written; write nothing")
    p.add_argument("--remove", action="store_true", help="take port's entries out of the target's files again")
    p.add_argument("--launcher", default=None,
                   help="the command that starts compat-adapter in the written entries (default: the compiled "
                        "shim client as compat-adapter-shim on PATH, or compat-adapter where no C compiler can "
                        "build it)")
    p.add_argument("--fast-client", action="store_true",
                   help="insist on the compiled shim client (the default): an error where no C compiler builds it")
    p.add_argument("--python-client", action="store_true",
                   help="write compat-adapter itself as the entries' launcher: every call then starts Python")
    p.add_argument("--install-client", action="store_true",
                   help="build the compiled shim client and place it as compat-adapter-shim beside compat-adapter "
                        "(once per machine, for a project whose committed entries name it)")
    p.add_argument("--json", action="store_true", help="print the plan and the losses as JSON")
    s = sub.add_parser("shim", help="(written by port) run ported hooks for the target that calls it")
    s.add_argument("--to", required=True, help="the vendor whose hook stdin this is")
    s.add_argument("hooks", help="the encoded hooks, as port wrote them")
    return {"port": _port, "shim": _shim}
