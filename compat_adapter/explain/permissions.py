"""``explain`` for permission rules: the files' rules against one tool call, the vendor's verdict
beside the host's, each weighed against what the event's hooks answered (the vendor's own
combination: under Claude Code a hook's deny stands, a hook's allow lifts no rule)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from compat_adapter.explain.report import PermissionSide, PermissionsExplained, RuleCheck
from compat_adapter.model import Surface
from compat_adapter.permissions.engine import ruling, winner
from compat_adapter.permissions.grade import grade_permission
from compat_adapter.permissions.language import RuleLanguage
from compat_adapter.permissions.model import PermissionRule, RuleCall, Ruling
from compat_adapter.permissions.read import language_of

__all__ = ("explain_permissions",)


def _side(found: Ruling | None, hook: str | None, language: RuleLanguage, *, who: str,
          asks: bool) -> PermissionSide:
    said = hook if hook in ("allow", "deny", "ask") else None
    if found is None or found.behavior == "allow" or winner(said, found, language.combination) == "hook":  # type: ignore[arg-type]
        if said == "deny":
            return PermissionSide(decision="deny", decided_by="hook", effect=f"{who} refuses the call: a hook's "
                                                                             "deny stands over any rule")
        if found is not None and found.behavior != "allow":
            return PermissionSide(decision=said or "none", rule=found.rule.text, decided_by="hook",
                                  effect=f"{who} follows the hook's {said}: it stands over the {found.behavior} rule")
        rule = found.rule.text if found is not None else None
        return PermissionSide(decision="allow" if found is not None else "none", rule=rule, decided_by="none",
                              effect=f"no rule stops the call: {who} runs it unless a hook refuses it")
    if found.behavior == "deny":
        return PermissionSide(decision="deny", rule=found.rule.text, decided_by="rule", reads=found.text,
                              effect=f"{who} refuses the call; the tool does not run")
    # What happens to an ask nobody answers is the vendor's (codebuddy -p runs the call, measured).
    runs = language.combination.unattended_ask == "run"
    if asks:
        return PermissionSide(decision="ask", rule=found.rule.text, decided_by="rule",
                              reads=None if runs else found.text,
                              effect=f"{who} asks for approval first; unanswered, the call "
                                     + ("runs, as in the vendor's non-interactive run" if runs else "is refused"))
    if runs:
        return PermissionSide(decision="ask", rule=found.rule.text, decided_by="rule",
                              effect=f"{who} cannot ask anyone: the call runs, as in a non-interactive run")
    return PermissionSide(decision="ask", rule=found.rule.text, decided_by="rule", reads=found.text,
                          effect=f"{who} cannot ask anyone: the call is refused as in a non-interactive run")


def explain_permissions(vendor: str, rules: Sequence[PermissionRule], tool: str, tool_input: Mapping[str, Any],
                        root: Path, surface: Surface, hook_decision: str | None) -> PermissionsExplained | None:
    """The rules against the call ``tool(tool_input)`` (the vendor's names); None without rules."""
    language = language_of(vendor)
    mine = [r for r in rules if r.vendor == vendor]
    if language is None or not mine:
        return None
    from compat_adapter.dialects.common import host_call

    host_tool, _ = host_call(vendor, tool, dict(tool_input))
    call = RuleCall(tool=tool, input=dict(tool_input), host_tool=host_tool or tool, cwd=str(root),
                    home=os.environ.get("HOME") or str(Path.home()))
    graded = [(r, grade_permission(r, language, surface, id=r.origin)) for r in mine]
    checks = tuple(RuleCheck(origin=r.origin, behavior=r.behavior, rule=r.text, matches=language.matches(r, call),
                             capability=str(g.capability), reason=g.reason) for r, g in graded)
    product = getattr(language, "product", vendor)
    theirs = _side(ruling(mine, call, language), hook_decision, language, who=product, asks=False)
    # The host runs only the rules its grade mounts; an ask goes to its approval service when it has one.
    mounted = [r for r, g in graded if g.mounted and host_tool is not None]
    # The host's guard weighs a hook's allow as the vendor does when the adapter ran the hook
    # itself (routing.allowed), as explain's replay does.
    ours = _side(ruling(mounted, call, language), hook_decision, language, who=f"host {surface.host}",
                 asks="approval" in surface.services)
    return PermissionsExplained(rules=checks, vendor=theirs, host=ours)
