"""A hook's deny, read by the model in the vendor's exact words, while the host still denies.

The host words every pre-execute deny itself: the tool's error result reads ``Error: <reason>``
(DSH ``materializes`` it; the embedded host does the same). No vendor but CodeBuddy shows that
envelope. The deny stays the host's own ``tools/pre-execute`` deny, so guards, other policy
listeners, the approval pair and the session log all see a real deny; only the words the model
reads are put right afterwards, on ``tools/post-execute``, which both hosts run on a denied call
(DSH: a denial is a ``post-result``) and whose ``block`` sets the failed result's content.

Route-neutral: a route that denies a call returns :meth:`Verbatim.deny` with the vendor's text,
and its post-execute listener starts with :meth:`Verbatim.take`; when that gives a text, the call
is one its pre-tool hooks denied (no vendor runs post-tool hooks for it) and :func:`reworded` is
the answer. Only a result that is still exactly the host's wording of *this* deny is reworded.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from compat_adapter.host.protocol import PostToolDecision, PreToolDecision, ToolExecution, ToolPostEvent

__all__ = ("ENVELOPE", "Verbatim", "reworded")

#: How the host frames a deny reason in the tool's error result.
ENVELOPE = "Error: "

Key = tuple[str | None, str]

#: Records kept at most: more calls than this between a deny and its post-execute do not happen.
_KEPT = 4096


def _key(execution: ToolExecution) -> Key:
    agent = execution.agent
    return (agent.session.id if agent is not None else None, execution.call_id)


class Verbatim:
    """The denies one route gave, each with the exact text the model should read."""

    def __init__(self) -> None:
        self._said: dict[Key, tuple[str, str]] = {}

    def __len__(self) -> int:
        """Denies whose post-execute has not come yet."""
        return len(self._said)

    def deny(self, execution: ToolExecution, text: str) -> PreToolDecision:
        """The host's deny for ``text``, the exact words the vendor shows the model.

        The host's reason is the text without the envelope when the vendor uses it too (CodeBuddy),
        so that the host's own wording already agrees and ``error.message`` holds the bare reason.
        """
        reason = text[len(ENVELOPE):] if text.startswith(ENVELOPE) and len(text) > len(ENVELOPE) else text
        self._remember(execution, ENVELOPE + reason, text)
        return PreToolDecision("deny", reason)

    def ask(self, execution: ToolExecution, text: str) -> None:
        """An ``ask`` handed to the host's approval: should no approval channel answer it, the
        host denies in its own words (DSH's ``unavailable`` reason) and the model reads ``text``,
        what the vendor shows when it cannot ask. A user's refusal keeps the host's words."""
        unavailable = f'tool "{execution.name}" requires approval, but no approval channel is available'
        self._remember(execution, ENVELOPE + unavailable, text)

    def rejected(self, execution: ToolExecution, text: str) -> None:
        """A deny given as the answer to the host's approval (a refusal): the host words it as a
        user's refusal (DSH's ``rejected`` reason) and the model reads ``text``, the vendor's deny."""
        self._remember(execution, f'{ENVELOPE}the user rejected tool "{execution.name}"', text)

    def _remember(self, execution: ToolExecution, host_text: str, text: str) -> None:
        if len(self._said) >= _KEPT:
            # A call whose post-execute never came (cancelled, or a host without the seam).
            del self._said[next(iter(self._said))]
        self._said[_key(execution)] = (host_text, text)

    def take(self, event: ToolPostEvent) -> str | None:
        """The vendor's text for a result that is still the host's wording of our deny (or of an
        ask nobody could answer), else None. Each call's record is used once."""
        said = self._said.pop(_key(event.execution), None)
        if said is None:
            return None
        host_text, text = said
        result = event.result
        return text if result.is_error and result.text == host_text else None


async def reworded(text: str, next: Callable[[], Awaitable[Any]]) -> PostToolDecision:
    """Post-execute for a call whose deny the model should read as ``text``: the rest of the
    waterfall runs; unless a listener further in blocked with words of its own, ``text`` is what
    the error result says (a ``block`` keeps the call failed and sets its content)."""
    downstream: PostToolDecision = await next()
    if downstream.kind != "accept":
        return downstream
    return PostToolDecision("block", text, downstream.additional_contexts)
