"""Codex's ``policy`` capability: ``.rules`` files are command policy, enforced on the host's shell.

:data:`POLICY` (a :class:`compat_adapter.capability.CommandPolicy`) is given in Codex's unit; the core
finds it there, grades ``.rules`` files with its losses, reads them with its parser
(``execpolicy.py``) and mounts its guard (``guard.py``) on tools/pre-execute. It replaced the
table's ``rules_policy`` switch and the core's ``routing/policy.py`` and ``routing/execpolicy.py``.
The parser and the guard load on first use: the matrix reads only the losses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from compat_adapter.vendor import Degradation, RulesFile, SeamMode, Surface, degrade

if TYPE_CHECKING:
    from compat_adapter.vendor import Host
    from vendors.codex.execpolicy import PrefixRule
    from vendors.codex.guard import PolicyGuard

__all__ = ("POLICY", "CodexPolicy")

#: The host seam the policy is enforced on (before the shell runs).
_PRE_EXECUTE = "tools/pre-execute"


class CodexPolicy:
    """Codex's ``policy`` capability: ``.rules`` files are prefix-rule command policy."""

    vendor = "codex"

    def holds(self, path: str) -> bool:
        return path.endswith(".rules")

    def losses(self, files: Sequence[RulesFile], surface: Surface) -> tuple[Degradation, ...]:
        """What Codex's execution policy (``.rules`` files) becomes here."""
        if not any(self.holds(f.path) for f in files):
            return ()
        if _PRE_EXECUTE not in surface.seams or surface.seams[_PRE_EXECUTE] is not SeamMode.WATERFALL:
            return (degrade("decision-narrowed",
                            f"host {surface.host} {surface.version} has no tools/pre-execute waterfall, so the "
                            "prefix rules of the .rules files are carried as text and never enforced."),)
        return (
            degrade("approximate",
                    "The prefix rules are enforced on the host's shell tool before it runs, as Codex enforces "
                    "them (forbidden denies with \"`<command>` rejected: blocked by policy\", prompt asks the "
                    "host's approval, denied when it has none); allow cannot lift a sandbox the host does not "
                    "have, and a script is split into commands only when it is plain words joined by &&, ||, "
                    "; or |."),
            degrade("message-provenance",
                    "The .rules text is also carried as context at every agent start, which Codex never "
                    "shows its model."),
        )

    def parse(self, text: str, path: str) -> tuple[PrefixRule, ...]:
        from vendors.codex.execpolicy import parse_rules

        return parse_rules(text, path)

    def guard(self, host: Host) -> PolicyGuard:
        from vendors.codex.guard import PolicyGuard

        return PolicyGuard(host)


POLICY = CodexPolicy()
