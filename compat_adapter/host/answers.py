"""What a seam's listener answers the host: the verdicts of ``tools/pre-execute``,
``tools/post-execute``, ``agent/pre-step`` and ``approval/request``, and the answers to a user's
questions. Part of the Host contract (:mod:`compat_adapter.host.protocol` re-exports every name).

Their own module, apart from the payloads the seams carry, because the routing rules that build
them (``routing/verdicts.py``, read by the matrix for each point's effect) need only these: a
command that grades, such as ``compat-adapter matrix``, does not build the whole contract.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from compat_adapter.host.protocol import UserMessage

__all__ = ("ApprovalOutcome", "AskUserQuestionAnswer", "PostToolDecision", "PreStepDecision", "PreToolDecision",
           "QuestionAnswer")


@dataclass(frozen=True, slots=True)
class PreToolDecision:
    kind: Literal["allow", "deny", "ask"]
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class PostToolDecision:
    kind: Literal["accept", "block"]
    feedback: str | None = None
    additional_contexts: tuple[UserMessage, ...] = ()
    appended: str | None = None
    """accept: text added after the result's own content, which the model then reads as part of the
    result (DSH: an accept whose ``content`` is the result's blocks followed by this text)."""


@dataclass(frozen=True, slots=True)
class PreStepDecision:
    kind: Literal["enter", "reject"]
    messages: tuple[UserMessage, ...] = ()


class ApprovalOutcome(StrEnum):
    ALLOWED_ONCE = "allowed-once"
    REJECTED = "rejected"
    CANCELLED = "cancelled"
    UNAVAILABLE = "unavailable"


@dataclass(frozen=True, slots=True)
class QuestionAnswer:
    id: str
    selected: tuple[str, ...] = ()
    custom: str | None = None


@dataclass(frozen=True, slots=True)
class AskUserQuestionAnswer:
    answers: tuple[QuestionAnswer, ...]
