"""GitHub Copilot CLI as a host of other vendors' hooks: its camelCase stdin in (``toolArgs`` a JSON
string), its flat answers out, in a hooks file of port's own under ``.github/hooks/``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from compat_adapter.vendor import EntrySpec, HookAnswer, ReadKeys, Reply, TableFace, json_reply

__all__ = ("FACE",)

KEYS = ReadKeys(session=("sessionId",), transcript=("transcriptPath",), tool=("toolName",),
                tool_input=("toolArgs",), input_as_text=True,
                framing=("sessionId", "cwd", "transcriptPath", "toolName", "toolArgs", "prompt", "timestamp",
                         "hookEventName"))


def _answer(event: str, point: str, answer: HookAnswer) -> Reply:
    out: dict[str, Any] = {}
    if point == "tools/pre-execute" and answer.decision in ("allow", "deny", "ask"):
        out["permissionDecision"] = answer.decision
        if answer.reason:
            out["permissionDecisionReason"] = answer.reason
    elif point == "approval/request" and answer.decision in ("allow", "deny", "block"):
        out["behavior"] = "allow" if answer.decision == "allow" else "deny"
        if answer.reason and out["behavior"] == "deny":
            out["message"] = answer.reason
    elif answer.decision in ("deny", "block") and point in ("agent/pre-step", "agent/turn-stopping"):
        out.update(decision="block", reason=answer.reason or "blocked by a hook")
    if answer.additional_context:
        out["additionalContext"] = "\n".join(answer.additional_context)
    return json_reply(out)


class CopilotFace(TableFace):
    """Copilot reads every ``*.json`` under ``.github/hooks``: port owns one file there, written whole."""

    def render(self, existing: str | None, entries: Sequence[EntrySpec]) -> str:
        table: dict[str, list[Any]] = {}
        for entry in entries:
            table.setdefault(entry.event, []).append(
                {"type": "command", "bash": entry.command, "timeoutSec": round(entry.timeout_s)})
        return json.dumps({"version": 1, "hooks": table}, indent=2) + "\n"

    def strip(self, existing: str) -> str | None:
        return None


FACE = CopilotFace(
    vendor="copilot", file=".github/hooks/compat-adapter-port.json", owns_file=True, keys=KEYS,
    events={"tools/pre-execute": "preToolUse", "tools/post-execute": "postToolUse",
            "agent/pre-step": "userPromptSubmitted", "agent/created": "sessionStart",
            "agent/turn-stopping": "agentStop", "agent/disposed": "sessionEnd",
            "agent/pre-step/transform": "userPromptSubmitted", "approval/request": "permissionRequest",
            "subagent/start": "subagentStart", "subagent/end": "subagentStop"},
    answer=_answer,
    trust="Copilot CLI runs repository hooks only in a folder the user trusted (its trust prompt, or "
          "--trust-folder); port trusts nothing",
)
