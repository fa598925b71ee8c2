"""How a JavaScript or Rust program turns a hook's stdout text into JSON.

Used by the dialects (each vendor's own reading) and by the embedded model of DSH's bridges (DSH is
JavaScript too: ``stdout.trim()`` then ``JSON.parse``). Pure: no I/O; it imports only the nesting
limit (:mod:`compat_adapter.jsonlimits`).

The vendors are Node programs (Claude Code, Copilot, CodeBuddy, OpenCode) or a Rust program
(Codex), and a hook's answer is read by their parser, not Python's. Reading it the Python way lets
through calls the vendor blocks: ``str.strip`` keeps a byte-order mark that JavaScript's ``trim``
removes, ``str.splitlines`` cuts a string at U+2028 or U+0085 where the vendor splits on ``\\n``
only, and ``json.loads`` refuses an integer of more than 4300 digits and anything nested deeper
than the interpreter's recursion limit, both of which ``JSON.parse`` accepts.

JavaScript (``String.prototype.trim`` then ``JSON.parse``):

- trim removes the ECMAScript WhiteSpace and LineTerminator code points, BOM (U+FEFF), NBSP,
  U+2028 and U+2029 included, and NOT U+0085 (which is no JS whitespace);
- inside the text only JSON's four whitespace characters separate tokens; raw U+2028 and U+0085
  are fine inside strings, raw control characters below U+0020 are not;
- every number is a double: an integer of any length parses (to the nearest double, or
  ``Infinity`` past the range) — never an error; ``NaN`` and ``Infinity`` literals are rejected;
- nesting depth is not limited (V8's parser is iterative); duplicate keys: the last one wins;
- ``\\ud800`` escapes give lone surrogates, which JavaScript strings may hold.

Rust (``str::trim`` then ``serde_json``): trim removes the Unicode White_Space code points (U+0085
and NBSP included, the BOM not); integers that fit 64 bits stay integers, longer ones become
doubles, and a number out of the double range is an error ("number out of range"); nesting past
128 levels is an error ("recursion limit exceeded"); NaN and Infinity are rejected.

Numbers are returned as Python ``int`` when the vendor's value is integral (a JS double that is a
whole number compares equal to it) and ``float`` otherwise, so ``1`` stays ``1``.

Depth: each parser keeps its vendor's rule (JavaScript parses any depth; serde refuses past 128).
What the vendor accepts is then bounded for us by `js_read` and `rust_read` (what the dialects
and the bridge model call; `js_parse` and `rust_parse` stay the vendors' parsers alone): containers deeper
than ``jsonlimits.MAX_DEPTH`` (200) are replaced by a marker string, so nothing downstream (the
dialects' copies of ``updatedInput``, audits, serve replies) walks a structure Python cannot. Every
field a verdict is read from lies far above that depth, so the decision, reason and context are the
vendor's. The one difference, listed: a value deeper than 200 levels inside an answer (an
``updatedInput`` nested that deep, which no route of ours applies) is not kept whole.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from compat_adapter.jsonlimits import clip_depth

__all__ = ("JS_WHITESPACE", "RUST_WHITESPACE", "JsonTextError", "js_lines", "js_object", "js_parse", "js_read",
           "js_trim", "rust_parse", "rust_read", "rust_trim")

#: ECMAScript WhiteSpace (incl. the Zs category and the BOM) and LineTerminator code points.
JS_WHITESPACE = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
                 "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")
#: Unicode White_Space, what Rust's ``str::trim`` removes (U+0085 yes, the BOM no).
RUST_WHITESPACE = ("\t\n\v\f\r \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                   "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")

#: serde_json's default recursion limit.
RUST_MAX_DEPTH = 128


class JsonTextError(ValueError):
    """The text is not JSON by the vendor's parser; the message says why."""


def js_trim(text: str) -> str:
    """``String.prototype.trim``."""
    return text.strip(JS_WHITESPACE)


def rust_trim(text: str) -> str:
    """Rust's ``str::trim``."""
    return text.strip(RUST_WHITESPACE)


def js_lines(text: str) -> list[str]:
    """The lines of `text` split on ``\\n`` only (a ``\\r`` before it stays, trim removes it)."""
    return text.split("\n")


def _reject_constant(name: str) -> Any:
    raise JsonTextError(f"Unexpected token {name[0]!r}: {name} is not JSON")


def _js_int(digits: str) -> int | float:
    # Up to 15 digits every integer is exact in a double; past that the double decides.
    if len(digits) <= 15:
        return int(digits)
    value = float(digits)  # float() takes any length: no 4300-digit limit, ±inf past the range
    return int(value) if math.isfinite(value) else value


def _js_float(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() and abs(value) < 2**53 and "." not in text else value


def js_parse(text: str) -> Any:
    """``JSON.parse(text)``; raises :class:`JsonTextError` where JavaScript throws."""
    try:
        value = json.loads(text, parse_int=_js_int, parse_constant=_reject_constant)
    except JsonTextError:
        raise
    except RecursionError:
        # Deeper than Python's C parser may go; V8 parses it, so do we, without recursion.
        value = _parse_deep(text, _js_int, None)
    except ValueError as exc:
        raise JsonTextError(str(exc)) from None
    return value


def _rust_int(digits: str) -> int | float:
    value = int(digits) if len(digits) <= 20 else None
    if value is not None and -(2**63) <= value < 2**64:
        return value
    number = float(digits)
    if not math.isfinite(number):
        raise JsonTextError("number out of range")
    return number


def _rust_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise JsonTextError("number out of range")
    return number


def rust_parse(text: str) -> Any:
    """``serde_json::from_str::<Value>(text)``; raises :class:`JsonTextError` where serde does."""
    try:
        value = _parse_deep(text, _rust_int, RUST_MAX_DEPTH, parse_float=_rust_float)
    except ValueError as exc:
        raise JsonTextError(str(exc)) from None
    return value


def js_read(text: str) -> Any:
    """A hook's answer as a JavaScript vendor reads it (`js_parse`), bounded for us: containers
    deeper than ``jsonlimits.MAX_DEPTH`` replaced by a marker (see the module docstring)."""
    return clip_depth(js_parse(text))[0]


def js_object(text: str) -> dict[str, Any] | None:
    """``text`` read as :func:`js_read` reads it when it is a JSON object; None when it does not
    parse or is another value (the answer a JavaScript vendor takes as plain text)."""
    try:
        value = js_read(text)
    except JsonTextError:
        return None
    return value if isinstance(value, dict) else None


def rust_read(text: str) -> Any:
    """A hook's answer as Codex reads it (`rust_parse`); serde's own limit (128) is below ours,
    so the bound never cuts here: it is kept for one rule everywhere."""
    return clip_depth(rust_parse(text))[0]


# ── an iterative parser, for depths Python's recursive one refuses ──────────────────────────────

_TOKEN = re.compile(r"""
    [ \t\n\r]*
    (?:
        (?P<str>"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*")
      | (?P<num>-?(?:0|[1-9][0-9]*)(?P<frac>\.[0-9]+)?(?P<exp>[eE][+-]?[0-9]+)?)
      | (?P<lit>true|false|null)
      | (?P<punct>[{}\[\]:,])
    )""", re.VERBOSE)
_LITERALS = {"true": True, "false": False, "null": None}


def _parse_deep(text: str, parse_int: Any, max_depth: int | None, *, parse_float: Any = _js_float) -> Any:
    """JSON by the grammar, with an explicit stack of open containers instead of recursion."""
    stack: list[Any] = []  # open dicts and lists
    keys: list[Any] = []  # per open dict, the key whose value is being read
    pos = 0
    state = "value"  # value | first (value or ']') | key | key-or-close | after (',' or closer)
    result: Any = None
    while True:
        m = _TOKEN.match(text, pos)
        if m is None:
            if state == "after" and not stack and not text[pos:].strip(" \t\n\r"):
                return result
            raise JsonTextError(f"Unexpected token at position {pos}" if pos < len(text)
                                else "Unexpected end of JSON input")
        pos = m.end()
        token = m.group(0).lstrip(" \t\n\r")
        if state == "after":
            if not stack:
                raise JsonTextError(f"Unexpected non-whitespace character after JSON at position {pos}")
            container = stack[-1]
            if token == ",":
                state = "key" if isinstance(container, dict) else "value"
                continue
            if token != ("}" if isinstance(container, dict) else "]"):
                raise JsonTextError(f"Unexpected token {token!r} at position {pos}")
            value: Any = stack.pop()
            if isinstance(value, dict):
                keys.pop()
        elif state in ("key", "key-or-close"):
            if token == "}" and state == "key-or-close":
                value = stack.pop()
                keys.pop()
            elif m.group("str") is not None:
                keys[-1] = json.loads(token)
                colon = _TOKEN.match(text, pos)
                if colon is None or colon.group("punct") != ":":
                    raise JsonTextError(f"Expected ':' after property name at position {pos}")
                pos = colon.end()
                state = "value"
                continue
            else:
                raise JsonTextError(f"Expected property name at position {pos}")
        else:  # value, or first element of an array
            if token == "]" and state == "first":
                value = stack.pop()
            elif token in ("{", "["):
                if max_depth is not None and len(stack) >= max_depth:
                    raise JsonTextError(f"recursion limit exceeded at position {pos}")
                if token == "{":
                    stack.append({})
                    keys.append(None)
                    state = "key-or-close"
                else:
                    stack.append([])
                    state = "first"
                continue
            elif m.group("str") is not None:
                value = json.loads(token)
            elif m.group("num") is not None:
                value = parse_float(token) if m.group("frac") or m.group("exp") else parse_int(token)
            elif m.group("lit") is not None:
                value = _LITERALS[token]
            else:
                raise JsonTextError(f"Unexpected token {token!r} at position {pos}")
        # A complete value: into the enclosing container, or it is the whole result.
        if stack:
            holder = stack[-1]
            if isinstance(holder, dict):
                holder[keys[-1]] = value  # duplicate keys: the last one wins
            else:
                holder.append(value)
        else:
            result = value
        state = "after"
