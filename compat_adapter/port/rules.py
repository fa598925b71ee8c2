"""A team's permission rules (Claude's ``permissions.deny``/``ask`` and every vendor's that reads
them) ported as one guard entry on the target's pre-tool event.

The rules are weighed by the shim with their own vendor's language (:mod:`compat_adapter.permissions`,
the engine the embedded host uses): the call in the source vendor's tool and argument names, the
deciding rule by the source's precedence, and the refusal in the source's words, which the target
then frames as any hook's reason. So a rule refuses on the target exactly the calls it refuses at
home. What differs is listed on each rule: it is weighed as one of the target's hooks (beside the
target's other hooks, after the target's own rules), and an ``ask`` is what the target makes of a
hook's ask. An ``allow`` rule is not ported: as a hook's allow it would lift the target's own checks,
which the rule never did at home; it is UNSUPPORTED with that reason.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from compat_adapter.dialects.base import HookAnswer, Moment
from compat_adapter.model import CapabilityResult, Degradation, capability_result
from compat_adapter.permissions.model import PermissionRule
from compat_adapter.runtime.callenv import environ
from compat_adapter.vocabulary import Capability, DegradationCode, Route

__all__ = ("RULES_EVENT", "RULE_TIMEOUT_S", "grade_rule", "rule_answer", "rule_entry")

#: The source "event" of a ported rule entry (rules are no hook event of their vendor).
RULES_EVENT = "permissions"
#: The entry's timeout: weighing rules runs no process.
RULE_TIMEOUT_S = 10.0
_POINT = "tools/pre-execute"


def grade_rule(rule: PermissionRule, target: str, target_event: str | None, *, not_native: str = "",
               native: tuple[Degradation, ...] | None = None) -> CapabilityResult:
    """The rule graded on ``target``: written in the target's own block (``native``: what that
    writing loses, :mod:`compat_adapter.port.nativerules`), or a guard entry only (``not_native``:
    why the target's format does not hold it)."""
    common: dict[str, Any] = {"id": rule.origin, "vendor": rule.vendor, "event": f"rule:{rule.behavior}",
                              "matcher": rule.text}
    if native is not None:
        return capability_result(**common, capability=Capability.ADAPTED, route=Route.NATIVE_TRANSLATE, point=_POINT,
                                 degradations=native)
    why = f" ({not_native})" if not_native else ""
    if target_event is None:
        return capability_result(**common, capability=Capability.UNSUPPORTED, route=Route.UNSUPPORTED,
                                 reason=f"{target} has no hook event before a tool runs: nothing there could weigh "
                                        f"the rule{why}")
    if rule.behavior == "allow":
        return capability_result(**common, capability=Capability.UNSUPPORTED, route=Route.UNSUPPORTED,
                                 reason=f"an allow rule is not ported: as a {target} hook's allow it would lift "
                                        f"{target}'s own checks, which the rule never did in {rule.vendor}{why}")
    losses = [Degradation(code=DegradationCode.TIMING_DIFFERS,
                          text=f"weighed as a {target} {target_event} hook: beside {target}'s other hooks and after "
                               f"its own rules, not where {rule.vendor} weighs its rules{why}"),
              Degradation(code=DegradationCode.MESSAGE_PROVENANCE,
                          text=f"the rule's refusal, in {rule.vendor}'s words, is framed by {target} as a hook's reason")]
    if rule.behavior == "ask":
        losses.append(Degradation(code=DegradationCode.DECISION_NARROWED,
                                  text=f"an ask is what {target} makes of a hook's ask (where it has none, a deny)"))
    return capability_result(**common, capability=Capability.ADAPTED, route=Route.NATIVE_TRANSLATE, point=_POINT,
                             degradations=tuple(losses))


def rule_entry(rule: PermissionRule, root: Path, native: str | None = None) -> dict[str, Any]:
    """The rule as the shim's hook list carries it (its folders relative to the project, so the
    written entry is the same on every checkout); ``native``: the folder of the target's file where
    port also wrote the rule in the target's own format."""
    def rel(folder: str) -> str:
        return os.path.relpath(folder, root.resolve()) if Path(folder).is_absolute() else folder

    entry = {"rule": {"vendor": rule.vendor, "behavior": rule.behavior, "text": rule.text, "tool": rule.tool,
                      "specifier": rule.specifier, "scope": rule.scope, "root": rel(rule.root),
                      "settings_dir": rel(rule.settings_dir)}, "origin": rule.origin}
    return {**entry, "native": native} if native is not None else entry


def rule_answer(source: str, hooks: Sequence[Mapping[str, Any]], moment: Moment, target: str = "") -> HookAnswer:
    """The ported rules' answer to the target's call: the source's ruling, as a hook's deny or ask;
    no answer where the deciding rule is written in the target's own block and the target's reading
    refuses the call too (the target refuses it in its own words)."""
    from compat_adapter.dialects.common import vendor_call
    from compat_adapter.permissions.engine import ruling
    from compat_adapter.permissions.model import RuleCall
    from compat_adapter.permissions.read import language_of

    language = language_of(source)
    if language is None:
        return HookAnswer(decision="deny", reason=f"{source} has no rule language here: its ported rules cannot be weighed")
    cwd = Path(moment.cwd)
    rules = []
    for hook in hooks:
        r = dict(hook["rule"])
        rules.append(PermissionRule(vendor=str(r["vendor"]), behavior=r["behavior"], text=str(r["text"]),
                                    tool=str(r["tool"]), specifier=r.get("specifier"), origin=str(hook.get("origin")),
                                    scope=str(r["scope"]), root=str((cwd / str(r["root"])).resolve()),
                                    settings_dir=str((cwd / str(r["settings_dir"])).resolve())))
    host_tool = str(moment.fields.get("tool_name") or "")
    args = moment.fields.get("tool_input")
    name, vendor_args = vendor_call(source, host_tool, dict(args) if isinstance(args, Mapping) else {})
    call = RuleCall(tool=name, input=vendor_args, host_tool=host_tool, cwd=str(cwd),
                    home=environ().get("HOME") or str(Path.home()))
    found = ruling(rules, call, language)
    if found is None or found.behavior == "allow":
        return HookAnswer()
    folder = next((h.get("native") for h in hooks if h.get("origin") == found.rule.origin), None)
    if folder is not None and target:
        from compat_adapter.port.nativerules import leaves_to_target

        host_args = dict(args) if isinstance(args, Mapping) else {}
        if leaves_to_target(found.rule, target, host_tool, host_args, cwd, str(folder)):
            return HookAnswer()
    return HookAnswer(decision=found.behavior, reason=found.text)
