"""Cline in the vendor lane (test support): its CLI offline, its scenarios.

``cline --json "<prompt>"`` runs with no Cline account against the provider ``openai-compatible``
(chat completions) that its ``~/.cline/data/settings/providers.json`` names, the scripted model
(measured, 3.0.65: what ``cline auth -p openai-compatible -b <url>`` writes). Its feature-flag and
telemetry lookups fail at once in the lane's namespace and the run goes on. The hooks are files in
the project's ``.clinerules/hooks``, one per event, each a bash script that starts the recorder.

Loaded only by ``compat_adapter.testing.lane`` (the unit names it as ``lane``), never by the product.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compat_adapter.testing.lane import scenarios as standard
from compat_adapter.testing.lane.scenarios import STOP_STEPS, TWO_STEPS, Case, HookAnswer, Scenario, as_json
from compat_adapter.testing.lane.vendors import VendorCli
from compat_adapter.testing.live.harness import CONTEXT, REASON
from compat_adapter.testing.live.speakers import Speaker

if TYPE_CHECKING:
    from compat_adapter.testing.live.harness import Session

__all__ = ("CLI", "LIVE", "ClineCli", "ClineSpeaker", "control")

HOOKS = ".clinerules/hooks"
#: The run's wrapper: the CLI, then the end of the hub daemon it left behind. Each ``cline`` run
#: starts a detached ``--cline-hub-daemon`` (measured, 3.0.65) that outlives it; the wrapper ends
#: that one process, found by the run's own project folder on its command line, by its id.
WRAPPER = """import os, signal, subprocess, sys
done = subprocess.run(sys.argv[2:])
mark = ["--cline-hub-daemon", "--cwd", sys.argv[1]]
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            args = f.read().decode(errors="replace").split("\\0")
    except OSError:
        continue
    if all(m in args for m in mark) and args[args.index("--cwd") + 1] == sys.argv[1]:
        try:
            os.kill(int(pid), signal.SIGTERM)
        except OSError:
            pass
sys.exit(done.returncode)
"""
#: The hook-event enum of the release (``B.TaskStart="TaskStart"; …`` in the compiled runtime).
_ENUM = re.compile(rb'(\w+)\.TaskStart="TaskStart"(?:[;,]\s*\1\.\w+="\w+")*')
_MEMBER = re.compile(rb'\.(\w+)="(\w+)"')


def control(**answer: Any) -> str:
    """A hook's answer as Cline reads it: a noise line, then the ``HOOK_CONTROL`` line."""
    return "working\nHOOK_CONTROL\t" + as_json(answer) + "\n"


@dataclass(frozen=True, slots=True)
class ClineCli(VendorCli):
    """``cline --json "<prompt>"`` with the scripted model as its openai-compatible provider."""

    def release_events(self, folder: Path) -> tuple[tuple[str, ...], str]:
        rel = self.binary.split("/", 1)[1]
        found = _ENUM.search((folder / rel).read_bytes())
        if found is None:
            return (), rel
        return tuple(m.group(1).decode() for m in _MEMBER.finditer(found.group(0))), rel + " (its hook-event enum)"

    def call(self, command: str) -> dict[str, Any]:
        return {"name": self.shell_tool, "arguments": {self.shell_arg: [command]}}

    def write_hooks(self, case: Case, run: Path, target: Path) -> None:
        # One file per hook, as Cline finds them, named after its event (or as the case names it).
        proj = target.parents[2]
        for name, answer in zip(_names(case.hooks, case.options), case.hooks, strict=True):
            path = proj / _place(name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"#!/bin/bash\nexec {standard.recorder_command(run, answer)}\n")

    def setup(self, run: Path, base: str, prompt: str, env: dict[str, str], *, binary: str, lane: Path,
              options: Mapping[str, Any]) -> list[str]:
        settings = run / "home" / ".cline" / "data" / "settings"
        settings.mkdir(parents=True, exist_ok=True)
        (settings / "providers.json").write_text(json.dumps({
            "version": 1, "lastUsedProvider": "openai-compatible", "modes": {},
            "providers": {"openai-compatible": {"settings": {
                "provider": "openai-compatible", "apiKey": "sk-test", "model": "mock-model", "baseUrl": f"{base}/v1"},
                "updatedAt": "2026-01-01T00:00:00.000Z", "tokenSource": "manual"}}}))
        wrapper = run / "bin" / "cline-run.py"
        wrapper.write_text(WRAPPER)
        return ["python3", str(wrapper), str(run / "proj"), binary, "-P", "openai-compatible", "-m", "mock-model",
                "--json", prompt]

    def scenarios(self) -> Mapping[str, Scenario]:
        pre, post = "PreToolUse", "PostToolUse"
        cancel = control(cancel=True, errorMessage="LANE-DENY-JSON reason")
        no_prompt = ("a `cline \"<prompt>\"` run never fires UserPromptSubmit for its prompt, and Cline starts that "
                     "hook detached and reads none of its answer (lane case cline:prompt_observe)")
        table: dict[str, Scenario] = {
            "observe": (tuple(HookAnswer(e) for e in ("TaskStart", pre, post, "TaskComplete")), {}),
            # No exit-code protocol: exit 2 with a reason on stderr is no answer, the call runs.
            "deny_exit2": ((HookAnswer(pre, stderr="LANE-DENY-EXIT2 reason", exit=2),), {}),
            # Cline's refusal: cancel ends the run before the call.
            "deny_json": ((HookAnswer(pre, cancel),), {"steps": TWO_STEPS}),
            "allow": ((HookAnswer(pre, control(cancel=False)),), {}),
            "ask": "Cline has no ask answer: a hook cancels the run or lets the call go on",
            "rewrite": ((HookAnswer(pre, control(overrideInput={"commands": [standard.REWRITTEN_COMMAND]})),), {}),
            "pre_context": ((HookAnswer(pre, control(contextModification="LANE-CTX-PRE")),), {}),
            "post_context": ((HookAnswer(post, control(contextModification="LANE-CTX-POST")),), {}),
            "post_block": ((HookAnswer(post, control(cancel=True, errorMessage="LANE-BLOCK post")),),
                           {"steps": TWO_STEPS}),
            "prompt_block": no_prompt,
            "prompt_context": no_prompt,
            "stop_block_json": ((HookAnswer("TaskComplete", control(cancel=True, errorMessage="LANE-STOP-REASON json"),
                                            once=True),), {"steps": STOP_STEPS}),
            "stop_block_exit2": ((HookAnswer("TaskComplete", stderr="LANE-STOP-REASON exit2", exit=2, once=True),),
                                 {"steps": STOP_STEPS}),
            "session_context": ((HookAnswer("TaskStart", control(contextModification="LANE-CTX-SESSION")),), {}),
            "permission_request": "Cline has no permission hook event",
            # Cline's own: where its protocol differs from Claude's.
            "prompt_observe": ((HookAnswer("UserPromptSubmit"),), {"options": {"silent": True}}),
            "cancel_exit1": ((HookAnswer(pre, cancel, exit=1),), {"steps": TWO_STEPS}),
            "cancel_plain_json": ((HookAnswer(pre, as_json({"cancel": True, "errorMessage": "LANE-DENY-JSON r"})),),
                                  {"steps": TWO_STEPS}),
            "cancel_context_reason": ((HookAnswer(pre, control(cancel=True, contextModification="LANE-DENY ctx")),),
                                      {"steps": TWO_STEPS}),
            "cancel_no_reason": ((HookAnswer(pre, control(cancel=True)),), {"steps": TWO_STEPS}),
            "cancel_not_boolean": ((HookAnswer(pre, control(cancel="true")),), {}),
            "last_control_wins": ((HookAnswer(pre, control(cancel=False) + "HOOK_CONTROL\t"
                                              + as_json({"cancel": True, "errorMessage": "LANE-DENY-JSON last"})
                                              + "\n"),), {"steps": TWO_STEPS}),
            "control_line_indented": ((HookAnswer(pre, "  HOOK_CONTROL\t" + as_json({"cancel": True}) + "  \n"),),
                                      {"steps": TWO_STEPS}),
            "not_json": ((HookAnswer(pre, "HOOK_CONTROL\tnot json at all\n"),), {}),
            "not_an_answer": ((HookAnswer(pre, as_json({"decision": "block", "reason": "LANE-DENY-JSON x"})),), {}),
            "json_array": ((HookAnswer(pre, as_json([{"cancel": True}])),), {}),
            "review_only": ((HookAnswer(pre, control(review=True)),), {}),
            "cancel_then_killed": ((HookAnswer(pre, cancel, kill=9),), {"steps": TWO_STEPS}),
            "two_hooks_one_cancels": ((HookAnswer(pre, label="quiet"), HookAnswer(pre, cancel, label="cancels")),
                                      {"steps": TWO_STEPS, "options": {"names": ("PreToolUse", "PreToolUse.sh")}}),
            "name_any_case": ((HookAnswer(pre, cancel),), {"steps": TWO_STEPS, "options": {"names": ("pretooluse.bash",)}}),
            "name_unknown_extension": ((HookAnswer(pre, cancel),), {"options": {"names": ("PreToolUse.txt",), "silent": True}}),
            "post_cancel_no_reason": ((HookAnswer(post, control(cancel=True)),), {"steps": TWO_STEPS}),
            "hooks_in_dot_cline": ((HookAnswer(pre, cancel),), {"steps": TWO_STEPS,
                                                                "options": {"names": (".cline/hooks/PreToolUse",)}}),
            "post_not_json": ((HookAnswer(post, "not json\n"),), {}),
            "post_cancel_exit2": ((HookAnswer(post, control(cancel=True, errorMessage="LANE-BLOCK post"), exit=2),),
                                  {"steps": TWO_STEPS}),
            "session_cancel": ((HookAnswer("TaskStart", control(cancel=True, errorMessage="LANE-HALT start")),), {}),
            "stop_context": ((HookAnswer("TaskComplete", control(contextModification="LANE-STOP-REASON ctx")),),
                             {"steps": STOP_STEPS}),
        }
        return {kind: _imported(entry) for kind, entry in table.items()}


def _names(hooks: tuple[HookAnswer, ...], options: Mapping[str, Any]) -> tuple[str, ...]:
    """The file name of each hook (or its path in the project): the case's ``names``, else its event."""
    given = options.get("names")
    return tuple(given) if given else tuple(h.event for h in hooks)


def _imported(entry: Scenario) -> Scenario:
    """A scenario whose embedded side imports each of its hook files, as a user names them."""
    if isinstance(entry, str):
        return entry
    hooks, extra = entry
    names = _names(hooks, extra.get("options") or {})
    return hooks, {**extra, "imports": tuple(_place(name) for name in names)}


def _place(name: str) -> str:
    """A hook file's path in the project: a bare name is in the lane's hooks folder."""
    return name if "/" in name else f"{HOOKS}/{name}"


CLI = ClineCli("cline", "cline", "3.0.65", "cline/node_modules/@cline/cli-linux-x64/bin/cline", "chat",
               "run_commands", f"{HOOKS}/PreToolUse", shell_arg="commands", env_prefixes=("CLINE",))


@dataclass(frozen=True, slots=True)
class ClineSpeaker(Speaker):
    """The live checks in Cline's words: a JSON object on stdout; ``cancel`` is its only refusal."""

    def halts(self, event: str) -> bool:
        return True  # cancel ends the run: Cline refuses no single call

    def deny(self, event: str) -> dict[str, Any]:
        return {"cancel": True, "errorMessage": REASON}

    def context(self, event: str) -> dict[str, Any]:
        return {"contextModification": CONTEXT}

    def block(self, event: str, reason: str = REASON) -> dict[str, Any]:
        return {"cancel": True, "errorMessage": reason}

    def observe(self, event: str) -> dict[str, Any]:
        return {"cancel": True, "errorMessage": REASON, "contextModification": CONTEXT}

    def tool_name(self, s: Session, tool: str) -> str:
        return {"bash": "run_commands", "edit": "editor", "write": "editor", "read": "read_files"}.get(tool, tool)


LIVE = ClineSpeaker("cline", ask_honoured=False)
