"""Copilot CLI in the vendor lane (test support): its CLI offline, its scenarios, its config shape.

Loaded only by ``compat_adapter.testing.lane`` (the unit names it as ``lane``), never by the product.
"""

from __future__ import annotations

import json
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
    claude_shaped_table,
    hso,
    recorder_command,
)
from compat_adapter.testing.lane.vendors import VendorCli
from compat_adapter.testing.live.harness import CONTEXT, REASON
from compat_adapter.testing.live.speakers import TOOL_EVENTS, Speaker

if TYPE_CHECKING:
    from compat_adapter.testing.live.harness import Session

__all__ = ("CLI", "LIVE", "CopilotCli", "CopilotSpeaker")

#: The events its observe case configures.
OBSERVED = ("sessionStart", "userPromptSubmitted", "preToolUse", "permissionRequest", "postToolUse", "agentStop",
            "sessionEnd")


@dataclass(frozen=True, slots=True)
class CopilotCli(VendorCli):
    """``copilot -p`` offline, with the scripted model as its provider."""

    def release_events(self, folder: Path) -> tuple[tuple[str, ...], str]:
        # The CLI unpacks its payload on first start (the lane does that at install); the payload ships
        # its API schema, whose HookType enum lists every event (file-configurable and SDK-only).
        for schema in sorted(folder.glob("xdg-cache/copilot/pkg/*/*/schemas/api.schema.json")):
            enum = json.loads(schema.read_text())["definitions"]["HookType"]["enum"]
            return tuple(enum), str(schema.relative_to(folder)) + " (definitions.HookType)"
        return (), "xdg-cache/copilot/pkg/*/*/schemas/api.schema.json"

    def setup(self, run: Path, base: str, prompt: str, env: dict[str, str], *, binary: str, lane: Path,
              options: Mapping[str, Any]) -> list[str]:
        # The first start unpacks the CLI's JS payload into the cache; the lane shares one.
        env.update(COPILOT_OFFLINE="true", COPILOT_PROVIDER_BASE_URL=f"{base}/v1", COPILOT_PROVIDER_API_KEY="sk-test",
                   COPILOT_MODEL="mock-model", COPILOT_AUTO_UPDATE="false",
                   XDG_CACHE_HOME=str(lane / "copilot" / "xdg-cache"))
        return [binary, "-p", prompt, "--allow-all-tools", "--trust-folder", "--output-format", "json"]

    def hook_config(self, case: Case, run: Path) -> dict[str, Any]:
        """Copilot's own file: ``version: 1``; its own events are flat ``bash`` entries, and the
        PascalCase (Claude-compatible) events keep Claude's nested shape."""
        table: dict[str, list[Any]] = {}
        for answer in case.hooks:
            if answer.event[0].islower():
                entry: dict[str, Any] = {"type": "command", "bash": recorder_command(run, answer)}
                if answer.timeout is not None:
                    entry["timeoutSec"] = answer.timeout
                table.setdefault(answer.event, []).append(entry)
            else:
                for event, groups in claude_shaped_table(case, run, (answer,)).items():
                    table.setdefault(event, []).extend(groups)
        return {"version": 1, "hooks": table}

    def scenarios(self) -> Mapping[str, Scenario]:
        pre, perm = "preToolUse", "permissionRequest"
        return {
            # Copilot also reads Claude-style PascalCase configs and then sends Claude-like payloads.
            "observe_pascal": (tuple(HookAnswer(e) for e in ("SessionStart", "UserPromptSubmit", "PreToolUse",
                                                              "PostToolUse", "Stop")), {}),
            "deny_json_pascal": ((HookAnswer("PreToolUse", as_json({"permissionDecision": "deny",
                                                               "permissionDecisionReason": "LANE-DENY-JSON reason"})),),
                                 {}),
            "observe": (tuple(HookAnswer(e) for e in OBSERVED), {}),
            "deny_exit2": ((HookAnswer(pre, stderr="LANE-DENY-EXIT2 reason", exit=2),), {}),
            "deny_json": ((HookAnswer(pre, as_json({"permissionDecision": "deny",
                                               "permissionDecisionReason": "LANE-DENY-JSON reason"})),), {}),
            "allow": ((HookAnswer(pre, as_json({"permissionDecision": "allow", "permissionDecisionReason": "LANE-ALLOW ok"})),),
                      {}),
            "ask": ((HookAnswer(pre, as_json({"permissionDecision": "ask", "permissionDecisionReason": "LANE-DENY-ASK why"})),),
                    {}),
            "rewrite": ((HookAnswer(pre, as_json({"permissionDecision": "allow", "modifiedArgs": {
                "command": REWRITTEN_COMMAND, "description": "lane step"}})),), {}),
            "pre_context": ((HookAnswer(pre, as_json({"additionalContext": "LANE-CTX-PRE"})),), {}),
            "post_context": ((HookAnswer("postToolUse", as_json({"additionalContext": "LANE-CTX-POST"})),), {}),
            "post_block": "Copilot's postToolUse has no block answer (only modifiedResult and additionalContext)",
            # Copilot CLI 1.0.102 blocks the prompt (no model call, a policy_blocked warning, exit 1).
            "prompt_block": ((HookAnswer("userPromptSubmitted", as_json({"decision": "block",
                                                                         "reason": "LANE-BLOCK prompt"})),
                              HookAnswer(pre)), {}),
            # modifiedPrompt is what the model reads; the context still follows it.
            "prompt_modified": ((HookAnswer("userPromptSubmitted", as_json({
                "modifiedPrompt": "LANE-MODIFIED prompt", "additionalContext": "LANE-CTX-PROMPT"})),), {}),
            # A guard that errors denies the call, naming its file; one that times out lets it run.
            "pre_error": ((HookAnswer(pre, stderr="LANE-ERR stderr", exit=1), HookAnswer("postToolUse")), {}),
            "pre_crash": ((HookAnswer(pre, stderr="LANE-ERR crash", kill=11), HookAnswer("postToolUse")), {}),
            "pre_timeout": ((HookAnswer(pre, as_json({"permissionDecision": "deny",
                                                      "permissionDecisionReason": "LANE-DENY-JSON late"}),
                                        timeout=2, sleep=10), HookAnswer("postToolUse")), {}),
            # An http guard with no answer (its documented fail-open, against what 1.0.102 does): a
            # host the sandbox cannot resolve, a loopback address (which Copilot refuses to send to).
            "pre_http_unresolved": _http_guard(_UNRESOLVED),
            "pre_http_refused": _http_guard("https://127.0.0.1:9/pre-tool-use"),
            # The same guard in the repository's settings files: how Copilot names where it came from.
            "pre_http_repo_settings": _http_guard(_UNRESOLVED, ".github/copilot/settings.json"),
            "pre_http_local_settings": _http_guard(_UNRESOLVED, ".github/copilot/settings.local.json"),
            # An http hook on a loopback address, with a server there that answers: Copilot refuses
            # the URL before connecting ("resolves to blocked address"), so its context never lands.
            "post_http_loopback": _http_served("postToolUse", 47611, {"additionalContext": "LANE-CTX-POST http"}),
            "prompt_context": ((HookAnswer("userPromptSubmitted", as_json({"additionalContext": "LANE-CTX-PROMPT"})),), {}),
            "stop_block_json": ((HookAnswer("agentStop", as_json({"decision": "block", "reason": "LANE-STOP-REASON json"}),
                                            once=True),), {"steps": STOP_STEPS}),
            "stop_block_exit2": ((HookAnswer("agentStop", stderr="LANE-STOP-REASON exit2", exit=2, once=True),),
                                 {"steps": STOP_STEPS}),
            "session_context": ((HookAnswer("sessionStart", as_json({"additionalContext": "LANE-CTX-SESSION"})),), {}),
            "permission_request": ((HookAnswer("permissionRequest", as_json({"behavior": "allow"})),), {}),
            # permissionRequest under --allow-all-tools (1.0.102): it asks for a shell call or a file
            # write, never a read; its deny refuses the call, an interrupt also stops the agent; a
            # preToolUse allow or ask leaves it out.
            "permission_deny": ((HookAnswer(perm, as_json({"behavior": "deny", "message": "LANE-DENY-PR no"})),
                                 HookAnswer("postToolUse")), {}),
            "permission_exit2": ((HookAnswer(perm, stderr="LANE-DENY-PR exit2", exit=2),), {}),
            "permission_interrupt": ((HookAnswer(perm, as_json({"behavior": "deny", "message": "LANE-DENY-PR stop",
                                                                "interrupt": True})),), {"steps": TWO_STEPS}),
            "permission_after_allow": ((HookAnswer(pre, as_json({"permissionDecision": "allow"})), HookAnswer(perm)),
                                       {}),
            "permission_after_ask": ((HookAnswer(pre, as_json({"permissionDecision": "ask",
                                                               "permissionDecisionReason": "LANE-DENY-ASK why"})),
                                      HookAnswer(perm, as_json({"behavior": "allow"}))), {}),
            "permission_write": ((HookAnswer(perm), HookAnswer(pre)),
                                 {"steps": (("write", "tool-ran.txt"), ("text", "done"))}),
            # (A read leaves no mark of its own: it reads the lane's marker file, there from the start.)
            "permission_read": ((HookAnswer(perm), HookAnswer(pre)),
                                {"steps": (("read", "tool-ran.txt"), ("text", "done")), "files": {"tool-ran.txt": "hi\n"}}),
            "post_exit_nonzero": ((HookAnswer("postToolUse"), HookAnswer("postToolUseFailure")),
                                  {"steps": EXIT_3_STEPS}),
            "post_exit_nonzero_pascal": ((HookAnswer("PostToolUse"), HookAnswer("PostToolUseFailure")),
                                         {"steps": EXIT_3_STEPS}),
            # Where Copilot reads the PascalCase answers: at the top level, or nested in Claude's
            # hookSpecificOutput (1.0.102 honours the nesting only on PreToolUse).
            "session_context_pascal": ((HookAnswer("SessionStart", as_json({"additionalContext": "LANE-CTX-SESSION"})),),
                                       {}),
            "session_context_pascal_nested": ((HookAnswer("SessionStart", hso("SessionStart",
                                                                              additionalContext="LANE-CTX-SESSION")),),
                                              {}),
            "prompt_context_pascal_nested": ((HookAnswer("UserPromptSubmit", hso(
                "UserPromptSubmit", additionalContext="LANE-CTX-PROMPT")),), {}),
            "post_context_pascal_nested": ((HookAnswer("PostToolUse", hso("PostToolUse",
                                                                          additionalContext="LANE-CTX-POST")),), {}),
            "pre_context_pascal_nested": ((HookAnswer("PreToolUse", hso("PreToolUse", additionalContext="LANE-CTX-PRE")),),
                                          {}),
            "stop_block_pascal": ((HookAnswer("Stop", as_json({"decision": "block", "reason": "LANE-STOP-REASON json"}),
                                              once=True),), {"steps": STOP_STEPS}),
            "stop_block_pascal_nested": ((HookAnswer("Stop", hso("Stop", decision="block",
                                                                 reason="LANE-STOP-REASON nested"), once=True),),
                                         {"steps": STOP_STEPS}),
        }


#: A policy server's address that the lane's sandbox resolves to nothing.
_UNRESOLVED = "https://policy.example.com/copilot/pre-tool-use"


def _http_guard(url: str, file: str = ".github/hooks/policy.json") -> Scenario:
    """An http preToolUse entry in a project file of its own (``file``, as written), beside the
    lane's config, whose recorded sessionStart and postToolUse show what ran."""
    config = {"version": 1, "hooks": {"preToolUse": [{"type": "http", "url": url, "timeoutSec": 5}]}}
    return ((HookAnswer("sessionStart"), HookAnswer("postToolUse")),
            {"files": {file: json.dumps(config)}, "imports": (CLI.hooks_file, file)})


def _http_served(event: str, port: int, answer: dict[str, Any]) -> Scenario:
    """An http entry for `event` at ``http://127.0.0.1:<port>``, where the case's own server answers
    `answer` on both sides (``http_server``: inside the vendor's sandbox, and beside ours)."""
    url = f"http://127.0.0.1:{port}/{event}"
    config = {"version": 1, "hooks": {event: [{"type": "http", "url": url, "timeoutSec": 5}]}}
    file = ".github/hooks/served.json"
    return ((HookAnswer("sessionStart"), HookAnswer("postToolUse")),
            {"files": {file: json.dumps(config)}, "imports": (CLI.hooks_file, file),
             "options": {"http_server": {"port": port, "answer": answer}}})


CLI = CopilotCli("copilot", "copilot", "1.0.102", "copilot/node_modules/@github/copilot-linux-x64/copilot",
                 "chat", "bash", ".github/hooks/lane.json", extra_args={"description": "lane step"},
                 env_prefixes=("COPILOT",), read_tool=("view", "path"), write_tool=("create", "path", "file_text"),
                 absolute_write=True)


@dataclass(frozen=True, slots=True)
class CopilotSpeaker(Speaker):
    """The live checks in Copilot's words: flat answers; camelCase payloads for its own events,
    snake_case ones (with Claude's tool names) for the PascalCase ones."""

    def deny(self, event: str) -> dict[str, Any]:
        return {"permissionDecision": "deny", "permissionDecisionReason": REASON}

    def ask(self, event: str) -> dict[str, Any]:
        return {"permissionDecision": "ask", "permissionDecisionReason": REASON}

    def context(self, event: str) -> dict[str, Any]:
        return {"additionalContext": CONTEXT}

    def replace_prompt(self, event: str, text: str) -> dict[str, Any]:
        # userPromptTransformed answers with the transformed prompt; userPromptSubmitted (1.0.102)
        # with modifiedPrompt.
        return {"modifiedTransformedPrompt" if event == "userPromptTransformed" else "modifiedPrompt": text}

    def allow_permission(self, event: str) -> dict[str, Any]:
        return {"behavior": "allow"}

    def deny_permission(self, event: str) -> dict[str, Any]:
        return {"behavior": "deny", "message": REASON}

    def observe(self, event: str) -> dict[str, Any]:
        return {"decision": "block", "reason": REASON, "permissionDecision": "deny", "additionalContext": CONTEXT}

    def check_payload(self, s: Session, payload: Mapping[str, Any], tool: str | None) -> None:
        e = s.event
        if e[:1].isupper():
            # The Claude-compatible format: snake_case, an ISO timestamp, Claude tool names.
            from vendors.copilot.dialect import CLAUDE_NAMES

            stamp = payload.get("timestamp")
            s.expect(payload.get("hook_event_name") == e and isinstance(payload.get("session_id"), str)
                     and isinstance(stamp, str) and stamp.endswith("Z") and "cwd" in payload
                     and "sessionId" not in payload,
                     f"payload is not snake_case (hook_event_name, session_id, ISO timestamp): {sorted(payload)}",
                     "snake_case payload")
            if e in TOOL_EVENTS and tool is not None:
                want = CLAUDE_NAMES.get(tool, tool)
                s.expect(payload.get("tool_name") == want and isinstance(payload.get("tool_input"), dict),
                         f"tool_name {payload.get('tool_name')!r}, expected {want!r} and an input object",
                         f"tool_name={want}")
            return
        s.expect(isinstance(payload.get("sessionId"), str) and isinstance(payload.get("timestamp"), int)
                 and "cwd" in payload and "session_id" not in payload,
                 f"payload is not camelCase (sessionId, timestamp ms, cwd): {sorted(payload)}",
                 "camelCase payload")
        if e in TOOL_EVENTS and tool is not None:
            s.expect(payload.get("toolName") == tool,
                     f"toolName {payload.get('toolName')!r}, expected {tool!r}")
            if e == "permissionRequest":
                s.expect(isinstance(payload.get("toolInput"), dict),
                         f"toolInput is not an object: {payload.get('toolInput')!r}")
            else:
                # An object, as Copilot CLI 1.0.102 sends it (vendor lane), not a JSON string.
                args = payload.get("toolArgs")
                ok = isinstance(args, dict) and (tool != "bash" or "command" in args)
                s.expect(ok, f"toolArgs is not an object: {args!r}", "toolArgs as an object")

    def check_post_tool(self, s: Session, payload: Mapping[str, Any]) -> None:
        if s.event == "postToolUse":
            s.expect(payload.get("toolResult", {}).get("resultType") == "success",
                     f"toolResult is not {{resultType, textResultForLlm}}: {payload.get('toolResult')}")

    def session_source(self, s: Session) -> str | None:
        # Copilot CLI 1.0.102 names a fresh session "new" (vendor lane); the bridge says "startup".
        return "startup" if s.official else "new"


LIVE = CopilotSpeaker("copilot", ask_honoured=True)
