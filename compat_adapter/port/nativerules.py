"""A ported permission rule written in the target's own format, where the target reads it as written.

A target whose rule language reads the source rule's text into the same rule (same tool, same
specifier, same behaviour: Claude's ``permissions`` block read by Qwen Code and CodeBuddy Code) gets
the rule in its own permission block, in the file port writes: the target then weighs it where it
weighs its own rules, refuses in its own words and shows it among its own rules. What the target's
reading of the text does differently is measured on probe calls derived from the rule (the
source's language and the target's, each matching the call in its own tool names) and listed.

A deny or ask rule keeps its guard entry (:mod:`compat_adapter.port.rules`) as well, marked
``native``: the guard leaves to the target every call the target's own reading refuses, and refuses
with the source's reading the calls the target's reading lets through. A target that reads no rule
of the source's as written keeps the guard entry alone, and its grade says so.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from compat_adapter.model import Degradation
from compat_adapter.permissions.language import RuleLanguage
from compat_adapter.permissions.model import PermissionRule, RuleCall
from compat_adapter.runtime.callenv import environ
from compat_adapter.vocabulary import DegradationCode

__all__ = ("NativeRule", "RuleBlock", "add_rules", "block_of", "holds", "leaves_to_target", "native_form", "native_losses",
           "strip_rules")

#: One rule as written into the target's block: (block key, behaviour, rule text).
NativeRule = tuple[str, str, str]


@runtime_checkable
class RuleBlock(Protocol):
    """A rule language whose rules sit under one key of its vendor's settings file (the file its
    host face writes hooks to)."""

    @property
    def block(self) -> str:
        ...


def _language(vendor: str) -> RuleLanguage | None:
    from compat_adapter.permissions.read import language_of

    return language_of(vendor)


def native_form(rule: PermissionRule, target: str, root: Path, file: str) -> tuple[PermissionRule | None, str]:
    """The target's reading of the rule's text as written in its own block of ``file``, or None and
    why the rule cannot be written there."""
    language = _language(target)
    if language is None:
        return None, (f"{target} has no rule language modelled here: its own permission format is not written, "
                      f"the rule is enforced by the ported hook entry")
    if not isinstance(language, RuleBlock):
        return None, (f"{target}'s permission rules are not kept in {file}: port does not translate {rule.vendor}'s "
                      f"rule into them, the rule is enforced by the ported hook entry")
    found = language.read({rule.behavior: [rule.text]}, path=root / file, shown=file, place=language.block,
                          scope="project")
    same = [r for r in found.rules if (r.behavior, r.tool, r.specifier) == (rule.behavior, rule.tool, rule.specifier)]
    if found.refused or len(found.rules) != 1 or not same:
        return None, (f"{target}'s rule language does not read {rule.text!r} as {rule.vendor} does: the rule is "
                      f"enforced by the ported hook entry")
    return same[0], ""


def block_of(target: str) -> str:
    """The key of the target's settings file that holds its rules (only for a target with a block)."""
    language = _language(target)
    assert isinstance(language, RuleBlock)
    return language.block


def leaves_to_target(rule: PermissionRule, target: str, host: str, args: dict[str, object], cwd: Path,
                     folder: str) -> bool:
    """Whether the target's own reading of ``rule``, written in its block in ``folder`` (relative to
    the project at ``cwd``), refuses this call too: then the guard leaves the call to the target,
    which refuses it in its own words."""
    from dataclasses import replace

    there = replace(rule, vendor=target, settings_dir=str((cwd / folder).resolve()))
    return bool(_matches(there, host, args, cwd, environ().get("HOME") or str(Path.home())))


def _shell_probes(specifier: str) -> list[str]:
    base = specifier.replace(":*", " *").replace("*", " ").split()
    if not base:
        return []
    head = " ".join(base)
    return [head, f"{head} build", f"FOO=1 {head} build", f"timeout 5 {head} build", f"true && {head} build",
            f"echo x | {head} build"]


def _probes(rule: PermissionRule, language: RuleLanguage) -> list[tuple[str, dict[str, object]]]:
    """Host-neutral calls the rule is about: its command and its usual disguises, or its path."""
    hosts = language.host_tools(rule)
    spec = rule.specifier
    out: list[tuple[str, dict[str, object]]] = []
    for host in hosts:
        if host == "bash":
            out += [("bash", {"command": c}) for c in (_shell_probes(spec) if spec else ["ls"])]
        elif spec and not spec.startswith(("http", "domain:")):
            path = spec.lstrip("/").replace("**/", "").replace("*", "x") or "x"
            out.append((host, {"file_path": path, "path": path}))
        else:
            out.append((host, {}))
    return out


def _matches(rule: PermissionRule, host: str, args: dict[str, object], cwd: Path, home: str | None = None) -> bool | None:
    from compat_adapter.dialects.common import vendor_call

    language = _language(rule.vendor)
    if language is None:
        return None
    try:
        name, vendor_args = vendor_call(rule.vendor, host, args)
    except Exception:  # the vendor has no such tool: its rule cannot apply
        return False
    call = RuleCall(tool=name, input=vendor_args, host_tool=host, cwd=str(cwd), home=home or str(cwd / ".home"))
    return language.matches(rule, call)


def native_losses(rule: PermissionRule, written: PermissionRule, target: str, root: Path) -> tuple[Degradation, ...]:
    """What the rule written in the target's block does otherwise than at home, measured on probe
    calls, and what the two vendors' weighing of rules against hooks changes."""
    source_language, target_language = _language(rule.vendor), _language(target)
    assert source_language is not None and target_language is not None
    wider, narrower = [], []
    for host, args in _probes(rule, source_language):
        home, there = _matches(rule, host, args, root), _matches(written, host, args, root)
        shown = str(args.get("command") or args.get("file_path") or host)
        if there and not home:
            wider.append(shown)
        elif home and not there:
            narrower.append(shown)
    losses: list[Degradation] = []
    if wider:
        losses.append(Degradation(code=DegradationCode.MATCHER_NARROWED, text=(
            f"{target} reads {rule.text!r} more widely than {rule.vendor}: it also {rule.behavior}s "
            + ", ".join(f"`{w}`" for w in wider))))
    if narrower and rule.behavior != "allow":
        losses.append(Degradation(code=DegradationCode.MESSAGE_PROVENANCE, text=(
            f"{target}'s reading of {rule.text!r} misses " + ", ".join(f"`{n}`" for n in narrower)
            + f": the guard entry refuses those with {rule.vendor}'s reading, as a hook's reason")))
    elif narrower:
        losses.append(Degradation(code=DegradationCode.DECISION_NARROWED, text=(
            f"{target}'s reading of {rule.text!r} does not allow " + ", ".join(f"`{n}`" for n in narrower)
            + f", which {rule.vendor} allows by it")))
    home_c, there_c = source_language.combination, target_language.combination
    if rule.behavior == "deny" and there_c.hook_allow_lifts_deny and not home_c.hook_allow_lifts_deny:
        losses.append(Degradation(code=DegradationCode.DECISION_NARROWED, text=(
            f"a {target} hook's allow lifts the rule; in {rule.vendor} the rule still refuses")))
    if rule.behavior == "ask" and there_c.unattended_ask != home_c.unattended_ask:
        losses.append(Degradation(code=DegradationCode.DECISION_NARROWED, text=(
            f"an ask nobody can answer: {target} does '{there_c.unattended_ask}', {rule.vendor} "
            f"'{home_c.unattended_ask}'")))
    if there_c.hooks_first != home_c.hooks_first and rule.behavior != "allow":
        first = "after" if there_c.hooks_first else "before"
        losses.append(Degradation(code=DegradationCode.TIMING_DIFFERS, text=(
            f"{target} weighs its rules {first} its pre-tool hooks, {rule.vendor} the other way round: "
            "a refused call " + ("fires" if there_c.hooks_first else "fires none of") + " the hooks there")))
    return tuple(losses)


def _load(text: str | None) -> dict[str, object]:
    data = json.loads(text) if text and text.strip() else {}
    return data if isinstance(data, dict) else {}


def add_rules(text: str | None, rules: Sequence[NativeRule]) -> str | None:
    """The settings text with each rule in its block, after the team's own (a rule already there is
    not written twice)."""
    if not rules:
        return text
    data = _load(text)
    for place, behavior, rule in rules:
        block = data.setdefault(place, {})
        if not isinstance(block, dict):
            from compat_adapter.errors import ConfigParseError

            raise ConfigParseError(f"the target file's `{place}` is not an object; port leaves it alone")
        listed = block.setdefault(behavior, [])
        if isinstance(listed, list) and rule not in listed:
            listed.append(rule)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def holds(text: str | None, rule: NativeRule) -> bool:
    """Whether the settings text already lists the rule in its block."""
    block = _load(text).get(rule[0])
    listed = block.get(rule[1]) if isinstance(block, dict) else None
    return isinstance(listed, list) and rule[2] in listed


def strip_rules(text: str | None, rules: Iterable[NativeRule]) -> str | None:
    """The settings text without the rules port wrote (an emptied list or block goes too)."""
    wanted = list(rules)
    if text is None or not wanted:
        return text
    data = _load(text)
    for place, behavior, rule in wanted:
        block = data.get(place)
        if not isinstance(block, dict):
            continue
        listed = block.get(behavior)
        if isinstance(listed, list) and rule in listed:
            listed.remove(rule)
            if not listed:
                del block[behavior]
            if not block:
                del data[place]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n" if data else None


