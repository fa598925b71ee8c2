"""A guard that was asked decides, or its call does not run: the answer of a run cut short.

A hook run that disposing the adapter cancels, or that a failure of this project ends, gives no
verdict. Handing the host nothing would let the call through: the embedded host reads a listener
that raises as ``next()``, and ``next()`` ends in the seam's default (``allow``). So a run cut
short while a group that could decide was deciding is :class:`Unanswered`, and each guard seam
answers it with its own refusal, worded so that the reason says what happened:

* ``tools/pre-execute``: ``deny`` with :attr:`Unanswered.reason`;
* ``approval/request``: ``cancelled`` (the host denies: "approval for tool … was cancelled");
* ``agent/pre-step`` (a prompt hook that can block): ``reject``.

A group that can only watch (the observe route) decides nothing, so cutting it short refuses
nothing. This is the host's own fail-closed rule (DSH's ``approval/request`` default is
``unavailable``; ``reference/dsh-seams.md`` §1).
"""

from __future__ import annotations

from typing import Any

__all__ = ("Unanswered",)


class Unanswered(list[Any]):
    """What :meth:`Runner.run <compat_adapter.routing.dispatch.Runner.run>` returns for a run cut
    short: no group's result (a caller that does not guard reads it as ``[]``, as before), and why.
    """

    def __init__(self, why: str, hooks: tuple[str, ...], guarded: bool) -> None:
        super().__init__()
        self.why = why
        """What cut the run short (the adapter was disposed; a failure, named)."""
        self.hooks = hooks
        """The ids of the hooks that were asked and never answered."""
        self.guarded = guarded
        """Whether those hooks could have refused: only then does the seam fail closed."""

    @property
    def reason(self) -> str:
        """The deny reason the host shows (the model reads it as the tool's error)."""
        asked = ", ".join(self.hooks) if self.hooks else "its hooks"
        return (f"{self.why} before {asked} answered; what a guard was asked about does not go on "
                "without its answer (fail closed)")
