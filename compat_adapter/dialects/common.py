"""What every dialect shares: JSON framing, tool translation, regex compilation, answer building
and the usual merge (strongest decision wins, everything else kept in config order).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from compat_adapter.dialects.base import Decision, HookAnswer

# One conversion for all host data, shared with the session log and the routes.
from compat_adapter.jsondata import jsonable as plain

if TYPE_CHECKING:
    from compat_adapter.runtime.outcome import ProcessOutcome

__all__ = (
    "OUTPUT_CAP",
    "AnswerDraft",
    "RANK",
    "cause_text",
    "chain_input",
    "encode_json",
    "first_line",
    "host_call",
    "merge_answers",
    "overlay",
    "plain",
    "vendor_call",
)

#: Bytes of a hook's stdout (and stderr) a vendor reads. Copilot documents 10 MiB; the others
#: document no cap (Node's ``spawn`` and Rust's ``read_to_end`` keep everything), so a deny of a
#: few MiB counts there too and 10 MiB is where we stop keeping output (a listed difference).
OUTPUT_CAP = 10 * 1024 * 1024

#: The usual precedence across hooks: deny (or block) beats ask beats allow beats nothing.
RANK: Mapping[str, int] = {"none": 0, "allow": 1, "ask": 2, "deny": 3, "block": 3}


def encode_json(payload: Mapping[str, Any], *, newline: bool) -> bytes:
    # Compact separators and raw UTF-8, the way JSON.stringify writes it; hooks that compare
    # bytes (or grep the payload) see what the vendor's agent would send.
    text = json.dumps(plain(payload), ensure_ascii=False, separators=(",", ":"))
    return (text + "\n" if newline else text).encode("utf-8")


# ── tools ───────────────────────────────────────────────────────────────────────────────────────

def _renames(vendor_id: str, vendor_name: str, host_name: str) -> tuple[tuple[str, str], ...]:
    return _argument_renames(vendor_id).get((vendor_name, host_name), ())


@cache
def _argument_renames(vendor_id: str) -> Mapping[tuple[str, str], tuple[tuple[str, str], ...]]:
    """The vendor's argument renames by (vendor tool, host tool), read from its table once per
    process (as the tool-name maps are): a payload encoded per hook run looks nothing up."""
    from compat_adapter.catalog import resolve_vendor

    renames: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {}
    for tool in resolve_vendor(vendor_id).tools:
        renames.setdefault((tool.vendor, tool.host), tool.arguments)  # the first listed wins, as before
    return renames


def vendor_call(vendor_id: str, host_name: str, host_args: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The vendor's tool name and argument object for a host tool call."""
    from compat_adapter.catalog import vendor_tool

    name = vendor_tool(vendor_id, host_name)
    to_vendor = {host: vendor for vendor, host in _renames(vendor_id, name, host_name)}
    return name, {to_vendor.get(k, k): plain(v) for k, v in host_args.items()}


def host_call(vendor_id: str, vendor_name: str,
              vendor_args: Mapping[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """The host tool and argument object for a vendor tool call; None when the host has no such tool."""
    from compat_adapter.catalog import host_tool

    name = host_tool(vendor_id, vendor_name)
    if name is None:
        return None, dict(vendor_args)
    to_host = dict(_renames(vendor_id, vendor_name, name))
    return name, {to_host.get(k, k): plain(v) for k, v in vendor_args.items()}


# ── matchers ────────────────────────────────────────────────────────────────────────────────────

# ── outcomes ────────────────────────────────────────────────────────────────────────────────────

def first_line(text: str) -> str:
    """The first non-empty line of `text`, stripped; '' when there is none."""
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def cause_text(outcome: ProcessOutcome) -> str:
    """A sentence for a run that ended without an exit code of its own."""
    if outcome.timed_out or outcome.cause == "timeout":
        return "hook timed out"
    if outcome.cause == "signal":
        return f"hook killed by signal {outcome.signal}" if outcome.signal else "hook killed by a signal"
    if outcome.cause == "spawn-failed":
        detail = first_line(outcome.stderr)
        return f"hook could not be started: {detail}" if detail else "hook could not be started"
    if outcome.cause == "cancelled":
        return "hook run was cancelled"
    return "hook ended without an exit code"


@dataclass(slots=True)
class AnswerDraft:
    """A mutable answer under construction; `freeze` turns it into a `HookAnswer`."""

    decision: Decision = "none"
    reason: str | None = None
    additional_context: list[str] = field(default_factory=list)
    system_message: str | None = None
    stop: bool = False
    stop_reason: str | None = None
    updated_input: Mapping[str, Any] | None = None
    updated_output: Any = None
    replacement_prompt: str | None = None
    answers: Mapping[str, Any] | None = None
    env: dict[str, str] = field(default_factory=dict)
    failed: str | None = None
    ignored: list[str] = field(default_factory=list)
    #: Problems that make the whole output invalid by the vendor's schema.
    problems: list[str] = field(default_factory=list)

    def context(self, value: Any, where: str) -> None:
        """Add one context string; a non-string is a schema problem, null is absent."""
        if value is None:
            return
        if not isinstance(value, str):
            self.problems.append(f"{where} must be a string")
        elif value.strip():
            self.additional_context.append(value.strip())

    def freeze(self) -> HookAnswer:
        return HookAnswer(
            decision=self.decision,
            reason=self.reason,
            additional_context=tuple(self.additional_context),
            system_message=self.system_message,
            stop=self.stop,
            stop_reason=self.stop_reason,
            updated_input=self.updated_input,
            updated_output=self.updated_output,
            replacement_prompt=self.replacement_prompt,
            answers=self.answers,
            env=MappingProxyType(dict(self.env)),
            failed=self.failed,
            ignored=tuple(self.ignored),
        )


def overlay(base: Mapping[str, Any] | None, top: Mapping[str, Any]) -> dict[str, Any]:
    """`top`'s keys written over `base` (a partial override, as CodeBuddy and OpenCode rewrite)."""
    return {**(base or {}), **top}


def _joined(parts: Iterable[str | None], sep: str) -> str | None:
    seen: list[str] = []
    for part in parts:
        if part and part not in seen:
            seen.append(part)
    return sep.join(seen) if seen else None


def merge_answers(
    answers: Sequence[HookAnswer],
    *,
    last_decision_wins: bool = False,
    overlay_inputs: bool = False,
    reason_sep: str = "\n",
    finish: Callable[[HookAnswer], HookAnswer] | None = None,
) -> HookAnswer:
    """Fold answers given in config order.

    The decision is the strongest by :data:`RANK` (the first answer at that rank names the
    kind), or the last non-``none`` one when `last_decision_wins`; the reasons of the answers
    that carry the winning decision are joined. Contexts, ignored fields and failures keep config
    order; rewrites, replacement prompts and answers take the last value given (or overlay each
    other when `overlay_inputs`); env variables overlay in order.
    """
    if not answers:
        return HookAnswer()
    if len(answers) == 1 and finish is None:
        return answers[0]
    if last_decision_wins:
        deciding = [a for a in answers if a.decision != "none"]
        decision: Decision = deciding[-1].decision if deciding else "none"
        winners = deciding[-1:]
    else:
        top = max(RANK[a.decision] for a in answers)
        decision = next(a.decision for a in answers if RANK[a.decision] == top)
        winners = [a for a in answers if a.decision == decision] if top else []
    updated_input: Mapping[str, Any] | None = None
    updated_output: Any = None
    replacement: str | None = None
    answered: Mapping[str, Any] | None = None
    env: dict[str, str] = {}
    for a in answers:
        if a.updated_input is not None:
            updated_input = overlay(updated_input, a.updated_input) if overlay_inputs else a.updated_input
        if a.updated_output is not None:
            updated_output = a.updated_output
        if a.replacement_prompt is not None:
            replacement = a.replacement_prompt
        if a.answers is not None:
            answered = a.answers
        env.update(a.env)
    merged = HookAnswer(
        decision=decision,
        reason=_joined((a.reason for a in winners), reason_sep),
        additional_context=tuple(c for a in answers for c in a.additional_context),
        printed=tuple(c for a in answers for c in a.printed),
        system_message=_joined((a.system_message for a in answers), "\n"),
        stop=any(a.stop for a in answers),
        # A stopping hook's reason first; else one shown without a stop (Codex's PostToolUse).
        stop_reason=next((a.stop_reason for a in answers if a.stop and a.stop_reason), None)
        or next((a.stop_reason for a in answers if a.stop_reason), None),
        updated_input=updated_input,
        updated_output=updated_output,
        replacement_prompt=replacement,
        answers=answered,
        env=MappingProxyType(env),
        failed=_joined((a.failed for a in answers), "; "),
        ignored=tuple(i for a in answers for i in a.ignored),
    )
    return finish(merged) if finish is not None else merged


def chain_input(payload: Mapping[str, Any], specific: object, *, prompt_context: Callable[[str], str | None] | None,
                tool_input: bool) -> dict[str, Any]:
    """The next hook's input in a sequential run (Gemini's and Qwen's ``applyHookOutputToInput``):
    ``payload`` with the ``prompt`` extended by the hook's ``additionalContext`` after a blank line
    (``prompt_context`` says what the vendor makes of that text: None adds nothing), and
    ``tool_input`` overlaid with its ``tool_input``, both read from the ``hookSpecificOutput``
    object ``specific``."""
    out = dict(payload)
    if not isinstance(specific, Mapping):
        return out
    context = specific.get("additionalContext")
    if prompt_context is not None and isinstance(context, str) and isinstance(out.get("prompt"), str):
        added = prompt_context(context)
        if added is not None:
            out["prompt"] = f"{out['prompt']}\n\n{added}"
    new = specific.get("tool_input")
    if tool_input and isinstance(new, Mapping) and isinstance(out.get("tool_input"), Mapping):
        out["tool_input"] = overlay(out["tool_input"], plain(new))
    return out

