"""Every difference between the vendor's handling and the host's, each named by the degradation codes
of the hook's grade that describe that kind of difference (or said to be unlisted)."""

from __future__ import annotations

from collections.abc import Mapping

from compat_adapter.explain.report import HostView, Read, VendorView
from compat_adapter.model import CapabilityResult

__all__ = ("NAMING", "differences")

#: Which degradation codes describe which kind of difference. ``unsupported`` names everything.
NAMING: Mapping[str, frozenset[str]] = {
    "tool": frozenset({"decision-narrowed", "observe-only", "exit-code-differs", "approximate"}),
    "rewrite": frozenset({"input-rewrite-ignored"}),
    "missing": frozenset({"output-field-ignored", "output-rewrite-ignored", "observe-only", "decision-narrowed",
                          "approximate"}),
    "shape": frozenset({"message-provenance", "context-cost", "approximate"}),
    "turn": frozenset({"decision-narrowed", "no-loop-guard", "observe-only", "approximate"}),
    "halt": frozenset({"output-field-ignored", "decision-narrowed", "observe-only", "approximate"}),
}


def _named(kind: str, codes: set[str]) -> str:
    hit = sorted(codes & NAMING[kind])
    return f" [{', '.join(hit)}]" if hit else " [not listed by any degradation of this hook]"


def _host_runs(host: HostView) -> bool:
    return not (host.verdict or "").startswith("PreToolDecision(deny")


def differences(kind: str, vendor: VendorView, host: HostView, result: CapabilityResult) -> tuple[str, ...]:
    codes = {str(d.code) for d in result.degradations}
    if not result.mounted:
        return (f"the host does not run this hook at all: {result.reason} [unsupported]",)
    if host.rule == "bridge":
        return tuple(f"the host's official bridge decides instead: {d.code}: {d.text}" for d in result.degradations)
    out: list[str] = []
    if kind == "pre" and vendor.tool_runs is not None and vendor.tool_runs != _host_runs(host):
        out.append(f"the tool call {'runs' if vendor.tool_runs else 'is denied'} at the vendor but "
                   f"{'runs' if _host_runs(host) else 'is denied'} on the host" + _named("tool", codes))
    # The native rule runs a rewrite as a nested call (routing/rewrite.py) and says so in its note.
    if vendor.input_rewritten and "input rewritten" not in host.note:
        out.append("the vendor runs the hook's rewritten input; the host runs the original call"
                   + _named("rewrite", codes))
    if kind == "prompt" and vendor.prompt_blocked is not None:
        blocked = (host.verdict or "").startswith("PreStepDecision(reject")
        if blocked != vendor.prompt_blocked:
            out.append(f"the prompt is {'blocked' if vendor.prompt_blocked else 'sent'} at the vendor but "
                       f"{'blocked' if blocked else 'sent'} on the host" + _named("turn", codes))
    if kind == "stop" and vendor.turn_continues is not None:
        steered = (host.verdict or "").startswith("Steer")
        if steered != vendor.turn_continues:
            out.append(f"the turn {'continues' if vendor.turn_continues else 'ends'} at the vendor but "
                       f"{'continues' if steered else 'ends'} on the host" + _named("turn", codes))
    if vendor.halted != host.halted:
        out.append(f"continue:false {'stops' if vendor.halted else 'does not stop'} the agent at the vendor but "
                   f"{'does' if host.halted else 'does not'} on the host" + _named("halt", codes))
    for read in vendor.reads:
        if read.place == "result":
            continue  # shown to the user, never to the model
        out += _read_difference(read, host.reads, codes)
    return tuple(out)


def _read_difference(read: Read, ours: tuple[Read, ...], codes: set[str]) -> list[str]:
    if read in ours:
        return []
    same_text = next((r for r in ours if r.text == read.text), None)
    if same_text is not None:
        return [f"the model reads {read.text!r} in {read.place} at the vendor, in {same_text.place} on the host"
                + _named("shape", codes)]
    carried = next((r for r in ours if read.text in r.text or r.text in read.text), None)
    if carried is None:
        return [f"the model reads {read.text!r} ({read.place}) at the vendor, nothing of it on the host"
                + _named("missing", codes)]
    return [f"the model reads {read.text!r} ({read.place}) at the vendor, {carried.text!r} ({carried.place}) "
            "on the host" + _named("shape", codes)]
