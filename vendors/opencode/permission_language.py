"""OpenCode's permission rules in the permission framework: read from opencode.json's ``permission``
block, matched and weighed as OpenCode does (:mod:`vendors.opencode.permissions`).

OpenCode weighs its rules by order, not by deny-before-allow: the last rule that matches wins, after
the agent's own defaults. The language decides a call itself (``decide``) from every OpenCode rule at
once, in file order. A rule written ``"bash": "deny"`` has no specifier (its pattern is ``*``).

Measured on OpenCode 1.18.33 (``opencode run``): the plugin's ``tool.execute.before`` runs before the
permission is asked, so a rule-denied call still fires it; an ask is auto-rejected and the run ends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from compat_adapter.vendor import (
    Combination, Degradation, PermissionImport, PermissionRule, Refused, RuleCall, Ruling, degrade, json_kind,
    resolve_vendor,
)
from vendors.opencode.permissions import (
    REJECTED,
    Rule,
    from_config,
    hidden_tools,
    judge,
    matches,
    patterns_for,
    unavailable,
)

__all__ = ("LANGUAGE", "OpenCodeRules")

#: The permissions a host tool asks for (OpenCode's tool → permission), by OpenCode tool name.
_ASKED_BY = {"bash": "bash", "edit": "edit", "write": "edit", "apply_patch": "edit", "read": "read",
             "glob": "glob", "grep": "grep", "webfetch": "webfetch", "websearch": "websearch", "task": "task",
             "todowrite": "todowrite", "skill": "skill", "lsp": "lsp", "question": "question"}


def _own(rule: PermissionRule) -> Rule:
    return Rule(rule.tool, rule.specifier or "*", rule.behavior, from_string=rule.specifier is None)


@dataclass(frozen=True, slots=True)
class OpenCodeRules:
    vendor: str
    combination: Combination

    def read(self, value: object, *, path: Path, shown: str, place: str, scope: str) -> PermissionImport:
        out = PermissionImport()
        if not isinstance(value, Mapping):
            out.refused.append(self._refused("`permission`", shown, place, f"expected an object, found {json_kind(value)}"))
            return out
        root = str(path.absolute().parent.parent if path.parent.name == ".opencode" else path.absolute().parent)
        for key, item in value.items():
            where = f"{place}.{key}"
            try:
                rules = from_config({key: item})
            except ValueError as exc:
                out.refused.append(self._refused(f"`{key}`", shown, where, str(exc)))
                continue
            for rule in rules:
                text = f"{key}: {rule.action}" if rule.from_string else f"{key} {rule.pattern}: {rule.action}"
                out.rules.append(PermissionRule(
                    vendor=self.vendor, behavior=rule.action, text=text, tool=key,
                    specifier=None if rule.from_string else rule.pattern,
                    origin=f"{shown}:{where}" + ("" if rule.from_string else f"[{rule.pattern!r}]"),
                    scope=scope, root=root, settings_dir=str(path.absolute().parent)))
        return out

    def _refused(self, what: str, shown: str, place: str, reason: str) -> Refused:
        return Refused(vendor=self.vendor, what=f"permission {what}", reason=reason, origin=f"{shown}:{place}",
                       code="INVALID_ENTRY")

    # ── which calls ─────────────────────────────────────────────────────────────────────────
    def host_tools(self, rule: PermissionRule) -> tuple[str, ...]:
        tools = resolve_vendor(self.vendor).tools
        return tuple(dict.fromkeys(t.host for t in tools
                                   if t.vendor in _ASKED_BY and matches(_ASKED_BY[t.vendor], rule.tool)))

    def matches(self, rule: PermissionRule, call: RuleCall) -> bool:
        """Whether the rule names the permission the call asks for and one of its patterns (which
        rule decides is :meth:`decide`'s: the last that matches)."""
        asked = patterns_for(call.tool, call.input, call.cwd)
        own = _own(rule)
        return asked is not None and matches(asked[0], own.permission) and any(
            matches(p, own.pattern) for p in asked[1])

    def decide(self, rules: Sequence[PermissionRule], call: RuleCall) -> Ruling | None:
        """OpenCode's answer: the last matching rule per pattern, the agent's defaults first."""
        own = [_own(r) for r in rules]
        found = judge(own, call.tool, call.input, call.cwd)
        if found is None or found.rule is None or found.action == "allow":
            return None
        rule = next((r for r, o in zip(reversed(rules), reversed(own), strict=True) if o == found.rule), None)
        if rule is None:
            # One of the agent's own defaults decided (a `*.env` read asks): not a team rule.
            return None
        if found.action == "deny" and call.tool in hidden_tools(own, [call.tool]):
            offered = None if call.offered is None else self.offered_names(call.offered)
            return Ruling("deny", rule, unavailable(call.tool, offered), unoffered=True)
        return Ruling(found.action, rule, found.text)

    # ── which tools the model is offered ────────────────────────────────────────────────────
    def offered_names(self, host_tools: Sequence[str]) -> tuple[str, ...]:
        """The host tools by this vendor's names (the first it lists; a tool it has no name for
        keeps the host's)."""
        named: dict[str, str] = {}
        for t in resolve_vendor(self.vendor).tools:
            named.setdefault(t.host, t.vendor)
        return tuple(named.get(t, t) for t in host_tools)

    def hidden(self, rules: Sequence[PermissionRule], tools: Sequence[str]) -> frozenset[str]:
        """The host tools OpenCode would not offer: its own tool's last rule by permission denies ``*``."""
        own = [_own(r) for r in rules]
        names = self.offered_names(tools)
        gone = hidden_tools(own, names)
        return frozenset(host for host, name in zip(tools, names, strict=True) if name in gone)

    # ── what the model reads ────────────────────────────────────────────────────────────────
    def refusal(self, rule: PermissionRule, call: RuleCall) -> str:
        found = judge((_own(rule),), call.tool, call.input, call.cwd)
        return found.text if found is not None else ""

    def unasked(self, rule: PermissionRule, call: RuleCall) -> str:
        return REJECTED

    def losses(self, rule: PermissionRule) -> tuple[Degradation, ...]:
        out: list[Degradation] = []
        if rule.specifier is None and rule.behavior == "deny":
            out.append(degrade("text-differs",
                               "OpenCode does not offer the model a tool whose last rule denies it whole, and a "
                               "call to it reads an error listing the tools it does offer, its own `invalid` "
                               "among them (measured: `… Model tried to call unavailable tool 'bash'. Available "
                               "tools: edit, glob, grep, invalid, read, skill, task, todowrite, write.`). A host "
                               "with a tools/offer seam does not offer the tool either, and the list names the "
                               "tools it offers, in OpenCode's names (todowrite for its todo, task for its "
                               "subagent; its question tool left out, as `opencode run` denies it), so the list "
                               "differs where OpenCode offers a tool the host does not have (webfetch, and "
                               "websearch, lsp or apply_patch where OpenCode turns them on; measured: the "
                               "embedded host's list equals OpenCode's when webfetch is denied too). A host "
                               "without that seam still offers the tool and the error lists no tools."))
        if rule.tool == "bash" and rule.specifier is not None:
            out.append(degrade("approximate",
                               "OpenCode splits a command into the commands tree-sitter-bash finds and asks for "
                               "each; here a hand-written scanner finds them, and a script it cannot read (a "
                               "heredoc, a case statement) is asked for by the commands it did find."))
        return tuple(out)

    def samples(self, root: Path) -> tuple[PermissionRule, ...]:
        """Commands allowed but rm denied and git push asked, env files kept from edits, web fetches
        denied whole."""
        block = {"bash": {"*": "allow", "rm *": "deny", "git push*": "ask"}, "edit": {"*.env": "deny"},
                 "webfetch": "deny"}
        return tuple(self.read(block, path=root / "opencode.json", shown="opencode.json", place="permission",
                               scope="project").rules)

    def setting_losses(self, key: str, value: object) -> tuple[Degradation, ...] | str:
        return ()


#: OpenCode's (measured on 1.18.33): the plugin's before-hook runs first; an allow from it lifts nothing;
#: an ask nobody answers is rejected, and a rejected ask ends the run (its processor breaks the loop on a
#: RejectedError unless experimental.continue_loop_on_deny is set: read in the binary, measured).
LANGUAGE = OpenCodeRules("opencode", Combination(hooks_first=True, hook_allow_lifts_ask=False,
                                           hook_allow_lifts_deny=False, unattended_ask="refuse",
                                           rejected_ask_ends_turn=True))
