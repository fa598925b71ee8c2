"""Windsurf's dialect (vendor id ``windsurf``), as docs.windsurf.com/windsurf/cascade/hooks describes
Cascade's hooks; no Windsurf ran here.

- Payload: ``agent_action_name`` (the event), ``trajectory_id`` (the conversation), ``execution_id``
  (the turn), ``timestamp`` (ISO 8601) and the event's ``tool_info``: ``command_line`` and ``cwd``
  for a command, ``file_path`` for a read, ``file_path`` and ``edits`` (``old_string`` /
  ``new_string``) for a write, ``user_prompt`` for a prompt, ``response`` for a response.
- No matcher: every hook of an event runs.
- Output: exit 2 on a pre-hook blocks the action and Cascade reads the trimmed stderr; exit 2 on a
  post-hook, any other exit, a timeout and stdout change nothing (stdout is shown to the user only).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from compat_adapter.vendor import HookAnswer, Moment, cause_text, encode_json, flatten, merge_answers

if TYPE_CHECKING:
    from compat_adapter.vendor import ProcessOutcome

__all__ = ("DIALECT", "WindsurfDialect")

#: The pre-hooks, which exit 2 blocks; a prompt is blocked, a tool call denied.
_DENIES = frozenset({"pre_read_code", "pre_write_code", "pre_run_command"})
_BLOCKS = frozenset({"pre_user_prompt"})


def _absolute(cwd: str, path: object) -> str:
    return os.path.normpath(os.path.join(cwd, path)) if isinstance(path, str) and path else ""


class WindsurfDialect:
    """Cascade's hook protocol: one payload shape, an exit code for an answer."""

    vendor: str = "windsurf"
    trailing_newline: bool = False
    output_cap: int = 1 << 20

    def validate_matcher(self, event: str, matcher: str | None) -> str | None:
        return None if not matcher else "a Windsurf hook has no matcher"

    def matches(self, event: str, matcher: str | None, subject: str | None) -> bool:
        return True

    def subject(self, moment: Moment) -> str | None:
        return None

    def payload(self, moment: Moment) -> dict[str, Any]:
        facts = flatten({**moment.logged, **moment.fields})
        turn = moment.turn if moment.turn is not None else 0
        return {"agent_action_name": moment.event, "trajectory_id": moment.session_id,
                "execution_id": f"{moment.session_id}:{turn}",
                "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                "tool_info": self._tool_info(moment, facts)}

    def _tool_info(self, moment: Moment, facts: Mapping[str, Any]) -> dict[str, Any]:
        event = moment.event
        given = facts.get("tool_input")
        args: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
        if event in ("pre_run_command", "post_run_command"):
            return {"command_line": str(args.get("command") or ""), "cwd": moment.cwd}
        if event in ("pre_read_code", "post_read_code"):
            return {"file_path": _absolute(moment.cwd, args.get("path") or args.get("file_path"))}
        if event in ("pre_write_code", "post_write_code"):
            old = args.get("old") if "old" in args else ""
            new = args.get("new", args.get("content", ""))
            return {"file_path": _absolute(moment.cwd, args.get("path") or args.get("file_path")),
                    "edits": [{"old_string": str(old or ""), "new_string": str(new or "")}]}
        if event == "pre_user_prompt":
            return {"user_prompt": str(facts.get("prompt") or "")}
        if event == "post_cascade_response":
            return {"response": str(facts.get("text") or "")}
        return {}

    def encode(self, payload: Mapping[str, Any]) -> bytes:
        return encode_json(payload, newline=self.trailing_newline)

    def decode(self, event: str, outcome: ProcessOutcome) -> HookAnswer:
        if outcome.exit_code is None:
            return HookAnswer(failed=cause_text(outcome))
        if outcome.exit_code != 2:
            return HookAnswer()
        if event not in _DENIES | _BLOCKS:
            return HookAnswer(ignored=("exit code 2",))  # a post-hook cannot block: the action happened
        reason = outcome.stderr.strip() or None
        return HookAnswer(decision="deny" if event in _DENIES else "block", reason=reason)

    def merge(self, event: str, answers: Sequence[HookAnswer]) -> HookAnswer:
        return merge_answers(answers)


#: The one stateless instance its unit names.
DIALECT = WindsurfDialect()
