"""What ``port`` would write for one target, and what each hook loses there, before anything is written.

A hook is graded on a target by what the target's host face can carry of what the source event can
answer: each answer the source event can give is worded by the target's face and read back by the
target's own dialect (the one the vendor lane pins to the real CLI); what does not come back is a
typed loss. Same vendor on both sides is no port at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compat_adapter.dialects.base import HookAnswer
from compat_adapter.hostface import SHIM_MARK, EntrySpec, HostFace
from compat_adapter.jsondata import jsonable
from compat_adapter.model import CapabilityResult, Degradation, EventRow, capability_result
from compat_adapter.port.nativerules import NativeRule
from compat_adapter.port.rules import RULE_TIMEOUT_S, RULES_EVENT, grade_rule, rule_entry
from compat_adapter.port.shim import ShimSpec, event_row, shim_command
from compat_adapter.vocabulary import Capability, DegradationCode, Route, safety_of

__all__ = ("PortPlan", "grade_port", "plan_port")

#: Seconds a target waits on the shim beyond the longest source hook's own timeout (its start).
SHIM_MARGIN_S = 15.0


@dataclass(frozen=True, slots=True)
class PortPlan:
    target: str
    file: str
    owns_file: bool
    entries: tuple[EntrySpec, ...]
    results: tuple[CapabilityResult, ...]
    #: Hooks not ported, each ``code: what — why`` (untrusted files, unreadable files …).
    refused: tuple[str, ...]
    trust: str
    #: Rules written in the target's own permission block as well (:mod:`compat_adapter.port.nativerules`).
    native: tuple[NativeRule, ...] = ()

    def losses(self) -> list[tuple[str, CapabilityResult, Degradation | None]]:
        """Every loss, worst first (a guard that would stop guarding first); an UNSUPPORTED hook is
        a guard that never runs."""
        out: list[tuple[str, CapabilityResult, Degradation | None]] = []
        for r in self.results:
            if r.capability is Capability.UNSUPPORTED:
                out.append(("disarms-guard", r, None))
            out.extend((str(safety_of(d.code)), r, d) for d in r.degradations)
        order = {"disarms-guard": 0, "changes-behaviour": 1, "cosmetic": 2}
        return sorted(out, key=lambda item: order[item[0]])


def _probes(row: EventRow, source: str, blocks: bool = False) -> list[tuple[str, HookAnswer]]:
    """The answers a source event can give, by what its row says an answer can do, and a block its
    own dialect reads back where the row says an answer gives context only (Claude's PostToolUse
    block: the reason goes to the model)."""
    from compat_adapter.catalog import unit_of

    reason = "port probe reason"
    out = [("context", HookAnswer(additional_context=("port probe context",)))]
    block = HookAnswer(decision="block", reason=reason)
    if row.blocking == "verdict" and row.point == "tools/pre-execute":
        out += [("deny", HookAnswer(decision="deny", reason=reason)), ("ask", HookAnswer(decision="ask", reason=reason))]
    elif row.blocking == "verdict" and row.point == "approval/request":
        out.append(("deny", HookAnswer(decision="deny", reason=reason)))
    elif row.blocking in ("verdict", "continue"):
        out.append(("block", block))
    elif blocks:
        out.append(("block", block))
    else:
        home = unit_of(source).host
        if home is not None and row.event in home.events.values() and \
                _read_back(home, source, row.event, block).decision == "block":
            out.append(("block", block))
    return out


def _read_back(face: HostFace, target: str, event: str, answer: HookAnswer) -> HookAnswer:
    from compat_adapter.catalog import unit_of
    from compat_adapter.runtime.outcome import ProcessOutcome

    reply = face.reply(event, answer)
    outcome = ProcessOutcome(exit_code=reply.exit_code, stdout=reply.stdout, stderr=reply.stderr, timed_out=False,
                             truncated=False, cause=None, duration_ms=0.0)
    return unit_of(target).dialect.decode(event, outcome)


def grade_port(source_row: EventRow, source: str, target: str, *, id: str = "port",
               matcher: str | None = None, blocks: bool = False) -> CapabilityResult:
    """One source event graded on ``target`` as a host: DIRECT (same vendor), ADAPTED with every
    typed loss, or UNSUPPORTED with the reason. ``blocks``: the source hook can block here though
    its row answers context only (a plugin callback's throw)."""
    from compat_adapter.catalog import unit_of, voice_of

    common: dict[str, Any] = {"id": id, "vendor": source, "event": source_row.event, "matcher": matcher}
    face = unit_of(target).host
    if face is None:
        return capability_result(**common, capability=Capability.UNSUPPORTED, route=Route.UNSUPPORTED,
                                 reason=f"{target} has no host face here: it cannot host another vendor's hooks")
    if source == target:
        return capability_result(**common, capability=Capability.DIRECT, route=Route.NATIVE_TRANSLATE,
                                 point=source_row.point)
    event = face.events.get(source_row.point)
    if event is None:
        return capability_result(**common, capability=Capability.UNSUPPORTED, route=Route.UNSUPPORTED,
                                 point=source_row.point,
                                 reason=f"{target} has no hook event at {source_row.point} (where {source} "
                                        f"{source_row.event} fires): nothing there could run it")
    target_row = event_row(target, event, plugin=False)
    losses = [Degradation(code=DegradationCode.PAYLOAD_FIELD_MISSING,
                          text=f"the hook's {source} payload is built from what {target} {event} sends: fields "
                               f"{target} does not send are absent"),
              Degradation(code=DegradationCode.TEXT_DIFFERS,
                          text=f"a reason reaches the model in {target}'s own words, not {source}'s"),
              Degradation(code=DegradationCode.MESSAGE_PROVENANCE,
                          text=f"what a hook says lands where {target} puts a hook's text, framed by {target}")]
    # A target event of every step hosting a source event of every prompt: the shim skips the
    # steps that carry no prompt (port/shim.py), so the hook runs when the source's would.
    continuation_skipped = target_row.fires_on == "every-step" and source_row.fires_on != "every-step"
    if source_row.fires_on != target_row.fires_on and not continuation_skipped:
        # The shim runs the hook whenever the target's event fires: a hook of failed calls only
        # (PostToolUseFailure) hosted by an event of every call runs on successes too.
        losses.append(Degradation(code=DegradationCode.APPROXIMATE,
                                  text=f"{target} {event} fires on {target_row.fires_on} occurrences, {source} "
                                       f"{source_row.event} on {source_row.fires_on}: the hook runs at other times"))
    for name, probe in _probes(source_row, source, blocks):
        back = _read_back(face, target, event, probe)
        if name in ("deny", "block") and back.decision not in ("deny", "block"):
            losses.append(Degradation(code=DegradationCode.OBSERVE_ONLY,
                                      text=f"{target} {event} cannot act on a {name}: the hook runs and is not obeyed"))
        elif name in ("deny", "block") and (probe.reason or "") not in (back.reason or ""):
            losses.append(Degradation(code=DegradationCode.TEXT_DIFFERS,
                                      text=f"{target} {event} drops the {name}'s reason"))
        elif name == "ask" and back.decision != "ask":
            losses.append(Degradation(code=DegradationCode.DECISION_NARROWED,
                                      text=f"{target} {event} has no ask: it reads a ported ask as "
                                           f"{back.decision if back.decision != 'none' else 'no decision'}"))
        elif name == "context" and "port probe context" not in " ".join(back.additional_context):
            losses.append(Degradation(code=DegradationCode.OUTPUT_FIELD_IGNORED,
                                      text=f"{target} {event} takes no additional context from a hook"))
        elif name == "context" and source_row.point == "tools/pre-execute" and not voice_of(target).pre_tool_context:
            # Its dialect reads the field, its CLI does not give it to the model (the unit's voice, measured).
            losses.append(Degradation(code=DegradationCode.OUTPUT_FIELD_IGNORED,
                                      text=f"{target} {event} reads a hook's additional context and does not give "
                                           "it to the model"))
    losses.extend(face.point_losses.get(source_row.point, ()))
    if source_row.point == "tools/pre-execute":
        back = _read_back(face, target, event, HookAnswer(decision="allow", updated_input={"command": "x"}))
        if back.updated_input is None:
            losses.append(Degradation(code=DegradationCode.INPUT_REWRITE_IGNORED,
                                      text=f"a rewritten tool input is not carried to {target}"))
    return capability_result(**common, capability=Capability.ADAPTED, route=Route.NATIVE_TRANSLATE,
                             point=source_row.point, degradations=tuple(dict.fromkeys(losses)))


def _ours(handler: Any) -> bool:
    text = handler if isinstance(handler, str) else " ".join(str(v) for v in dict(handler).values())
    return SHIM_MARK in text


def _plan_plugin(root: Path, plugin: Any, target: str, results: list[CapabilityResult], refused: list[str],
                 groups: dict[tuple[str, str], list[Mapping[str, Any]]], rows: dict[tuple[str, str], EventRow],
                 timeouts: dict[tuple[str, str], float]) -> None:
    """A plugin file's keys graded on ``target``, the carried ones grouped as hooks (the shim the
    plugin runtime of its vendor's unit brings: ``PluginRuntime.port``); an npm plugin refused."""
    import anyio

    from compat_adapter.importers import plugin_runtime

    runtime = plugin_runtime(plugin.vendor)
    home, port = runtime.home, runtime.port
    if plugin.kind != "file":
        refused.append(f"PLUGIN_NOT_PORTED: {plugin.origin} — an npm plugin is installed by OpenCode itself, "
                       "not a file of the project another agent could load")
        return
    relpath = str(Path(plugin.name).resolve().relative_to(root.resolve()))
    keys, failed = anyio.run(port.keys, root, relpath)
    if failed is not None and not keys:
        results.append(runtime.unsupported(relpath, runtime.load_event,
                                           f"the plugin did not load, so nothing of it is ported: {failed}", home))
    for key in keys:
        row, why = runtime.row(key), port.unported_reason(key, target)
        if row is None or why is not None:
            results.append(runtime.unsupported(relpath, key, why or f"OpenCode has no plugin hook named {key!r}", home))
            continue
        result = grade_plugin_key(row, home, target, relpath)
        results.append(result)
        if result.mounted:
            rows[(home, key)] = row
            groups.setdefault((home, key), []).append({"plugin": relpath, "origin": relpath,
                                                       "digest": port.digest(root / relpath)})
            timeouts[(home, key)] = port.timeout_s


def grade_plugin_key(row: EventRow, vendor: str, target: str, rid: str) -> CapabilityResult:
    """A carried plugin key of ``vendor`` graded on ``target``: as its point's hook, and what the
    shim of the vendor's plugin runtime does not carry of the callback (its ``losses``)."""
    from compat_adapter.capability import PluginRuntime, capability
    from compat_adapter.catalog import unit_of

    runtime = capability(unit_of(vendor), PluginRuntime)
    result = grade_port(row, vendor, target, id=rid, blocks=runtime is not None and runtime.port.blocks(row.event))
    if not result.mounted or runtime is None:
        return result
    extra = tuple(d for d in runtime.port.losses(row.event, target) if d not in result.degradations)
    return result.model_copy(update={"degradations": (*result.degradations, *extra)})


def _plan_rules(root: Path, vendor: str, rules: Sequence[Any], face: HostFace, target: str,
                results: list[CapabilityResult], groups: dict[tuple[str, str], list[Mapping[str, Any]]],
                native: list[NativeRule]) -> None:
    """A file's permission rules graded on ``target``: written in the target's own block where it
    reads them as written; its deny and ask rules grouped as one guard entry either way
    (:mod:`compat_adapter.port.rules`, :mod:`compat_adapter.port.nativerules`)."""
    from compat_adapter.port.nativerules import block_of, native_form, native_losses

    event = face.events.get("tools/pre-execute")
    for rule in rules:
        written, why = (None, f"{target}'s own permission rules are not kept in {face.file}, the file port owns: "
                           f"the rule is enforced by the ported hook entry") if face.owns_file else \
            native_form(rule, target, root, face.file)
        if written is not None and (event is not None or rule.behavior == "allow"):
            results.append(grade_rule(rule, target, event, native=native_losses(rule, written, target, root)))
            native.append((block_of(target), rule.behavior, rule.text))
            if rule.behavior != "allow":
                folder = str(Path(face.file).parent)
                groups.setdefault((vendor, RULES_EVENT), []).append(rule_entry(rule, root, native=folder))
            continue
        result = grade_rule(rule, target, event, not_native=why)
        results.append(result)
        if result.mounted:
            groups.setdefault((vendor, RULES_EVENT), []).append(rule_entry(rule, root))


def plan_port(root: Path, target: str, *, launcher: Sequence[str], sources: Sequence[str] | None = None,
              trust_all: bool | None = None) -> PortPlan:
    """Every hook of the project's other vendors' files, graded against ``target``, and the entries
    that would carry the hooks graded runnable."""
    from compat_adapter.catalog import resolve_vendor, unit_of
    from compat_adapter.importers.discover import import_all

    target = resolve_vendor(target).id
    face = unit_of(target).host
    if face is None:
        from compat_adapter.errors import BadArgument

        raise BadArgument(f"{target} has no host face: port cannot write hooks for it")
    wanted = [resolve_vendor(s).id for s in sources] if sources else None
    found = import_all(root, trust_all=trust_all, vendors=wanted)
    results: list[CapabilityResult] = []
    refused: list[str] = []
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    rows: dict[tuple[str, str], EventRow] = {}
    timeouts: dict[tuple[str, str], float] = {}
    native: list[NativeRule] = []
    for d in found:
        if d.vendor == target:
            continue  # the target's own files are where port writes, not what it reads
        refused.extend(f"{e.code}: {e.message}" for e in d.errors)
        if d.result is None:
            continue
        refused.extend(f"{r.code}: {r.what} ({r.origin}) — {r.reason}" for r in d.result.refused)
        for plugin in d.result.plugins:
            _plan_plugin(root, plugin, target, results, refused, groups, rows, timeouts)
        for hook in d.result.hooks:
            if _ours(hook.handler):
                continue  # an entry port wrote for another target, not a hook of the team's
            row = hook.declared.row
            result = grade_port(row, d.vendor, target, id=hook.origin, matcher=hook.matcher)
            results.append(result)
            if not result.mounted:
                continue
            key = (d.vendor, row.event)
            rows[key] = row
            handler = jsonable(hook.handler)  # as the file wrote it (nested mappings read-only there)
            # Origins relative to the project: the written entry is the same on every checkout.
            origin = hook.origin.removeprefix(f"{root.resolve()}/").removeprefix(f"{root}/")
            groups.setdefault(key, []).append({"matcher": hook.matcher, "handler": handler, "origin": origin})
            own = hook.declared.handler.timeout_s if hook.declared.handler is not None else None
            spec = unit_of(d.vendor).spec
            timeouts[key] = max(timeouts.get(key, 0.0), own or row.timeout_s or spec.default_timeout_s)
        _plan_rules(root, d.vendor, d.result.permissions, face, target, results, groups, native)
    entries = []
    for (source, event), hooks in groups.items():
        if event == RULES_EVENT:
            timeouts[(source, event)] = RULE_TIMEOUT_S
        target_event = face.events[rows[(source, event)].point if event != RULES_EVENT else "tools/pre-execute"]
        shim = ShimSpec(source, event, target_event, tuple(hooks))
        entries.append(EntrySpec(target_event, shim_command(launcher, target, shim),
                                 timeouts[(source, event)] + SHIM_MARGIN_S))
    return PortPlan(target=target, file=face.file, owns_file=face.owns_file, entries=tuple(entries),
                    results=tuple(results), refused=tuple(refused), trust=face.trust,
                    native=tuple(dict.fromkeys(native)))
