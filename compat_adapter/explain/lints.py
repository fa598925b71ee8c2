"""Lints ``explain`` finds on the way: mistakes that make a hook silently do less than its author meant."""

from __future__ import annotations

import difflib
import re

from compat_adapter.dialects.base import Dialect
from compat_adapter.explain.matching import tools_matched
from compat_adapter.explain.report import Lint, RunResult
from compat_adapter.model import CommandHandler, EventRow, Handler, VendorSpec

__all__ = ("MS_TIMEOUT", "static_lints", "run_lints")

#: A timeout at or above this many seconds was almost surely meant as milliseconds (the vendors
#: count seconds: 5000 s is 83 minutes).
MS_TIMEOUT = 1000.0
#: Kinds whose answer gates an action before it happens: a guard.
GUARDS = frozenset({"pre", "permission", "prompt"})
_POWERSHELL = re.compile(r"(?i)(?:^|[\s/\\\"'])(?:powershell|pwsh)(?:\.exe)?\b|\.ps1\b")


def static_lints(spec: VendorSpec, dialect: Dialect, row: EventRow, kind: str, origin: str, matcher: str | None,
                 handler: Handler | None) -> list[Lint]:
    """What the config alone tells: timeouts, PowerShell exit codes, matchers that select no tool."""
    out: list[Lint] = []
    timeout = handler.timeout_s if handler is not None else None
    if timeout is not None and timeout >= MS_TIMEOUT:
        out.append(Lint(code="timeout-milliseconds", origin=origin, text=(
            f"timeout {timeout:g} looks like milliseconds: {spec.id} counts seconds, so this hook may hang "
            f"for {timeout / 60:.0f} minutes; write {timeout / 1000:g}")))
    if kind in GUARDS and handler is not None and timeout is None:
        out.append(Lint(code="guard-no-timeout", origin=origin, text=(
            f"a guard without a timeout: a hung run holds the {row.event} action for {spec.id}'s default "
            f"{spec.default_timeout_s:g} s, then fails open (the action proceeds)")))
    if isinstance(handler, CommandHandler) and (handler.shell == "powershell" or _POWERSHELL.search(handler.command)):
        out.append(Lint(code="powershell-exit", origin=origin, text=(
            "a PowerShell hook: an uncaught error or a script run with -Command exits 1, which is a non-blocking "
            # A vendor on which a failing hook denies (Copilot preToolUse) does not let the action through.
            f"error in {spec.id}" + ("" if spec.failure_denies else " (the guarded action proceeds)")
            + "; end the script with an explicit `exit 2` to block, and run it with -File so the code survives")))
    invalid = dialect.validate_matcher(row.event, matcher)
    if invalid is not None:
        out.append(Lint(code="invalid-matcher", origin=origin, text=(
            f"matcher {matcher!r} is invalid in {spec.id}'s engine ({invalid}): the vendor never runs this hook")))
    elif (row.matcher_subject == "tool_name" and matcher not in (None, "", "*", "**") and spec.tools
          and "mcp" not in (matcher or "").lower()):
        assert matcher is not None
        vocabulary = tuple(dict.fromkeys(t.vendor for t in spec.tools))
        if not tools_matched(dialect, row.event, matcher, vocabulary):
            out.append(Lint(code="matcher-matches-no-tool", origin=origin,
                            text=_no_tool(spec.id, matcher, vocabulary)))
    return out


def _no_tool(vendor: str, matcher: str, vocabulary: tuple[str, ...]) -> str:
    """Why a matcher selects no tool: a name close to one of the tools is a likely misspelling; any
    other name may be a real tool of the vendor that this host does not have (Claude's WebSearch)."""
    words = [w for w in re.split(r"[|()^$\s]+", matcher) if w]
    close = {w: difflib.get_close_matches(w, vocabulary, n=1, cutoff=0.75) for w in words}
    typos = [f"{w} (did you mean {near[0]}?)" for w, near in close.items() if near and near[0] != w]
    head = (f"matcher {matcher!r} selects none of the {vendor} tools this host has ({', '.join(vocabulary)}), "
            "so the hook never fires here")
    if typos:
        return f"{head}: check the spelling and case of {', '.join(typos)}"
    return f"{head}: {', '.join(words)} may be {vendor} tools this host does not have"


def run_lints(spec: VendorSpec, origin: str, run: RunResult, decision: str) -> list[Lint]:
    """What a real run tells."""
    out: list[Lint] = []
    if run.exit_code == 2 and not run.stderr.strip() and decision in ("deny", "block"):
        out.append(Lint(code="exit2-empty-stderr", origin=origin, text=(
            f"exit 2 with nothing on stderr: {spec.id} blocks, and the reason the model reads is empty or "
            "the vendor's generic one; write why to stderr")))
    return out
