"""Grading a permission rule against a host surface, like a hook: pure, one frozen result each.

A rule is enforced on the host's ``tools/pre-execute`` seam (the refusal the model reads is put
right on ``tools/post-execute``). It is UNSUPPORTED, with its reason, when the host has no such seam
or none of the host tools it could apply to; otherwise DIRECT, or ADAPTED with every loss listed.
A setting beside the rules (``defaultMode`` …) is graded the same way by its language.
"""

from __future__ import annotations

from compat_adapter.model import Capability, CapabilityResult, Degradation, Route, Surface, capability_result, degrade
from compat_adapter.host.offer import OFFER_SEAM
from compat_adapter.permissions.language import HidesTools, RuleLanguage
from compat_adapter.permissions.model import PermissionRule, PermissionSetting

__all__ = ("PRE_SEAM", "POST_SEAM", "RULE_PREFIX", "grade_permission", "grade_setting", "rule_event")

PRE_SEAM = "tools/pre-execute"
POST_SEAM = "tools/post-execute"
#: How a rule's result event begins (a hook's event never does).
RULE_PREFIX = "permissions."


def rule_event(rule: PermissionRule) -> str:
    """The result's event for a rule: the key it is listed under (``permissions.deny``)."""
    return f"{RULE_PREFIX}{rule.behavior}"


def _unsupported(rid: str, vendor: str, event: str, matcher: str, reason: str) -> CapabilityResult:
    return capability_result(id=rid, vendor=vendor, event=event, capability=Capability.UNSUPPORTED,
                             route=Route.UNSUPPORTED, reason=reason, matcher=matcher)


def grade_permission(rule: PermissionRule, language: RuleLanguage, surface: Surface, *,
                     id: str | None = None) -> CapabilityResult:
    """The grade of one rule on ``surface``."""
    rid = id or rule.origin
    event = rule_event(rule)
    if PRE_SEAM not in surface.seams:
        return _unsupported(rid, rule.vendor, event, rule.text,
                            f"the host has no {PRE_SEAM} seam: nothing here can stop a tool call, so the "
                            f"{rule.behavior} rule {rule.text} would guard nothing")
    tools = language.host_tools(rule)
    if not tools:
        return _unsupported(rid, rule.vendor, event, rule.text,
                            f"no host tool stands for {rule.vendor}'s {rule.tool}: the {rule.behavior} rule "
                            f"{rule.text} has no call here to apply to (a host tool of another name that "
                            f"does the same would not be guarded by it)")
    losses: list[Degradation] = list(language.losses(rule))
    if isinstance(language, HidesTools) and OFFER_SEAM not in surface.seams and language.hidden((rule,), tools):
        losses.append(degrade("scope-differs",
                              f"{rule.vendor} does not offer its model a tool its rules deny outright; the host "
                              f"has no {OFFER_SEAM} seam, so it still offers it, and the model may call it where "
                              f"{rule.vendor}'s would not (the call is then refused in {rule.vendor}'s words)."))
    services: tuple[str, ...] = ()
    if rule.behavior == "ask":
        if "approval" in surface.services:
            services = ("approval",)
        elif language.combination.unattended_ask == "run":
            losses.append(degrade("decision-narrowed",
                                  "Nobody is asked: the host has no approval service, so the call runs, as in "
                                  "the vendor's non-interactive run."))
        else:
            losses.append(degrade("decision-narrowed",
                                  "Nobody is asked: the host has no approval service, so the call is refused "
                                  "as the vendor refuses an ask it cannot put to anyone (its non-interactive "
                                  "run), with the vendor's words."))
    if rule.behavior == "allow":
        losses.append(degrade("decision-narrowed",
                              "An allow rule approves nothing in advance here: the host's own approval policy "
                              "still decides; the rule only keeps no ask or deny of lower precedence from "
                              "applying, as in the vendor."))
    seams = (PRE_SEAM, POST_SEAM) if POST_SEAM in surface.seams else (PRE_SEAM,)
    if POST_SEAM not in surface.seams and rule.behavior != "allow":
        losses.append(degrade("text-differs", "The model reads the host's wording of the refusal: the host "
                                              "has no post-execute seam to put the vendor's words in."))
    return capability_result(
        id=rid, vendor=rule.vendor, event=event, capability=Capability.ADAPTED if losses else Capability.DIRECT,
        route=Route.NATIVE_TRANSLATE, seams=seams, services=services,
        degradations=tuple(losses), matcher=rule.text, measured_on=_measured(rule.vendor))


def grade_setting(setting: PermissionSetting, language: RuleLanguage, surface: Surface, *,
                  id: str | None = None) -> CapabilityResult:
    """The grade of one setting beside the rules (``defaultMode``, ``additionalDirectories``)."""
    rid = id or setting.origin
    event = f"permissions.{setting.key}"
    shown = setting.value if isinstance(setting.value, str) else ", ".join(map(str, setting.value)) \
        if isinstance(setting.value, tuple) else repr(setting.value)
    judged = language.setting_losses(setting.key, setting.value)
    if isinstance(judged, str):
        return _unsupported(rid, setting.vendor, event, shown, judged)
    if PRE_SEAM not in surface.seams:
        return _unsupported(rid, setting.vendor, event, shown, f"the host has no {PRE_SEAM} seam")
    return capability_result(
        id=rid, vendor=setting.vendor, event=event,
        capability=Capability.ADAPTED if judged else Capability.DIRECT, route=Route.NATIVE_TRANSLATE,
        seams=(PRE_SEAM,), degradations=judged, matcher=shown, measured_on=_measured(setting.vendor))


def _measured(vendor: str) -> str | None:
    from compat_adapter.catalog import resolve_vendor

    return resolve_vendor(vendor).measured_on
