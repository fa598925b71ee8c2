"""Kilo's permission rules: OpenCode's rule language under Kilo's id (its ``permission`` block in
``kilo.json`` is OpenCode's shape and is weighed as OpenCode weighs it: the lane's ``perm_*`` cases
on ``kilo run`` 7.7.9 give OpenCode's verdicts), with Kilo's own words for a deny.

Measured (lane, perm_bash_pattern and perm_edit_pattern): where OpenCode lists every rule of the
permission, Kilo names the one rule that denied, as one object with its source
(``… Here are some of the relevant rules {"permission":"bash","pattern":"echo hello*","action":"deny",
"source":"project"}``). Kilo's agents bring defaults of their own (its ``code`` agent allows
``echo *``, logged as ``action.source=agent``), which this language does not know: it applies
OpenCode's defaults.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

from compat_adapter.vendor import PermissionRule, RuleCall, Ruling
from vendors.opencode.permission_language import LANGUAGE as OPENCODE_LANGUAGE
from vendors.opencode.permission_language import OpenCodeRules

__all__ = ("LANGUAGE", "KiloRules")

_DENIED = ("The user has specified a rule which prevents you from using this specific tool call. "
           "Here are some of the relevant rules ")


def denial_text(rule: PermissionRule) -> str:
    """Kilo's DeniedError message: the rule that denied, with where it was written."""
    named = {"permission": rule.tool, "pattern": rule.specifier or "*", "action": rule.behavior,
             "source": rule.scope}
    return _DENIED + json.dumps(named, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class KiloRules(OpenCodeRules):
    def decide(self, rules: Sequence[PermissionRule], call: RuleCall) -> Ruling | None:
        found = OpenCodeRules.decide(self, rules, call)
        if found is None or found.behavior != "deny" or found.unoffered:
            return found
        return replace(found, text=denial_text(found.rule))

    def refusal(self, rule: PermissionRule, call: RuleCall) -> str:
        return denial_text(rule) if OpenCodeRules.refusal(self, rule, call) else ""


LANGUAGE = KiloRules("kilo", OPENCODE_LANGUAGE.combination)
