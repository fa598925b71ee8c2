"""Gemini CLI's permission rules, read and judged as Gemini CLI 0.61.0 judges them.

Gemini has one policy engine. Its rules come from two places, both turned into prioritised rules:

- ``tools`` in settings.json: ``exclude`` (deny), ``allowed`` (allow; a ``run_shell_command(git)``
  entry allows only that command and denies the rest of the shell just below it), ``core`` (an
  allowlist: every other tool is denied), ``confirmationRequired`` (ask). Across the settings scopes
  (system defaults < user < workspace < system) ``exclude`` is the union; the others are replaced by
  the highest scope that sets them.
- TOML policy files (``[[rule]]`` with ``toolName``, ``decision`` allow/deny/ask_user, ``priority``
  0-999, ``commandPrefix`` / ``commandRegex`` / ``argsPattern``, ``modes``, ``interactive``,
  ``denyMessage``): the admin folder (/etc/gemini-cli/policies), the user folder
  (~/.gemini/policies, or the ``policyPaths`` setting), and Gemini's own defaults. A rule's priority
  is its tier plus priority/1000 (admin 5, user 4, workspace 3, extension 2, default 1). **The project
  folder .gemini/policies is not read in 0.61.0** (its loader is switched off; measured: a project
  deny rule did nothing).

Matching (``PolicyEngine.check``): the rules are sorted by priority, highest first (ties keep their
order); the first rule whose tool name (``*``, an ``mcp_server_*`` wildcard, or the exact name),
mode, ``interactive`` flag and ``argsPattern`` (a JavaScript regex over the arguments serialised with
sorted keys, each top-level pair between NUL characters) match decides. A shell call is then checked
part by part: each command of the script (and the script inside ``bash -c "…"``) is checked again, and
any deny denies the whole call, any ask makes it ask. A tool whose first matching rule (arguments
aside) is a deny without a pattern is removed from the model's tool list altogether.

What the model reads (measured, vendor lane, ``-p --yolo``): a policy deny is the tool error
``Tool execution denied by policy.`` plus the rule's ``denyMessage`` after a space; a removed tool
is ``Tool "<name>" not found. Did you mean …?``; an ``ask_user`` in ``-p`` is an error too (no one to
ask). Rules are judged here as under ``--yolo`` (the lane's mode): Gemini's own default tier (ask
before shell and writes, deny in ``-p``) is the host's approval policy, not the team's rule, so a call
no team rule decides is left to the host.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from compat_adapter.vendor import split

__all__ = ("ADMIN_TIER", "USER_TIER", "WORKSPACE_TIER", "PolicyRule", "Ruling", "check", "denial_text",
           "hidden_tools", "merge_tools", "settings_rules", "toml_rules")

Decision = Literal["allow", "deny", "ask_user"]

DEFAULT_TIER, EXTENSION_TIER, WORKSPACE_TIER, USER_TIER, ADMIN_TIER = 1, 2, 3, 4, 5
_TIER_NAMES = {1: "Default", 2: "Extension", 3: "Workspace", 4: "User", 5: "Admin"}
# Settings rules sit just above the user tier (config.js, 0.61.0).
_EXCLUDE = USER_TIER + 0.4
_CONFIRM = USER_TIER + 0.35
_ALLOWED = USER_TIER + 0.3
_CORE = USER_TIER + 0.25
SHELL = "run_shell_command"
_SHELL_NAMES = (SHELL, "ShellTool")
_NON_PLAN = ("default", "autoEdit", "yolo")
_DECISIONS = ("allow", "deny", "ask_user")
_MODES = ("default", "autoEdit", "yolo", "plan")
_MCP = "mcp_"


@dataclass(frozen=True, slots=True)
class PolicyRule:
    tool: str
    decision: Decision
    priority: float
    source: str
    """Gemini's own label: ``User: team.toml``, ``Settings (Tools Excluded)`` …"""
    args_pattern: str | None = None
    modes: tuple[str, ...] | None = None
    interactive: bool | None = None
    mcp_name: str | None = None
    deny_message: str | None = None
    allow_redirection: bool = False
    written: str = ""
    """The rule as the team wrote it (a settings entry, or the file and rule number)."""


@dataclass(frozen=True, slots=True)
class Ruling:
    """What Gemini does with one call: its decision, the rule that made it, what the model reads."""

    decision: Decision
    rule: PolicyRule | None
    text: str


#: Gemini's own YOLO rule (policies/yolo.toml): every tool allowed at default-tier priority 998.
_YOLO = PolicyRule("*", "allow", DEFAULT_TIER + 0.998, "Default: yolo.toml", modes=("yolo",),
                   allow_redirection=True)


def _strings(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{where} is not a list of strings")
    return list(value)


def merge_tools(scopes: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The ``tools`` settings Gemini uses from several scopes, lowest first: ``exclude`` is their
    union, every other key the value of the highest scope that sets it."""
    merged: dict[str, Any] = {}
    excluded: list[str] = []
    for scope in scopes:
        tools = scope.get("tools") if isinstance(scope, Mapping) else None
        if not isinstance(tools, Mapping):
            continue
        for key, value in tools.items():
            if key == "exclude":
                excluded += [v for v in _strings(value, "tools.exclude") if v not in excluded]
            else:
                merged[key] = value
    if excluded:
        merged["exclude"] = excluded
    return merged


def _shell_name(tool: str) -> str:
    return SHELL if tool in _SHELL_NAMES else tool


def _prefix_patterns(prefixes: str | list[str]) -> list[str]:
    """``commandPrefix`` as Gemini's argument patterns: the JSON-encoded prefix after
    ``"command":``, then a space, a quote or an escaped quote (a word boundary)."""
    out = []
    for prefix in [prefixes] if isinstance(prefixes, str) else prefixes:
        encoded = json.dumps(prefix, ensure_ascii=False)[:-1]
        out.append(_escape(f'"command":{encoded}') + r'(?:[\s"]|\\")')
    return out


def _escape(text: str) -> str:
    return "".join("\\" + c if c in r".*+?^${}()|[]\/-" else c for c in text)


def _listed(key: str, tools: list[str], priority: float, source: str, modes: tuple[str, ...] | None,
            narrow: bool) -> list[PolicyRule]:
    out: list[PolicyRule] = []
    narrowed: set[str] = set()
    for entry in tools:
        name, args = entry, None
        if entry.endswith(")") and "(" in entry:
            head, _, rest = entry.partition("(")
            if head and all(c.isalnum() or c in "_-" for c in head):
                name, args = head, rest[:-1]
        name = _shell_name(name)
        if args is not None and name == SHELL:
            narrowed.add(name)
            out += [PolicyRule(name, "allow", priority, source, args_pattern=p, modes=modes, written=f"{key} {entry}")
                    for p in _prefix_patterns(args)]
        else:
            # A narrowing on any other tool is dropped: the whole tool is allowed (config.js).
            out.append(PolicyRule(name, "allow", priority, source, modes=modes, written=f"{key} {entry}"))
    if narrow:
        out += [PolicyRule(n, "deny", priority - 0.01, f"{source} (Narrowing Enforcement)", modes=modes,
                           written=f"{key}: every other {n} command") for n in sorted(narrowed)]
    return out


def settings_rules(tools: Mapping[str, Any]) -> tuple[PolicyRule, ...]:
    """The rules Gemini makes of merged ``tools`` settings (see :func:`merge_tools`)."""
    rules: list[PolicyRule] = []
    for tool in _strings(tools.get("exclude"), "tools.exclude"):
        # Taken as a tool name as written: `run_shell_command(rm)` names no tool and excludes nothing.
        rules.append(PolicyRule(tool, "deny", _EXCLUDE, "Settings (Tools Excluded)", written=f"exclude {tool}"))
    allowed = _strings(tools.get("allowed"), "tools.allowed")
    rules += _listed("allowed", allowed, _ALLOWED, "Settings (Tools Allowed)", None, narrow=True)
    for tool in _strings(tools.get("confirmationRequired"), "tools.confirmationRequired"):
        rules.append(PolicyRule(_shell_name(tool), "ask_user", _CONFIRM, "Settings (Confirmation Required)",
                                written=f"confirmationRequired {tool}"))
    if tools.get("core") is not None:
        core = _strings(tools.get("core"), "tools.core")
        rules += _listed("core", core, _CORE, "Settings (Core Tools)", _NON_PLAN, narrow=False)
        rules.append(PolicyRule("*", "deny", _CORE - 0.01, "Settings (Core Tools Allowlist Enforcement)",
                                modes=_NON_PLAN, written="core: every tool not listed"))
    return tuple(rules)


def toml_rules(text: str, tier: int, file: str) -> tuple[tuple[PolicyRule, ...], tuple[str, ...]]:
    """The rules of one policy file at ``tier``, and the problems Gemini reports for it. A file that
    does not parse or fails the schema gives no rule at all; a rule with a bad pattern is dropped."""
    label = f"{_TIER_NAMES.get(tier, 'Default')}: {file.rsplit('/', 1)[-1]}"
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return (), (f"{file}: TOML parsing failed: {exc}",)
    entries = data.get("rule", [])
    problem = _schema_problem(entries)
    if problem:
        return (), (f"{file}: schema validation failed: {problem}",)
    rules: list[PolicyRule] = []
    problems: list[str] = []
    for n, entry in enumerate(entries, 1):
        names = entry["toolName"] if isinstance(entry["toolName"], list) else [entry["toolName"]]
        if "" in names:
            problems.append(f"{file} rule #{n}: toolName cannot be empty")
            continue
        prefix, regex, args = entry.get("commandPrefix"), entry.get("commandRegex"), entry.get("argsPattern")
        if (prefix is not None or regex is not None) and (entry["toolName"] != SHELL or args is not None
                                                         or (prefix is not None and regex is not None)):
            problems.append(f"{file} rule #{n}: commandPrefix/commandRegex need toolName = {SHELL!r} alone")
        patterns = (_prefix_patterns(prefix) if prefix is not None
                    else [f'"command":"{regex}'] if regex is not None else [args])
        for pattern in patterns:
            if pattern is not None and isinstance(_compile(pattern), str):
                problems.append(f"{file} rule #{n}: invalid regex pattern {pattern}")
                continue
            for name in names:
                mcp = entry.get("mcpName")
                tool = f"{_MCP}{mcp}_{name}" if mcp else name
                rules.append(PolicyRule(
                    tool, entry["decision"], tier + entry["priority"] / 1000, label, args_pattern=pattern,
                    modes=tuple(entry["modes"]) if "modes" in entry else None, interactive=entry.get("interactive"),
                    mcp_name=mcp, deny_message=entry.get("denyMessage", entry.get("deny_message")),
                    allow_redirection=bool(entry.get("allowRedirection", entry.get("allow_redirection", False))),
                    written=f"{file} rule #{n}"))
    return tuple(rules), tuple(problems)


def _schema_problem(entries: Any) -> str | None:
    if not isinstance(entries, list):
        return "rule is not an array of tables"
    for n, e in enumerate(entries, 1):
        if not isinstance(e, dict):
            return f"rule #{n} is not a table"
        name = e.get("toolName")
        if not (isinstance(name, str) or (isinstance(name, list) and all(isinstance(x, str) for x in name))):
            return f"rule #{n}: toolName is required (a string or a list of strings)"
        if e.get("decision") not in _DECISIONS:
            return f"rule #{n}: decision must be one of {', '.join(_DECISIONS)}"
        p = e.get("priority")
        if not isinstance(p, int) or isinstance(p, bool) or not 0 <= p <= 999:
            return f"rule #{n}: priority is required, an integer from 0 to 999"
        if "modes" in e and (not isinstance(e["modes"], list) or any(m not in _MODES for m in e["modes"])):
            return f"rule #{n}: modes must list {', '.join(_MODES)}"
    return None


def _stringify(args: Mapping[str, Any]) -> str:
    """Gemini's ``stableStringify``: keys sorted, each top-level pair between NUL characters."""
    def one(value: Any) -> str:
        if isinstance(value, Mapping):
            return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + one(value[k]) for k in sorted(value)) + "}"
        if isinstance(value, list | tuple):
            return "[" + ",".join(one(v) for v in value) + "]"
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return "{" + ",".join("\0" + json.dumps(k, ensure_ascii=False) + ":" + one(args[k]) + "\0"
                          for k in sorted(args)) + "}"


def _name_matches(rule: PolicyRule, tool: str, server: str | None) -> bool:
    if rule.tool == "*":
        return True
    if "*" in rule.tool:
        if rule.tool == f"{_MCP}*":
            return server is not None
        if rule.tool.startswith(_MCP) and rule.tool.endswith("_*"):
            return server == rule.tool[len(_MCP):-2] and tool.startswith(rule.tool[:-1])
        return tool == rule.tool
    return tool == rule.tool


def _matches(rule: PolicyRule, tool: str, subject: str | None, mode: str, interactive: bool,
             server: str | None) -> bool:
    if rule.modes and mode not in rule.modes:
        return False
    if rule.mcp_name is not None and (server is None if rule.mcp_name == "*" else server != rule.mcp_name):
        return False
    if not _name_matches(rule, tool, server):
        return False
    if rule.args_pattern is not None:
        compiled = _compile(rule.args_pattern)
        if subject is None or isinstance(compiled, str) or not compiled.search(subject):
            return False
    return rule.interactive is None or rule.interactive == interactive


def denial_text(rule: PolicyRule | None) -> str:
    """What the model reads for a policy deny (scheduler/policy.js getPolicyDenialError)."""
    return "Tool execution denied by policy." + (f" {rule.deny_message}" if rule and rule.deny_message else "")


def _ordered(rules: Iterable[PolicyRule], mode: str) -> list[PolicyRule]:
    base = [*rules, _YOLO] if mode == "yolo" else list(rules)
    return sorted(base, key=lambda r: -r.priority)  # stable: ties keep their order


def _check(rules: list[PolicyRule], tool: str, args: Mapping[str, Any], mode: str, interactive: bool,
           server: str | None) -> tuple[Decision | None, PolicyRule | None]:
    subject = _stringify(args) if any(r.args_pattern for r in rules) else None
    for rule in rules:
        if not _matches(rule, tool, subject, mode, interactive, server):
            continue
        command = args.get("command") if tool in _SHELL_NAMES else None
        if isinstance(command, str) and command:
            return _shell(rules, tool, command, rule.decision, rule, mode, interactive, server)
        return rule.decision, rule
    return None, None


def _shell(rules: list[PolicyRule], tool: str, command: str, decision: Decision, rule: PolicyRule,
           mode: str, interactive: bool, server: str | None) -> tuple[Decision | None, PolicyRule | None]:
    """checkShellCommand: a deny stands; else every part of the script is checked on its own."""
    parts = split(command)
    if decision == "deny":
        return "deny", rule
    if not parts.complete or not parts.commands:
        if mode == "yolo":
            return ("deny" if rule.args_pattern else "allow"), rule
        return ("ask_user" if interactive else "deny"), rule
    verdict: Decision = decision
    responsible: PolicyRule | None = rule
    if parts.redirected and mode not in ("yolo", "autoEdit") and not rule.allow_redirection and verdict == "allow":
        verdict, responsible = "ask_user", None
    for part in parts.commands:
        inner = _unwrapped(part.text)
        for sub in ([inner] if inner != part.text else []) + ([part.text] if part.text != command.strip() else []):
            got, by = _check(rules, tool, {"command": sub}, mode, interactive, server)
            got = got or ("allow" if mode == "yolo" else ("ask_user" if interactive else "deny"))
            if got == "deny":
                return "deny", by
            if got == "ask_user":
                responsible = by if verdict == "allow" else (responsible or by)
                verdict = "ask_user"
    return verdict, (rule if verdict == decision else responsible)


def _unwrapped(command: str) -> str:
    """stripShellWrapper: the script inside ``bash -c "…"`` / ``sh -c '…'``."""
    words = command.split(None, 2)
    if len(words) == 3 and words[0].rsplit("/", 1)[-1] in ("sh", "bash", "zsh") and words[1] == "-c":
        inner = words[2].strip()
        if len(inner) >= 2 and inner[0] == inner[-1] and inner[0] in "'\"":
            inner = inner[1:-1]
        return inner
    return command.strip()


def check(rules: Sequence[PolicyRule], tool: str, args: Mapping[str, Any], *, mode: str = "yolo",
          interactive: bool = False, server: str | None = None) -> Ruling | None:
    """Gemini's decision on one call (its tool name and arguments), or None when no team rule
    decides it (only Gemini's own YOLO default matched, or nothing did)."""
    decision, found = _check(_ordered(rules, mode), tool, dict(args), mode, interactive, server)
    if decision is None or (decision == "allow" and (found is None or found is _YOLO)):
        return None
    rule = None if found is _YOLO else found
    if decision == "deny":
        return Ruling("deny", rule, denial_text(rule))
    if decision == "ask_user":
        return Ruling("ask_user", rule, f'Tool execution for "{tool}" requires user confirmation, which is not '
                                        "supported in non-interactive mode.")
    return Ruling("allow", rule, "")


def hidden_tools(rules: Sequence[PolicyRule], tools: Iterable[str], *, mode: str = "yolo",
                 interactive: bool = False) -> frozenset[str]:
    """The tools Gemini removes from the model's list: the first rule that names the tool (its
    arguments aside) is a deny with no pattern; a deny with a pattern is passed over."""
    ordered = _ordered(rules, mode)
    hidden = set()
    for tool in tools:
        for rule in ordered:
            if not _matches(PolicyRule(**{**_fields(rule), "args_pattern": None}), tool, None, mode, interactive, None):
                continue
            if rule.args_pattern is not None:
                if rule.decision != "deny":
                    break
                continue
            if rule.decision == "deny":
                hidden.add(tool)
            break
    return frozenset(hidden)


def _fields(rule: PolicyRule) -> dict[str, Any]:
    return {name: getattr(rule, name) for name in PolicyRule.__dataclass_fields__}


def _compile(pattern: str) -> Any:
    """The pattern in Gemini's (JavaScript) regex engine, or the engine's complaint as a string.

    Imported here, not at the top: the matrix reads sample rules without any pattern, and the
    regex engines are the costliest import of that command (tests/test_cli.py pins what it loads)."""
    from compat_adapter.vendor import compile_js

    return compile_js(pattern)
