"""What a hook's answer tells the person, in the vendor's words: the notices of one group's run.

The verdict rules say what an answer does to the host; this module says what the vendor shows its
user about it (never the model): a blocked prompt's reason, a ``continue: false`` with its
``stopReason``, a ``systemMessage``. Each vendor words them in its unit (``Voice.prompt_blocked``,
``Voice.stopped``, ``Voice.system_message``); the runner hands them to the host's ``notify``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from compat_adapter.host.answers import PreStepDecision
from compat_adapter.host.protocol import Notice
from compat_adapter.routing.verdicts import Applied, said

if TYPE_CHECKING:
    from compat_adapter.routing.dispatch import GroupResult

__all__ = ("notices",)


def notices(group: GroupResult, applied: Applied, fields: Mapping[str, Any],
            session_id: str | None) -> tuple[Notice, ...]:
    """The notices of one group's answer, in the order the vendor shows them."""
    if group.empty or not applied.honoured:
        return ()
    first = group.ran[0]
    voice = first.unit.voice
    origin = f"{first.spec.id}:{first.row.event}"
    merged = group.merged
    out: list[Notice] = []
    who = said(group)
    if merged.system_message:
        out.append(Notice("message", voice.system_message(who, merged.system_message), session_id, origin))
    if applied.halt is not None:
        out.extend(_stopped(voice.stopped(who, applied.halt), session_id, origin, ends_turn=True))
    elif isinstance(applied.verdict, PreStepDecision) and applied.verdict.kind == "reject":
        if merged.stop:
            out.extend(_stopped(voice.stopped(who, merged.stop_reason or who.reason), session_id, origin,
                                ends_turn=True))
        else:
            prompt = str(fields.get("prompt") or "")
            out.append(Notice("blocked", voice.prompt_blocked(who, prompt), session_id, origin,
                              ends_turn=True))
    if applied.halt is None and not merged.stop and merged.stop_reason:
        # A stopReason the vendor shows though the turn goes on (Codex's PostToolUse).
        out.extend(_stopped(voice.stopped(who, merged.stop_reason), session_id, origin))
    return tuple(out)


def _stopped(text: str | None, session_id: str | None, origin: str, ends_turn: bool = False) -> tuple[Notice, ...]:
    # None: the vendor shows its user nothing of a continue:false (CodeBuddy), so neither does the host.
    return () if text is None else (Notice("stopped", text, session_id, origin, ends_turn=ends_turn),)
