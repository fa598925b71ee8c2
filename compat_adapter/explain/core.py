"""``explain``: replay one event against a vendor's hook config, for real, and say what each side does.

For each hook of the event: the matcher decision (the dialect's, with the engine named), the ``if``
decision, the stdin bytes, a real run through the project's one runner (``dispatch.run_selected``:
the vendor's shell, timeout, concurrency and deduplication), the vendor's reading of the answer
(:mod:`~compat_adapter.explain.vendorview`) and the host's (:mod:`~compat_adapter.explain.hostview`),
and every difference named by the degradation codes of the hook's grade.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compat_adapter.catalog import resolve_event, resolve_vendor
from compat_adapter.dialects.base import HookAnswer, Moment
from compat_adapter.dialects.common import host_call
from compat_adapter.errors import ConfigParseError, InvalidDeclaration
from compat_adapter.explain.diff import differences
from compat_adapter.explain.hostview import host_view
from compat_adapter.explain.lints import run_lints, static_lints
from compat_adapter.explain.matching import explain_if, explain_matcher
from compat_adapter.explain.report import ExplainReport, HookExplained, Lint, RunResult
from compat_adapter.explain.vendorview import kind_of, vendor_view
from compat_adapter.model import CommandHandler, Handler, VendorSpec

__all__ = ("Question", "explain", "moment_fields")


@dataclass(frozen=True, slots=True)
class Question:
    """What to replay: one event of one vendor, from a tool call, a prompt or a whole vendor payload."""

    vendor: str
    event: str | None = None
    tool: str | None = None
    """A tool name in the vendor's own vocabulary (``Bash``, ``bash``, ``execute_command`` …)."""
    tool_input: Mapping[str, Any] | None = None
    prompt: str | None = None
    payload: Mapping[str, Any] | None = None
    """A vendor-shaped stdin payload, as the vendor would send it."""
    files: tuple[Path, ...] = ()
    """The vendor's config files; none: discover them under ``root``."""
    root: Path = Path(".")
    host: str = "embedded"
    trust_all: bool | None = None
    prefer: str = "fidelity"


def _default_event(spec: VendorSpec, q: Question) -> str:
    if q.event:
        return q.event
    if q.payload is not None:
        for key in ("hook_event_name", "hookEventName", "hook"):
            if isinstance(q.payload.get(key), str):
                return str(q.payload[key])
    point = "tools/pre-execute" if q.tool else "agent/pre-step" if q.prompt is not None else None
    row = next((r for r in spec.events if r.point == point), None) if point else None
    if row is None:
        raise InvalidDeclaration("name the event with --event (or give --tool or --prompt)", vendor=spec.id)
    return row.event


def moment_fields(spec: VendorSpec, q: Question) -> dict[str, Any]:
    """Host facts for the moment: the vendor's tool name and arguments translated to the host's."""
    fields: dict[str, Any] = {}
    given = dict(q.payload or {})
    tool, args = q.tool, q.tool_input
    if q.payload is not None:
        nested = given_input if isinstance(given_input := given.get("input"), Mapping) else {}
        tool = tool or given.get("tool_name") or given.get("toolName") or nested.get("tool")
        raw = given.get("tool_input", given.get("toolArgs"))
        if isinstance(raw, str):
            try:
                raw = json.loads(raw)
            except ValueError:
                raw = {"value": raw}
        out = given_output if isinstance(given_output := given.get("output"), Mapping) else {}
        args = args if args is not None else raw if isinstance(raw, Mapping) else out.get("args")
        for key, value in given.items():
            if key not in ("tool_name", "toolName", "tool_input", "toolArgs", "input", "output", "hook_event_name",
                           "hookEventName", "hook", "session_id", "sessionId", "cwd", "transcript_path"):
                fields[key] = value
    if tool:
        name, host_args = host_call(spec.id, str(tool), dict(args or {}))
        fields.update(tool_name=name or str(tool), tool_input=host_args, tool_use_id="explain-call")
    if q.prompt is not None:
        fields["prompt"] = q.prompt
    return fields


def _imports(spec: VendorSpec, q: Question) -> tuple[Any, list[Lint], list[str]]:
    """The vendor's hooks (from the files, or discovered), hooks that load twice, and unusable files."""
    from compat_adapter.importers import import_files
    from compat_adapter.importers.common import ImportResult
    from compat_adapter.importers.discover import Discovered, import_all, twice

    if q.files:
        for f in q.files:
            if f.is_dir():
                raise ConfigParseError(f"{f}: a folder; name the vendor's files, or give none to search the project",
                                       path=str(f))
        result = import_files(spec.id, [str(f) for f in q.files], trust_all=q.trust_all)
        found: tuple[Discovered, ...] = (Discovered(spec.id, q.files, result),)
    else:
        # The vendor is named: every file it reads, one another vendor's layout owns included.
        found = import_all(q.root, trust_all=q.trust_all, vendors=[spec.id], shared="all")
    errors = [f"{e.code}: {e.message}" for d in found for e in d.errors]
    hooks = tuple(h for d in found if d.result for h in d.result.hooks)
    refused = tuple(r for d in found if d.result for r in d.result.refused)
    lints = [Lint(code="loads-twice", origin=t.origin, text=f"{t.why} (first: {t.other})")
             for t in twice(found, q.root)]
    plugins = tuple(p for d in found if d.result for p in d.result.plugins)
    permissions = tuple(r for d in found if d.result for r in d.result.permissions)
    return ImportResult(hooks=hooks, refused=refused, plugins=plugins, permissions=permissions), lints, errors


def _handler_text(handler: Handler | None, raw: Any) -> str:
    if isinstance(handler, CommandHandler):
        return " ".join((handler.command, *handler.args)) if handler.args else handler.command
    if handler is not None:
        return f"{type(handler).__name__}: " + str(getattr(handler, "url", None) or getattr(handler, "tool", None)
                                                   or getattr(handler, "prompt", ""))[:80]
    return str(raw)[:80]


async def explain(q: Question) -> ExplainReport:
    """Replay ``q``: every hook of its event, run for real, with both sides' readings."""
    from compat_adapter.grading import grade
    from compat_adapter.host.surfaces import surface_named
    from compat_adapter.routing.dispatch import GroupResult, make_entry, run_selected
    from compat_adapter.routing.gates import fires_for

    spec = resolve_vendor(q.vendor)
    event = _default_event(spec, q)
    row = resolve_event(spec, event)
    kind = kind_of(row)
    surface = surface_named(q.host)
    imported, lints, errors = _imports(spec, q)
    root = q.root.resolve()
    moment = Moment(event=event, session_id=f"explain-{uuid.uuid4().hex[:12]}", cwd=str(root),
                    fields=moment_fields(spec, q))
    from compat_adapter.dialects import dialect_for

    dialect = dialect_for(spec.id)
    payload = dialect.payload(moment)
    subject = dialect.subject(moment) if row.matcher_subject else None
    mine = [h for h in imported.hooks if h.event == event]
    entries = [make_entry(h.origin, h.declared) for h in mine]
    decisions = []
    chosen = []
    # An event the vendor fires only for some tools (Cursor's beforeShellExecution) fires no hook here.
    other_tool = None if fires_for(row, moment) else (
        f"{spec.id} {event} fires only for {', '.join(row.tools or ())} calls, not this one")
    for hook, entry in zip(mine, entries, strict=True):
        matcher = explain_matcher(dialect, row, hook.matcher, subject)
        admitted = explain_if(entry.handler, event, payload, str(root))
        decisions.append((matcher, admitted))
        lints += static_lints(spec, dialect, row, kind, hook.origin, hook.matcher, entry.handler)
        if matcher.matched and admitted.admitted and entry.handler is not None and other_tool is None:
            chosen.append(entry)
    group = await run_selected(chosen, moment) if chosen else GroupResult(HookAnswer(), (), (), (), moment)
    runs = {id(e): (a, o) for e, a, o in zip(group.ran, group.answers, group.outcomes, strict=True)}
    stdin = dialect.encode(payload).decode("utf-8", "replace")
    explained = []
    for hook, entry, (matcher, admitted) in zip(mine, entries, decisions, strict=True):
        ran = runs.get(id(entry))
        why_not = None if ran else other_tool or (matcher.why if not matcher.matched else admitted.why if not admitted.admitted
                                    else "the same command is configured again: "
                                         f"{spec.id} runs it once" if entry in chosen else "no handler")
        run = view = None
        if ran is not None:
            answer, outcome = ran
            run = RunResult(stdin=stdin, exit_code=outcome.exit_code, stdout=outcome.stdout, stderr=outcome.stderr,
                            duration_ms=round(outcome.duration_ms, 1), cause=outcome.cause,
                            truncated=outcome.truncated, timeout_s=entry.timeout_s)
            one = GroupResult(answer, (entry,), (answer,), (outcome,), moment)
            view = vendor_view(spec.id, row, one)
            lints += run_lints(spec, hook.origin, run, answer.decision)
        explained.append(HookExplained(origin=hook.origin, vendor=spec.id, event=event,
                                       handler=_handler_text(entry.handler, hook.handler), matcher=matcher,
                                       if_rule=admitted, fires=ran is not None, why_not=why_not, run=run,
                                       vendor_view=view))
    merged_view = host = None
    diffs: tuple[str, ...] = ()
    if group.ran:
        merged_view = vendor_view(spec.id, row, group)
        result = grade(group.ran[0].declared, surface, id=group.ran[0].id, prefer=q.prefer)
        host = host_view(result, row, group, surface)
        diffs = differences(kind, merged_view, host, result)
    refused = tuple(f"{r.code}: {r.what} — {r.reason}" for r in imported.refused) + tuple(errors)
    rules = None
    if q.tool and row.point == "tools/pre-execute":
        from compat_adapter.explain.permissions import explain_permissions

        rules = explain_permissions(spec.id, imported.permissions, str(q.tool), q.tool_input or {}, root, surface,
                                    merged_view.decision if merged_view is not None else None)
        if rules is not None and (rules.vendor.decision, rules.vendor.reads) != (rules.host.decision, rules.host.reads):
            diffs += (f"permission rules: {spec.id} would {rules.vendor.decision} "
                      f"({rules.vendor.rule or 'no rule'}), the host would {rules.host.decision} "
                      f"({rules.host.rule or 'no rule'})",)
    return ExplainReport(vendor=spec.id, event=event, confidence=row.confidence, measured_on=spec.measured_on,
                         subject=subject,
                         payload=json.loads(json.dumps(payload)),
                         files=tuple(sorted({h.origin.rsplit(":", 1)[0] for h in imported.hooks})),
                         hooks=tuple(explained), vendor_view=merged_view, host_view=host, differences=diffs,
                         lints=tuple(_unique(lints)), refused=refused,
                         not_replayed=tuple(f"{p.origin}: an OpenCode plugin ({p.name}); it runs in the plugin host, "
                                            "which explain does not start (`grade` lists its hooks)"
                                            for p in imported.plugins),
                         permissions=rules)


def _unique(lints: Sequence[Lint]) -> list[Lint]:
    return list(dict.fromkeys(lints))
