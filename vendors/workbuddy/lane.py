"""CodeBuddy Code (for WorkBuddy) in the vendor lane (test support): its CLI offline, its scenarios.

Loaded only by ``compat_adapter.testing.lane`` (the unit names it as ``lane``), never by the product.
"""

from __future__ import annotations

import re
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compat_adapter.testing.lane.scenarios import (
    HALT,
    SHOWN_MARKERS,
    KILLED_STEPS,
    STOP_STEPS,
    HookAnswer,
    Scenario,
    as_json,
    claude_like,
    hso,
)
from compat_adapter.testing.lane.vendors import VendorCli
from compat_adapter.testing.live.speakers import ClaudeShapedSpeaker

if TYPE_CHECKING:
    from compat_adapter.testing.live.harness import Session

__all__ = ("CLI", "LIVE", "CodeBuddyCli", "CodeBuddySpeaker")

#: The events its observe case configures. CodeBuddy also fires Notification (auth_success) in -p:
#: it has a case of its own, because an event the importer does not know fails the whole file.
OBSERVED = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")


@dataclass(frozen=True, slots=True)
class CodeBuddyCli(VendorCli):
    """``codebuddy-headless -p`` with the scripted model as a custom OpenAI model."""

    def release_events(self, folder: Path) -> tuple[tuple[str, ...], str]:
        # The bundled CLI compiles its hook-event enum to `x.PRE_TOOL_USE="PreToolUse",…` in one function.
        rel = "wheel/codebuddy_agent_sdk/bin/codebuddy-headless"
        for m in re.finditer(rb'\{(\w+)\.PRE_TOOL_USE="PreToolUse"[^}]*\}', (folder / rel).read_bytes()):
            names = re.findall(rb'\.[A-Z_]+="([A-Za-z]+)"', m.group(0))
            return tuple(n.decode() for n in names), rel + " (compiled hook-event enum)"
        return (), rel

    def shown(self, result: Mapping[str, Any]) -> tuple[str, ...]:
        # `-p --output-format json` prints the run's items: the person reads the assistant texts.
        # This headless build has no terminal UI (its interactive mode is compiled out), and the
        # SDK's own stream (--input-format/--output-format stream-json, what an app shows) carries
        # no more: a blocked prompt's reason as a system "informational" message and the result,
        # nothing of a continue:false's stopReason (measured, 2.163.0, cases pre_halt and stop_halt).
        try:
            items = json.loads(str(result.get("stdout") or ""))
        except ValueError:
            items = []
        texts = [str(part.get("text", "")) for item in items if isinstance(item, dict) and item.get("role") == "assistant"
                 for part in item.get("content") or () if isinstance(part, dict)]
        return tuple(t for t in texts if any(m in t for m in SHOWN_MARKERS)) + tuple(
            line.strip() for line in str(result.get("stderr") or "").splitlines() if any(m in line for m in SHOWN_MARKERS))

    def setup(self, run: Path, base: str, prompt: str, env: dict[str, str], *, binary: str, lane: Path,
              options: Mapping[str, Any]) -> list[str]:
        cb = run / "home" / ".codebuddy"
        cb.mkdir(parents=True, exist_ok=True)
        (cb / "models.json").write_text(json.dumps({
            "models": [{"id": "mock-model", "name": "Mock", "vendor": "OpenAI", "apiKey": "sk-test",
                        "url": f"{base}/v1/chat/completions", "supportsToolCall": True}],
            "availableModels": ["mock-model"]}))
        env.update(CODEBUDDY_API_KEY="sk-test")
        # One tool name per argument: CodeBuddy 2.163.0 reads "Bash,Write" as no Write (measured: the
        # real-config lane's edit was refused as "requires approval").
        argv = [binary, "-p", prompt, "--model", "mock-model", "--output-format", "json", "--allowedTools",
                *str(options.get("allowed_tools", "Bash")).split(",")]
        for folder in options.get("plugin_dirs", ()):  # measured: --plugin-dir loads a plugin folder
            argv += ["--plugin-dir", str(run / "proj" / folder)]
        return argv

    def scenarios(self) -> Mapping[str, Scenario]:
        out = claude_like(OBSERVED)
        # A shell command killed by a signal (it did not end by its own exit).
        out["post_killed"] = ((HookAnswer("PostToolUse"), HookAnswer("PostToolUseFailure")), {"steps": KILLED_STEPS})
        out["notification"] = ((HookAnswer("Notification"),), {})
        out["permission_request"] = ("CodeBuddy never fires PermissionRequest in -p: a tool not allowed up front "
                                     "is denied as non-interactive before any hook runs")
        # continue:false on Stop: CodeBuddy just stops (Stop fires once, no feedback, no further call).
        out["stop_halt"] = ((HookAnswer("Stop", HALT),), {"steps": STOP_STEPS})
        # A guard that outlives its timeout is killed and its call does not run: the model reads
        # "Error: Hook timed out after <ms>ms" (its own 2 s, and the 60 s default).
        late = hso("PreToolUse", permissionDecision="deny", permissionDecisionReason="LANE-DENY-JSON late")
        out["pre_timeout"] = ((HookAnswer("PreToolUse", late, timeout=2, sleep=8),), {})
        out["pre_timeout_default"] = ((HookAnswer("PreToolUse", late, sleep=70),), {})
        # Issue 34. JSON stdout with no field CodeBuddy knows, on the events whose plain stdout is
        # context; the same with one known field; plain text beside them.
        unknown = {"rule": "LANE-CTX-PROMPT standing rule"}
        out["prompt_json_unknown"] = ((HookAnswer("UserPromptSubmit", as_json(unknown)),), {})
        out["prompt_json_known"] = ((HookAnswer("UserPromptSubmit", as_json({**unknown, "suppressOutput": False})),),
                                    {})
        out["prompt_context_plain"] = ((HookAnswer("UserPromptSubmit", "LANE-CTX-PROMPT plain"),), {})
        # A hookSpecificOutput.additionalContext beside a plain answer: the plain stdout is dropped.
        out["prompt_context_mixed"] = ((HookAnswer("UserPromptSubmit", "LANE-CTX-PRE plain stdout", label="plain"),
                                        HookAnswer("UserPromptSubmit", hso("UserPromptSubmit",
                                                                           additionalContext="LANE-CTX-PROMPT json"),
                                                   label="json")), {})
        # Two hooks of one event: the printed stdouts, and two additionalContexts.
        out["prompt_context_two_plain"] = ((HookAnswer("UserPromptSubmit", "LANE-CTX-PROMPT first", label="first"),
                                            HookAnswer("UserPromptSubmit", "LANE-CTX-PRE second", label="second")), {})
        out["prompt_context_two_json"] = ((HookAnswer("UserPromptSubmit", hso("UserPromptSubmit",
                                                                              additionalContext="LANE-CTX-PROMPT first"),
                                                      label="first"),
                                           HookAnswer("UserPromptSubmit", hso("UserPromptSubmit",
                                                                              additionalContext="LANE-CTX-PRE second"),
                                                      label="second")), {})
        out["session_json_unknown"] = ((HookAnswer("SessionStart", as_json({"rule": "LANE-CTX-SESSION rule"})),), {})
        # -p never fires SessionEnd (read in the binary: /clear, /exit and a stop signal do); here it runs
        # when the agent is disposed, the host's end of a session (listed: timing-differs).
        out["session_end"] = ((HookAnswer("SessionStart"), HookAnswer("SessionEnd")), {})
        # A Stop hook that blocks every time: CodeBuddy has no cap and loops until it is killed.
        always = as_json({"decision": "block", "reason": "LANE-STOP-REASON always"})
        out["stop_block_always"] = ((HookAnswer("Stop", always),), {"steps": STOP_STEPS,
                                                                   "options": {"killed_after": 40}})
        # Claude's permission cases: CodeBuddy reads the same language (vendors/workbuddy/permissions.py).
        from vendors.claude.lane import permission_scenarios

        out.update(permission_scenarios(".codebuddy"))
        return out


CLI = CodeBuddyCli("workbuddy", "codebuddy", "2.163.0", "codebuddy/wheel/codebuddy_agent_sdk/bin/codebuddy-headless",
                   "chat", "Bash", ".codebuddy/settings.json", extra_args={"description": "lane step"},
                   env_prefixes=("CODEBUDDY",), write_tool=("Write", "file_path", "content"),
                   read_tool=("Read", "file_path"),
                   package_version="0.3.274")


@dataclass(frozen=True, slots=True)
class CodeBuddySpeaker(ClaudeShapedSpeaker):
    """The live checks in CodeBuddy's words: Claude's shape, with CodeBuddy 2.163.0's own payload
    habits (vendor lane) on its native rows."""

    def sends(self, s: Session, event: str) -> tuple[bool, bool]:
        # No session_id on Notification, no cwd on SessionStart (the bridged rows are Claude's).
        native = not s.official
        return not (native and event == "Notification"), not (native and event == "SessionStart")

    def check_own(self, s: Session, payload: Mapping[str, Any]) -> None:
        if not s.official and s.event in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
            # CodeBuddy 2.163.0 sends the call's id twice (vendor lane).
            s.expect(payload.get("tool_use_id") and payload.get("call_id") == payload.get("tool_use_id"),
                     f"a CodeBuddy payload lacks tool_use_id = call_id: {sorted(payload)}")


LIVE = CodeBuddySpeaker("workbuddy", ask_honoured=True, session_fields=True)
