"""What the vendor's own agent would do with the hooks' answers: decision, effect, and the text the
model reads, where it lands.

The answer is the dialect's reading of the real run (``Dialect.decode`` then ``Dialect.merge``, by
the vendor's rules); the words are the vendor's voice (``routing/voice.py``, through
``verdicts.said``); the places are :mod:`compat_adapter.explain.landing`. Nothing here is per case.
The prediction is for a non-interactive run (``claude -p``, ``codex exec``, ``copilot -p``), the
way the vendor lane measures the vendors.
"""

from __future__ import annotations

from compat_adapter.explain.landing import KINDS, facts_of, framed
from compat_adapter.explain.report import Read, VendorView
from compat_adapter.model import EventRow
from compat_adapter.routing.dispatch import GroupResult
from compat_adapter.routing.verdicts import said
from compat_adapter.catalog import voice_of
from compat_adapter.routing.voice import call_of

__all__ = ("kind_of", "vendor_view")

_BLOCKS = ("deny", "block")


def kind_of(row: EventRow) -> str:
    """The event's kind by the host seam it sits on: pre, post, prompt, stop, session, permission, other."""
    for seam in (row.point, *row.seams):
        if seam in KINDS:
            return KINDS[seam]
    return "other"


def _tool(group: GroupResult) -> str | None:
    moment = group.moment
    if moment is None or "tool_name" not in moment.fields or not group.ran:
        return None
    payload = group.ran[0].dialect.payload(moment)
    name = payload.get("tool_name", payload.get("toolName"))
    return name if isinstance(name, str) else None


def _contexts(vendor: str, kind: str, event: str, tool: str | None, group: GroupResult) -> tuple[Read, ...]:
    facts = facts_of(vendor)
    place = facts.context.get(kind)
    texts = group.merged.additional_context
    if place is None or not texts:
        return ()
    voice = voice_of(vendor)
    frame = facts.context_frame.get(kind, "{text}")
    subject = group.ran[0].dialect.subject(group.moment) if group.moment is not None and group.ran else None
    call = call_of(group.moment.fields) if group.moment is not None else None
    return tuple(Read(place=place, text=framed(frame, text, event=event, tool=tool))
                 for text in voice.contexts(event, tool, subject, texts, group.merged.printed, call=call))


def vendor_view(vendor: str, row: EventRow, group: GroupResult) -> VendorView:
    """The vendor's handling of the merged answer of every hook that ran for one event."""
    answer = group.merged
    kind = kind_of(row)
    facts = facts_of(vendor)
    voice = voice_of(vendor)
    event = row.event
    tool = _tool(group)
    base = {"decision": answer.decision, "reason": answer.reason, "failed": answer.failed,
            "ignored": tuple(answer.ignored), "halted": answer.stop}
    if event in facts.unfired:
        return VendorView(**base, fires=False,
                          effect=f"a non-interactive {vendor} run never fires {event}: the hook does not run there")
    contexts = _contexts(vendor, kind, event, tool, group)
    if kind == "pre":
        if answer.stop and voice.halt_runs_call and answer.decision not in _BLOCKS:
            return VendorView(**base, effect="continue:false: the call runs, then the agent stops", tool_runs=True,
                              input_rewritten=False, reads=contexts)
        if answer.stop:
            # The agent stops at once: the model is not called again, so it reads no deny.
            return VendorView(**base, effect="continue:false: the call does not run and the agent stops",
                              tool_runs=False, input_rewritten=False, reads=contexts)
        if answer.decision in _BLOCKS:
            text = framed(facts.deny_frame, voice.deny(said(group)), event=event, tool=tool)
            return VendorView(**base, effect="the tool call is denied; the model reads why as the tool's result",
                              tool_runs=False, input_rewritten=False, reads=(Read(place="tool_result", text=text),))
        if answer.decision == "ask":
            if facts.ask_unattended == "deny":
                text = framed(facts.ask_frame, answer.reason or "", event=event, tool=tool)
                return VendorView(**base, effect="ask: the user would be asked; a non-interactive run denies "
                                                 "the call with the hook's reason", tool_runs=False,
                                  input_rewritten=False, reads=(Read(place="tool_result", text=text), *contexts))
            return VendorView(**base, effect="ask: a non-interactive run lets the call through", tool_runs=True,
                              input_rewritten=False, reads=contexts)
        rewritten = answer.updated_input is not None and facts.rewrites_input
        effect = ("the call runs with the hook's rewritten input" if rewritten else
                  "allow: the call runs" if answer.decision == "allow" else "no decision: the call goes on as usual")
        return VendorView(**base, effect=effect, tool_runs=True, input_rewritten=rewritten, reads=contexts)
    if answer.stop and kind in ("post", "session", "other"):
        # continue:false, where the dialect did not read it as ignored: the agent stops.
        return VendorView(**base, effect="continue:false: the agent stops before its next step", reads=contexts)
    if kind == "post":
        if answer.decision in _BLOCKS:
            feedback = voice.post_feedback(said(group))
            if voice.post_block == "replace":
                return VendorView(**base, effect="block: the tool's output is replaced by the reason",
                                  reads=(Read(place="tool_result", text=feedback), *contexts))
            if voice.post_block == "context":
                return VendorView(**base, effect="block: the output stays and the reason follows it",
                                  reads=(*contexts, Read(place=facts.post_feedback, text=feedback)))
            return VendorView(**base, effect=f"{vendor} ignores a post-tool block", reads=contexts)
        return VendorView(**base, effect="context after the tool's output" if contexts else "nothing changes",
                          reads=contexts)
    if kind == "prompt":
        if answer.decision in _BLOCKS or answer.stop:
            return VendorView(**base, effect="the prompt is blocked: no model call, the user sees the reason",
                              prompt_blocked=True, reads=(Read(place="result", text=answer.reason or ""),))
        if answer.replacement_prompt is not None:
            # The model reads the hook's prompt instead of the user's; what joins the prompt's
            # message joins that one (Copilot userPromptSubmitted modifiedPrompt, measured).
            moved = tuple(Read(place="message:user" if r.place == "prompt" else r.place, text=r.text) for r in contexts)
            return VendorView(**base, effect="the model reads the hook's prompt instead of the user's",
                              prompt_blocked=False, reads=(Read(place="message:user", text=answer.replacement_prompt),
                                                           *moved))
        return VendorView(**base, effect="context for the model with the prompt" if contexts else
                          "the prompt goes on as usual", prompt_blocked=False, reads=contexts)
    if kind == "stop":
        if answer.stop:
            return VendorView(**base, effect="continue:false: the agent stops", turn_continues=False)
        if answer.decision in _BLOCKS:
            text = voice.stop(said(group, "continue: blocked by the stop hook"))
            guard = f" (the vendor lets the turn end after {voice.stop_guard} blocks)" if voice.stop_guard else ""
            return VendorView(**base, effect="block: the agent takes another step with the reason" + guard,
                              turn_continues=True, reads=(Read(place=facts.stop, text=text),))
        return VendorView(**base, effect="the turn ends", turn_continues=False)
    if kind == "permission":
        # A failed hook decides nothing: the vendor's own approval flow does (Codex: its reviewer).
        runs = True if answer.decision == "allow" else False if answer.decision in _BLOCKS else None
        effect = {True: "the permission is granted: the call runs without asking",
                  False: "the permission is refused: the call does not run"}.get(
            runs, "no decision: the vendor's own permission flow decides")  # type: ignore[arg-type]
        if answer.stop:
            # A deny that interrupts: the agent stops at once, so the model reads no refusal.
            return VendorView(**base, effect="the permission is refused and the agent stops", tool_runs=False,
                              reads=contexts)
        refused = voice.permission_denied(said(group)) if runs is False else None
        reads = (Read(place="tool_result", text=refused), *contexts) if refused is not None else contexts
        return VendorView(**base, effect=effect, tool_runs=runs, reads=reads)
    if kind == "session":
        return VendorView(**base, effect="context for the model at the start" if contexts else "nothing changes",
                          reads=contexts)
    return VendorView(**base, effect="observed: the answer decides nothing here" if answer.decision == "none"
                      else f"{answer.decision}", reads=contexts)
