"""Qwen Code in the vendor lane (test support): its CLI offline, its scenarios.

Loaded only by ``compat_adapter.testing.lane`` (the unit names it as ``lane``), never by the product.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compat_adapter.testing.lane.scenarios import EXIT_3_STEPS, HALT, HookAnswer, Scenario, as_json, claude_like, hso
from compat_adapter.testing.lane.vendors import VendorCli
from compat_adapter.testing.live.harness import REASON
from compat_adapter.testing.live.speakers import TOOL_EVENTS, ClaudeShapedSpeaker
from vendors.qwen.permissions import TOOLS

if TYPE_CHECKING:
    from compat_adapter.testing.live.harness import Session

__all__ = ("CLI", "LIVE", "QwenCli", "QwenSpeaker")

#: The events its observe case configures. SessionEnd is left out: Qwen fires it only when an
#: interactive session is cleared or exited, never in -p (measured with it configured here; the row's
#: timing-differs says so), and explain, which answers for the event, would predict it.
OBSERVED = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")
#: Where the release keeps its hook-event enum (``packages/core/src/hooks/types.ts``, bundled).
_ENUM = re.compile(rb'HookEventName2\["([A-Za-z]+)"\] = "\1"')


@dataclass(frozen=True, slots=True)
class QwenCli(VendorCli):
    """``qwen -p … --yolo -o json`` with the scripted model as its OpenAI-compatible endpoint."""

    def release_events(self, folder: Path) -> tuple[tuple[str, ...], str]:
        # The bundle keeps packages/core/src/hooks/types.ts's HookEventName enum in one chunk.
        chunks = folder / "node_modules/@qwen-code/qwen-code/chunks"
        for chunk in sorted(chunks.glob("*.js")):
            names = _ENUM.findall(chunk.read_bytes())
            if b"PreToolUse" in names:
                return (tuple(n.decode() for n in names),
                        str(chunk.relative_to(folder)) + " (HookEventName, packages/core/src/hooks/types.ts)")
        return (), "node_modules/@qwen-code/qwen-code/chunks/*.js"

    def setup(self, run: Path, base: str, prompt: str, env: dict[str, str], *, binary: str, lane: Path,
              options: Mapping[str, Any]) -> list[str]:
        home = run / "home" / ".qwen"
        home.mkdir(parents=True, exist_ok=True)
        # Without selectedType the OPENAI_* variables select no auth in -p; auto-update and usage
        # statistics off so that the run makes no call beyond the scripted model.
        # Managed auto-memory off: after a text-only turn Qwen Code 0.24.4 asks the model once more on
        # its own ("Managed memory has TWO directories…", offering tools, so the lane counted it as a
        # model call), a feature of the CLI that no hook causes (its docs: memory.enableManagedAutoMemory).
        (home / "settings.json").write_text(json.dumps({
            "security": {"auth": {"selectedType": "openai"}},
            "general": {"enableAutoUpdate": False},
            "privacy": {"usageStatisticsEnabled": False},
            "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False}}))
        env.update(OPENAI_BASE_URL=f"{base}/v1", OPENAI_API_KEY="sk-test", OPENAI_MODEL="mock-model",
                   QWEN_CODE_SUPPRESS_YOLO_WARNING="1")
        if options.get("approval_mode") != "default":
            return [binary, "-p", prompt, "--yolo", "-o", "json"]
        # A permission case runs as claude -p --allowedTools does: Qwen's default approval mode with
        # the case's tools allowed up front, so that a call an ask rule matches is put to nobody and
        # declined (its non-interactive rule), where --yolo would run it unasked.
        argv = [binary, "-p", prompt, "--approval-mode", "default", "-o", "json"]
        if not options.get("no_allowed_tools"):
            argv += ["--allowed-tools", *(TOOLS.aliases.get(t, t) for t in str(options.get("allowed_tools", "Bash"))
                                          .split(","))]
        return argv

    def scenarios(self) -> Mapping[str, Scenario]:
        out = claude_like(OBSERVED)
        pre, post, stop = "PreToolUse", "PostToolUse", "Stop"
        # Qwen's own readings of the Claude protocol (its hook runner, 0.24.4).
        out["deny_top_level"] = ((HookAnswer(pre, as_json({"decision": "deny", "reason": "LANE-DENY-JSON top"})),), {})
        out["deny_exit2_json"] = ((HookAnswer(pre, stderr=hso(pre, permissionDecision="deny",
                                                               permissionDecisionReason="LANE-DENY-JSON stderr"),
                                               exit=2),), {})
        out["stop_halt"] = ((HookAnswer(stop, HALT, once=True),), {"steps": (("text", "first answer"),
                                                                             ("text", "second answer"))})
        out["post_failure_context"] = ((HookAnswer("PostToolUseFailure", hso("PostToolUseFailure",
                                                                             additionalContext="LANE-CTX-POST")),),
                                       {"steps": EXIT_3_STEPS})
        out["notification"] = ((HookAnswer("Notification"),), {})
        out["post_batch"] = ((HookAnswer("PostToolBatch"),), {})
        # A file edit through write_file, and a text-only turn (issue 34: Qwen's own side requests).
        out["edit_observe"] = ((HookAnswer(pre), HookAnswer(post)), {"steps": (("write", "tool-ran.txt"),
                                                                               ("text", "done"))})
        out["text_only"] = ((HookAnswer("UserPromptSubmit"), HookAnswer(stop)), {"steps": (("text", "hello"),)})
        # Measured without --yolo: the call is declined by -p's own deny rule ("Qwen Code requires
        # permission to use …, but that permission was declined") and the hook never runs.
        # Claude's permission cases: Qwen reads the same language (vendors/qwen/permissions.py).
        from vendors.claude.lane import permission_scenarios

        out.update(permission_scenarios(".qwen"))
        # The ask cases run in Qwen's default approval mode, where an ask is put to someone (under
        # --yolo nothing asks): the shell allowed up front, and Edit and Write too, because Qwen weighs a
        # command that writes a file (touch) as an edit, which -p refuses unless allowed.
        for kind in ("perm_ask", "perm_ask_hook_allow"):
            entry = out[kind]
            assert not isinstance(entry, str)
            hooks, extra = entry
            out[kind] = (hooks, {**extra, "options": {**extra["options"], "approval_mode": "default",
                                                      "allowed_tools": "Bash,Edit,Write"}})
        out["permission_request"] = ("Qwen Code never fires PermissionRequest in -p: without --yolo a call that "
                                     "needs approval is declined by the non-interactive deny rule before any hook "
                                     "runs, and with --yolo nothing asks")
        return out


CLI = QwenCli("qwen", "qwen", "0.24.4", "qwen/node_modules/@qwen-code/qwen-code/cli-entry.js", "chat",
              "run_shell_command", ".qwen/settings.json", extra_args={"description": "lane step"},
              env_prefixes=("QWEN", "GEMINI"), write_tool=("write_file", "file_path", "content"), absolute_write=True,
              read_tool=("read_file", "file_path"),
              # Measured on 0.24.4 (lane case text_only): after a text-only turn Qwen sends its
              # managed-memory extraction agent's request, tools offered, beside the session.
              side_requests=("You are now acting as the managed memory extraction subagent",))


@dataclass(frozen=True, slots=True)
class QwenSpeaker(ClaudeShapedSpeaker):
    """The live checks in Qwen's words: Claude's answers, but a post-tool block is ``continue: false``;
    Gemini's tool names and Qwen's own display and todo fields in the payload."""

    def block(self, event: str, reason: str = REASON) -> dict[str, Any]:
        # Qwen ignores decision on PostToolUse; continue:false replaces the result with its stopReason.
        if event == "PostToolUse":
            return {"continue": False, "stopReason": reason}
        return ClaudeShapedSpeaker.block(self, event, reason)

    def tool_name(self, s: Session, tool: str) -> str:
        return {"bash": "run_shell_command"}.get(tool, tool)

    def check_display(self, s: Session, payload: Mapping[str, Any], text: str) -> None:
        s.expect(payload.get("displayed_text") == text and payload.get("is_final") is True
                 and "delta" not in payload, f"the displayed text is not the message: {payload}",
                 "message text as displayed_text, is_final")

    def check_todo(self, s: Session, payload: Mapping[str, Any], subject: str) -> None:
        status = {"TodoCreated": "pending"}.get(s.event)
        s.expect(payload.get("todo_content") == subject and payload.get("todo_status") == status,
                 f"todo_content/todo_status wrong: {payload}", "todo_content in payload")

    def check_payload(self, s: Session, payload: Mapping[str, Any], tool: str | None) -> None:
        e = s.event
        s.expect(payload.get("hook_event_name") == e and "session_id" in payload and "timestamp" in payload,
                 f"payload lacks hook_event_name={e!r}/session_id/timestamp: {sorted(payload)}",
                 f"payload hook_event_name={e}")
        if e in TOOL_EVENTS and tool is not None:
            want = self.tool_name(s, tool)
            s.expect(payload.get("tool_name") == want and isinstance(payload.get("tool_input"), dict),
                     f"tool_name {payload.get('tool_name')!r}, expected {want!r} and an input object",
                     f"tool_name={want}")


LIVE = QwenSpeaker("qwen", ask_honoured=False, session_fields=False)
