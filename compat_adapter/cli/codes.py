"""``compat-adapter explain --code CODE``: what one code means, as ``ruff rule X`` does for a rule.

Every code a report prints can be looked up: a loss code (``env-differs``: its meaning, then each
distinct text it stands for on the host, with the vendor events it applies to, so a code that
covers two different losses shows both), a refusal code (``UNTRUSTED``), a preflight kind
(``fails-open``) or an error code (``CONFIG_PARSE_ERROR``). ``--code`` alone lists them all.
"""

from __future__ import annotations

import ast
import difflib
import inspect
from collections.abc import Mapping
from functools import cache

from compat_adapter.cli.term import Printer
from compat_adapter.errors import ERROR_CODES, BadArgument
from compat_adapter.model import DegradationCode
from compat_adapter.vocabulary import finding_safety, safety_of

__all__ = ("explain_code", "loss_meanings")

#: The preflight finding kinds (``compat_adapter.preflight.Finding.kind``).
PREFLIGHT_KINDS = {
    "program": "a program the command starts is not on PATH here",
    "client-missing": "the compiled shim client (compat-adapter-shim) that ported entries start is not on PATH "
                      "here: `compat-adapter port --install-client` places it",
    "file": "a script the command names is missing here, or not executable",
    "variable": "a variable the command reads is unset for hooks here, or removed from their environment",
    "cannot-start": "the hook cannot start here (a program, script or file it needs is missing); what that "
                    "means is its vendor's reading of the exit status: nothing happens, or every call is "
                    "denied",
    "fails-open": "a guard that cannot start its program: the vendor reads that exit as a non-blocking "
                  "error, so every call it matches is let through",
    "fails-closed": "a guard that cannot start its program: the vendor reads that exit as a block, so "
                    "every call it matches is denied",
}


@cache
def loss_meanings() -> Mapping[str, str]:
    """Each loss code → its meaning: the docstring under the code in ``DegradationCode`` (one place)."""
    tree = ast.parse(inspect.getsource(DegradationCode))
    out: dict[str, str] = {}
    body = tree.body[0].body  # type: ignore[attr-defined]
    for node, after in zip(body, body[1:], strict=False):
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)):
            out[str(node.value.value)] = " ".join(str(after.value.value).split())
    return out


def _known() -> dict[str, str]:
    from compat_adapter.importers import REFUSAL_CODES

    known = {code: f"loss: {text} Safety class: {safety_of(code)}." for code, text in loss_meanings().items()}
    known |= {code: f"refusal (an UNSUPPORTED row): {text} Safety class: {finding_safety('unsupported')}."
              for code, text in REFUSAL_CODES.items()}
    known |= {kind: f"preflight finding: {text}; safety class: {finding_safety(kind)}"
              for kind, text in PREFLIGHT_KINDS.items()}
    for code, cls in ERROR_CODES.items():
        known.setdefault(code, f"error (exit 2): {' '.join((cls.__doc__ or '').split()) or cls.__name__}"
                         + (f"; what to do: {cls.hint}" if cls.hint else ""))
    return known


def _uses(code: str, host: str, vendor: str | None) -> list[tuple[str, list[str]]]:
    """Each distinct text of loss ``code`` on ``host`` → the vendor events it applies to."""
    from compat_adapter.host.surfaces import surface_named
    from compat_adapter.matrix import build_matrix

    texts: dict[str, list[str]] = {}
    for result in build_matrix(surface_named(host), vendor=vendor).hooks:
        for d in result.degradations:
            if d.code == code:
                texts.setdefault(d.text, []).append(f"{result.vendor} {result.event}")
    return sorted(texts.items(), key=lambda t: -len(t[1]))


def explain_code(code: str, host: str = "embedded", vendor: str | None = None) -> int:
    out = Printer()
    known = _known()
    if not code:
        for name, text in known.items():
            out.line(text, hang=4, lead=name, lead_style="bold")
        return 0
    name = code.removeprefix("loss/").removeprefix("preflight/").removeprefix("unusable/")
    if name not in known:
        close = difflib.get_close_matches(name, known, n=3)
        raise BadArgument(f"no code {code!r}" + (f"; did you mean {', '.join(close)}?" if close else
                                                  "; `compat-adapter explain --code` lists every code"))
    out.line(known[name], hang=2, lead=name, lead_style="bold")
    if name in loss_meanings():
        uses = _uses(name, host, vendor)
        out.line()
        out.line(f"on {host}, it stands for {len(uses)} distinct loss(es):" if uses else
                 f"no row on {host} lists it", style="bold")
        for text, where in uses:
            out.line()
            out.line(text, indent=2, hang=2)
            shown = ", ".join(where[:8]) + (f" and {len(where) - 8} more" if len(where) > 8 else "")
            out.line(f"applies to {len(where)}: {shown}", indent=4, hang=6, style="dim")
    return 0
