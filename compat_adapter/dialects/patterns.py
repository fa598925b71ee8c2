"""Matcher regular expressions in the vendor's own dialect, matched in linear time.

Claude Code, Copilot, CodeBuddy and OpenCode are JavaScript: a matcher is ``new RegExp(matcher)``
and ``test``. Codex is Rust: the ``regex`` crate's ``is_match``. Python's ``re`` is neither —
``(?<name>…)`` is an error there, ``$`` also matches before a final newline, ``\\d`` matches any
Unicode digit — and it backtracks: ``(\\w+\\s?)*$`` against a 27-character subject takes seconds,
doubling with each character, and a matcher runs on the event loop of every session.

- JavaScript: the pattern is checked with ``regress`` (an ECMAScript engine; what it refuses is
  invalid, and the hook is skipped as the vendor skips it). It is then rewritten into RE2 syntax
  with JavaScript's meanings (`js_to_re2`) and matched by RE2, in time linear in the subject.
- Only what RE2 cannot express (look-around, back-references …) runs on ``regress`` itself, which
  backtracks — exponentially in time and, measured, in memory (a failed allocation aborts the whole
  process) — and holds the GIL while it does, so no thread or timer can stop it. So it runs only
  where its work is bounded before it starts: a pattern that repeats a group which itself repeats
  or alternates (:func:`shape`, the form of every exponential case) is refused outright, and for
  the others the worst case — one choice per quantifier per subject position — is computed from
  the subject's length; over :data:`STEP_BOUND` that subject is not matched (the hook is skipped
  for it, and :meth:`Regex.problem` says so). Deterministic: the same subject, the same verdict.
- Rust: RE2 — the ``regex`` crate is itself an RE2-style engine without look-around and
  back-references, which both refuse. Rust's perl classes are Unicode-aware where RE2's are ASCII,
  so ``\\d``, ``\\s``, ``\\w`` (and ``\\D``, ``\\S``, ``\\W`` outside a class) are written out as
  Unicode classes first (:func:`rust_to_re2`). Left as RE2 has them: ``\\b``/``\\B`` and a negated
  ``\\S``/``\\W`` inside brackets stay ASCII, and ``\\w`` is Alphabetic approximated by the letter,
  letter-number and mark categories (Codex matches tool names, which are ASCII).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import cache

import re2
import regress

from compat_adapter.dialects.js_to_re2 import Untranslatable, to_re2

__all__ = ("STEP_BOUND", "Regex", "Shape", "compile_js", "compile_rust", "js_problem", "nested_repetition", "shape")

#: Worst-case backtracking steps one ``regress`` match may need (about 10 ms of work at worst).
STEP_BOUND = 10_000_000

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # a refused pattern is our answer, not a line on stderr


def _encodable(subject: str) -> str:
    # A lone surrogate cannot be UTF-8: both engines refuse it; it is no tool name anyway.
    try:
        subject.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in subject)
    return subject


@dataclass(frozen=True, slots=True)
class Shape:
    """What bounds a backtracking match: the quantifiers' maxima and the alternations."""

    #: A repeated group holds a quantifier or an alternation: exponential in the worst case.
    nested: bool
    #: The largest count of each quantifier (None: unbounded).
    quantifiers: tuple[int | None, ...]
    #: How many ``|`` the pattern has.
    alternations: int
    #: The pattern's length: the work of one attempt along one path.
    size: int

    def worst_case(self, length: int) -> float:
        """An upper bound of the steps a backtracking match needs on a subject of `length`:
        every start position, every alternative, and every count of every quantifier."""
        if self.nested:
            return math.inf
        steps = float((length + 1) * (self.alternations + 1) * max(self.size, 1))
        for most in self.quantifiers:
            steps *= (length if most is None else min(most, length)) + 1
        return steps


@dataclass(slots=True, eq=False)
class Regex:
    """One compiled matcher pattern and the engine that runs it."""

    source: str
    #: ``re2`` (linear time) or ``regress`` (backtracking, bounded by :data:`STEP_BOUND`).
    engine: str
    _re2: object | None = field(default=None, repr=False)
    _regress: regress.Regex | None = field(default=None, repr=False)
    _shape: Shape | None = field(default=None, repr=False)
    _skipped: str | None = field(default=None, repr=False)

    def search(self, subject: str) -> bool:
        """Whether the pattern matches anywhere in `subject` (``RegExp.test`` / ``is_match``)."""
        text = _encodable(subject)
        if self._re2 is not None:
            return self._re2.search(text) is not None  # type: ignore[attr-defined]
        assert self._regress is not None and self._shape is not None
        if self._shape.worst_case(len(text)) > STEP_BOUND:
            self._skipped = (f"matcher /{self.source}/ needs a backtracking engine and could take "
                             f"more than {STEP_BOUND:,} steps on a {len(text)}-character subject; "
                             "it is not run there and the hook is skipped")
            return False
        return self._regress.find(text) is not None

    def problem(self) -> str | None:
        """The last time this pattern was not run on a subject, and why; else None."""
        return self._skipped


def _brace(pattern: str, i: int) -> tuple[int | None, int] | None:
    """A ``{n}``, ``{n,}`` or ``{n,m}`` quantifier at `i`: (its maximum or None, its end)."""
    m = _BRACE.match(pattern, i)
    if m is None:
        return None
    low, comma, high = m.groups()
    return (int(low) if not comma else int(high) if high else None), m.end()


_BRACE = re.compile(r"\{([0-9]+)(,?)([0-9]*)\}")


def shape(pattern: str) -> Shape:
    """The :class:`Shape` of a JavaScript or Rust pattern (escapes and classes skipped)."""
    holds: list[bool] = []  # per open group: does it hold a quantifier or an alternation?
    closed_risky = False  # the atom just read is a group that holds one
    nested = False
    quantifiers: list[int | None] = []
    alternations = 0
    i = 0
    while i < len(pattern):
        char = pattern[i]
        risky, closed_risky = closed_risky, False
        if char == "\\":
            i += 2
            continue
        if char == "[":
            i += 2 if pattern[i + 1:i + 2] == "^" else 1
            while i < len(pattern) and pattern[i] != "]":
                i += 2 if pattern[i] == "\\" else 1
            i += 1
            continue
        if char == "(":
            holds.append(False)
            if pattern[i + 1:i + 2] == "?":  # (?: (?= (?! (?<= (?<! (?<name>: no quantifier
                close = pattern.find(">", i) if pattern[i + 2:i + 3] == "<" and pattern[i + 3:i + 4] not in "=!" else -1
                i = close if close > 0 else i + (3 if pattern[i + 2:i + 3] == "<" else 2)
        elif char == ")":
            closed_risky = holds.pop() if holds else False
        elif char == "|":
            alternations += 1
            if holds:
                holds[-1] = True
        elif char in "*+?" or (char == "{" and _brace(pattern, i) is not None):
            most: int | None = 1 if char == "?" else None
            if char == "{":
                most, end = _brace(pattern, i)  # type: ignore[misc]
                i = end - 1
            if risky and (most is None or most > 1):
                nested = True
            quantifiers.append(most)
            holds[:] = [True] * len(holds)
        i += 1
    return Shape(nested, tuple(quantifiers), alternations, len(pattern))


def nested_repetition(pattern: str) -> bool:
    """Whether a group that repeats (``*``, ``+``, ``{2,}`` …) holds a quantifier or a ``|``.

    That is the shape behind exponential backtracking (``(a+)+``, ``(\\w+\\s?)*``,
    ``(a|a)*``); without it a backtracking match stays polynomial in the subject.
    """
    return shape(pattern).nested


@cache
def compile_js(pattern: str) -> Regex | str:
    """``new RegExp(pattern)`` as a :class:`Regex`, or why it cannot run. Cached."""
    try:
        checked = regress.Regex(pattern)
    except regress.RegressError as exc:
        return f"invalid regular expression /{pattern}/: {exc}"
    try:
        return Regex(pattern, "re2", _re2=re2.compile(to_re2(pattern), _OPTIONS))
    except (Untranslatable, re2.error) as exc:
        why = str(exc.args[0].decode() if isinstance(exc, re2.error) and isinstance(exc.args[0], bytes)
                  else exc)
        form = shape(pattern)
        if form.nested:
            return (f"matcher /{pattern}/ needs a backtracking engine ({why}) and repeats a group "
                    "that itself repeats or alternates, which takes exponential time or memory; "
                    "this project does not run it (the vendor would stall on it)")
        return Regex(pattern, "regress", _regress=checked, _shape=form)


#: Rust's Unicode perl classes, as RE2 class contents.
_RUST_SPACE = r"\t-\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}"
_RUST_WORD = (r"\p{L}\p{Nl}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}\x{24B6}-\x{24E9}"
              r"\x{1F130}-\x{1F149}\x{1F150}-\x{1F169}\x{1F170}-\x{1F189}")
_RUST_CLASSES = {"d": (r"\p{Nd}", r"\p{Nd}", r"\P{Nd}"),
                 "s": (_RUST_SPACE, f"[{_RUST_SPACE}]", f"[^{_RUST_SPACE}]"),
                 "w": (_RUST_WORD, f"[{_RUST_WORD}]", f"[^{_RUST_WORD}]")}


def js_problem(pattern: str) -> str | None:
    """Why ``pattern`` is no JavaScript regular expression this host can run, or None when it is."""
    compiled = compile_js(pattern)
    return compiled if isinstance(compiled, str) else None


def rust_to_re2(pattern: str) -> str:
    """`pattern` with Rust's Unicode ``\\d``, ``\\s`` and ``\\w`` spelled out for RE2."""
    out: list[str] = []
    depth = 0  # inside brackets (Rust nests them; RE2 refuses nesting on its own)
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            letter = pattern[i + 1]
            forms = _RUST_CLASSES.get(letter.lower())
            if forms is None or (depth and letter.isupper()):
                out.append(pattern[i:i + 2])
            elif depth:
                out.append(forms[0])
            else:
                out.append(forms[1] if letter.islower() else forms[2])
            i += 2
            continue
        if char == "[":
            if depth and pattern.startswith("[:", i):
                end = pattern.find(":]", i)
                if end > 0:
                    out.append(pattern[i:end + 2])
                    i = end + 2
                    continue
            depth += 1
            out.append(char)
            i += 1
            # A ']' right after '[' or '[^' is a literal member, not the end.
            for lead in ("^", "]"):
                if pattern.startswith(lead, i):
                    out.append(lead)
                    i += 1
            continue
        if char == "]" and depth:
            depth -= 1
        out.append(char)
        i += 1
    return "".join(out)


@cache
def compile_rust(pattern: str) -> Regex | str:
    """A Rust ``regex`` crate pattern as a :class:`Regex`, or the parse error. Cached."""
    try:
        re2.compile(pattern, _OPTIONS)  # the syntax check, before any rewriting
        return Regex(pattern, "re2", _re2=re2.compile(rust_to_re2(pattern), _OPTIONS))
    except re2.error as exc:
        detail = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        return f"regex parse error: {detail}"
