"""Claude Code in the vendor lane (test support): its CLI offline, its scenarios.

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
    ENV_FILE,
    EXIT_3_STEPS,
    HALT,
    SHOWN_MARKERS,
    SYSMSG,
    STOP_STEPS,
    TWO_STEPS,
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

__all__ = ("CLI", "LIVE", "ClaudeCli", "ClaudeSpeaker")

#: The events its observe case configures.
OBSERVED = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd")
#: A project skill whose body holds an inline shell command (``!`…```), run when ``/lane-skill``
#: expands it: what Claude Code 2.1.332's PreSkillShellCommand guards.
SKILL_FILES = {".claude/skills/lane-skill/SKILL.md": (
    "---\nname: lane-skill\ndescription: A lane skill whose body holds an inline shell command.\n---\n"
    "Skill body for the lane.\n\nInline output: !`echo ran > skill-ran.txt; echo skill-output-LANE`\n")}


@dataclass(frozen=True, slots=True)
class ClaudeCli(VendorCli):
    """``claude -p`` against the scripted model as its Anthropic endpoint."""

    def release_events(self, folder: Path) -> tuple[tuple[str, ...], str]:
        # The bundled CLI keeps its hook events as one JSON-like array literal (the settings schema's
        # list); smaller arrays of some of them also exist, so the longest that holds the anchors wins.
        rel = "node_modules/@anthropic-ai/claude-code/bin/claude.exe"
        best: list[str] = []
        for m in re.finditer(rb'\["PreToolUse"(?:,"[A-Za-z]+")+\]', (folder / rel).read_bytes()):
            names = json.loads(m.group(0))
            if {"SessionStart", "Stop", "UserPromptSubmit"} <= set(names) and len(names) > len(best):
                best = names
        return tuple(best), rel

    def shown(self, result: Mapping[str, Any]) -> tuple[str, ...]:
        # `-p --output-format json` prints one object: what the person reads is its `result`.
        try:
            said = json.loads(str(result.get("stdout") or "")).get("result")
        except (ValueError, AttributeError):
            said = None
        text = (said,) if isinstance(said, str) and any(m in said for m in SHOWN_MARKERS) else ()
        return text + tuple(line.strip() for line in str(result.get("stderr") or "").splitlines()
                            if any(m in line for m in SHOWN_MARKERS))

    def interactive(self, argv: list[str], run: Path, env: dict[str, str]) -> list[str] | None:
        # The prompt as the first argument starts the UI with it typed (after --allowedTools it
        # would be read as a tool name); manual mode, as `-p` asks nobody (auto mode would send each
        # call to its own classifier model). A first start asks for onboarding, the API key and the
        # folder's trust: answered in the scratch HOME as a person who said yes once.
        prompt = argv[argv.index("-p") + 1]
        rest = [a for i, a in enumerate(argv[1:], 1) if a != "-p" and argv[i - 1] != "-p"]
        at = rest.index("--output-format")
        rest[at:at + 2] = []
        state = run / "home" / ".claude.json"
        known = json.loads(state.read_text()) if state.exists() else {}
        known.update(hasCompletedOnboarding=True, theme="dark",
                     customApiKeyResponses={"approved": [env["ANTHROPIC_API_KEY"][-20:]], "rejected": []},
                     projects={str(run / "proj"): {"hasTrustDialogAccepted": True, "allowedTools": []}})
        state.write_text(json.dumps(known))
        return [argv[0], prompt, *rest, "--permission-mode", "default"]

    def setup(self, run: Path, base: str, prompt: str, env: dict[str, str], *, binary: str, lane: Path,
              options: Mapping[str, Any]) -> list[str]:
        # CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS: no gitStatus context of Claude's own ("Recent commits:"
        # and the scratch project's `git log`), which a real session-start script prints too: the
        # lane finds a hook's text where the hook put it, not in Claude's own reminder.
        env.update(ANTHROPIC_BASE_URL=base, ANTHROPIC_API_KEY="sk-test", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                   DISABLE_AUTOUPDATER="1", CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS="1")
        env.update(options.get("env") or {})  # a case's own switches of Claude Code's process
        argv = [binary, "-p", prompt, "--output-format", "json"]
        if not options.get("no_allowed_tools"):
            argv += ["--allowedTools", str(options.get("allowed_tools", "Bash"))]
        for folder in options.get("plugin_dirs", ()):  # a plugin loaded as `claude --plugin-dir` loads it
            argv += ["--plugin-dir", str(run / "proj" / folder)]
        return argv

    def scenarios(self) -> Mapping[str, Scenario]:
        out = claude_like(OBSERVED)
        pre, post = "PreToolUse", "PostToolUse"
        # A systemMessage for the person: where the CLI shows it (the `shown` facet).
        out["system_message"] = ((HookAnswer("UserPromptSubmit", SYSMSG),), {})
        out["post_failure_halt"] = ((HookAnswer("PostToolUseFailure", HALT),), {"steps": (
            EXIT_3_STEPS[0], *TWO_STEPS[1:])})
        # `if` on a deny: the tool command starts with `echo`, so Bash(echo *) matches it and
        # Bash(git *) does not (then only the plain PostToolUse observer fires, and the tool runs).
        deny = hso(pre, permissionDecision="deny", permissionDecisionReason="LANE-DENY-JSON if rule")
        out["if_match"] = ((HookAnswer(pre, deny, if_rule="Bash(echo *)"), HookAnswer(post)), {})
        out["if_no_match"] = ((HookAnswer(pre, deny, if_rule="Bash(git *)"), HookAnswer(post)), {})
        # 2.1.332 wraps Stop feedback in a <system-reminder>; its own process switch turns that off.
        block = as_json({"decision": "block", "reason": "LANE-STOP-REASON json"})
        out["stop_block_unwrapped"] = ((HookAnswer("Stop", block, once=True),), {
            "steps": STOP_STEPS, "options": {"env": {"CLAUDE_CODE_SHINY_FOUNTAIN": "0"}}})
        # The same switch in the project's settings.json `env` leaves the wrapper on: Claude reads it
        # from its own process only, so no file an import reads can carry it.
        out["stop_block_settings_env"] = ((HookAnswer("Stop", block, once=True),), {
            "steps": STOP_STEPS, "options": {"settings": {"env": {"CLAUDE_CODE_SHINY_FOUNTAIN": "0"}}}})
        # Plain stdout (no JSON) on the events whose plain output is context: 2.1.332 words it apart
        # from a hookSpecificOutput.additionalContext ("<hook name> hook success: …").
        out["session_context_plain"] = ((HookAnswer("SessionStart", "LANE-CTX-SESSION plain"),), {})
        out["prompt_context_plain"] = ((HookAnswer("UserPromptSubmit", "LANE-CTX-PROMPT plain"),), {})
        # Setup runs only on Claude's --init/--init-only/--maintenance runs: a -p session fires SessionStart alone.
        out["setup_not_fired"] = ((HookAnswer("Setup"), HookAnswer("SessionStart")), {})
        out["permission_mcp_skill"] = (
            "Claude Code 2.1.332 adds tool_kind \"mcp_skill\", mcp_server and mcp_skill to PermissionRequest only "
            "for the ask before an MCP server's skill loads, and only from a server speaking MCP 2026-07-28 or later "
            "with the io.modelcontextprotocol/skills extension; the lane has no MCP server")
        # 2.1.332's PreSkillShellCommand: a deny keeps the skill's inline command from running, and
        # PreToolUse does not fire for it (the host has no skill loader: the import refuses the hook).
        skill = "PreSkillShellCommand"
        out["skill_shell_deny"] = ((HookAnswer(skill, hso(skill, permissionDecision="deny",
                                                          permissionDecisionReason="LANE-DENY-SKILL reason")),
                                    HookAnswer(pre)),
                                   {"steps": (("text", "done"),), "prompt": "/lane-skill", "files": SKILL_FILES})
        # Issue 34: a guard that answers JSON and exits 2, and an exit-2 message ending in a newline.
        out["deny_exit2_json"] = ((HookAnswer(pre, hso(pre, permissionDecision="deny",
                                                       permissionDecisionReason="LANE-DENY-JSON exit2"),
                                              stderr="LANE-ERR stderr", exit=2),), {})
        out["deny_exit2_json_block"] = ((HookAnswer(pre, as_json({"decision": "block", "reason": "LANE-DENY-JSON block"}),
                                                    exit=2),), {})
        out["deny_exit2_newline"] = ((HookAnswer(pre, stderr="LANE-DENY-EXIT2 reason\n", exit=2),), {})
        out["stop_block_exit2_newline"] = ((HookAnswer("Stop", stderr="LANE-STOP-REASON exit2\n", exit=2, once=True),),
                                           {"steps": STOP_STEPS})
        out["stop_block_exit2_json"] = ((HookAnswer("Stop", block, stderr="LANE-ERR stderr", exit=2, once=True),),
                                        {"steps": STOP_STEPS})
        out.update(permission_scenarios())
        return out


def permission_scenarios(folder: str = ".claude") -> dict[str, Scenario]:
    """Permission rules, alone and beside a PreToolUse hook, for the vendors that read Claude's
    language from ``<folder>/settings.json`` (measured on Claude Code 2.1.332: the hook fires
    first; its deny stands over any rule; its allow lifts neither a deny nor an ask rule; an ask
    nobody can answer in ``-p`` is refused)."""
    pre = "PreToolUse"
    build = {"build/keep.txt": "kept\n"}
    rm: dict[str, Any] = {"steps": (("shell", "rm -rf build && echo ran > tool-ran.txt"), ("text", "done")),
                          "files": build}
    # One command that leaves the lane's marker when it runs.
    one = {"steps": (("shell", "touch tool-ran.txt"), ("text", "done"))}

    def rules(settings: dict[str, Any], **options: Any) -> dict[str, Any]:
        return {"settings": {"permissions": settings}, **options}

    deny, ask = rules({"deny": ["Bash(rm -rf *)"]}), rules({"ask": ["Bash(touch *)"]})
    allow_hook = HookAnswer(pre, hso(pre, permissionDecision="allow", permissionDecisionReason="LANE-ALLOW ok"))
    deny_hook = HookAnswer(pre, hso(pre, permissionDecision="deny", permissionDecisionReason="LANE-DENY-JSON hook"))
    local = json.dumps({"permissions": {"deny": ["Bash(rm -rf *)"]}})
    return {
        "perm_deny": ((), {**rm, "options": deny}),
        "perm_deny_hook": ((HookAnswer(pre),), {**rm, "options": deny}),
        "perm_deny_hook_allow": ((allow_hook,), {**rm, "options": deny}),
        "perm_allow_hook_deny": ((deny_hook,), {**rm, "options": rules({"allow": ["Bash(rm -rf *)"]},
                                                                      no_allowed_tools=True)}),
        # One command: for a compound one Claude names the parts that need approval, its own
        # redirection check included (a listed text-differs of every Bash ask rule).
        "perm_ask": ((), {**one, "options": ask}),
        "perm_ask_hook_allow": ((allow_hook,), {**one, "options": ask}),
        "perm_deny_local": ((), {**rm, "files": {**build, f"{folder}/settings.local.json": local},
                                 "imports": (f"{folder}/settings.json", f"{folder}/settings.local.json")}),
        "perm_deny_pipe": ((), {"steps": (("shell", "echo build | rm -rf build"), ("text", "done")),
                                "files": build, "options": deny}),
        "perm_read_env": ((), {"steps": (("read", ".env"), ("text", "done")), "files": {".env": ENV_FILE},
                               "options": rules({"deny": ["Read(.env)"]}, allowed_tools="Bash,Read")}),
        # A Read rule weighed against the file a shell command reads (Claude Code: refused).
        "perm_read_shell": ((), {"steps": (("shell", "cat .env && echo ran > tool-ran.txt"), ("text", "done")),
                                 "files": {".env": ENV_FILE}, "options": rules({"deny": ["Read(.env)"]})}),
        "perm_edit_src": ((), {"steps": (("write", "src/a.txt"), ("text", "done")), "files": {"src/a.txt": "a\n"},
                               "options": rules({"deny": ["Edit(src/**)"]}, allowed_tools="Bash,Write,Edit")}),
    }


CLI = ClaudeCli("claude", "claude", "2.1.332", "claude/node_modules/@anthropic-ai/claude-code/bin/claude.exe",
                "anthropic", "Bash", ".claude/settings.json", extra_args={"description": "lane step"},
                env_prefixes=("CLAUDE",), write_tool=("Write", "file_path", "content"),
                read_tool=("Read", "file_path"), terminal_ui=True)


@dataclass(frozen=True, slots=True)
class ClaudeSpeaker(ClaudeShapedSpeaker):
    """The live checks in Claude's words; PostCompact names the summary it compacted to."""

    def check_compaction(self, s: Session, payload: Mapping[str, Any]) -> None:
        if s.event == "PostCompact":
            s.expect(payload.get("compact_summary") == "verify summary", f"compact_summary missing: {payload}")


LIVE = ClaudeSpeaker("claude", ask_honoured=True, session_fields=True)
