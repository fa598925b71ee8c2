"""Claude Code's permission-rule language: ``permissions.allow / ask / deny`` in its settings files,
with ``defaultMode``, ``additionalDirectories`` and ``disableBypassPermissionsMode`` beside them.

A rule is a tool name, alone or with a specifier in parentheses: ``Bash(npm run test:*)`` (see
:mod:`vendors.claude.shellrules`), ``Read(./.env)`` / ``Edit(src/**)`` (see
:mod:`vendors.claude.pathrules`), ``WebFetch(domain:example.com)``, ``mcp__server`` /
``mcp__server__tool``, ``Agent(Explore)``. An ``Edit`` rule covers every file-editing tool; a
``Read`` rule covers the reading ones, and a Read *deny* also keeps those files from being written
(measured: a Write of ``src/a.txt`` under ``Read(src/**)`` is refused). CodeBuddy Code reads the
same language (:data:`vendors.workbuddy.permissions.LANGUAGE` derives from this one).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from urllib.parse import urlsplit

from compat_adapter.vendor import (
    Combination, Degradation, PermissionImport, PermissionRule, PermissionSetting, Refused, RuleCall, degrade, freeze,
    host_tool, json_kind,
)
from vendors.claude.pathrules import CLAUDE_PATHS, PathReading, covers
from vendors.claude.shellrules import CLAUDE_SHELL, ShellReading, file_operands, matches_command, refused_part

__all__ = ("LANGUAGE", "ClaudeRules", "Tools", "Words", "parse_rule")

#: The tools an ``Edit`` rule covers, and those a ``Read`` rule covers.
EDIT_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit")
READ_TOOLS = ("Read", "Grep", "Glob")


@dataclass(frozen=True, slots=True)
class Tools:
    """The tool vocabulary rules are written in: which names a rule may use for a tool, and which
    tools each kind of specifier reads."""

    #: A name a rule may use → the vendor's own tool name (Qwen Code: ``Bash`` → ``run_shell_command``).
    aliases: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    shell: tuple[str, ...] = ("Bash",)
    #: The rule names that cover a group of tools, and the groups.
    read_rule: str = "Read"
    read: tuple[str, ...] = READ_TOOLS
    edit_rule: str = "Edit"
    edit: tuple[str, ...] = EDIT_TOOLS
    #: A Read deny also keeps the files it covers from being written (Claude Code, measured).
    read_deny_covers_edits: bool = True
    web: str = "WebFetch"
    agents: tuple[str, ...] = ("Agent", "Task")
    skill: str = "Skill"

    def canonical(self, name: str) -> str:
        return self.aliases.get(name, name)


CLAUDE_TOOLS = Tools()
_RULE = re.compile(r"([A-Za-z][A-Za-z0-9_\-]*(?:__[^()\s]*)?)(?:\((.*)\))?", re.DOTALL)
_MODES = ("default", "acceptEdits", "plan", "bypassPermissions", "dontAsk")


@dataclass(frozen=True, slots=True)
class Words:
    """What the model reads for each kind of refusal (``{tool}``, ``{command}`` filled in)."""

    command: str = "Permission to use Bash with command {command} has been denied."
    path: str = "<tool_use_error>File is in a directory that is denied by your permission settings.</tool_use_error>"
    read: str = path
    read_write: str = ("<tool_use_error>File is covered by a Read deny rule in your permission settings and cannot "
                       "be written.</tool_use_error>")
    disabled: str = ("<tool_use_error>Error: No such tool available: {tool}. {tool} is disabled for this session, "
                     "in subagents as well as here.</tool_use_error>")
    other: str = "Permission to use {tool} has been denied."
    #: What ``claude -p`` answers for an ask it cannot put to anyone (measured, with and without
    #: --allowedTools, and under a hook's allow).
    unasked: str = "Claude requested permissions to use {tool}, but you haven't granted it yet."
    #: What differs in an ask's words for a compound command (measured), or "" when nothing does.
    compound_ask: str = ("For a compound command Claude Code names the parts that need approval (\"This Bash "
                         "command contains multiple operations. The following parts require approval: …\"), "
                         "its own checks (a redirection to a file …) included; here the model reads the words "
                         "of a single command's ask.")


def parse_rule(text: str) -> tuple[str, str | None] | None:
    """(tool, specifier) of a rule as written; None when it is not a rule."""
    found = _RULE.fullmatch(text.strip())
    if found is None:
        return None
    tool, specifier = found.group(1), found.group(2)
    return tool, (specifier if specifier else None)


def _project(path: Path) -> Path:
    """The project a settings file configures: the folder holding its ``.claude`` (or vendor) folder."""
    folder = path.absolute().parent
    return folder.parent if folder.name.startswith(".") else folder


@dataclass(frozen=True, slots=True)
class ClaudeRules:
    """The language, spoken for one vendor (``product`` names it in what the model reads)."""

    vendor: str
    product: str
    combination: Combination
    words: Words = Words()
    shell: ShellReading = CLAUDE_SHELL
    paths: PathReading = CLAUDE_PATHS
    tools: Tools = CLAUDE_TOOLS
    #: What else an ask rule does at the vendor that it does not do here (a decision-narrowed loss).
    ask_loss: str = ""
    #: The keys beside the rules in its permissions block.
    settings: tuple[str, ...] = ("defaultMode", "additionalDirectories", "disableBypassPermissionsMode")
    #: The key of the vendor's settings file that holds the block (where ``port`` writes a rule it
    #: carries as written: compat_adapter/port/nativerules.py).
    block: str = "permissions"

    # ── reading ─────────────────────────────────────────────────────────────────────────────
    def read(self, value: object, *, path: Path, shown: str, place: str, scope: str) -> PermissionImport:
        out = PermissionImport()
        if not isinstance(value, Mapping):
            out.refused.append(self._refused("`permissions`", shown, place,
                                             f"expected an object, found {json_kind(value)}"))
            return out
        root, here = str(_project(path)), str(path.absolute().parent)
        for key, item in value.items():
            where = f"{place}.{key}"
            if key in ("allow", "ask", "deny"):
                if not isinstance(item, list):
                    out.refused.append(self._refused(f"{key} rules", shown, where,
                                                     f"expected a list of rules, found {json_kind(item)}"))
                    continue
                for i, text in enumerate(item):
                    parsed = parse_rule(text) if isinstance(text, str) else None
                    if parsed is None:
                        out.refused.append(self._refused(f"{key} rule {text!r}", shown, f"{where}[{i}]",
                                                         "not a rule: a tool name, alone or with a specifier "
                                                         "in parentheses"))
                        continue
                    out.rules.append(PermissionRule(
                        vendor=self.vendor, behavior=key, text=text.strip(), tool=parsed[0], specifier=parsed[1],
                        origin=f"{shown}:{where}[{i}]", scope=scope, root=root, settings_dir=here))
            elif key in self.settings:
                problem = self._setting_problem(key, item)
                if problem:
                    out.refused.append(self._refused(f"`{key}`", shown, where, problem))
                    continue
                out.settings.append(PermissionSetting(vendor=self.vendor, key=key, value=freeze(item),
                                                      origin=f"{shown}:{where}", scope=scope))
            else:
                out.refused.append(self._refused(f"`{key}`", shown, where,
                                                 f"{self.product} has no permissions setting {key!r}",
                                                 "UNSUPPORTED_CONFIG"))
        return out

    def _refused(self, what: str, shown: str, place: str, reason: str, code: str = "INVALID_ENTRY") -> Refused:
        return Refused(vendor=self.vendor, what=f"permissions {what}", reason=reason, origin=f"{shown}:{place}",
                       code=code)

    @staticmethod
    def _setting_problem(key: str, item: object) -> str | None:
        if key == "autoMode":
            return None if isinstance(item, Mapping) else f"expected an object, found {json_kind(item)}"
        if key == "additionalDirectories":
            ok = isinstance(item, list) and all(isinstance(x, str) for x in item)
            return None if ok else f"expected a list of folders, found {json_kind(item)}"
        if not isinstance(item, str):
            return f"expected a string, found {json_kind(item)}"
        if key == "defaultMode" and item not in _MODES:
            return f"{item!r} is not a mode ({', '.join(_MODES)})"
        return None

    # ── which calls ─────────────────────────────────────────────────────────────────────────
    def _tools(self, rule: PermissionRule) -> tuple[str, ...]:
        """The vendor tools a rule applies to (an ``mcp__server`` rule: none the host names)."""
        tools, name = self.tools, self.tools.canonical(rule.tool)
        if name == tools.edit_rule:
            return tools.edit
        if name == tools.read_rule:
            return tools.read + (tools.edit if rule.behavior == "deny" and tools.read_deny_covers_edits else ())
        if name in tools.shell:
            return tools.shell
        return (name,)

    def _kind(self, rule: PermissionRule) -> str:
        """How the rule's specifier reads: ``command``, ``path``, ``domain``, ``agent``, ``skill`` or ``other``."""
        tools, name = self.tools, self.tools.canonical(rule.tool)
        if name in tools.shell:
            return "command"
        if name in (tools.read_rule, tools.edit_rule, *tools.read, *tools.edit):
            return "path"
        return {tools.web: "domain", tools.skill: "skill"}.get(name, "agent" if name in tools.agents else "other")

    def _through_shell(self, rule: PermissionRule) -> bool:
        """Whether a path rule also reaches the files shell commands read or write."""
        return (self.shell.file_commands and rule.specifier is not None and rule.behavior != "allow"
                and self._kind(rule) == "path")

    def host_tools(self, rule: PermissionRule) -> tuple[str, ...]:
        tools = self._tools(rule) + (self.tools.shell if self._through_shell(rule) else ())
        found = (host_tool(self.vendor, tool) for tool in tools)
        return tuple(dict.fromkeys(t for t in found if t is not None))

    def _applies(self, rule: PermissionRule, tool: str) -> bool:
        if rule.tool.startswith("mcp__") and rule.tool.count("__") == 1 or rule.tool.endswith("__*"):
            server = rule.tool.removesuffix("__*")
            return tool.startswith(server + "__")
        return tool in self._tools(rule)

    def matches(self, rule: PermissionRule, call: RuleCall) -> bool:
        if call.tool in self.tools.shell and self._through_shell(rule):
            return self._shell_files(rule, call)
        if not self._applies(rule, call.tool):
            return False
        spec = rule.specifier
        if spec is None:
            return True
        args, kind = call.input, self._kind(rule)
        if kind == "command":
            command = args.get("command")
            return isinstance(command, str) and matches_command(spec, command, every=rule.behavior == "allow",
                                                                reading=self.shell)
        if kind == "path":
            path = args.get("file_path") or args.get("notebook_path") or args.get("path") or "."
            return isinstance(path, str) and covers(spec, path, project=rule.root, cwd=call.cwd, home=call.home,
                                                    settings_dir=rule.settings_dir, reading=self.paths)
        if kind == "domain" and spec.startswith("domain:"):
            host = urlsplit(str(args.get("url", ""))).hostname or ""
            return host == spec[7:] or host.endswith("." + spec[7:])
        if kind == "agent":
            return args.get("subagent_type") == spec
        if kind == "skill":
            return args.get("skill") == spec
        return False

    def _shell_files(self, rule: PermissionRule, call: RuleCall) -> bool:
        command = call.input.get("command")
        if not isinstance(command, str) or rule.specifier is None:
            return False
        reads, writes = file_operands(command, self.shell)
        tools, name = self.tools, self.tools.canonical(rule.tool)
        if name == tools.read_rule:
            files = reads + (writes if rule.behavior == "deny" and tools.read_deny_covers_edits else [])
        else:
            files = writes
        return any(covers(rule.specifier, f, project=rule.root, cwd=call.cwd, home=call.home,
                          settings_dir=rule.settings_dir, reading=self.paths) for f in files)

    # ── what the model reads ────────────────────────────────────────────────────────────────
    def refusal(self, rule: PermissionRule, call: RuleCall) -> str:
        words = self.words
        if rule.specifier is None:
            # A bare deny takes the tool away from the session (measured with Bash).
            return words.disabled.format(tool=call.tool, rule=rule.text)
        kind, tools, name = self._kind(rule), self.tools, self.tools.canonical(rule.tool)
        if kind == "path" and call.tool in tools.shell:
            return words.command.format(command=call.input.get("command", ""), tool=call.tool, rule=rule.text)
        if kind == "command":
            command = refused_part(rule.specifier, str(call.input.get("command", "")), self.shell)
            return words.command.format(command=command, tool=call.tool, rule=rule.text)
        if name == tools.read_rule and call.tool in tools.edit:
            return words.read_write.format(tool=call.tool, rule=rule.text)
        if kind == "path":
            path = call.input.get("file_path") or call.input.get("notebook_path") or call.input.get("path") or ""
            said = words.read if name == tools.read_rule and call.tool in tools.read else words.path
            return said.format(tool=call.tool, path=path, rule=rule.text)
        return words.other.format(tool=call.tool, rule=rule.text)

    def unasked(self, rule: PermissionRule, call: RuleCall) -> str:
        return self.words.unasked.format(tool=call.tool, rule=rule.text)

    def losses(self, rule: PermissionRule) -> tuple[Degradation, ...]:
        out: list[Degradation] = []
        spec = rule.specifier
        if spec is None and rule.behavior == "deny":
            out.append(degrade("scope-differs",
                               f"{self.product} takes a tool a bare deny rule names out of the model's tool list; "
                               "the host still offers it, and a call to it is refused with "
                               f"{self.product}'s words."))
        kind = self._kind(rule)
        if kind == "command" and spec is not None and rule.behavior != "allow":
            taken = (", with subshell parentheses, variable prefixes and the wrappers timeout, time, nice, nohup "
                     "and stdbuf taken off," if self.shell.unwraps else
                     ", with subshell parentheses and variable prefixes taken off," if self.shell.assignments else
                     " and subshell parentheses taken off,")
            out.append(degrade("rule-narrowed",
                               f"{self.product} reads the command with a full shell parser; here it is split only "
                               f"at &&, ||, ;, | and new lines{taken} so a command nested deeper ($(…), "
                               "bash -c '…') escapes the rule."))
        lifted = [b for b, lifts in (("deny", self.combination.hook_allow_lifts_deny),
                                     ("ask", self.combination.hook_allow_lifts_ask)) if lifts]
        if rule.behavior in lifted:
            # The guard sees the allow of a hook this adapter runs itself (routing.allowed); a hook
            # the host's official bridge runs answers inside the bridge, out of its sight.
            out.append(degrade("decision-narrowed",
                               f"{self.product} lets a PreToolUse hook's allow lift a {rule.behavior} rule (the call "
                               "runs), and so does the host for a hook this adapter translates itself; a hook run "
                               "by the host's official bridge answers inside the bridge, so there the rule stands."))
        if rule.behavior == "ask" and self.ask_loss:
            out.append(degrade("decision-narrowed", self.ask_loss))
        if kind == "command" and rule.behavior == "ask" and self.words.compound_ask:
            out.append(degrade("text-differs", self.words.compound_ask))
        if kind == "path" and spec is not None and rule.behavior != "allow":
            reach = ("here only cat, head, tail, less, more, ls, wc, sort, uniq, diff, stat, file, nl, od, xxd, "
                     "strings, base64, jq, grep, rg, sed, cp, tee, touch, truncate and redirections are read that "
                     "way" if self.shell.file_commands else "here the rule guards the file tools only")
            out.append(degrade("rule-narrowed",
                               f"{self.product} also weighs the rule against the files any shell command reads or "
                               f"writes (measured: `cat .env` under a Read rule on .env); {reach}."))
        if spec is not None and kind == "other" and not rule.tool.startswith("mcp__"):
            out.append(degrade("rule-narrowed", f"The specifier of a {rule.tool} rule is not read here: the rule "
                                                "matches no call."))
        return tuple(out)

    def samples(self, root: Path) -> tuple[PermissionRule, ...]:
        folder = root / f".{self.vendor}"
        block = {"deny": ["Bash(rm -rf *)", "Read(./.env)", "WebFetch(domain:example.com)", "mcp__github"],
                 "ask": ["Bash(git push:*)"], "allow": ["Bash(npm run test:*)"]}
        return tuple(self.read(block, path=folder / "settings.json", shown="sample", place="permissions",
                               scope="project").rules)

    def setting_losses(self, key: str, value: object) -> tuple[Degradation, ...] | str:
        if key == "disableBypassPermissionsMode" or (key == "defaultMode" and value == "default"):
            return ()
        if key == "autoMode":
            return (degrade("setting-ignored", f"The host has no AUTO approval mode: {self.product}'s classifier "
                                               "settings change nothing here."),)
        if key == "additionalDirectories":
            return (degrade("setting-ignored",
                            "The host has no working-folder boundary for the tools: the extra folders widen "
                            "nothing here (path rules still apply in them)."),)
        if value == "plan":
            return (f"the host has no plan mode: {self.product} would refuse every edit and command until a "
                    "plan is approved; here they run")
        if value == "dontAsk":
            return (degrade("text-differs", f"An ask rule is refused as in a non-interactive run: the model does "
                                            f"not read {self.product}'s don't-ask-mode words."),)
        return (degrade("setting-ignored", f"defaultMode {value} changes which calls {self.product} asks about; "
                                           "the host's own approval policy decides here, and ask and deny rules "
                                           "still apply."),)


#: Claude Code's (measured on 2.1.332): the PreToolUse hooks run first; a hook's allow lifts no rule.
LANGUAGE = ClaudeRules("claude", "Claude Code", Combination(hooks_first=True, hook_allow_lifts_ask=False))
