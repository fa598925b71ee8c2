"""Claude Code's handler shape, which Claude-shaped vendors (CodeBuddy/WorkBuddy) write as well.

The field lists are Claude Code's own handler schema (read from the 2.1.328 binary in the vendor
lane; the lane's ``if`` cases agree on 2.1.332): a field named there is honoured or listed in ``ignored``; any other key is listed in
``ignored`` too (Claude's schema drops unknown keys, so the vendor ignores it as well, but the author
is told).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from compat_adapter.vendor import CommandOptions, HandlerShape, InvalidHandler, flag_field, string_field, strings_field

__all__ = ("CLAUDE_CODE_SHAPE", "CLAUDE_SHAPE", "ClaudeCodeShape", "ClaudeShape")

_COMMON = frozenset({"type", "if", "timeout", "statusMessage", "once"})
#: Fields of each Claude handler type besides the common ones.
_CLAUDE_FIELDS: Mapping[str, frozenset[str]] = MappingProxyType({
    "command": frozenset({"command", "args", "shell", "onFailure", "async", "asyncRewake",
                          "rewakeMessage", "rewakeSummary", "cloud"}),
    "http": frozenset({"url", "headers", "allowedEnvVars", "onFailure", "cloud"}),
    "mcp_tool": frozenset({"server", "tool", "input", "onFailure"}),
    "prompt": frozenset({"prompt", "model", "continueOnBlock"}),
    "agent": frozenset({"prompt", "model"}),
})
#: Claude fields accepted but not honoured here, each with what that loses (the grader lists it).
_NOT_HONOURED = frozenset({"rewakeSummary", "cloud"})


@dataclass(frozen=True, slots=True)
class ClaudeShape(HandlerShape):
    """Claude's keys per handler kind, its exec ``args``, ``shell``, ``async`` and ``asyncRewake``."""

    def ignored(self, vendor: str, kind: str, h: Mapping[str, Any]) -> tuple[str, ...]:
        known = _COMMON | self.keys[kind]
        return tuple(k for k in h if k not in known or k in _NOT_HONOURED
                     # The wake-up prefix means something only with asyncRewake.
                     or (k == "rewakeMessage" and h.get("asyncRewake") is not True)
                     # "block": a failing hook would block in Claude; it does not here.
                     or (k == "onFailure" and h[k] != "continue"))

    def options(self, vendor: str, h: Mapping[str, Any]) -> CommandOptions:
        args = strings_field(vendor, h["args"], "args") if "args" in h else None
        shell = h.get("shell")
        if shell is not None and shell not in ("bash", "powershell"):
            raise InvalidHandler(f"shell is \"bash\" or \"powershell\", not {shell!r}", vendor=vendor)
        rewake = flag_field(vendor, h, "asyncRewake")
        return CommandOptions(args=args, shell=shell, run_async=rewake or flag_field(vendor, h, "async"),
                              rewake=rewake, rewake_message=string_field(vendor, h, "rewakeMessage") if rewake else None)


#: Claude: SessionStart and Setup take only command and mcp_tool; prompt and agent only the
#: events below; every other event command, http and mcp_tool.
_MODEL_EVENTS = frozenset({"PermissionDenied", "PermissionRequest", "PostToolBatch", "PostToolUse",
                           "PostToolUseFailure", "PreToolUse", "Stop", "SubagentStop", "TaskCompleted",
                           "TaskCreated", "TeammateIdle", "UserPromptExpansion", "UserPromptSubmit"})


@dataclass(frozen=True, slots=True)
class ClaudeCodeShape(ClaudeShape):
    """Claude Code's own: which handler kinds it runs on which event."""

    def kind_refusal(self, event: str, kind: str) -> str | None:
        if kind == "command":
            return None
        if event in ("SessionStart", "Setup") and kind != "mcp_tool":
            return f"Claude runs only command and mcp_tool handlers on {event}"
        if kind in ("prompt", "agent") and event not in _MODEL_EVENTS:
            return f"Claude runs {kind} handlers only on tool, prompt, stop and task events, not {event}"
        return None


#: The shape Claude-shaped vendors name (CodeBuddy/WorkBuddy).
CLAUDE_SHAPE = ClaudeShape(keys=_CLAUDE_FIELDS, other=None)
#: Where Claude Code 2.1.332 never sends an http hook, measured in the lane's sandbox with a server on
#: each address ("HTTP hook blocked: … is a link-local, cloud metadata or reserved address"): IPv4
#: and IPv6 link-local, IPv4 ones written as IPv6 too. Measured as reached: loopback, 0.0.0.0,
#: 10.0.0.0/8, 100.64.0.0/10, 198.18.0.0/15, 192.0.2.0/24, 240.0.0.0/4 and fd00::/8.
_REFUSED_NETWORKS = ("169.254.0.0/16", "fe80::/10")
#: Claude Code's.
CLAUDE_CODE_SHAPE = ClaudeCodeShape(keys=_CLAUDE_FIELDS, other=None, refused_networks=_REFUSED_NETWORKS)
