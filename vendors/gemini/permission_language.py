"""Gemini CLI's permission rules in the permission framework: read from a settings file's ``tools``
block, matched and weighed with Gemini's own policy engine (:mod:`vendors.gemini.permissions`).

Gemini weighs its rules by priority, not by deny-before-allow: the language decides a call itself
(``decide``), from every Gemini rule at once. Each rule a settings key makes is one
:class:`~compat_adapter.permissions.model.PermissionRule` whose place names its key
(``tools.exclude[0]``, ``tools.allowed`` for the deny that narrowing adds, ``tools.core`` for the
allowlist's deny of every other tool), which gives back Gemini's priority for it.

Measured on Gemini CLI 0.61.0 (``-p --yolo``): a policy-denied call still fires BeforeTool hooks, and a
hook's allow does not lift the deny; an ask cannot be answered in ``-p`` (``Tool execution for
"Shell" requires user confirmation, which is not supported in non-interactive mode.``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compat_adapter.vendor import (
    Combination, Degradation, PermissionImport, PermissionRule, Refused, RuleCall, Ruling, degrade, host_tool,
    json_kind, resolve_vendor,
)
from vendors.gemini.permissions import PolicyRule, check, denial_text, hidden_tools, settings_rules

__all__ = ("DISPLAY_NAMES", "LANGUAGE", "GeminiRules")

#: An extension manifest's ``excludeTools``: names Gemini's tool registry drops, whatever any policy
#: rule allows (so above every priority).
_EXTENSION = "excludeTools"
#: The keys of ``tools`` that are permission rules, each with the priority Gemini gives its rules.
_PRIORITY = {_EXTENSION: 9.0, "exclude": 4.4, "confirmationRequired": 4.35, "allowed": 4.3, "core": 4.25}
_SOURCE = {_EXTENSION: "Extension (excludeTools)", "exclude": "Settings (Tools Excluded)",
           "confirmationRequired": "Settings (Confirmation Required)", "allowed": "Settings (Tools Allowed)",
           "core": "Settings (Core Tools)"}
_BEHAVIOR = {"allow": "allow", "deny": "deny", "ask_user": "ask"}
_DECISION = {"allow": "allow", "deny": "deny", "ask": "ask_user"}
#: Gemini's display names, which its non-interactive ask refusal quotes.
DISPLAY_NAMES = {"run_shell_command": "Shell", "write_file": "WriteFile", "replace": "Edit",
                 "read_file": "ReadFile", "glob": "FindFiles", "grep_search": "SearchText",
                 "list_directory": "ReadFolder", "web_fetch": "WebFetch", "google_web_search": "GoogleSearch",
                 "read_many_files": "ReadManyFiles", "ask_user": "Ask User"}


def _project(path: Path) -> Path:
    folder = path.absolute().parent
    return folder.parent if folder.name == ".gemini" else folder


def _key(rule: PermissionRule) -> tuple[str, bool]:
    """The settings key a rule came from, and whether Gemini added it (no index in its place)."""
    place = rule.origin.rsplit(":", 1)[-1]
    key = place.removeprefix("tools.")
    base, _, index = key.partition("[")
    return base, not index


def _policy(rule: PermissionRule) -> PolicyRule:
    """The Gemini policy rule a framework rule stands for (its priority from its key)."""
    key, added = _key(rule)
    priority = _PRIORITY.get(key, 4.0) - (0.01 if added else 0.0)
    source = _SOURCE.get(key, "Settings")
    if added:
        source += " (Narrowing Enforcement)" if key == "allowed" else " Allowlist Enforcement"
    modes = ("default", "autoEdit", "yolo") if key == "core" else None
    return PolicyRule(rule.tool, _DECISION[rule.behavior], priority, source,  # type: ignore[arg-type]
                      args_pattern=rule.specifier, modes=modes, written=rule.text)


#: Gemini CLI 0.61.0's tools in the order its registry offers them to the model (the lane's
#: requests); its not-found error suggests the closest of those it still offers, ties in this order.
REGISTRY = ("update_topic", "list_directory", "read_file", "grep_search", "glob", "replace", "write_file",
            "web_fetch", "run_shell_command", "list_background_processes", "read_background_output",
            "google_web_search", "enter_plan_mode", "invoke_agent", "activate_skill")


def _distance(a: str, b: str) -> int:
    """Levenshtein's edit distance, as Gemini's fast-levenshtein counts it."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def _not_found(tool: str, vendor: str, policies: Sequence[PolicyRule]) -> str:
    """What a call to a tool Gemini took from the model reads: its registry's error, with the three
    closest names among the tools still offered. Those are the host's tools in Gemini's names (a
    Gemini tool the host lacks, such as update_topic, is offered to no model here)."""
    names = [n for n in REGISTRY if n != tool and host_tool(vendor, n) is not None]
    hidden = hidden_tools(policies, names)
    offered = [n for n in names if n not in hidden]
    closest = [f'"{n}"' for n in sorted(offered, key=lambda n: _distance(tool, n))[:3]]
    if not closest:
        return f'Tool "{tool}" not found.'
    lead = "Did you mean one of:" if len(closest) > 1 else "Did you mean"
    return f'Tool "{tool}" not found. {lead} {", ".join(closest)}?'


@dataclass(frozen=True, slots=True)
class GeminiRules:
    vendor: str
    combination: Combination

    def read(self, value: object, *, path: Path, shown: str, place: str, scope: str) -> PermissionImport:
        """The rules of a settings file's ``tools`` block (``exclude``, ``allowed``, ``core``,
        ``confirmationRequired``); its other keys are not permission rules."""
        out = PermissionImport()
        block: Mapping[str, Any]
        if place == _EXTENSION:
            # An extension manifest's list: tool names taken from the model, like `exclude`.
            block = {_EXTENSION: value}
        elif isinstance(value, Mapping):
            block = value
        else:
            out.refused.append(self._refused("`tools`", shown, place, f"expected an object, found {json_kind(value)}"))
            return out
        root, here = str(_project(path)), str(path.absolute().parent)
        for key in _PRIORITY:
            if key not in block:
                continue
            try:
                made = settings_rules({"exclude" if key == _EXTENSION else key: block[key]})
            except ValueError as exc:
                out.refused.append(self._refused(f"`{key}`", shown, f"{place}.{key}", str(exc)))
                continue
            listed = block[key] if isinstance(block[key], list) else []  # a list: settings_rules checked it
            index = {entry: i for i, entry in reversed(list(enumerate(listed)))}
            for rule in made:
                if rule.decision == "deny" and "(" in rule.tool:
                    # Measured: `run_shell_command(echo)` in tools.exclude left the command running.
                    out.refused.append(self._refused(
                        f"`{key}` entry {rule.tool!r}", shown, f"{place}.{key}" if key != _EXTENSION else place,
                        "Gemini CLI 0.61.0 takes an exclude entry as a tool name as written: one with arguments "
                        "names no tool and excludes nothing, there or here", "SKIPPED_BY_VENDOR"))
                    continue
                written = rule.written.split(" ", 1)[-1] if rule.written.startswith(("exclude ", f"{key} ")) \
                    else rule.written
                base = place if key == _EXTENSION else f"{place}.{key}"
                where = f"{base}[{index[written]}]" if written in index else base
                text = f"{_EXTENSION} {written}" if key == _EXTENSION else rule.written
                out.rules.append(PermissionRule(
                    vendor=self.vendor, behavior=_BEHAVIOR[rule.decision], text=text, tool=rule.tool,  # type: ignore[arg-type]
                    specifier=rule.args_pattern, origin=f"{shown}:{where}", scope=scope, root=root,
                    settings_dir=here))
        return out

    def _refused(self, what: str, shown: str, place: str, reason: str, code: str = "INVALID_ENTRY") -> Refused:
        return Refused(vendor=self.vendor, what=f"tools {what}", reason=reason, origin=f"{shown}:{place}", code=code)

    # ── which calls ─────────────────────────────────────────────────────────────────────────
    def host_tools(self, rule: PermissionRule) -> tuple[str, ...]:
        if rule.tool == "*":
            return tuple(dict.fromkeys(t.host for t in resolve_vendor(self.vendor).tools))
        found = host_tool(self.vendor, rule.tool)
        return (found,) if found is not None else ()

    def matches(self, rule: PermissionRule, call: RuleCall) -> bool:
        """Whether the rule alone decides the call as Gemini would (its priority aside)."""
        return check((_policy(rule),), call.tool, call.input) is not None

    def decide(self, rules: Sequence[PermissionRule], call: RuleCall) -> Ruling | None:
        """Gemini's decision over all its rules: the highest priority first, a shell script part by part."""
        policies = [_policy(r) for r in rules]
        by_policy = {id(p): r for p, r in zip(policies, rules, strict=True)}
        found = check(policies, call.tool, call.input)
        if found is None or found.rule is None:
            return None
        rule = by_policy[id(found.rule)]
        if found.decision == "allow":
            return Ruling("allow", rule, "")
        if found.decision == "ask_user":
            return Ruling("ask", rule, self.unasked(rule, call))
        if call.tool in hidden_tools(policies, [call.tool]):
            return Ruling("deny", rule, _not_found(call.tool, self.vendor, policies))
        return Ruling("deny", rule, denial_text(found.rule))

    # ── what the model reads ────────────────────────────────────────────────────────────────
    def _hides(self, rule: PermissionRule) -> bool:
        """Whether the rule takes its tool from the model (a deny with no pattern that is not the
        deny narrowing adds below an allowed command)."""
        return rule.behavior == "deny" and rule.specifier is None and _key(rule) != ("allowed", True)

    def refusal(self, rule: PermissionRule, call: RuleCall) -> str:
        if self._hides(rule):
            return _not_found(call.tool, self.vendor, [_policy(rule)])
        return denial_text(_policy(rule))

    def unasked(self, rule: PermissionRule, call: RuleCall) -> str:
        name = DISPLAY_NAMES.get(call.tool, call.tool)
        return f'Tool execution for "{name}" requires user confirmation, which is not supported in non-interactive mode.'

    def losses(self, rule: PermissionRule) -> tuple[Degradation, ...]:
        out: list[Degradation] = []
        if self._hides(rule):
            out.append(degrade("scope-differs",
                               "Gemini CLI takes a tool this rule denies whole out of the model's tool list; the "
                               "host still offers it, so the model may call it where Gemini's would not."))
            out.append(degrade("text-differs",
                               "A call to the tool reads Gemini's not-found error, whose did-you-mean names are "
                               "the closest of the tools still offered: here only the host's, so a Gemini tool "
                               "the host lacks (update_topic, list_directory, web_fetch …) is never named "
                               "(measured: Gemini names \"update_topic\" first when the shell is excluded)."))
        if rule.tool == "run_shell_command" and rule.behavior != "allow":
            out.append(degrade("approximate",
                               "Gemini splits a shell script into its commands with tree-sitter-bash; here a "
                               "hand-written scanner finds the same commands (lists, pipes, $(…), backticks, "
                               "subshells, bash -c), and treats a script it cannot read (a heredoc, a case "
                               "statement) as Gemini treats one its parser cannot: allowed under YOLO unless "
                               "the deciding rule has a pattern."))
        return tuple(out)

    def samples(self, root: Path) -> tuple[PermissionRule, ...]:
        """A shell narrowed to git (and the deny Gemini adds for the rest), a tool excluded whole that
        the host lacks, and an ask on writes."""
        block = {"exclude": ["web_fetch"], "allowed": ["run_shell_command(git)"],
                 "confirmationRequired": ["write_file"]}
        return tuple(self.read(block, path=root / ".gemini/settings.json", shown=".gemini/settings.json",
                               place="tools", scope="project").rules)

    def setting_losses(self, key: str, value: object) -> tuple[Degradation, ...] | str:
        return ()


#: Gemini CLI's (measured on 0.61.0): BeforeTool hooks fire for a policy-denied call and their allow
#: lifts nothing.
LANGUAGE = GeminiRules("gemini", Combination(hooks_first=True, hook_allow_lifts_ask=False,
                                           hook_allow_lifts_deny=False, unattended_ask="refuse"))
