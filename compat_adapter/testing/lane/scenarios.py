"""The standard scenarios of the vendor lane and the pieces each vendor's own are built of.

Each vendor's scenarios, in its own hook language, are part of its unit (its lane driver's
``scenarios()``, ``vendors/<id>/lane.py``); :func:`compat_adapter.testing.lane.vendors.cases_for`
gives them as cases.

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

__all__ = ("CORPUS_PLUGINS", "EDIT_TEXT", "ENV_FILE", "EXIT_3_STEPS", "HALT", "KILLED_STEPS", "KINDS", "LANE_PLUGIN", "MARKERS", "REWRITTEN_COMMAND", "SHOWN_MARKERS", "SYSMSG",
           "STOP_STEPS", "TOOL_COMMAND", "TWO_STEPS", "Case", "HookAnswer", "Scenario", "as_json", "cases", "claude_like",
           "claude_shaped_config", "claude_shaped_table", "hso", "recorder_command")

TOOL_COMMAND = "echo ran > tool-ran.txt; echo hello-from-tool"
#: What a scenario's file edit writes.
EDIT_TEXT = "lane edit\n"
REWRITTEN_COMMAND = "echo ran > tool-ran.txt; echo rewritten-by-hook"
PROMPT = "run the lane step"
#: The secret a project's .env holds in the plugin cases (it must never reach the model).
ENV_FILE = "LANE_SECRET=do-not-leak\n"

#: Marker strings whose landing place in the model's requests is looked up.
MARKERS = ("LANE-CTX-SESSION", "LANE-CTX-PROMPT", "LANE-CTX-PRE", "LANE-CTX-POST", "LANE-DENY", "LANE-BLOCK",
           "LANE-STOP-REASON", "LANE-MODIFIED")

#: Marks of the texts a hook shows the person (a blocked prompt's reason, a stopReason, a
#: systemMessage): the ``shown`` facet compares where each reaches the person.
SHOWN_MARKERS = ("LANE-BLOCK prompt", "LANE-HALT", "LANE-SYSMSG")
#: A systemMessage for the person, with no decision (the vendors show it to their user).
SYSMSG = '{"systemMessage": "LANE-SYSMSG for you"}'

KINDS = ("observe", "deny_exit2", "deny_json", "allow", "ask", "rewrite", "pre_context", "post_context", "post_block",
         "prompt_block", "prompt_context", "stop_block_json", "stop_block_exit2", "session_context",
         "permission_request")

#: The lane's own recording plugin for OpenCode (a plugin file doing what a case's rules say).
LANE_PLUGIN = Path(__file__).resolve().parent / "lane_plugin.ts"
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
    matcher: str | None = None
    """The group's matcher on a tool event (None: ``.*``)."""
    label: str | None = None
    """What the recorder logs this hook as, in place of the event (``PreToolUse[Ba.h]``): which of
    several hooks of one event fired."""
    timeout: float | None = None
    """The handler's own timeout in seconds (None: the vendor's default)."""
    sleep: float = 0.0
    """Seconds the hook waits before it answers (a guard that outlives its timeout)."""
    kill: int = 0
    """A signal that ends the hook after it answers (a hook that crashes)."""


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
    installed: bool = False
    """The project's ``files`` hold a real config installed as its vendor loads it (the real-config
    lane): the lane writes no hook config of its own."""
    imports: tuple[str, ...] = ()
    """The project files the embedded side imports (default: the vendor's ``hooks_file``)."""
    not_drivable: str | None = None

    @property
    def name(self) -> str:
        return f"{self.vendor}:{self.kind}"


def as_json(value: Any) -> str:
    return json.dumps(value)


def hso(event: str, **fields: Any) -> str:
    return as_json({"hookSpecificOutput": {"hookEventName": event, **fields}})


STOP_STEPS = (("shell", TOOL_COMMAND), ("text", "first answer"), ("text", "second answer"), ("text", "third answer"))
#: Two tool steps: a continue:false that stops the agent leaves the second one (and the last model call) out.
TWO_STEPS = (("shell", TOOL_COMMAND), ("shell", "echo second > second.txt"), ("text", "done"))
#: A shell step that runs and exits 3, then the answer.
EXIT_3_STEPS = (("shell", "echo ran > tool-ran.txt; exit 3"), ("text", "done"))
#: A shell step killed by a signal (it does not end by its own exit).
KILLED_STEPS = (("shell", "echo ran > tool-ran.txt; kill -9 $$"), ("text", "done"))
HALT = as_json({"continue": False, "stopReason": "LANE-HALT stop"})


#: One scenario: the hooks of the vendor's config and the case's options, or why the vendor cannot
#: run it in a non-interactive run.
Scenario = tuple[tuple[HookAnswer, ...], dict[str, Any]] | str


def claude_like(observed: tuple[str, ...], *, post_failure: bool = True) -> dict[str, Scenario]:
    """The scenarios of the Claude-shaped protocol (Claude, Codex and CodeBuddy share it): each
    vendor's lane driver takes these and adds or replaces its own. ``observed``: the events its
    ``observe`` case configures; ``post_failure``: whether it has a PostToolUseFailure event."""
    pre, post, prompt, stop = "PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"
    out: dict[str, Scenario] = {
        "observe": (tuple(HookAnswer(e) for e in observed), {}),
        "deny_exit2": ((HookAnswer(pre, stderr="LANE-DENY-EXIT2 reason", exit=2),), {}),
        "deny_json": ((HookAnswer(pre, hso(pre, permissionDecision="deny",
                                            permissionDecisionReason="LANE-DENY-JSON reason")),), {}),
        "allow": ((HookAnswer(pre, hso(pre, permissionDecision="allow", permissionDecisionReason="LANE-ALLOW ok")),),
                  {}),
        "ask": ((HookAnswer(pre, hso(pre, permissionDecision="ask", permissionDecisionReason="LANE-DENY-ASK why")),),
                {}),
        "rewrite": ((HookAnswer(pre, hso(pre, permissionDecision="allow",
                                          updatedInput={"command": REWRITTEN_COMMAND})),), {}),
        "pre_context": ((HookAnswer(pre, hso(pre, additionalContext="LANE-CTX-PRE")),), {}),
        "post_context": ((HookAnswer(post, hso(post, additionalContext="LANE-CTX-POST")),), {}),
        "post_block": ((HookAnswer(post, as_json({"decision": "block", "reason": "LANE-BLOCK post"})),), {}),
        "prompt_block": ((HookAnswer(prompt, as_json({"decision": "block", "reason": "LANE-BLOCK prompt"})),), {}),
        "prompt_context": ((HookAnswer(prompt, hso(prompt, additionalContext="LANE-CTX-PROMPT")),), {}),
        "stop_block_json": ((HookAnswer(stop, as_json({"decision": "block", "reason": "LANE-STOP-REASON json"}),
                                        once=True),), {"steps": STOP_STEPS}),
        "stop_block_exit2": ((HookAnswer(stop, stderr="LANE-STOP-REASON exit2", exit=2, once=True),),
                             {"steps": STOP_STEPS}),
        "session_context": ((HookAnswer("SessionStart", hso("SessionStart", additionalContext="LANE-CTX-SESSION")),),
                            {}),
        "permission_request": ((HookAnswer("PermissionRequest", hso("PermissionRequest",
                                                                     decision={"behavior": "allow"})),),
                               {"options": {"no_allowed_tools": True}}),
    }
    # continue:false where the vendors differ (measured): does the agent stop before its next step?
    out["session_halt"] = ((HookAnswer("SessionStart", HALT),), {"steps": TWO_STEPS})
    out["pre_halt"] = ((HookAnswer(pre, HALT),), {"steps": TWO_STEPS})
    out["post_halt"] = ((HookAnswer(post, HALT),), {"steps": TWO_STEPS})
    # A shell command that ran and exited non-zero: is it PostToolUse or PostToolUseFailure? (A
    # vendor with no PostToolUseFailure: does its PostToolUse fire?)
    failure = (HookAnswer("PostToolUseFailure"),) if post_failure else ()
    out["post_exit_nonzero"] = ((HookAnswer(post), *failure), {"steps": EXIT_3_STEPS})
    return out


def cases(vendor: str, table: Mapping[str, Scenario]) -> tuple[Case, ...]:
    """A vendor's cases from its scenario table: the standard kinds first, then its own."""
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
    if answer.label:
        parts += ["--label", answer.label]
    if answer.sleep:
        parts += ["--sleep", f"{answer.sleep:g}"]
    if answer.kill:
        parts += ["--kill", str(answer.kill)]
    return shlex.join(parts)


def claude_shaped_config(case: Case, run: Path) -> dict[str, Any]:
    """The case's hooks in Claude's config shape (``{hooks: {Event: [{matcher, hooks: […]}]}}``),
    beside the case's other settings keys (``options["settings"]``: its permission rules …)."""
    return {**(case.options.get("settings") or {}), "hooks": claude_shaped_table(case, run)}


def claude_shaped_table(case: Case, run: Path, answers: tuple[HookAnswer, ...] | None = None) -> dict[str, list[Any]]:
    """The ``hooks`` table of ``answers`` (default: all of the case's) in Claude's shape."""
    table: dict[str, list[Any]] = {}
    for answer in case.hooks if answers is None else answers:
        handler: dict[str, Any] = {"type": "command", "command": recorder_command(run, answer)}
        if answer.if_rule:
            handler["if"] = answer.if_rule
        if answer.timeout is not None:
            handler["timeout"] = answer.timeout
        group: dict[str, Any] = {"hooks": [handler]}
        if answer.event in TOOL_EVENTS:
            group = {"matcher": ".*" if answer.matcher is None else answer.matcher, **group}
        table.setdefault(answer.event, []).append(group)
    return table
