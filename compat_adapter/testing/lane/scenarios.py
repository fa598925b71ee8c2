"""The standard scenarios of the vendor lane, per vendor, in each vendor's own hook language.

A scenario is one hook answer under test (deny by exit 2, deny by JSON, allow, ask, rewrite …) plus
the model turns and the prompt. The same scenario runs under the real vendor and through
compat-adapter on the embedded host. A scenario a vendor cannot express in a non-interactive run
is kept, with ``not_drivable`` saying why, so that the report lists it.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ("CORPUS_PLUGINS", "EXIT_3_STEPS", "KILLED_STEPS", "KINDS", "MARKERS", "Case", "HookAnswer", "cases_for",
           "hook_config", "recorder_command")

TOOL_COMMAND = "echo ran > tool-ran.txt; echo hello-from-tool"
REWRITTEN_COMMAND = "echo ran > tool-ran.txt; echo rewritten-by-hook"
PROMPT = "run the lane step"
#: The secret a project's .env holds in the plugin cases (it must never reach the model).
ENV_FILE = "LANE_SECRET=do-not-leak\n"

#: Marker strings whose landing place in the model's requests is looked up.
MARKERS = ("LANE-CTX-SESSION", "LANE-CTX-PROMPT", "LANE-CTX-PRE", "LANE-CTX-POST", "LANE-DENY", "LANE-BLOCK",
           "LANE-STOP-REASON")

KINDS = ("observe", "deny_exit2", "deny_json", "allow", "ask", "rewrite", "pre_context", "post_context", "post_block",
         "prompt_block", "prompt_context", "stop_block_json", "stop_block_exit2", "session_context",
         "permission_request")

#: The OpenCode plugins of the real-config corpus (a real project's own files, used as written).
CORPUS_PLUGINS = Path(__file__).resolve().parents[3] / "tests/fixtures/real-configs/opencode/plugins"

TOOL_EVENTS = {"PreToolUse", "PostToolUse", "PermissionRequest", "preToolUse", "postToolUse", "permissionRequest"}


@dataclass(frozen=True, slots=True)
class HookAnswer:
    """One hook in the vendor's config: its event and what the recorder answers."""

    event: str
    stdout: str = ""
    stderr: str = ""
    exit: int = 0
    once: bool = False
    if_rule: str | None = None
    """Claude's handler ``if`` (a permission rule): the hook runs only on calls it matches."""


@dataclass(frozen=True, slots=True)
class Case:
    vendor: str
    kind: str
    hooks: tuple[HookAnswer, ...] = ()
    steps: tuple[tuple[str, str], ...] = (("shell", TOOL_COMMAND), ("text", "done"))
    prompt: str = PROMPT
    options: Mapping[str, Any] = field(default_factory=dict)
    plugin_rules: Mapping[str, Any] | None = None
    """OpenCode: what the lane's plugin does at each of its hooks."""
    plugins: tuple[str, ...] = ()
    """OpenCode: corpus plugin files (names in :data:`CORPUS_PLUGINS`), copied as written into the
    project's ``.opencode/plugins/`` in place of the lane's recording plugin."""
    files: Mapping[str, str] = field(default_factory=dict)
    """Project files written before the run (relative path → text)."""
    not_drivable: str | None = None

    @property
    def name(self) -> str:
        return f"{self.vendor}:{self.kind}"


def _j(value: Any) -> str:
    return json.dumps(value)


def _hso(event: str, **fields: Any) -> str:
    return _j({"hookSpecificOutput": {"hookEventName": event, **fields}})


STOP_STEPS = (("shell", TOOL_COMMAND), ("text", "first answer"), ("text", "second answer"), ("text", "third answer"))
#: Two tool steps: a continue:false that stops the agent leaves the second one (and the last model call) out.
TWO_STEPS = (("shell", TOOL_COMMAND), ("shell", "echo second > second.txt"), ("text", "done"))
#: A shell step that runs and exits 3, then the answer.
EXIT_3_STEPS = (("shell", "echo ran > tool-ran.txt; exit 3"), ("text", "done"))
#: A shell step killed by a signal (it does not end by its own exit).
KILLED_STEPS = (("shell", "echo ran > tool-ran.txt; kill -9 $$"), ("text", "done"))
HALT = _j({"continue": False, "stopReason": "LANE-HALT stop"})


def _claude_like(vendor: str) -> dict[str, tuple[tuple[HookAnswer, ...], dict[str, Any]] | str]:
    """Claude, Codex and CodeBuddy share the Claude-shaped protocol."""
    pre, post, prompt, stop = "PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"
    out: dict[str, tuple[tuple[HookAnswer, ...], dict[str, Any]] | str] = {
        "observe": (tuple(HookAnswer(e) for e in _observed(vendor)), {}),
        "deny_exit2": ((HookAnswer(pre, stderr="LANE-DENY-EXIT2 reason", exit=2),), {}),
        "deny_json": ((HookAnswer(pre, _hso(pre, permissionDecision="deny",
                                            permissionDecisionReason="LANE-DENY-JSON reason")),), {}),
        "allow": ((HookAnswer(pre, _hso(pre, permissionDecision="allow", permissionDecisionReason="LANE-ALLOW ok")),),
                  {}),
        "ask": ((HookAnswer(pre, _hso(pre, permissionDecision="ask", permissionDecisionReason="LANE-DENY-ASK why")),),
                {}),
        "rewrite": ((HookAnswer(pre, _hso(pre, permissionDecision="allow",
                                          updatedInput={"command": REWRITTEN_COMMAND})),), {}),
        "pre_context": ((HookAnswer(pre, _hso(pre, additionalContext="LANE-CTX-PRE")),), {}),
        "post_context": ((HookAnswer(post, _hso(post, additionalContext="LANE-CTX-POST")),), {}),
        "post_block": ((HookAnswer(post, _j({"decision": "block", "reason": "LANE-BLOCK post"})),), {}),
        "prompt_block": ((HookAnswer(prompt, _j({"decision": "block", "reason": "LANE-BLOCK prompt"})),), {}),
        "prompt_context": ((HookAnswer(prompt, _hso(prompt, additionalContext="LANE-CTX-PROMPT")),), {}),
        "stop_block_json": ((HookAnswer(stop, _j({"decision": "block", "reason": "LANE-STOP-REASON json"}),
                                        once=True),), {"steps": STOP_STEPS}),
        "stop_block_exit2": ((HookAnswer(stop, stderr="LANE-STOP-REASON exit2", exit=2, once=True),),
                             {"steps": STOP_STEPS}),
        "session_context": ((HookAnswer("SessionStart", _hso("SessionStart", additionalContext="LANE-CTX-SESSION")),),
                            {}),
        "permission_request": ((HookAnswer("PermissionRequest", _hso("PermissionRequest",
                                                                     decision={"behavior": "allow"})),),
                               {"options": {"no_allowed_tools": True}}),
    }
    # continue:false where the vendors differ (measured): does the agent stop before its next step?
    out["session_halt"] = ((HookAnswer("SessionStart", HALT),), {"steps": TWO_STEPS})
    out["pre_halt"] = ((HookAnswer(pre, HALT),), {"steps": TWO_STEPS})
    out["post_halt"] = ((HookAnswer(post, HALT),), {"steps": TWO_STEPS})
    # A shell command that ran and exited non-zero: is it PostToolUse or PostToolUseFailure? (Codex
    # has no PostToolUseFailure: does its PostToolUse fire?)
    failure = (HookAnswer("PostToolUseFailure"),) if vendor != "codex" else ()
    out["post_exit_nonzero"] = ((HookAnswer(post), *failure), {"steps": EXIT_3_STEPS})
    if vendor == "workbuddy":
        # A shell command killed by a signal (it did not end by its own exit).
        out["post_killed"] = ((HookAnswer(post), HookAnswer("PostToolUseFailure")), {"steps": KILLED_STEPS})
    if vendor == "claude":
        out["post_failure_halt"] = ((HookAnswer("PostToolUseFailure", HALT),), {"steps": (
            EXIT_3_STEPS[0], *TWO_STEPS[1:])})
        # `if` on a deny: the tool command starts with `echo`, so Bash(echo *) matches it and
        # Bash(git *) does not (then only the plain PostToolUse observer fires, and the tool runs).
        deny = _hso(pre, permissionDecision="deny", permissionDecisionReason="LANE-DENY-JSON if rule")
        out["if_match"] = ((HookAnswer(pre, deny, if_rule="Bash(echo *)"), HookAnswer(post)), {})
        out["if_no_match"] = ((HookAnswer(pre, deny, if_rule="Bash(git *)"), HookAnswer(post)), {})
    if vendor == "codex":
        out["permission_request"] = ("Codex asks for approval only under an approval policy other than `never`, "
                                     "and a non-interactive `codex exec` has no approver: PermissionRequest "
                                     "cannot fire")
    if vendor == "workbuddy":
        out["notification"] = ((HookAnswer("Notification"),), {})
        out["permission_request"] = ("CodeBuddy never fires PermissionRequest in -p: a tool not allowed up front "
                                     "is denied as non-interactive before any hook runs")
    return out


def _observed(vendor: str) -> tuple[str, ...]:
    return {"claude": ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"),
            "codex": ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"),
            # CodeBuddy also fires Notification (auth_success) in -p: it has a case of its own, because
            # an event the importer does not know fails the whole file.
            "workbuddy": ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"),
            "copilot": ("sessionStart", "userPromptSubmitted", "preToolUse", "permissionRequest", "postToolUse",
                        "agentStop", "sessionEnd")}[vendor]


def _copilot() -> dict[str, tuple[tuple[HookAnswer, ...], dict[str, Any]] | str]:
    pre = "preToolUse"
    return {
        # Copilot also reads Claude-style PascalCase configs and then sends Claude-like payloads.
        "observe_pascal": (tuple(HookAnswer(e) for e in ("SessionStart", "UserPromptSubmit", "PreToolUse",
                                                          "PostToolUse", "Stop")), {}),
        "deny_json_pascal": ((HookAnswer("PreToolUse", _j({"permissionDecision": "deny",
                                                           "permissionDecisionReason": "LANE-DENY-JSON reason"})),),
                             {}),
        "observe": (tuple(HookAnswer(e) for e in _observed("copilot")), {}),
        "deny_exit2": ((HookAnswer(pre, stderr="LANE-DENY-EXIT2 reason", exit=2),), {}),
        "deny_json": ((HookAnswer(pre, _j({"permissionDecision": "deny",
                                           "permissionDecisionReason": "LANE-DENY-JSON reason"})),), {}),
        "allow": ((HookAnswer(pre, _j({"permissionDecision": "allow", "permissionDecisionReason": "LANE-ALLOW ok"})),),
                  {}),
        "ask": ((HookAnswer(pre, _j({"permissionDecision": "ask", "permissionDecisionReason": "LANE-DENY-ASK why"})),),
                {}),
        "rewrite": ((HookAnswer(pre, _j({"permissionDecision": "allow", "modifiedArgs": {
            "command": REWRITTEN_COMMAND, "description": "lane step"}})),), {}),
        "pre_context": ((HookAnswer(pre, _j({"additionalContext": "LANE-CTX-PRE"})),), {}),
        "post_context": ((HookAnswer("postToolUse", _j({"additionalContext": "LANE-CTX-POST"})),), {}),
        "post_block": "Copilot's postToolUse has no block answer (only modifiedResult and additionalContext)",
        "prompt_block": "Copilot drops the output of userPromptSubmitted command hooks: a prompt cannot be blocked",
        "prompt_context": ((HookAnswer("userPromptSubmitted", _j({"additionalContext": "LANE-CTX-PROMPT"})),), {}),
        "stop_block_json": ((HookAnswer("agentStop", _j({"decision": "block", "reason": "LANE-STOP-REASON json"}),
                                        once=True),), {"steps": STOP_STEPS}),
        "stop_block_exit2": ((HookAnswer("agentStop", stderr="LANE-STOP-REASON exit2", exit=2, once=True),),
                             {"steps": STOP_STEPS}),
        "session_context": ((HookAnswer("sessionStart", _j({"additionalContext": "LANE-CTX-SESSION"})),), {}),
        "permission_request": ((HookAnswer("permissionRequest", _j({"behavior": "allow"})),), {}),
        "post_exit_nonzero": ((HookAnswer("postToolUse"), HookAnswer("postToolUseFailure")),
                              {"steps": EXIT_3_STEPS}),
        "post_exit_nonzero_pascal": ((HookAnswer("PostToolUse"), HookAnswer("PostToolUseFailure")),
                                     {"steps": EXIT_3_STEPS}),
    }


def _opencode() -> dict[str, tuple[tuple[HookAnswer, ...], dict[str, Any]] | str]:
    why_exit = "OpenCode hooks are plugin callbacks: there is no exit code or JSON answer, a throw is the only deny"
    return {
        "observe": ((), {"plugin_rules": {}}),
        "deny_exit2": why_exit,
        "deny_json": ((), {"plugin_rules": {"throw": "LANE-DENY-JSON reason"}}),
        "allow": "OpenCode plugins have no allow answer (permission.ask did not fire in `opencode run`)",
        "ask": "OpenCode's permission.ask plugin hook does not fire in a non-interactive `opencode run`",
        "rewrite": ((), {"plugin_rules": {"set_args": {"command": REWRITTEN_COMMAND}}}),
        "pre_context": "OpenCode's tool.execute.before cannot add model context",
        "post_context": ((), {"plugin_rules": {"append_output": "\nLANE-CTX-POST"}}),
        "post_block": "OpenCode's tool.execute.after has no block answer",
        "prompt_block": "OpenCode's chat.message cannot block a prompt",
        "prompt_context": ((), {"plugin_rules": {"message_append": "LANE-CTX-PROMPT"}}),
        "stop_block_json": "OpenCode has no Stop equivalent: a plugin re-prompting on session.idle gets no turn "
                           "under `opencode run`",
        "stop_block_exit2": "OpenCode has no Stop equivalent (and no exit codes)",
        "session_context": ((), {"plugin_rules": {"system_append": "LANE-CTX-SESSION"}}),
        "permission_request": "OpenCode's permission.ask plugin hook does not fire in a non-interactive `opencode run`",
        # A real project's plugins, as written (the corpus): the same file under both sides.
        "plugin_env_protection": ((), {"plugins": ("env-protection.js",),
                                       "files": {".env": ENV_FILE}, "steps": (("read", ".env"), ("text", "done"))}),
        "plugin_guard_deny": ((), {"plugins": ("guard.ts",), "files": {".env": ENV_FILE},
                                   "steps": (("shell", "echo ran > tool-ran.txt; cat ./.env"), ("text", "done"))}),
    }


def cases_for(vendor: str) -> tuple[Case, ...]:
    table = {"claude": lambda: _claude_like("claude"), "codex": lambda: _claude_like("codex"),
             "workbuddy": lambda: _claude_like("workbuddy"), "copilot": _copilot, "opencode": _opencode}[vendor]()
    out = []
    for kind in (*KINDS, *(k for k in table if k not in KINDS)):
        entry = table[kind]
        if isinstance(entry, str):
            out.append(Case(vendor, kind, not_drivable=entry))
            continue
        hooks, extra = entry
        out.append(Case(vendor, kind, hooks, **extra))
    return tuple(out)


def recorder_command(run: Path, answer: HookAnswer) -> str:
    parts = ["python3", str(run / "bin" / "hookrec.py"), "--log", str(run / "state" / "hooks.jsonl"),
             "--event", answer.event]
    if answer.stdout:
        parts += ["--stdout", answer.stdout]
    if answer.stderr:
        parts += ["--stderr", answer.stderr]
    if answer.exit:
        parts += ["--exit", str(answer.exit)]
    if answer.once:
        parts += ["--once", answer.event]
    return shlex.join(parts)


def hook_config(case: Case, run: Path) -> dict[str, Any]:
    """The vendor-native hook config of ``case`` (Claude-shaped, or Copilot's own)."""
    table: dict[str, list[Any]] = {}
    for answer in case.hooks:
        command = recorder_command(run, answer)
        if case.vendor == "copilot" and answer.event[0].islower():
            table.setdefault(answer.event, []).append({"type": "command", "bash": command})
            continue
        handler: dict[str, Any] = {"type": "command", "command": command}
        if answer.if_rule:
            handler["if"] = answer.if_rule
        group: dict[str, Any] = {"hooks": [handler]}
        if answer.event in TOOL_EVENTS:
            group = {"matcher": ".*", **group}
        table.setdefault(answer.event, []).append(group)
    if case.vendor == "copilot":
        return {"version": 1, "hooks": table}
    return {"hooks": table}
