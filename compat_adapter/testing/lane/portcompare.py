"""What a ported run is compared with: the source run's behaviour, in the target's own words.

A port keeps what the team's hooks do (which hooks ran, whether the tool ran, what reached the model
and the person), and the target CLI words it as it words any hook of its own: the issue asks for the
model to read the reason "in the target's own words". So the reference a ported run is held to is
the source CLI's outcome with each hook text the model or the person read re-worded by the target:
the same reason at the place and in the words the target's unit gives it (its voice, pinned against
the real target by the vendor lane). That wording is not written here: it is what compat-adapter's
embedded host says when it runs the ported file as the target's own config (the importer of the
target, the shim as the hook, the target's voice and placement), a run of its own beside the real
one.

A text is re-worded only where both the source run and the target's wording carry the same hook
words (the case's ``LANE-`` reason words, the reason the source vendor itself writes in their place,
or the marker for a landing): a text the source read and
the target's unit would not give the model stays the source's, so a text lost in the port is still a
difference, and so is a target run whose words are not its unit's. Every other facet is the source
run's as it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from compat_adapter.testing.lane.compare import reason_words
from compat_adapter.testing.lane.outcome import Landing, Outcome, normalize_text
from compat_adapter.testing.lane.scenarios import SHOWN_MARKERS, Case

__all__ = ("in_target_words",)


def _vendor_reasons(case: Case) -> list[str]:
    """The reasons the source vendor itself puts in place of the hooks' words (Copilot's exit-2 deny
    reads "hook exited with code 2", not the hook's stderr): each hook's answer as the source's
    dialect decodes it, where that reason holds none of the hook's own words."""
    from compat_adapter.catalog import unit_of
    from compat_adapter.runtime.outcome import ProcessOutcome

    dialect, out = unit_of(case.vendor).dialect, []
    for h in case.hooks:
        outcome = ProcessOutcome(exit_code=h.exit, stdout=h.stdout, stderr=h.stderr, timed_out=False,
                                 truncated=False, cause=None, duration_ms=0.0)
        try:
            reason = dialect.decode(h.event, outcome).reason
        except Exception:  # an event the dialect decodes no answer of: it words nothing itself
            continue
        if reason and not any(w in reason for w in reason_words(case)) and reason not in out:
            out.append(reason)
    return out


def _same_words(case: Case, a: str | None, b: str | None) -> bool:
    """Whether texts ``a`` and ``b`` carry the same hook words: the case's reason words, or, where
    ``a`` holds none of them, the reason the source vendor wrote in their place."""
    if a is None or b is None:
        return False
    mine = [w for w in reason_words(case) if w in a] or [r for r in _vendor_reasons(case) if r in a]
    return bool(mine) and all(w in b for w in mine)


def _mark(text: str) -> str | None:
    return next((m for m in SHOWN_MARKERS if m in text), None)


def in_target_words(case: Case, source: Outcome, worded: Outcome, here: Outcome) -> tuple[Outcome, list[str]]:
    """The source run's outcome with each hook text in the words of ``worded`` (the embedded host's
    run of the ported file as the target's config), and notes of what was re-worded. ``here``: the
    real target's run (a facet it does not observe, the person's view, is not compared)."""
    notes: list[str] = []
    if worded.error is not None:
        notes.append(f"the target's wording is unknown (its embedded run failed: {worded.error}): the source's "
                     "own words are compared")
        return source, notes
    tool_result = source.tool_result
    if _same_words(case, source.tool_result, worded.tool_result):
        tool_result = worded.tool_result
        notes.append("tool_result in the target's words")
    marks: dict[str, Landing] = dict(source.landings)
    for marker in source.landings:
        theirs = worded.landings.get(marker)
        if theirs is not None:
            marks[marker] = theirs
            notes.append(f"landing {marker} at the target's place, in its words")
    shown = source.shown
    if here.shown is None:
        shown = None  # the target's driver does not read what its CLI showed: nothing to compare
    elif shown is not None:
        theirs_by_mark = {_mark(t): t for t in worded.shown or ()}
        shown = tuple(theirs_by_mark.get(_mark(t), t) for t in shown)
        if shown != source.shown:
            notes.append("shown in the target's words")
    return replace(source, side="source in the target's words", tool_result=tool_result, landings=marks,
                   shown=shown), notes


def normalized(worded: Outcome, roots: list[str]) -> Outcome:
    """``worded`` with the ported run's folder written ``<run>`` (its files name that run's paths)."""
    def norm(text: str | None) -> str | None:
        return None if text is None else normalize_text(text, roots)

    marks: Mapping[str, Landing] = {k: Landing(v.place, norm(v.line) or "") for k, v in worded.landings.items()}
    return replace(worded, tool_result=norm(worded.tool_result), landings=marks,
                   shown=None if worded.shown is None else tuple(norm(t) or "" for t in worded.shown))


def roots_of(run: Path) -> list[str]:
    return [str(run), str(run.resolve())]
