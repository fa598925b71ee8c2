"""Kilo's permission rules: OpenCode's rule language under Kilo's id (its ``permission`` block in
``kilo.json`` is OpenCode's shape and is weighed as OpenCode weighs it: the lane's ``perm_*`` cases
on ``kilo run`` 7.7.9 give OpenCode's verdicts), with Kilo's own words for a deny.

Measured (lane, perm_bash_pattern and perm_edit_pattern): where OpenCode lists every rule of the
permission, Kilo names the one rule that denied, as one object with its source
(``… Here are some of the relevant rules {"permission":"bash","pattern":"echo hello*","action":"deny",
"source":"project"}``). Kilo's agents bring defaults of their own (its ``code`` agent allows
``echo *``, logged as ``action.source=agent``), which this language does not apply: it applies
OpenCode's defaults, a loss every Kilo rule lists (:data:`AGENT_DEFAULTS`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

from compat_adapter.vendor import Degradation, PermissionRule, RuleCall, Ruling, degrade
from vendors.opencode.permission_language import LANGUAGE as OPENCODE_LANGUAGE
from vendors.opencode.permission_language import OpenCodeRules

__all__ = ("AGENT_DEFAULTS", "LANGUAGE", "KiloRules", "unavailable")

#: Kilo's agents weigh the project's rules after defaults of their own, which this language does not
#: apply (it applies OpenCode's build agent's): read in the 7.7.9 binary, its agents' bash defaults
#: allow read-only commands (``cat *``, ``ls *``, ``echo *`` …, logged ``action.source=agent`` in the
#: lane) and ask for the rest in some agents. A project rule that matches a call still decides it (the
#: last matching rule wins, and the project's come after); a call no project rule matches is decided by
#: those defaults under Kilo and by OpenCode's here.
AGENT_DEFAULTS = degrade(
    "decision-narrowed",
    "Kilo's agents bring permission defaults of their own (its code agent allows read-only commands such as "
    "`echo *`, measured: action.source=agent), weighed before the project's rules; here OpenCode's build-agent "
    "defaults stand in for them, so a call that no rule of the project matches may be decided otherwise "
    "(Kilo may ask where the host runs it, or run it where the host asks).")

#: Measured (lane, kilo:perm_bash_denied_whole): no tool hook runs for a call to a tool Kilo did not
#: offer; here the plugin's before and after hooks still run for it (as OpenCode's `invalid` tool runs them).
UNOFFERED_HOOKS = degrade(
    "scope-differs",
    "Kilo runs no tool hook for a call to a tool it did not offer (its AI SDK error comes before any tool "
    "runs); here the plugins' tool.execute.before and after still run for that call, as OpenCode's do.")

_DENIED = ("The user has specified a rule which prevents you from using this specific tool call. "
           "Here are some of the relevant rules ")


def denial_text(rule: PermissionRule) -> str:
    """Kilo's DeniedError message: the rule that denied, with where it was written."""
    named = {"permission": rule.tool, "pattern": rule.specifier or "*", "action": rule.behavior,
             "source": rule.scope}
    return _DENIED + json.dumps(named, separators=(",", ":"), ensure_ascii=False)


def unavailable(tool: str, offered: Sequence[str] | None) -> str:
    """What a call to a tool Kilo did not offer reads: the AI SDK's NoSuchToolError as it is. Kilo's
    tool-call repair gives up on an unknown name (7.7.9 binary: it returns null where OpenCode hands the
    call to its ``invalid`` tool), so there is no ``invalid`` wrapper nor entry, and no tool hook runs
    for the call (lane: kilo:perm_bash_denied_whole, measured). The list is of the request's tools,
    sorted; None: nobody knows them (no list)."""
    said = f"Model tried to call unavailable tool '{tool}'."
    return said if offered is None else f"{said} Available tools: {', '.join(sorted(set(offered)))}."


@dataclass(frozen=True, slots=True)
class KiloRules(OpenCodeRules):
    def decide(self, rules: Sequence[PermissionRule], call: RuleCall) -> Ruling | None:
        found = OpenCodeRules.decide(self, rules, call)
        if found is not None and found.unoffered:
            offered = None if call.offered is None else self.offered_names(call.offered)
            return replace(found, text=unavailable(call.tool, offered))
        if found is None or found.behavior != "deny":
            return found
        return replace(found, text=denial_text(found.rule))

    def refusal(self, rule: PermissionRule, call: RuleCall) -> str:
        return denial_text(rule) if OpenCodeRules.refusal(self, rule, call) else ""

    def losses(self, rule: PermissionRule) -> tuple[Degradation, ...]:
        out = [*OpenCodeRules.losses(self, rule), AGENT_DEFAULTS]
        if rule.specifier is None and rule.behavior == "deny":
            out.append(UNOFFERED_HOOKS)
        return tuple(out)


LANGUAGE = KiloRules("kilo", OPENCODE_LANGUAGE.combination)
