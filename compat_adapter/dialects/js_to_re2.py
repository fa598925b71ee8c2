"""A JavaScript regular expression, rewritten as an RE2 pattern that matches the same strings.

The JavaScript vendors build matchers with ``new RegExp(matcher)`` (no flags: not Unicode mode, so
the Annex B syntax of web browsers applies) and call ``test``. RE2 matches in linear time, but its
syntax and its meanings differ: ``.`` also matches U+2028, ``\\s`` is ASCII, ``\\u0041``, ``\\cJ``
and ``[\\d-x]`` are not RE2 at all. This module parses the JavaScript pattern and writes every
atom out explicitly (code points as ``\\x{…}``, classes as ranges), so nothing is left to RE2's own
reading of an escape.

What RE2 cannot do — look-around, back-references, legacy octal escapes, repetition counts past
1000, inline modifiers — raises :class:`Untranslatable`; the caller then runs the pattern on the
backtracking engine (``regress``) under a budget. The pattern is assumed to be valid JavaScript
(the caller checks that first with ``regress``); anything this parser does not fully understand is
Untranslatable too, never guessed.

Known difference, not from this module: JavaScript strings are UTF-16, so outside the Basic
Multilingual Plane one character is two code units to ``.`` and ``[^a]``; here it is one. Matcher
subjects (tool names, event sources) are ASCII.
"""

from __future__ import annotations

__all__ = ("Untranslatable", "to_re2")

_MAX = 0x10FFFF
_SURROGATES = (0xD800, 0xDFFF)
_RE2_MAX_REPEAT = 1000

Ranges = list[tuple[int, int]]

_DIGIT: Ranges = [(0x30, 0x39)]
_WORD: Ranges = [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]
#: ECMAScript WhiteSpace and LineTerminator: what ``\s`` matches.
_SPACE: Ranges = [(0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
                  (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000),
                  (0xFEFF, 0xFEFF)]
#: What ``.`` does not match: the LineTerminators.
_LINE_END: Ranges = [(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)]
_CONTROL = {"f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}


class Untranslatable(Exception):
    """The pattern needs the backtracking engine; the message says which construct."""


def _normal(ranges: Ranges) -> Ranges:
    out: Ranges = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _complement(ranges: Ranges) -> Ranges:
    out: Ranges = []
    start = 0
    for lo, hi in _normal(ranges):
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= _MAX:
        out.append((start, _MAX))
    return out


def _class(ranges: Ranges) -> str:
    """An RE2 class for exactly these code points (surrogates left out: RE2 cannot hold them)."""
    parts = []
    for lo, hi in _normal(ranges):
        for a, b in ((lo, min(hi, _SURROGATES[0] - 1)), (max(lo, _SURROGATES[1] + 1), hi)):
            if a <= b:
                parts.append(f"\\x{{{a:X}}}" if a == b else f"\\x{{{a:X}}}-\\x{{{b:X}}}")
    if not parts:
        return "[^\\x{0}-\\x{10FFFF}]"  # the empty class: matches nothing
    return "[" + "".join(parts) + "]"


def _literal(code: int) -> str:
    char = chr(code)
    if char.isascii() and char.isalnum():
        return char
    if _SURROGATES[0] <= code <= _SURROGATES[1]:
        raise Untranslatable("a surrogate code unit")
    return f"\\x{{{code:X}}}"


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.src = pattern
        self.pos = 0

    def peek(self, offset: int = 0) -> str:
        i = self.pos + offset
        return self.src[i] if i < len(self.src) else ""

    def take(self) -> str:
        char = self.peek()
        self.pos += 1
        return char

    # ── structure ───────────────────────────────────────────────────────────────────────────

    def disjunction(self) -> str:
        alternatives = [self.alternative()]
        while self.peek() == "|":
            self.pos += 1
            alternatives.append(self.alternative())
        return "|".join(alternatives)

    def alternative(self) -> str:
        out = []
        while self.peek() not in ("", "|", ")"):
            out.append(self.term())
        return "".join(out)

    def term(self) -> str:
        char = self.peek()
        if char == "^":
            self.pos += 1
            return self.no_quantifier("\\A")
        if char == "$":
            self.pos += 1
            return self.no_quantifier("\\z")
        if char == "\\" and self.peek(1) == "b":
            self.pos += 2
            # JavaScript's \b (no u or i flag) looks at ASCII word characters, as RE2's does.
            return self.no_quantifier("\\b")
        if char == "\\" and self.peek(1) == "B":
            # RE2's \B also matches between the bytes of one non-ASCII character.
            raise Untranslatable("\\B")
        atom = self.atom()
        return atom + self.quantifier()

    def no_quantifier(self, text: str) -> str:
        if self.peek() in ("*", "+", "?") or (self.peek() == "{" and self.braced() is not None):
            raise Untranslatable("a quantified assertion")
        return text

    def braced(self) -> tuple[int, int | None, int] | None:
        """``{n}``, ``{n,}`` or ``{n,m}`` at the cursor: (min, max, length), else None (a literal)."""
        src, i = self.src, self.pos + 1
        j = i
        while j < len(src) and src[j].isascii() and src[j].isdigit():
            j += 1
        if j == i:
            return None
        low = int(src[i:j])
        if j < len(src) and src[j] == "}":
            return low, low, j + 1 - self.pos
        if j >= len(src) or src[j] != ",":
            return None
        k = j + 1
        while k < len(src) and src[k].isascii() and src[k].isdigit():
            k += 1
        if k >= len(src) or src[k] != "}":
            return None
        high = int(src[j + 1:k]) if k > j + 1 else None
        return low, high, k + 1 - self.pos

    def quantifier(self) -> str:
        char = self.peek()
        if char in ("*", "+", "?"):
            self.pos += 1
            text = char
        elif char == "{" and (found := self.braced()) is not None:
            low, high, length = found
            if low > _RE2_MAX_REPEAT or (high is not None and high > _RE2_MAX_REPEAT):
                raise Untranslatable("a repetition count over 1000")
            self.pos += length
            text = f"{{{low}}}" if high == low else f"{{{low},}}" if high is None else f"{{{low},{high}}}"
        else:
            return ""
        if self.peek() == "?":  # lazy: the same strings match
            self.pos += 1
            text += "?"
        if self.peek() in ("*", "+", "?") or (self.peek() == "{" and self.braced() is not None):
            raise Untranslatable("a quantifier after a quantifier")
        return text

    def atom(self) -> str:
        char = self.take()
        if char == ".":
            return _class(_complement(_LINE_END))
        if char == "(":
            return self.group()
        if char == "[":
            return self.char_class()
        if char == "\\":
            return self.atom_escape()
        if char in ("*", "+", "?", ")"):
            raise Untranslatable(f"an unexpected {char!r}")
        if char == "{":
            self.pos -= 1
            if self.braced() is not None:
                raise Untranslatable("a quantifier with nothing to repeat")
            self.pos += 1
        return _literal(ord(char))  # ']', '{' and '}' stand for themselves here (Annex B)

    def group(self) -> str:
        if self.peek() == "?":
            if self.peek(1) == ":":
                self.pos += 2
            elif self.peek(1) == "<" and self.peek(2) not in ("=", "!"):
                end = self.src.find(">", self.pos)
                if end < 0:
                    raise Untranslatable("an unterminated group name")
                self.pos = end + 1
            else:
                raise Untranslatable("look-around or an inline modifier")
        inner = self.disjunction()
        if self.take() != ")":
            raise Untranslatable("an unterminated group")
        return f"(?:{inner})"  # nothing reads captures: a test only asks whether it matches

    # ── escapes ─────────────────────────────────────────────────────────────────────────────

    def hex_digits(self, count: int) -> int | None:
        digits = self.src[self.pos:self.pos + count]
        if len(digits) == count and all(c in "0123456789abcdefABCDEF" for c in digits):
            self.pos += count
            return int(digits, 16)
        return None

    def character_escape(self, char: str, in_class: bool) -> int:
        """The code point of ``\\<char>…`` (cursor after `char`), for escapes naming one character."""
        if char in _CONTROL:
            return _CONTROL[char]
        if char == "c":
            letter = self.peek()
            if letter.isascii() and (letter.isalpha() or (in_class and (letter.isdigit() or letter == "_"))):
                self.pos += 1
                return ord(letter) % 32
            raise Untranslatable("a bare \\c")
        if char == "0" and not self.peek().isdigit():
            return 0
        if char.isdigit():
            raise Untranslatable("a back-reference or legacy octal escape")
        if char == "x":
            value = self.hex_digits(2)
            return ord("x") if value is None else value
        if char == "u":
            value = self.hex_digits(4)
            return ord("u") if value is None else value
        if char == "k":
            raise Untranslatable("a named back-reference")
        if char == "":
            raise Untranslatable("a trailing backslash")
        return ord(char)  # an identity escape: \/, \-, \a … stand for the character

    def class_escape(self, char: str) -> Ranges | None:
        """The set of ``\\d``-style escapes (upper case: the complement); None for other escapes."""
        base = {"d": _DIGIT, "w": _WORD, "s": _SPACE}.get(char.lower())
        if base is None:
            return None
        return base if char.islower() else _complement(base)

    def atom_escape(self) -> str:
        char = self.take()
        ranges = self.class_escape(char)
        if ranges is not None:
            return _class(ranges)
        return _literal(self.character_escape(char, in_class=False))

    # ── classes ─────────────────────────────────────────────────────────────────────────────

    def class_atom(self) -> Ranges | int:
        """One class atom: a code point, or a set (``\\d`` …) that cannot bound a range."""
        char = self.take()
        if char == "":
            raise Untranslatable("an unterminated class")
        if char != "\\":
            return ord(char)
        escaped = self.take()
        if escaped == "b":
            return 0x08
        ranges = self.class_escape(escaped)
        if ranges is not None:
            return ranges
        code = self.character_escape(escaped, in_class=True)
        if _SURROGATES[0] <= code <= _SURROGATES[1]:
            # One UTF-16 half: JavaScript matches half of a pair, RE2 sees whole code points.
            raise Untranslatable("a surrogate code unit")
        return code

    def char_class(self) -> str:
        negated = self.peek() == "^"
        if negated:
            self.pos += 1
        members: Ranges = []
        while self.peek() != "]":
            first = self.class_atom()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.pos += 1
                last = self.class_atom()
                if isinstance(first, int) and isinstance(last, int):
                    if first > last:
                        raise Untranslatable("a class range out of order")
                    members.append((first, last))
                    continue
                # Annex B: a range with a \d-style end is the two sets plus a literal '-'.
                members.append((0x2D, 0x2D))
                for end in (first, last):
                    members.extend([(end, end)] if isinstance(end, int) else end)
                continue
            members.extend([(first, first)] if isinstance(first, int) else first)
        self.pos += 1
        return _class(_complement(members) if negated else members)


def to_re2(pattern: str) -> str:
    """The RE2 pattern matching exactly what JavaScript's ``new RegExp(pattern)`` matches."""
    parser = _Parser(pattern)
    out = parser.disjunction()
    if parser.pos != len(pattern):
        raise Untranslatable(f"an unexpected {parser.peek()!r}")
    return out
