"""The shim a ported entry runs: the target's stdin in, the source vendor's hooks run with their own
semantics, the target's answer out.

One process per call (no server yet): the entry's command names the hooks it runs (encoded in the
command itself, so that a target which trusts a command by its text trusts exactly these hooks).
The target's stdin is read by the target's host face into the host-neutral moment; the source
vendor's dialect builds its payload, selects hooks with its matcher engine and ``if`` rules, runs
them through the project's one runner (the source vendor's shell, variables, folder, timeouts,
concurrency) and merges their answers by its rules; the target's face words the merged answer.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from compat_adapter.dialects.base import HookAnswer
from compat_adapter.errors import BadArgument, CompatError
from compat_adapter.hostface import Reply

if TYPE_CHECKING:
    from compat_adapter.routing.dispatch import HookEntry

__all__ = ("ShimSpec", "answer_for", "decode_spec", "encode_spec", "event_row", "run_shim", "shim_command",
           "shim_reply")


@dataclass(frozen=True, slots=True, eq=False)
class ShimSpec:
    """What one ported entry runs: the source vendor, its event, the target's event, its hooks
    (each ``{matcher, handler, origin}`` with the handler as the source file wrote it). Equal only
    to itself: a spec is known by its encoded text (:func:`decode_spec` keeps one per text)."""

    source: str
    event: str
    target_event: str
    hooks: tuple[Mapping[str, Any], ...]


def encode_spec(spec: ShimSpec) -> str:
    data = {"from": spec.source, "event": spec.event, "to_event": spec.target_event, "hooks": list(spec.hooks)}
    raw = json.dumps(data, separators=(",", ":"), sort_keys=True).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


#: Entries a warm server keeps decoded (each ported entry of a project is one).
_KEPT = 256


@lru_cache(maxsize=_KEPT)
def decode_spec(text: str) -> ShimSpec:
    """The hooks an entry's command carries. Kept per text: the warm server serves the same entry
    call after call, and the text is all the spec is made of (its hooks are read, never changed)."""
    try:
        data = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
        return ShimSpec(str(data["from"]), str(data["event"]), str(data["to_event"]),
                        tuple(dict(h) for h in data["hooks"]))
    except (ValueError, KeyError, TypeError) as exc:
        raise BadArgument(f"the shim's hook list does not decode: {exc}; port the hooks again") from exc


async def answer_for(spec: ShimSpec, target: str, stdin: bytes, cwd: str) -> HookAnswer:
    """The source hooks' merged answer to the target's stdin."""
    from compat_adapter.catalog import unit_of
    from compat_adapter.handlers.run import if_admits
    from compat_adapter.model import CommandHandler
    from compat_adapter.port.callerruns import ClientRuns
    from compat_adapter.routing.dispatch import run_selected, select
    from compat_adapter.runtime.callenv import call_runner

    face = unit_of(target).host
    if face is None:
        raise BadArgument(f"{target} has no host face: it cannot host ported hooks")
    moment = face.read(spec.target_event, stdin, cwd)
    moment = replace(moment, event=spec.event)
    if any("rule" in h for h in spec.hooks):
        from compat_adapter.port.rules import rule_answer

        return rule_answer(spec.source, spec.hooks, moment, target)
    if _continuation(spec, target, moment):
        return HookAnswer()
    if any("plugin" in h for h in spec.hooks):
        from compat_adapter.importers import plugin_runtime

        # Ported plugins run through the shim of the plugin runtime their vendor's unit brings.
        port = plugin_runtime(spec.source).port
        return await port.answer(spec.hooks, spec.event, moment, port.timeout_s)
    chosen = select(_entries(spec), moment)
    if any(e.handler is not None and e.handler.if_rule is not None for e in chosen):
        payload = chosen[0].dialect.payload(moment)
        chosen = [e for e in chosen if e.handler is not None
                  and (e.handler.if_rule is None or if_admits(e.handler, moment.event, payload, moment.cwd))]
    else:
        chosen = [e for e in chosen if e.handler is not None]
    caller = call_runner()
    if len(chosen) == 1 and isinstance(chosen[0].handler, CommandHandler) and isinstance(caller, ClientRuns):
        # The call's one run, started by the compiled client: it also gets the answer should the run
        # exit 0 silently, and gives it at once when so (port/callerruns.py).
        caller.foretell(_silent_reply(spec, target, chosen[0]))
    group = await run_selected(chosen, moment)
    return _voiced(spec, group.ran, group.merged)


def _voiced(spec: ShimSpec, ran: Sequence[HookEntry], merged: HookAnswer) -> HookAnswer:
    from compat_adapter.catalog import voice_of

    if ran and ran[0].row.point == "tools/pre-execute" and not voice_of(spec.source).pre_tool_context:
        # The source vendor never gives the model a pre-tool hook's context (its voice, measured):
        # nor does the port, whatever the target would do with it.
        return replace(merged, additional_context=(), printed=())
    return merged


@lru_cache(maxsize=_KEPT)
def _silent_reply(spec: ShimSpec, target: str, entry: HookEntry) -> Reply:
    """The target's reply to a call whose one hook, ``entry``, exits 0 and prints nothing: read,
    merged, voiced and worded as :func:`answer_for` and :func:`shim_reply` do after a real run.
    None of those steps reads the call's moment (an outcome is read by the event alone), so the
    reply is the spec's, the target's and the hook's, and is kept."""
    from compat_adapter.catalog import unit_of
    from compat_adapter.port.callerruns import silent_outcome
    from compat_adapter.routing.hookrun import answer_of

    face = unit_of(target).host
    assert face is not None  # answer_for returned before any run otherwise
    merged = entry.dialect.merge(spec.event, (answer_of(entry, spec.event, silent_outcome()),))
    return face.reply(spec.target_event, _voiced(spec, (entry,), merged))


@lru_cache(maxsize=_KEPT)
def _entries(spec: ShimSpec) -> tuple[HookEntry, ...]:
    """The spec's hooks, declared and mounted once per spec: a mounted hook also keeps its matcher's
    verdict per subject, which the next call of the entry then finds."""
    from compat_adapter.declare import declare_hook
    from compat_adapter.routing.dispatch import make_entry

    return tuple(make_entry(str(h.get("origin") or f"port:{i}"),
                            declare_hook(spec.source, spec.event, h.get("matcher"), h["handler"], origin=h.get("origin")))
                 for i, h in enumerate(spec.hooks))


def _continuation(spec: ShimSpec, target: str, moment: Any) -> bool:
    """A step the source event never fires on: the target's event fires on every step (Qwen's
    UserPromptSubmit, again after each tool result with an empty prompt, measured) and the source's
    once per prompt, and this step carries no prompt."""
    if event_row(target, spec.target_event, plugin=False).fires_on != "every-step":
        return False
    if _source_row(spec).fires_on == "every-step":
        return False
    return not str(moment.fields.get("prompt") or "").strip()


def _source_row(spec: ShimSpec) -> Any:
    """The row of the source event: a plugin key's is the plugin runtime's (port graded it so)."""
    return event_row(spec.source, spec.event, plugin=any("plugin" in h for h in spec.hooks))


def event_row(vendor: str, event: str, *, plugin: bool = True) -> Any:
    """The vendor's row for ``event``: its table's, or, for a plugin callback its table does not
    serve as a command hook (OpenCode's chat.message, a port target's event too), the row of the
    plugin runtime its unit brings."""
    from compat_adapter.capability import PluginRuntime, capability
    from compat_adapter.catalog import resolve_event, unit_of

    unit = unit_of(vendor)
    runtime = capability(unit, PluginRuntime) if plugin or unit.spec.row(event) is None else None
    row = runtime.row(event) if runtime is not None else None
    return row if row is not None else resolve_event(unit.spec, event)


def run_shim(target: str, encoded: str, stdin: bytes, cwd: str | None = None) -> Reply:
    """The target's reply to one call, in a process of its own (its own event loop)."""
    import anyio

    return anyio.run(shim_reply, target, encoded, stdin, cwd or os.getcwd())


async def shim_reply(target: str, encoded: str, stdin: bytes, cwd: str) -> Reply:
    """The target's reply to one call made in ``cwd``; a failure of the shim itself denies a tool
    call (a guard that cannot run must not let the call through) and is reported on stderr. It reads
    its environment through :mod:`compat_adapter.runtime.callenv` and changes nothing of the
    process's, so the warm server serves many calls at once with it."""
    from compat_adapter.catalog import resolve_vendor, unit_of

    spec = decode_spec(encoded)
    target = resolve_vendor(target).id
    face = unit_of(target).host
    if face is None:
        raise BadArgument(f"{target} has no host face: it cannot host ported hooks")
    try:
        answer = await answer_for(spec, target, stdin, cwd)
    except CompatError as exc:
        why = f"compat-adapter shim could not run the {spec.source} {spec.event} hooks: {exc}"
        reply = face.reply(spec.target_event, HookAnswer(decision="deny", reason=why))
        return replace(reply, stderr=why + "\n")
    return face.reply(spec.target_event, answer)


def shim_command(launcher: Sequence[str], target: str, spec: ShimSpec) -> str:
    """The command a ported entry runs."""
    import shlex

    return " ".join((*(shlex.quote(p) for p in launcher), "shim", "--to", target, encode_spec(spec)))
