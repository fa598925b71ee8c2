"""How a real-config case is judged: the vendor lane's facets, with which hooks ran and what hook
text the model read seen from outside the hooks, and each difference named only by the hook that
made it.

Which hooks ran is the process observer's record (:mod:`.procwatch`) on each side: per hook command
of the file, how many times a process started it (``ran:<command>``). The record, not the hooks'
own logs, so a team's real script counts as a stand-in does. What hook text the model read: every
line a hook run wrote to its vendor (each string of a JSON answer, line by line), looked for in
every model request of each side, and where it first reached the model (``text:<line>``: a tool
result, the prompt's message, or a message of its own role). The lane's ``LANE-*`` markers and the
other facets (whether the tool ran, the model calls, the tool result) are compared as the vendor
lane compares them.

A difference is listed only by the hooks that can have made it: a hook's run count by that hook's
own grade; a text by the grade of the hooks whose runs wrote it; any other facet by the hooks that
ran on either side (or that start no process: an http or prompt hook) at a point of the host that
can change that facet. A hook that ran a different number of times here also names what its text
and its decisions changed, by the codes that name its firing. A hook the import refused, or graded
UNSUPPORTED, names what it changed when it ran fewer times here than at the vendor.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from compat_adapter.catalog import resolve_vendor
from compat_adapter.permissions.grade import PRE_SEAM, RULE_PREFIX
from compat_adapter.testing.lane.compare import FACET_CODES, POINT_FACETS, Difference, Verdict, facets_of, naming
from compat_adapter.testing.lane.outcome import Item, Outcome, normalize_text
from compat_adapter.testing.lane.scenarios import Case
from compat_adapter.testing.realconfig.procwatch import HookProc, Trace, hook_runs

__all__ = ("MIN_TEXT", "Side", "commands_in", "handler_command", "judge", "text_pieces")

#: A line shorter than this is no evidence of where a hook's text went ("ok", "{}", a count).
MIN_TEXT = 12
_JSON_KEYS = re.compile(r'"(?:command|bash)"\s*:\s*("(?:[^"\\]|\\.)*")')
_TOML_KEYS = re.compile(r'^\s*command\s*=\s*("(?:[^"\\]|\\.)*"|\'[^\']*\')', re.MULTILINE)
UNSUPPORTED = "unsupported"


def handler_command(handler: Any) -> str | None:
    """The command line a handler starts on a POSIX machine (None: it starts no process)."""
    if isinstance(handler, str):
        return handler
    if not isinstance(handler, Mapping):
        return None
    for key in ("bash", "command"):  # Copilot runs `bash` on a POSIX machine, `command` where it has none
        if isinstance(handler.get(key), str):
            return str(handler[key])
    if isinstance(handler.get("exec"), str):
        return " ".join([handler["exec"], *(str(a) for a in handler.get("args") or ())])
    return None


def commands_in(text: str) -> list[str]:
    """Every command a hook file spells under its ``hooks`` (JSON or TOML): also those of entries
    the import refuses, which the vendor may still start; not an MCP server's (a process its vendor
    starts that is no hook). A file neither reads as is read by its keys in the text."""
    data: Any = None
    try:
        data = json.loads(text)
    except ValueError:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            data = None
    if isinstance(data, Mapping):
        found = list(_handler_commands(data.get("hooks")))
    else:
        found = [json.loads(m[1]) for m in _JSON_KEYS.finditer(text) if _is_json_string(m[1])]
        found += [m[1][1:-1] if m[1].startswith("'") else json.loads(m[1]) for m in _TOML_KEYS.finditer(text)]
    return list(dict.fromkeys(c for c in found if c.strip()))


def _is_json_string(raw: str) -> bool:
    try:
        json.loads(raw)
    except ValueError:
        return False
    return True


def _handler_commands(value: Any) -> Iterable[str]:
    if isinstance(value, Mapping):
        command = handler_command(value) if any(k in value for k in ("command", "bash", "exec")) else None
        if command is not None:
            yield command
        for v in value.values():
            if isinstance(v, (Mapping, list)):
                yield from _handler_commands(v)
    elif isinstance(value, list):
        for v in value:
            yield from _handler_commands(v)


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a case as the observer saw it."""

    outcome: Outcome
    trace: Trace
    roots: tuple[str, ...]
    """Its run folder (as given and resolved): run-specific paths become ``<run>``."""


def text_pieces(run: HookProc) -> list[str]:
    """The lines a hook run wrote to its vendor: every string of a JSON answer, line by line; else
    every line of its output and of its error stream."""
    pieces: list[str] = []
    try:
        answer = json.loads(run.stdout) if run.stdout.strip() else None
    except ValueError:
        answer = None
    if answer is not None:
        pieces += [line for s in _strings(answer) for line in s.splitlines()]
    else:
        pieces += run.stdout.splitlines()
    pieces += run.stderr.splitlines()
    return [p.strip() for p in pieces if len(p.strip()) >= MIN_TEXT]


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _unquoted(piece: str) -> str:
    """A line that is one JSON string (an element of a pretty-printed array: ``"rm -rf build",``) as
    the text it holds: a hook that prints its input back shows the model's own scripted command so,
    which is no hook text whatever its quoting."""
    try:
        value = json.loads(piece.removesuffix(","))
    except ValueError:
        return piece
    return value if isinstance(value, str) else piece


def _place(piece: str, requests: Sequence[Sequence[Item]], roots: Sequence[str]) -> str | None:
    """Where ``piece`` first reached the model, in the lane's landing terms; None: never."""
    for items in requests:
        for item in items:
            if piece in normalize_text(item.text, roots):
                if item.kind == "tool_result":
                    return "tool_result"
                return "prompt" if item.with_prompt else f"message:{item.role}"
    return None


def judge(case: Case, commands: Sequence[str], vendor: Side, ours: Side) -> Verdict:
    """The verdict of one real-config case (see the module)."""
    runs = {"vendor": hook_runs(vendor.trace, commands), "ours": hook_runs(ours.trace, commands)}
    count = {side: {c: sum(r.command == c for r in rs) for c in commands} for side, rs in runs.items()}
    rows = _rows(ours.outcome)
    scripted = " ".join([case.prompt, *(value for _, value in case.steps)])
    producers: dict[str, set[str]] = {}
    for side, rs in runs.items():
        roots = (vendor if side == "vendor" else ours).roots
        for r in rs:
            for piece in text_pieces(r):
                piece = normalize_text(piece, roots)
                if _unquoted(piece) not in scripted:
                    producers.setdefault(piece, set()).add(r.command)
    want = {k: v for k, v in facets_of(case, vendor.outcome, vendor.outcome).items() if k != "invoked"}
    got = {k: v for k, v in facets_of(case, ours.outcome, vendor.outcome).items() if k != "invoked"}
    for c in commands:
        want[f"ran:{c}"], got[f"ran:{c}"] = count["vendor"][c], count["ours"][c]
    for piece in sorted(producers):
        want[f"text:{piece}"] = _place(piece, vendor.outcome.texts, vendor.roots)
        got[f"text:{piece}"] = _place(piece, ours.outcome.texts, ours.roots)
    fired = {c for c in commands if count["vendor"][c] or count["ours"][c]}
    diffs = []
    for facet in [*want, *(f for f in got if f not in want)]:
        if want.get(facet) == got.get(facet):
            continue
        family, _, rest = facet.partition(":")
        if family == "ran":
            makers = {rest}
        elif family == "text":
            makers = producers[rest]
        elif family == "landing":
            makers = {r.command for rs in runs.values() for r in rs if rest in r.stdout + r.stderr} or fired
        else:
            makers = fired
        named = _named(case, facet, want.get(facet), got.get(facet), makers, rows, count, ours.outcome)
        diffs.append(Difference(facet, want.get(facet), got.get(facet), tuple(sorted(named))))
    if ours.outcome.error:
        diffs.append(Difference("error", None, ours.outcome.error, ()))
    status = "agree" if not diffs else "differ_listed" if all(d.listed_by for d in diffs) else "differ_unlisted"
    return Verdict(case.name, status, tuple(diffs))


def _rows(ours: Outcome) -> list[tuple[str, str | None, tuple[str, ...]]]:
    """(event, command or None, codes) of every hook registered here, by the command it starts."""
    out = []
    for event, handler, codes in ours.graded:
        try:
            command = handler_command(json.loads(handler))
        except ValueError:
            command = None
        out.append((event, command, codes))
    return out


def _named(case: Case, facet: str, vendor: Any, ours: Any, makers: set[str],
           rows: Sequence[tuple[str, str | None, tuple[str, ...]]], count: Mapping[str, Mapping[str, int]],
           outcome: Outcome) -> set[str]:
    """The codes of the hooks that can have made this difference that name it."""
    family = facet.split(":", 1)[0]
    kinds = FACET_CODES["invoked"] if family == "ran" else naming(case, "landing" if family == "text" else facet,
                                                                    vendor, ours)
    table = resolve_vendor(case.vendor)
    named: set[str] = set()
    for event, command, codes in rows:
        mine = command in makers if command is not None else family not in ("ran", "text", "landing")
        if not mine:
            continue
        if family not in ("ran", "text", "landing"):
            # A permission rule decides at tools/pre-execute, where the host enforces it.
            point = PRE_SEAM if event.startswith(RULE_PREFIX) else getattr(table.row(event), "point", None)
            if point is None or family not in POINT_FACETS.get(point, frozenset()):
                continue
        fewer = command is not None and count["ours"][command] < count["vendor"][command]
        differs = command is not None and count["ours"][command] != count["vendor"][command]
        named |= set(codes) & kinds
        if differs and family != "ran":  # what it changed follows from its firing, which names it
            named |= set(codes) & FACET_CODES["invoked"]
        if fewer and UNSUPPORTED in codes:
            named.add(UNSUPPORTED)
    # A hook this file spells that is registered here under no row (refused) and ran fewer times
    # here: the refusal is why.
    registered = {command for _, command, _ in rows if command is not None}
    for command in makers - registered:
        if count["ours"].get(command, 0) < count["vendor"].get(command, 0):
            named |= {r.code for r in outcome.refused}
    return named
