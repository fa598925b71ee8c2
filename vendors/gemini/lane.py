"""Gemini CLI in the vendor lane (test support): its CLI offline, its scenarios, its live speaker.

Loaded only by ``compat_adapter.testing.lane`` (the unit names it as ``lane``), never by the product.
The scripted model speaks the Gemini API (``generate-content``) at ``GOOGLE_GEMINI_BASE_URL``.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compat_adapter.testing.lane.scenarios import (
    EXIT_3_STEPS,
    REWRITTEN_COMMAND,
    STOP_STEPS,
    TWO_STEPS,
    Case,
    HookAnswer,
    Scenario,
    as_json,
    claude_shaped_config,
    hso,
)
from compat_adapter.testing.lane.vendors import VendorCli
from compat_adapter.testing.live.harness import CONTEXT, REASON
from compat_adapter.testing.live.speakers import Speaker, specific
from compat_adapter.vocabulary import DegradationCode

if TYPE_CHECKING:
    from compat_adapter.testing.live.harness import Session

__all__ = ("CLI", "LIVE", "GeminiCli", "GeminiSpeaker")

#: The events its observe case configures: every event with a route here but Notification, which
#: fires only while a call waits for confirmation and --yolo never makes one wait (verify_live runs
#: its row). The three model events have a case of their own (refused on import: no seam serves them).
OBSERVED = ("SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "SessionEnd", "PreCompress")
MODEL_EVENTS = ("BeforeModel", "AfterModel", "BeforeToolSelection")
_HALT = as_json({"continue": False, "stopReason": "LANE-HALT stop"})
#: The CLI's settings at its user level: the API key's auth (else the base URL picks a gateway auth that
#: -p refuses), and no folder trust dialog (else project hooks do not load).
USER_SETTINGS = {"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}}}


#: A policy file denying the lane's command, as a team writes one.
_DENY_ECHO = ('[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "echo ran"\ndecision = "deny"\n'
              'priority = 100\ndenyMessage = "LANE-POLICY no echo"\n')


def _permission(tools: dict[str, Any], *hooks: HookAnswer) -> Scenario:
    """A case whose project settings hold ``tools`` permission rules (and ``hooks``)."""
    return (hooks, {"options": {"settings": {"tools": tools}}})


@dataclass(frozen=True, slots=True)
class GeminiCli(VendorCli):
    """``gemini -p PROMPT --yolo -o json`` with the scripted model as its Gemini API endpoint."""

    def release_events(self, folder: Path) -> tuple[tuple[str, ...], str]:
        # The bundle compiles the HookEventName enum to `HookEventName2["BeforeTool"] = "BeforeTool";`
        # in one of its content-hashed chunks.
        bundle = "node_modules/@google/gemini-cli/bundle"
        for chunk in sorted((folder / bundle).glob("*.js")):
            text = chunk.read_bytes()
            if b'HookEventName2["BeforeTool"]' not in text:
                continue
            names = re.findall(rb'HookEventName2\["([A-Za-z]+)"\] = "\1"', text)
            return tuple(dict.fromkeys(n.decode() for n in names)), f"{bundle}/{chunk.name} (HookEventName enum)"
        return (), bundle

    def setup(self, run: Path, base: str, prompt: str, env: dict[str, str], *, binary: str, lane: Path,
              options: Mapping[str, Any]) -> list[str]:
        home = run / "home" / ".gemini"
        home.mkdir(parents=True, exist_ok=True)
        (home / "settings.json").write_text(json.dumps(USER_SETTINGS))
        # An `extensions` option names project folders to install as the user's extensions, where
        # Gemini loads them from (~/.gemini/extensions/<name>), as `gemini extensions install` puts them.
        for folder in options.get("extensions", ()):
            shutil.copytree(run / "proj" / folder, home / "extensions" / Path(folder).name)
        # A `home_files` option writes files under ~/.gemini (the user's policy files: Gemini 0.61.0
        # reads no project policy folder).
        for name, text in (options.get("home_files") or {}).items():
            (home / name).parent.mkdir(parents=True, exist_ok=True)
            (home / name).write_text(text)
        env.update(GEMINI_API_KEY="sk-test", GOOGLE_GEMINI_BASE_URL=base)
        return [binary, "-p", prompt, "--yolo", "-o", "json"]

    def hook_config(self, case: Case, run: Path) -> dict[str, Any]:
        """Claude's group shape, which Gemini reads; a case's ``matcher`` option puts a matcher on
        each group of the events it names."""
        config = claude_shaped_config(case, run)  # with the case's `settings` option beside the hooks
        for event, matcher in (case.options.get("matcher") or {}).items():
            for group in config["hooks"].get(event, ()):
                group["matcher"] = matcher
        return config

    def scenarios(self) -> Mapping[str, Scenario]:
        pre, post, prompt, stop = "BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent"
        deny = as_json({"decision": "deny", "reason": "LANE-DENY-JSON reason"})
        return {
            "observe": (tuple(HookAnswer(e) for e in OBSERVED), {}),
            "deny_exit2": ((HookAnswer(pre, stderr="LANE-DENY-EXIT2 reason", exit=2),), {}),
            "deny_json": ((HookAnswer(pre, deny),), {}),
            "allow": ((HookAnswer(pre, as_json({"decision": "allow", "reason": "LANE-ALLOW ok"})),), {}),
            "ask": ("a BeforeTool ask in -p waits for a confirmation nobody can give: Gemini CLI 0.61.0 hangs "
                    "until it is killed (measured: no model call after 200 s), so there is nothing to compare"),
            "rewrite": ((HookAnswer(pre, hso(pre, tool_input={"command": REWRITTEN_COMMAND})),), {}),
            "pre_context": ((HookAnswer(pre, hso(pre, additionalContext="LANE-CTX-PRE")),), {}),
            "post_context": ((HookAnswer(post, hso(post, additionalContext="LANE-CTX-POST")),), {}),
            "post_block": ((HookAnswer(post, as_json({"decision": "deny", "reason": "LANE-BLOCK post"})),), {}),
            "prompt_block": ((HookAnswer(prompt, as_json({"decision": "deny", "reason": "LANE-BLOCK prompt"})),), {}),
            "prompt_context": ((HookAnswer(prompt, hso(prompt, additionalContext="LANE-CTX-PROMPT")),), {}),
            "stop_block_json": ((HookAnswer(stop, as_json({"decision": "block", "reason": "LANE-STOP-REASON json"}),
                                            once=True),), {"steps": STOP_STEPS}),
            "stop_block_exit2": ((HookAnswer(stop, stderr="LANE-STOP-REASON exit2", exit=2, once=True),),
                                 {"steps": STOP_STEPS}),
            "session_context": ((HookAnswer("SessionStart", hso("SessionStart",
                                                                 additionalContext="LANE-CTX-SESSION")),), {}),
            "permission_request": ("Gemini CLI has no permission-request hook; its Notification (ToolPermission) "
                                   "fires only while a call waits for confirmation, which --yolo never makes"),
            # Gemini's own: any exit other than 0 and 1 with text blocks (the docs say "warning").
            "deny_exit3": ((HookAnswer(pre, stderr="LANE-DENY-EXIT3 reason", exit=3),), {}),
            # A non-zero exit with nothing printed does nothing, and exit 1 text is only a warning.
            "exit1_warning": ((HookAnswer(pre, stderr="LANE-DENY-EXIT1 warning", exit=1),), {}),
            # JSON on stdout decides whatever the exit code: exit 2 with an allow lets the call run.
            "exit2_json_allow": ((HookAnswer(pre, as_json({"decision": "allow"}), exit=2),), {}),
            # getAdditionalContext escapes < and > before the <hook_context> tags go around it.
            "context_escaped": ((HookAnswer(post, hso(post, additionalContext="<b>LANE-CTX-POST</b>")),), {}),
            "prompt_halt": ((HookAnswer(prompt, _HALT),), {}),
            # continue:false: ignored on SessionStart, the agent stops on the tool events.
            "session_halt": ((HookAnswer("SessionStart", _HALT),), {"steps": TWO_STEPS}),
            "pre_halt": ((HookAnswer(pre, _HALT),), {"steps": TWO_STEPS}),
            "post_halt": ((HookAnswer(post, _HALT),), {"steps": TWO_STEPS}),
            # A shell command that ran and exited non-zero still fires AfterTool.
            "post_exit_nonzero": ((HookAnswer(post),), {"steps": EXIT_3_STEPS}),
            "model_events": (tuple(HookAnswer(e) for e in MODEL_EVENTS), {}),
            # Matchers: a tool pattern is an unanchored regex; a lifecycle matcher is the exact source.
            "matcher_miss": ((HookAnswer(pre, deny),), {"options": {"matcher": {pre: "write_.*"}, "silent": True}}),
            "matcher_regex": ((HookAnswer(pre, deny),), {"options": {"matcher": {pre: "shell"}}}),
            "session_matcher_miss": ((HookAnswer("SessionStart", hso("SessionStart", additionalContext="LANE-CTX-SESSION")),),
                                     {"options": {"matcher": {"SessionStart": "resume"}, "silent": True}}),
            # Two hooks of one event: any deny wins and every reason is joined with a newline.
            "two_hooks": ((HookAnswer(pre, as_json({"reason": "LANE-DENY first"})), HookAnswer(pre, deny)), {}),
            "deny_no_reason": ((HookAnswer(pre, as_json({"decision": "block"})),), {}),
            "post_exit2": ((HookAnswer(post, stderr="LANE-BLOCK exit2", exit=2),), {}),
            "prompt_exit2": ((HookAnswer(prompt, stderr="LANE-BLOCK prompt exit2", exit=2),), {}),
            # Plain text on exit 0 is a systemMessage for the user: the model reads none of it.
            "prompt_plain_stdout": ((HookAnswer(prompt, "LANE-CTX-PROMPT plain text"),), {}),
            "stop_halt": ((HookAnswer(stop, _HALT),), {"steps": STOP_STEPS}),
            # Permission rules (settings `tools`, measured under -p --yolo): a tool excluded whole or left
            # out of `core` is taken from the model; `allowed` with a command denies every other command;
            # `confirmationRequired` cannot be answered in -p; a hook's allow lifts no policy deny; a
            # project policy folder is not read.
            "perm_excluded": _permission({"exclude": ["run_shell_command"]}),
            "perm_core": _permission({"core": ["read_file"]}),
            "perm_narrowed": _permission({"allowed": ["run_shell_command(git)"]}),
            "perm_narrowed_match": _permission({"allowed": ["run_shell_command(echo)"]}),
            "perm_exclude_arguments": _permission({"exclude": ["run_shell_command(echo)"]}),
            "perm_confirm": _permission({"confirmationRequired": ["run_shell_command"]}),
            "perm_beside_hook": _permission({"allowed": ["run_shell_command(git)"]},
                                            HookAnswer(pre, as_json({"decision": "allow", "reason": "LANE-ALLOW ok"}))),
            "perm_project_policy": ((), {"files": {".gemini/policies/team.toml": _DENY_ECHO}}),
        }


CLI = GeminiCli("gemini", "gemini", "0.61.0", "gemini/node_modules/@google/gemini-cli/bundle/gemini.js",
                "generate-content", "run_shell_command", ".gemini/settings.json",
                extra_args={"description": "lane step"}, read_tool=("read_file", "file_path"),
                env_prefixes=("GEMINI",), write_tool=("write_file", "file_path", "content"))


@dataclass(frozen=True, slots=True)
class GeminiSpeaker(Speaker):
    """The live checks in Gemini's words: a top-level ``decision``, ``hookSpecificOutput`` context;
    snake_case payloads with an ISO timestamp and Gemini's tool names."""

    def deny(self, event: str) -> dict[str, Any]:
        return {"decision": "deny", "reason": REASON}

    def ask(self, event: str) -> dict[str, Any]:
        return {"decision": "ask", "reason": REASON}

    def context(self, event: str) -> dict[str, Any]:
        return specific(event, additionalContext=CONTEXT)

    def block(self, event: str, reason: str = REASON) -> dict[str, Any]:
        return {"decision": "deny", "reason": reason}

    def observe(self, event: str) -> dict[str, Any]:
        return {"decision": "deny", "reason": REASON, "continue": False, "stopReason": REASON,
                **specific(event, additionalContext=CONTEXT)}

    def check_payload(self, s: Session, payload: Mapping[str, Any], tool: str | None) -> None:
        from vendors.gemini.dialect import TOOL_EVENTS

        stamp = payload.get("timestamp")
        s.expect(payload.get("hook_event_name") == s.event and isinstance(payload.get("session_id"), str)
                 and "cwd" in payload and "transcript_path" in payload and isinstance(stamp, str)
                 and stamp.endswith("Z"),
                 f"payload lacks hook_event_name/session_id/cwd/transcript_path/ISO timestamp: {sorted(payload)}",
                 f"payload hook_event_name={s.event}")
        if s.event in TOOL_EVENTS and tool is not None:
            want = {"bash": "run_shell_command"}.get(tool, tool)
            s.expect(payload.get("tool_name") == want and isinstance(payload.get("tool_input"), dict),
                     f"tool_name {payload.get('tool_name')!r}, expected {want!r} and an input object",
                     f"tool_name={want}")

    def check_post_tool(self, s: Session, payload: Mapping[str, Any]) -> None:
        response = payload.get("tool_response")
        s.expect(isinstance(response, dict) and isinstance(response.get("llmContent"), str),
                 f"tool_response is not {{llmContent, returnDisplay}}: {response!r}")

    def check_prompt(self, s: Session, payload: Mapping[str, Any], prompt: str) -> None:
        if s.event == "PreCompress":
            # Fired before each model request (the vendor lane): no prompt, an automatic trigger.
            s.expect(payload.get("trigger") == "auto" and "prompt" not in payload,
                     f"PreCompress payload is not Gemini's (trigger auto, no prompt): {payload}", "trigger=auto")
            return
        if s.event == "BeforeModel":
            # Gemini sends no prompt field here: the request is llm_request, whose absence the row
            # lists (payload-field-missing); a row that stops listing it must carry the prompt there.
            listed = any(d.code is DegradationCode.PAYLOAD_FIELD_MISSING and "llm_request" in d.text
                         for d in s.row.degradations)
            request = payload.get("llm_request")
            s.expect("prompt" not in payload and (request is None if listed else prompt in json.dumps(request)),
                     f"BeforeModel payload is not Gemini's less the listed llm_request: {payload}",
                     "no prompt field; llm_request missing, as listed" if listed else "prompt in llm_request")
            return
        s.expect(payload.get("prompt") == prompt, f"prompt not in payload: {payload}")

    def session_source(self, s: Session) -> str | None:
        return "startup"

    def approval_tool(self) -> str | None:
        return "run_shell_command"

    def check_denial(self, s: Session, payload: Mapping[str, Any]) -> None:
        # Gemini's ToolPermission notification has no reason field: its details say how it ended.
        details = payload.get("details")
        s.expect(payload.get("notification_type") == "ToolPermission" and isinstance(details, dict)
                 and details.get("outcome") == "rejected",
                 f"the denial is not a rejected ToolPermission notification: {payload}", "details.outcome=rejected")


LIVE = GeminiSpeaker("gemini", ask_honoured=True)
