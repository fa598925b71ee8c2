"""The precedence engine: which rule decides a call, and how a rule's decision meets the hooks'.

Pure. Most vendors here weigh their rules the same way: a matching deny wins, then an ask, then an
allow, whatever order the files list them in and whichever scope they came from (Claude Code's
"deny rules take precedence", CodeBuddy's and Qwen Code's alike); a language whose vendor weighs them
otherwise decides for itself (Gemini CLI by priority, OpenCode by the last matching rule). How a rule meets a pre-tool
hook's answer is the vendor's own (:class:`~compat_adapter.permissions.language.Combination`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from compat_adapter.permissions.language import Combination, OwnPrecedence, RuleLanguage
from compat_adapter.permissions.model import BEHAVIORS, PermissionRule, RuleCall, Ruling

__all__ = ("rule_for", "ruling", "strictest", "winner")

_RANK = {b: len(BEHAVIORS) - i for i, b in enumerate(BEHAVIORS)}


def rule_for(rules: Iterable[PermissionRule], call: RuleCall, language: RuleLanguage) -> PermissionRule | None:
    """The rule that decides ``call``: the first matching deny, else ask, else allow; None when none matches."""
    listed = tuple(rules)
    for behavior in BEHAVIORS:
        for rule in listed:
            if rule.behavior == behavior and language.matches(rule, call):
                return rule
    return None


def ruling(rules: Iterable[PermissionRule], call: RuleCall, language: RuleLanguage) -> Ruling | None:
    """The deciding rule with what the model reads for it; None when no rule matches. A language
    with its vendor's own precedence (:class:`~compat_adapter.permissions.language.OwnPrecedence`)
    decides for itself."""
    if isinstance(language, OwnPrecedence):
        return language.decide(tuple(rules), call)
    rule = rule_for(rules, call, language)
    if rule is None:
        return None
    if rule.behavior == "deny":
        return Ruling("deny", rule, language.refusal(rule, call))
    if rule.behavior == "ask":
        return Ruling("ask", rule, language.unasked(rule, call))
    return Ruling("allow", rule, "")


def strictest(rulings: Iterable[Ruling | None]) -> Ruling | None:
    """Of several vendors' rulings on one call, the strictest (the first one on a tie)."""
    best: Ruling | None = None
    for found in rulings:
        if found is not None and (best is None or _RANK[found.behavior] > _RANK[best.behavior]):
            best = found
    return best


def winner(hook: Literal["allow", "deny", "ask"] | None, found: Ruling | None,
           combination: Combination) -> Literal["hook", "rule"]:
    """Whose decision stands when the hooks answered ``hook`` and the rules ``found``.

    Measured on Claude Code 2.1.332 (``claude -p``): a hook's deny stands over any rule (the model
    reads the hook's reason); a deny rule stands over a hook's allow or ask; an ask rule stands over
    a hook's allow unless the vendor lets the allow lift it, and a hook's own ask keeps its reason.
    """
    if found is None or found.behavior == "allow" or hook == "deny":
        return "hook"
    if found.behavior == "deny":
        return "hook" if hook == "allow" and combination.hook_allow_lifts_deny else "rule"
    if hook == "ask" or (hook == "allow" and combination.hook_allow_lifts_ask):
        return "hook"
    return "rule"
