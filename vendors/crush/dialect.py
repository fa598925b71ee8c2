"""Crush's dialect (vendor id ``crush``), read from its source (charmbracelet/crush 37f36e938:
``internal/hooks/{input,runner,hooks}.go``, ``internal/agent/hooked_tool.go``); no Crush ran here.

- Payload: ``{event, session_id, cwd, tool_name, tool_input}`` as Go's ``json.Marshal`` writes it
  (compact, ``<``, ``>``, ``&``, U+2028 and U+2029 escaped, no trailing newline), with Crush's tool
  names (:mod:`vendors.crush.table`). Each run also gets ``CRUSH=1``, ``AGENT`` and ``AI_AGENT``
  (``crush``), ``CRUSH_EVENT``, ``CRUSH_TOOL_NAME``, and ``CRUSH_TOOL_INPUT_COMMAND`` /
  ``CRUSH_TOOL_INPUT_FILE_PATH`` when the input has ``command`` / ``file_path`` (:meth:`hook_env`).
- Matchers: Go's ``regexp`` (RE2 syntax), unanchored; none or ``""`` matches every tool. ``*`` is no
  pattern at all: Crush refuses the config that holds it.
- Exit 2 denies with the trimmed stderr (``blocked by hook`` when empty); exit 49 denies and halts
  the turn (``turn halted by hook``); any other non-zero exit, a timeout or a failed start is no
  opinion. On exit 0 the trimmed stdout, when it is a JSON object, is read as Go's ``encoding/json``
  reads it into a struct (field names matched regardless of case; a value of the wrong type makes
  the whole answer no opinion): with a ``hookSpecificOutput`` key, Claude's ``permissionDecision``
  (allow or deny; ask and defer are no opinion), ``permissionDecisionReason``, ``additionalContext``
  and ``updatedInput``; else Crush's ``decision``, ``halt``, ``reason``, ``context`` (a string or a
  list of strings) and ``updated_input`` (an object, or a string holding one).
- Merge: deny over allow over none, reasons joined by newlines in config order, contexts too, input
  patches laid over each other in config order (a shallow merge).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from compat_adapter.vendor import (HookAnswer, JsonTextError, Moment, Searched, cause_text, compile_rust,
                                   encode_json, js_read, merge_answers)
from vendors.claude.dialect import ClaudeDialect

if TYPE_CHECKING:
    from compat_adapter.vendor import ProcessOutcome

__all__ = ("DIALECT", "CrushDialect")

#: HaltExitCode of internal/hooks/hooks.go.
HALT_EXIT = 49
#: What Go's json.Marshal escapes inside strings (they occur nowhere else in JSON text).
_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_WRONG = object()  # a value Go's decoder refuses for its field: the whole answer is no opinion


def _field(obj: Mapping[str, Any], name: str) -> Any:
    """The value ``encoding/json`` puts in the field ``name``: the last key equal to it regardless of case."""
    found = None
    for key, value in obj.items():
        if key.lower() == name.lower():
            found = value
    return found


def _string(value: Any) -> Any:
    return "" if value is None else value if isinstance(value, str) else _WRONG


def _decision(text: str) -> str:
    return {"allow": "allow", "deny": "deny"}.get(text.lower(), "none")


def _context(value: Any) -> str:
    """parseContext: a string as it is, a list of strings joined by newlines without empty ones."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "\n".join(v for v in value if v)
    return ""


def _patch(value: Any) -> Mapping[str, Any] | None:
    """An input patch as shallowMerge takes it: an object, or a string holding one; else dropped."""
    if isinstance(value, str):
        try:
            value = js_read(value)
        except JsonTextError:
            return None
    return value if isinstance(value, dict) else None


class CrushDialect(Searched, ClaudeDialect):
    """Crush's hook runner: Claude's payload fields under Crush's envelope and Go's reading."""

    vendor: str = "crush"
    trailing_newline: bool = False
    subject_keys: ClassVar[Mapping[str, str]] = {"PreToolUse": "tool_name"}
    # Go's regexp (RE2 syntax, searched anywhere in the tool name): the Rust crate's reading.
    search_with = compile_rust

    # ── payload ─────────────────────────────────────────────────────────────────────────────

    def payload(self, moment: Moment) -> dict[str, Any]:
        claude = ClaudeDialect.payload(self, moment)
        return {"event": moment.event, "session_id": claude.get("session_id", ""), "cwd": claude.get("cwd", ""),
                "tool_name": claude.get("tool_name", ""), "tool_input": claude.get("tool_input") or {}}

    def encode(self, payload: Mapping[str, Any]) -> bytes:
        text = encode_json(payload, newline=False).decode("utf-8")
        for char, escaped in _GO_ESCAPES.items():
            text = text.replace(char, escaped)
        return text.encode("utf-8")

    def hook_env(self, moment: Moment, payload: Mapping[str, Any]) -> dict[str, str]:
        """BuildEnv and shell.CrushEnvMarkers: the markers, the event, the tool and two of its arguments."""
        env = {"CRUSH": "1", "AGENT": "crush", "AI_AGENT": "crush", "CRUSH_EVENT": str(payload.get("event", "")),
               "CRUSH_TOOL_NAME": str(payload.get("tool_name", ""))}
        tool_input = payload.get("tool_input")
        for key, name in (("command", "CRUSH_TOOL_INPUT_COMMAND"), ("file_path", "CRUSH_TOOL_INPUT_FILE_PATH")):
            if isinstance(tool_input, Mapping) and key in tool_input:
                env[name] = _gjson_string(tool_input[key])
        return env

    # ── answers ─────────────────────────────────────────────────────────────────────────────

    def decode(self, event: str, outcome: ProcessOutcome) -> HookAnswer:
        if outcome.exit_code is None:
            return HookAnswer(failed=cause_text(outcome))
        stderr = outcome.stderr.strip()
        if outcome.exit_code == 2:
            return HookAnswer(decision="deny", reason=stderr or "blocked by hook")
        if outcome.exit_code == HALT_EXIT:
            reason = stderr or "turn halted by hook"
            return HookAnswer(decision="deny", reason=reason, stop=True, stop_reason=reason)
        if outcome.exit_code != 0:
            return HookAnswer(failed=f"exit code {outcome.exit_code}: a non-blocking error, the call goes on")
        text = outcome.stdout.strip()
        # Go's encoding/json reads an answer into interface{} values as JSON.parse does (numbers
        # as float64); js_read reads that way, bounded in depth for us.
        try:
            obj = js_read(text) if text else None
        except JsonTextError:
            obj = None
        if not isinstance(obj, dict):
            return HookAnswer(ignored=("stdout",)) if text else HookAnswer()
        if "hookSpecificOutput" in obj:
            return self._claude(obj["hookSpecificOutput"])
        return self._crush(obj)

    def _claude(self, hso: Any) -> HookAnswer:
        """parseClaudeCodeOutput: Claude's PreToolUse answer fields, whatever hookEventName says."""
        if hso is None:
            return HookAnswer()
        if not isinstance(hso, dict):
            return HookAnswer(ignored=("hookSpecificOutput",))
        choice, why, context = (_string(_field(hso, k)) for k in
                                ("permissionDecision", "permissionDecisionReason", "additionalContext"))
        if _WRONG in (choice, why, context):
            return HookAnswer(ignored=("hookSpecificOutput",))
        decision = _decision(choice)
        patch = _field(hso, "updatedInput")
        # aggregate() keeps a reason only where the hook denies (or halts).
        return HookAnswer(decision=decision, reason=(why or None) if decision == "deny" else None,  # type: ignore[arg-type]
                          additional_context=(context,) if context else (),
                          updated_input=None if patch is None else _patch(patch),
                          ignored=("permissionDecision",) if choice and decision == "none" else ())

    def _crush(self, obj: Mapping[str, Any]) -> HookAnswer:
        """Crush's own envelope (version, decision, halt, reason, context, updated_input)."""
        version, halt = _field(obj, "version"), _field(obj, "halt")
        choice, reason = _string(_field(obj, "decision")), _string(_field(obj, "reason"))
        if (_WRONG in (choice, reason) or not (halt is None or isinstance(halt, bool))
                or not (version is None or (isinstance(version, int) and not isinstance(version, bool)))):
            return HookAnswer(ignored=("stdout",))
        context = _context(_field(obj, "context"))
        patch = _field(obj, "updated_input")
        decision = "deny" if halt else _decision(choice)
        return HookAnswer(decision=decision, reason=(reason or None) if decision == "deny" else None,  # type: ignore[arg-type]
                          stop=bool(halt),
                          stop_reason=(reason or None) if halt else None,
                          additional_context=(context,) if context else (),
                          updated_input=None if patch is None else _patch(patch))

    def merge(self, event: str, answers: Sequence[HookAnswer]) -> HookAnswer:
        merged = merge_answers(answers, overlay_inputs=True)
        # aggregate(): every denying or halting hook's reason, in config order, repeats kept.
        reasons = [a.reason for a in answers if a.decision == "deny" and a.reason]
        return replace(merged, reason="\n".join(reasons) or merged.reason)


def _gjson_string(value: Any) -> str:
    """gjson's Result.String(): a string as it is, null as empty, anything else as its JSON text."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


#: The one stateless instance its unit names.
DIALECT = CrushDialect()
