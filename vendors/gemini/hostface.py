"""Gemini CLI as a host of other vendors' hooks: its snake_case stdin in; its answer out (a
top-level ``decision``/``reason``, context in ``hookSpecificOutput``), in ``.gemini/settings.json``
with the timeout in milliseconds."""

from __future__ import annotations

from typing import Any

from compat_adapter.vendor import HookAnswer, Reply, TableFace, json_reply

__all__ = ("FACE",)


def _answer(event: str, point: str, answer: HookAnswer) -> Reply:
    out: dict[str, Any] = {}
    if answer.decision in ("deny", "block"):
        # Gemini reads "deny" and "block" alike on every event that can block.
        out.update(decision="deny", reason=answer.reason or "blocked by a hook")
    elif answer.decision == "ask" and point == "tools/pre-execute":
        out.update(decision="ask", reason=answer.reason or "")
    if answer.stop:
        out.update({"continue": False, "stopReason": answer.stop_reason or answer.reason or "stopped by a hook"})
    if answer.system_message:
        out["systemMessage"] = answer.system_message
    if answer.additional_context:
        out["hookSpecificOutput"] = {"hookEventName": event, "additionalContext": "\n".join(answer.additional_context)}
    return json_reply(out)


FACE = TableFace(
    vendor="gemini", file=".gemini/settings.json",
    events={"tools/pre-execute": "BeforeTool", "tools/post-execute": "AfterTool",
            "agent/pre-step": "BeforeAgent", "agent/created": "SessionStart",
            "agent/turn-stopping": "AfterAgent", "agent/disposed": "SessionEnd"},
    answer=_answer, timeout_unit=0.001,
    trust="Gemini CLI runs project hooks only in a trusted folder, and asks again when a project hook "
          "changes (its hook warning): trust the folder in `gemini` and accept the new hooks; port trusts nothing",
)
