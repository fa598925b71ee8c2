"""Codex in the vendor lane (test support): its CLI offline, its scenarios.

Loaded only by ``compat_adapter.testing.lane`` (the unit names it as ``lane``), never by the product.
"""

from __future__ import annotations

import re
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compat_adapter.testing.lane.scenarios import SHOWN_MARKERS, SYSMSG, HookAnswer, Scenario, claude_like, hso
from compat_adapter.testing.lane.vendors import VendorCli
from compat_adapter.testing.live.speakers import ClaudeShapedSpeaker

if TYPE_CHECKING:
    from compat_adapter.testing.live.harness import Session

__all__ = ("CLI", "LIVE", "CodexCli", "CodexSpeaker")

#: The events its observe case configures.
OBSERVED = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")
#: PreToolUse matchers holding punctuation, each an observer of its own: which of them fire for the
#: shell call (Codex sends tool_name "Bash"; the model's tool is exec_command).
MATCHERS = ("exec-command", "^exec-command$", "exec_command", "-", "Bash-", "bash", "^Bash$|shell-x", "shell-x|Bash",
            "Ba.h", "Bas", "Bash,Other", "Bash Other", "^Bas", "(?i)bash", "Bash|", "|Bash", "B.sh-?", "Bash\\b")
#: What a call adds to ask for escalation, which sends it to approval under --approve-for-me.
ESCALATE = {"sandbox_permissions": "require_escalated", "justification": "lane step"}


@dataclass(frozen=True, slots=True)
class CodexCli(VendorCli):
    """``codex exec`` with a mock provider on the scripted model's Responses API."""

    def release_events(self, folder: Path) -> tuple[tuple[str, ...], str]:
        # Codex embeds a draft-07 JSON schema per hook event (``<event>.command.input``); the event
        # name is the const of its ``hook_event_name``.
        rel = "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
        data = (folder / rel).read_bytes().decode("utf-8", "replace")
        decoder = json.JSONDecoder()
        found: list[str] = []
        for m in re.finditer(r'\{\s*"\$schema": "http://json-schema.org/draft-07/schema#"', data):
            try:
                schema, _ = decoder.raw_decode(data, m.start())
            except ValueError:
                continue
            title = str(schema.get("title", ""))
            const = schema.get("properties", {}).get("hook_event_name", {}).get("const")
            if title.endswith(".command.input") and isinstance(const, str) and const not in found:
                found.append(const)
        # An event without a schema (0.169 and 0.171 have PreModelRequest in their hook-event enum but
        # no schema for it) is not seen here: the enum's variant names are stored back to back with
        # other identifiers, with no boundary that tells where the run ends.
        return tuple(found), rel + " (embedded <event>.command.input schemas)"

    def setup(self, run: Path, base: str, prompt: str, env: dict[str, str], *, binary: str, lane: Path,
              options: Mapping[str, Any]) -> list[str]:
        codex_home = run / "home" / ".codex"
        codex_home.mkdir(parents=True, exist_ok=True)
        # `codex exec` forces approval to never; --approve-for-me routes approvals (an escalating call
        # in the workspace-write sandbox) through PermissionRequest, then Codex's automatic reviewer.
        reviewed = bool(options.get("approve_for_me"))
        sandbox = "workspace-write" if reviewed else "danger-full-access"
        (codex_home / "config.toml").write_text(
            'model = "mock-model"\nmodel_provider = "mock"\napproval_policy = "never"\n'
            f'sandbox_mode = "{sandbox}"\n[model_providers.mock]\nname = "mock"\n'
            f'base_url = "{base}/v1"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\n'
            f'[projects."{run / "proj"}"]\ntrust_level = "trusted"\n')
        env.update(CODEX_HOME=str(codex_home), MOCK_API_KEY="sk-test")
        return [binary, "exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check",
                *(["--approve-for-me"] if reviewed else []), prompt]

    def interactive(self, argv: list[str], run: Path, env: dict[str, str]) -> list[str] | None:
        # `codex [PROMPT]` starts the UI with the prompt sent; the project is trusted in config.toml.
        return [argv[0], *(a for a in argv[1:] if a not in ("exec", "--skip-git-repo-check"))]

    def screen_notices(self, screen: str) -> tuple[str, ...]:
        # Codex leaves a blank line after every history cell: the "Worked for" status after a
        # hook's cell is a cell of its own.
        from compat_adapter.testing.lane.screen import notices_on

        return notices_on(screen, SHOWN_MARKERS, blank_ends=True)

    def shown(self, result: Mapping[str, Any]) -> tuple[str, ...]:
        # `codex exec` prints plain lines (its hook lines on stderr, the answer on stdout).
        return self.shown_lines(result)

    def scenarios(self) -> Mapping[str, Scenario]:
        # Codex has no PostToolUseFailure: does its PostToolUse fire on a non-zero exit?
        out = claude_like(OBSERVED, post_failure=False)
        # A systemMessage for the person: where `codex exec` shows it (the `shown` facet).
        out["system_message"] = ((HookAnswer("UserPromptSubmit", SYSMSG),), {})
        pre, perm = "PreToolUse", "PermissionRequest"
        reviewed = {"options": {"approve_for_me": True, "call_args": ESCALATE}}
        out["permission_request"] = ((HookAnswer(perm, hso(perm, decision={"behavior": "allow"})), HookAnswer(pre)),
                                     reviewed)
        out["permission_deny"] = ((HookAnswer(perm, hso(perm, decision={"behavior": "deny",
                                                                        "message": "LANE-DENY-PR no"})),
                                   HookAnswer(pre)), reviewed)
        # A reserved field voids the hook's answer: Codex reports it Failed and its reviewer decides.
        out["permission_reserved"] = ((HookAnswer(perm, hso(perm, decision={
            "behavior": "allow", "updatedPermissions": [{"type": "setMode", "mode": "acceptEdits"}]})),
            HookAnswer(pre)), reviewed)
        out["matchers"] = (tuple(HookAnswer(pre, matcher=m, label=f"{pre}[{m}]") for m in MATCHERS), {})
        return out


CLI = CodexCli("codex", "codex", "0.171.0",
               "codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
               "responses", "exec_command", ".codex/hooks.json", shell_arg="cmd", env_prefixes=("CODEX",),
               # Codex 0.171 `exec` rejects any `rm -f` style command by itself ("rm -f style commands are
               # not permitted. Use a safer approach"), hooks or not; `rm -r` it runs (measured).
               destructive="rm -r build; echo ran > tool-ran.txt", terminal_ui=True,
               # The plan tool: outside PreToolUse's coverage (Bash, apply_patch, MCP), and it only
               # reports the plan (about 16 ms a step, against about 51 for `true` in the shell).
               inert_call={"name": "update_plan", "arguments": {"plan": [{"step": "lane step",
                                                                           "status": "in_progress"}]}})


@dataclass(frozen=True, slots=True)
class CodexSpeaker(ClaudeShapedSpeaker):
    """The live checks in Codex's words: Claude's shape, with the turn a payload belongs to.
    Codex's ask is not taken to the host's approval (it allows)."""

    def check_own(self, s: Session, payload: Mapping[str, Any]) -> None:
        if s.event not in ("SessionStart", "SessionEnd"):
            s.expect(isinstance(payload.get("turn_id"), str), f"codex payload lacks turn_id: {payload}")
        if s.event in ("SubagentStart", "SubagentStop"):
            # The child runs inside the parent's first turn; where it runs beside its parent (DSH
            # 0.2.1) it ends in the turn its answer reaches (a listed timing-differs loss).
            beside = s.event == "SubagentStop" and getattr(s.host, "subagents_beside_parent", False)
            want = str(s.parent_turn) if beside else "1"
            s.expect(payload.get("turn_id") == want, f"turn_id is not the parent's turn {want}: {payload}",
                     "turn_id of the parent's turn")


LIVE = CodexSpeaker("codex", ask_honoured=False)
