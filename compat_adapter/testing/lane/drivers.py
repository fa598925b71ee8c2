"""The two drivers of a scenario: the real vendor CLI, and compat-adapter on the embedded host.

Both return an :class:`Outcome`. The embedded side does what a user does: it imports the same
vendor-native config file with the importers, registers the import on a ``CompatAdapter`` bound to
a ``MemoryHost``, and drives the embedded scripted loop with the same model turns and prompt. The
hooks are the same self-recording hook, so both sides' hook logs have the same shape.
"""

from __future__ import annotations

import json
from dataclasses import replace
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from compat_adapter.testing.lane.outcome import (
    HookRun,
    Item,
    Outcome,
    Refusal,
    landings,
    new_items,
    normalize_text,
    wire_items,
)
from compat_adapter.permissions.grade import RULE_PREFIX
from compat_adapter.testing.lane.hookserver import serve_hooks
from compat_adapter.testing.models import call_ids
from compat_adapter.testing.lane.run import VendorRecord, hook_files, prepare_project, run_vendor
from compat_adapter.testing.lane.scenarios import EDIT_TEXT, SHOWN_MARKERS, Case
from compat_adapter.testing.lane.vendors import cli_for

__all__ = ("TIMED_OUT_NOTE", "embedded_outcome", "vendor_outcome")

REWRITE_MARK = "rewritten-by-hook"
#: What the trust record says trusted a scenario's config.
TRUST_COMMAND = "compat_adapter.testing.lane: a scenario's own hook config, written by the lane"


def _hooks(records: list[dict[str, Any]], roots: list[str]) -> tuple[HookRun, ...]:
    def norm(value: Any) -> Any:
        return json.loads(normalize_text(json.dumps(value), roots))

    return tuple(HookRun(r["event"], norm(r.get("stdin")), normalize_text(r.get("stdout", ""), roots),
                         normalize_text(r.get("stderr", ""), roots), int(r.get("exit", 0)), r.get("label"))
                 for r in records)


def _label_of(case: Case, event: str | None, matcher: str | None) -> str | None:
    """Which labelled hook of the case a refused entry is: the one of its event, or of its event and
    matcher when the case labels several (None: the case labels none of that event's hooks)."""
    mine = [h for h in case.hooks if h.event == event and h.label]
    if len(mine) > 1:
        # The lane writes a hook with no matcher under ``.*`` on a tool event (claude_shaped_table).
        mine = [h for h in mine if (h.matcher or ".*") == (matcher or ".*")]
    return mine[0].label if len(mine) == 1 else None


#: The note a vendor run carries when the lane killed it at its time bound.
TIMED_OUT_NOTE = "the CLI timed out and was killed"


def _tells_the_person(case: Case) -> bool:
    """Whether a hook of the case answers with something the vendor shows its user (a mark)."""
    return any(m in h.stdout or m in h.stderr for h in case.hooks for m in SHOWN_MARKERS)


def _first_tool_result(requests: list[list[Item]], roots: list[str]) -> str | None:
    for items in requests:
        for item in items:
            if item.kind == "tool_result":
                return normalize_text(item.text, roots)
    return None


def vendor_outcome(case: Case, run: Path, **options: Any) -> Outcome:
    """Run ``case`` under the real vendor CLI (offline) and normalize what happened."""
    # A case whose vendor never ends by itself (a Stop hook that always blocks) is killed at its own
    # bound; its kill is then the outcome measured, not a failure of the run.
    killed = case.options.get("killed_after")
    if killed is not None:
        options.setdefault("timeout", float(killed))
    record: VendorRecord = run_vendor(case, run, **options)
    roots = [str(run), str(run.resolve())]
    cli = cli_for(case.vendor)
    # Each tool result as the model read it, without the CLI's own framing of every result (the
    # driver says what that is), so that a hook's text compares with ours.
    main = [[replace(i, text=cli.tool_text(i.text)) if i.kind == "tool_result" else i
             for i in wire_items(cli.api, r["body"])]
            for r in record.requests if r["step"] and isinstance(r["body"], dict)]
    notes = [f"isolation: {record.result['isolation']}", f"rc {record.result['rc']}",
             f"duration {record.result['duration_s']} s"]
    if record.result["dns_lookups"]:
        notes.append("dns sink answered NXDOMAIN for " + ", ".join(record.result["dns_lookups"]))
    if record.result["timed_out"]:
        notes.append(TIMED_OUT_NOTE)
    seen = cli.shown(record.result)
    if _tells_the_person(case) and cli.terminal_ui:
        # What a hook tells the person is drawn by the CLI's terminal UI, not printed by its
        # non-interactive mode: the same case once more in the UI, and its screen read.
        screen = run_vendor(case, run.with_name(f"{run.name}-screen"), screen=True,
                            timeout=float(options.get("timeout", 150.0)), lane=options.get("lane"))
        seen = cli.screen_notices(screen.result["stdout"])
        notes.append(f"shown read off the terminal UI (rc {screen.result['rc']}, {screen.result['duration_s']} s)")
    return Outcome(
        side="vendor", case=case.name, hooks=_hooks(record.hooks, roots), tool_ran=record.tool_ran,
        rewritten=any(REWRITE_MARK in i.text for items in main for i in items if i.kind == "tool_result"),
        tool_result=_first_tool_result(main, roots), landings=landings(main, roots), model_calls=len(main),
        reads=new_items(main), notes=tuple(notes), texts=tuple(tuple(items) for items in main),
        shown=None if seen is None else tuple(normalize_text(t, roots) for t in seen),
        error=None if record.result["rc"] == 0 or cli.ends_nonzero(case)
        or (killed is not None and record.result["timed_out"]) else
        f"the CLI exited {record.result['rc']}: {record.result['stderr'][-400:]}")


@asynccontextmanager
async def _served(case: Case, run: Path) -> AsyncIterator[None]:
    """The case's web server for its http hooks, here on this machine's loopback (when it has one)."""
    spec = case.options.get("http_server")
    if spec is None:
        yield
        return
    with serve_hooks(spec, run / "http-hooks.jsonl"):
        yield


async def embedded_outcome(case: Case, run: Path) -> Outcome:
    """Import the same vendor config as a user would, run the same turns on the embedded host."""
    from compat_adapter import CompatAdapter, CompatError, MemoryHost
    from compat_adapter.importers import import_files, register_import
    from compat_adapter.importers.gate import trust_files

    proj = prepare_project(case, run)
    roots = [str(run), str(run.resolve())]
    cli = cli_for(case.vendor)
    configs = hook_files(case, proj)
    try:
        # The vendor runs load the project's hooks only because they were told to trust it
        # (trusted folder/project flags); here the user's equivalent is trusting the file. The
        # store is the one of COMPAT_ADAPTER_STATE_HOME (the lane's callers point it at a private
        # folder), never the user's own during tests.
        # OpenCode's config is the lane's plugin file: trusted, it loads in the plugin host (the
        # same file the real OpenCode runs), so the differential compares the plugin as written.
        trust_files(case.vendor, configs, command=TRUST_COMMAND)
        imported = import_files(case.vendor, configs)
    except CompatError as exc:
        return Outcome(side="embedded", case=case.name, error=f"import failed: {exc}")
    refused = tuple(Refusal(r.code, r.reason, r.event, _label_of(case, r.event, r.matcher))
                    for r in imported.refused)
    # The scripted loop's JSON form: the host's own shell tool, with the arguments the vendor's
    # model sent besides the command (a description), so that the payloads compare on the fields
    # the dialect builds.
    call_of = {"shell": lambda value: {"name": "bash", "arguments": {"command": value, **cli.extra_args}},
               "read": lambda value: {"name": "read", "arguments": {"path": value}},
               "write": lambda value: {"name": "write", "arguments": {"path": value, "content": EDIT_TEXT}}}
    # Each call carries the id the vendor side's scripted model gives it (``call_0001`` …), as a
    # host keeps its model's call ids: a vendor that names the call to the model names the same one.
    ids = call_ids(cli.api)
    script = [{"tools": [{**call_of[kind](value), **({"id": next(ids)} if ids is not None else {})}]}
              if kind in call_of else value for kind, value in case.steps]
    degradations: dict[str, tuple[str, ...]] = {}
    per_hook: list[tuple[str, str, tuple[str, ...]]] = []
    async with MemoryHost(proj) as host, _served(case, run):
        async with CompatAdapter(host, state_dir=str(run / "adapter")) as adapter:
            try:
                graded = await register_import(adapter, imported)
            except CompatError as exc:
                return Outcome(side="embedded", case=case.name, error=f"registration failed: {exc}", refused=refused)
            for g in graded:
                codes = [str(d.code) for d in g.degradations]
                if str(g.capability) == "UNSUPPORTED":
                    codes.append("unsupported")
                degradations[g.event] = tuple(dict.fromkeys(degradations.get(g.event, ()) + tuple(codes)))
            # Each hook's own grade, by its handler (register_import answers the hooks first, in order).
            per_hook = [(h.event, json.dumps(h.handler if isinstance(h.handler, str) else dict(h.handler),
                                             sort_keys=True, default=str),
                         tuple(str(d.code) for d in g.degradations) + (("unsupported",)
                                                                       if str(g.capability) == "UNSUPPORTED" else ()))
                        for h, g in zip(imported.hooks, graded, strict=False)]
            # And each permission rule's (no command: it decides at tools/pre-execute, see judge).
            per_hook += [(g.event, "", tuple(str(d.code) for d in g.degradations) + (
                ("unsupported",) if str(g.capability) == "UNSUPPORTED" else ()))
                for g in graded[len(imported.hooks):] if str(g.event).startswith(RULE_PREFIX)]
            agent = await host.create_agent(script=script)
            await agent.run_turn(case.prompt)
            await host.settle()
            await agent.dispose()
            await host.settle()
            events = list(agent.session.events)
    items: list[Item] = []
    calls = 0
    requests: list[list[Item]] = []
    for e in events:
        data = e.data
        if e.type == "assistant/message":
            calls += 1
            requests.append(list(items))  # what the model had read when it answered
        elif e.type == "user/message":
            text = str(data.get("text", ""))
            items.append(Item("user", "text", text, len(items), case.prompt in text))
        elif e.type == "developer/message":
            # Context the vendor puts in its own system or developer message (``role``).
            items.append(Item(str(data.get("role", "developer")), "text", str(data.get("text", "")), len(items)))
        elif e.type == "tool/result":
            items.append(Item("tool", "tool_result", str(data.get("text", "")), len(items),
                              is_error=bool(data.get("isError"))))
    # Only what the model was sent counts, as on the vendor's side (its requests are all the lane
    # sees): a text the session holds after the last model call (a deny's result when a halt ended
    # the turn) reached no model here either.
    hook_log = run / "state" / "hooks.jsonl"
    records = [json.loads(line) for line in hook_log.read_text().splitlines()] if hook_log.exists() else []
    return Outcome(
        side="embedded", case=case.name, hooks=_hooks(records, roots), tool_ran=(proj / "tool-ran.txt").exists(),
        rewritten=any(REWRITE_MARK in i.text for sent in requests for i in sent if i.kind == "tool_result"),
        tool_result=_first_tool_result(requests, roots), landings=landings(requests, roots), model_calls=calls,
        reads=new_items(requests), refused=refused, degradations=degradations,
        texts=tuple(tuple(items) for items in requests), graded=tuple(per_hook),
        shown=tuple(normalize_text(str(e.data.get("text", "")), roots) for e in events
                    if e.type == "notice" and any(m in str(e.data.get("text", "")) for m in SHOWN_MARKERS)))
