"""Factory Droid in the vendor lane (test support): its CLI offline, its scenarios.

``droid exec`` runs without a Factory login when its model is a BYOK custom model (its
``customModels`` in ``~/.factory/settings.json``): the scripted model is that model, as an OpenAI
chat-completions endpoint. Droid still looks up api.factory.ai and its telemetry hosts at start; in
the lane's namespace those lookups fail at once and the run goes on (measured, 0.215.0).

Loaded only by ``compat_adapter.testing.lane`` (the unit names it as ``lane``), never by the product.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compat_adapter.testing.lane.scenarios import Case, HookAnswer, Scenario, claude_like, claude_shaped_table
from compat_adapter.testing.lane.vendors import VendorCli
from compat_adapter.testing.live.harness import REASON
from compat_adapter.testing.live.speakers import ClaudeShapedSpeaker

if TYPE_CHECKING:
    from compat_adapter.testing.live.harness import Session

__all__ = ("CLI", "LIVE", "DroidCli", "DroidSpeaker")

#: The events its observe case configures (UserPromptSubmit fires only on the JSON-RPC path the
#: driver takes, see :meth:`DroidCli.setup`).
OBSERVED = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd")
#: Droid's Execute tool refuses a call without its risk fields ("missing required parameters"):
#: every scripted shell call carries them.
SHELL_FIELDS = {"summary": "Run the lane step", "riskLevelReason": "It writes one scratch file in the project.",
                "riskLevel": "medium"}
#: The hook-event enum compiled into the binary (a zod enum of the event names).
_ENUM = re.compile(rb'enum\(\["PreToolUse"(?:,"[A-Za-z]+")+\]\)')


@dataclass(frozen=True, slots=True)
class DroidCli(VendorCli):
    """``droid exec --auto high -o stream-jsonrpc <prompt>`` with a BYOK custom model at the scripted
    server: a one-shot turn of Droid's JSON-RPC session, the session Factory's SDKs drive (``droid exec
    --input-format stream-jsonrpc``) and the only place its bundle runs UserPromptSubmit hooks (its
    processUserMessage); plain ``-o json`` never fires that event (measured, 0.215.0). Every other case
    agrees as it did under ``-o json`` (scripts/vendor_diff.py --vendor factory)."""

    def release_events(self, folder: Path) -> tuple[tuple[str, ...], str]:
        rel = self.binary.split("/", 1)[1]
        found = _ENUM.search((folder / rel).read_bytes())
        if found is None:
            return (), rel
        return tuple(json.loads(found.group(0)[len(b"enum("):-1])), rel + " (its hook-event enum)"

    def setup(self, run: Path, base: str, prompt: str, env: dict[str, str], *, binary: str, lane: Path,
              options: Mapping[str, Any]) -> list[str]:
        home = run / "home" / ".factory"
        home.mkdir(parents=True, exist_ok=True)
        (home / "settings.json").write_text(json.dumps({"customModels": [{
            "model": "mock-model", "displayName": "Lane", "baseUrl": f"{base}/v1", "apiKey": "sk-test",
            "provider": "generic-chat-completion-api", "maxOutputTokens": 4096}]}))
        env.update(DROID_AUTO_UPDATE_ENABLED="false")
        return [binary, "exec", "-m", "custom:mock-model", "--auto", "high", "-o", "stream-jsonrpc", prompt]

    def write_hooks(self, case: Case, run: Path, target: Path) -> None:
        shape = case.options.get("hooks_json")
        if shape is None:
            VendorCli.write_hooks(self, case, run, target)
            return
        # The case's hooks in .factory/hooks.json: the flat event table Droid reads, or Claude's
        # settings shape, which Droid reads as an event named "hooks" (measured: never fires).
        table = claude_shaped_table(case, run)
        (target.parent / "hooks.json").write_text(json.dumps(table if shape == "flat" else {"hooks": table}))
        target.write_text("{}")

    def scenarios(self) -> Mapping[str, Scenario]:
        out = claude_like(OBSERVED, post_failure=False)
        # Where Droid fires nothing (the suite checks it): it has no PermissionRequest event (its
        # binary's enum), and a shell call that exits non-zero gets no PostToolUse (measured, 0.215.0).
        for kind in ("permission_request", "post_exit_nonzero"):
            scenario = out[kind]
            assert not isinstance(scenario, str), kind
            hooks, extra = scenario
            out[kind] = (hooks, {**extra, "options": {**extra.get("options", {}), "silent": True}})
        pre = "PreToolUse"
        reason = "LANE-DENY-EXIT2 reason"
        # Droid's tool names: a matcher naming Claude's shell tool never fires on Execute.
        out["matcher_claude_name"] = ((HookAnswer(pre, stderr=reason, exit=2, matcher="Bash"),),
                                      {"options": {"silent": True}})
        out["matcher_droid_name"] = ((HookAnswer(pre, stderr=reason, exit=2, matcher="Execute"),), {})
        # A file write through Create (an absolute path, as Droid's tools want).
        out["edit_observe"] = ((HookAnswer(pre), HookAnswer("PostToolUse")),
                               {"steps": (("write", "tool-ran.txt"), ("text", "done"))})
        # .factory/hooks.json: read only as a flat event table (measured, 0.215.0).
        for shape in ("flat", "wrapped"):
            out[f"hooks_json_{shape}"] = ((HookAnswer(pre, stderr=reason, exit=2),),
                                          {"options": {"hooks_json": shape, "silent": shape == "wrapped"},
                                           "imports": (".factory/hooks.json",)})
        return out


CLI = DroidCli("factory", "droid", "0.215.0", "factory/node_modules/@factory/cli-linux-x64/bin/droid", "chat",
               "Execute", ".factory/settings.json", extra_args=SHELL_FIELDS, env_prefixes=("FACTORY", "DROID"),
               write_tool=("Create", "file_path", "content"), read_tool=("Read", "file_path"), absolute_write=True)


@dataclass(frozen=True, slots=True)
class DroidSpeaker(ClaudeShapedSpeaker):
    """The live checks in Droid's words: Claude's answers, Droid's tool names."""

    def tool_name(self, s: Session, tool: str) -> str:
        return {"bash": "Execute", "write": "Create"}.get(tool, tool)

    def block(self, event: str, reason: str = REASON) -> dict[str, Any]:
        # Droid reads no decision on UserPromptSubmit (its dialect's docstring): continue:false is
        # the JSON answer that rejects a prompt there.
        if event == "UserPromptSubmit":
            return {"continue": False, "stopReason": reason}
        return ClaudeShapedSpeaker.block(self, event, reason)


LIVE = DroidSpeaker("factory", ask_honoured=True)
