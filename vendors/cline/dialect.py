"""Cline's dialect (vendor id ``cline``), read from its release (cline 3.0.65: the file-hook runner
of ``@cline/core`` 0.0.86 compiled into the CLI) and measured with the vendor lane.

- Payload: ``clineVersion``, ``hookName`` (the runtime's name: ``tool_call``, ``agent_end`` …),
  ``timestamp``, ``taskId``, ``sessionContext.rootSessionId``, ``workspaceRoots``, ``workspaceInfo``,
  ``userId``, ``agent_id``, ``parent_agent_id``, then the event's own part: ``tool_call`` and
  ``preToolUse`` (its parameters each as a string), ``tool_result`` and ``postToolUse``,
  ``taskStart``, ``turn`` and ``taskComplete``, ``error`` (no ``userPromptSubmit``: no row serves that event).
- No matchers: a hook file runs for every occurrence of its event.
- Output: stdout, trimmed; its last line that starts ``HOOK_CONTROL<TAB>`` (the rest of that line),
  else all of it, is parsed as JSON; the exit code and stderr are never read, and a timeout or a
  parse failure drops the answer. An object with ``cancel``, ``review``, ``context``,
  ``contextModification``, ``overrideInput`` or ``errorMessage`` is an answer: ``cancel: true``
  ends the run (its reason ``errorMessage``, else the context); otherwise the context is
  ``context``, else ``contextModification``, else a non-blank ``errorMessage``, cut at 50,000
  characters. Only PreToolUse and PostToolUse are read at all.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from compat_adapter.vendor import HookAnswer, JsonTextError, Moment, js_read, js_trim
from vendors.claude.dialect import ClaudeDialect
from vendors.cline.table import AWAITED, CLINE_EVENTS, HOOK_NAMES

if TYPE_CHECKING:
    from compat_adapter.vendor import ProcessOutcome

__all__ = ("CONTROL", "DIALECT", "ClineDialect", "control_text")

#: The prefix of the stdout line that carries a hook's answer.
CONTROL = "HOOK_CONTROL\t"
#: Context longer than this is cut, with Cline's note after it.
CONTEXT_CAP = 50_000
_ANSWER_KEYS = ("cancel", "review", "context", "contextModification", "overrideInput", "errorMessage")


def control_text(stdout: str) -> str:
    """The text Cline parses as the answer: the last control line's JSON, else the whole stdout."""
    text = js_trim(stdout)
    lines = [js_trim(line) for line in text.split("\n")]
    controls = [line[len(CONTROL):] for line in lines if line.startswith(CONTROL)]
    return controls[-1] if controls else text


def _capped(text: str | None) -> str | None:
    if text is None or len(text) <= CONTEXT_CAP:
        return text
    return f"{text[:CONTEXT_CAP]}\n[hook context truncated: exceeded {CONTEXT_CAP} characters]"


def _stringified(value: Any) -> dict[str, str]:
    """Cline's ``parameters``: each argument as a string, JSON where it is not one."""
    if not isinstance(value, Mapping):
        return {}
    return {k: v if isinstance(v, str) else json.dumps(v, separators=(",", ":")) for k, v in value.items()}


def _host_shaped(given: Mapping[str, Any]) -> dict[str, Any]:
    """A rewrite of run_commands as the host's shell can run it: its list of commands as one script."""
    out = dict(given)
    commands = out.get("commands")
    if isinstance(commands, list) and all(isinstance(c, str) for c in commands):
        out["commands"] = "\n".join(commands)
    return out


class ClineDialect(ClaudeDialect):
    """Cline's hook runner: Claude's moments under Cline's names, a control line for an answer."""

    vendor: str = "cline"
    trailing_newline: bool = False

    def validate_matcher(self, event: str, matcher: str | None) -> str | None:
        return None if not matcher else "a Cline hook file has no matcher"

    def matches(self, event: str, matcher: str | None, subject: str | None) -> bool:
        return True

    def subject(self, moment: Moment) -> str | None:
        return None

    def payload(self, moment: Moment) -> dict[str, Any]:
        event = moment.event
        claude = ClaudeDialect.payload(self, replace(moment, event=CLINE_EVENTS.get(event, event)))
        f = moment.fields
        stamp = f.get("timestamp")
        when = datetime.fromtimestamp(stamp, UTC) if isinstance(stamp, int | float) else datetime.fromtimestamp(0, UTC)
        session = claude.get("session_id", moment.session_id)
        cwd = claude.get("cwd", moment.cwd)
        out: dict[str, Any] = {
            "clineVersion": "", "timestamp": when.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "taskId": session, "sessionContext": {"rootSessionId": session},
            "workspaceRoots": [cwd] if cwd else [],
            "workspaceInfo": {"rootPath": cwd, "hint": os.path.basename(cwd)} if cwd else None,
            "userId": "unknown", "agent_id": f.get("agent_id") or session, "parent_agent_id": None,
            "hookName": HOOK_NAMES.get(event, event),
        }
        step = moment.turn or 1
        if event in ("PreToolUse", "PostToolUse"):
            name = claude.get("tool_name")
            given = claude.get("tool_input")
            args = dict(given) if isinstance(given, Mapping) else {}
            if name == "run_commands" and isinstance(args.get("commands"), str):
                args["commands"] = [args["commands"]]  # Cline's shell tool takes a list of commands
            call = claude.get("tool_use_id") or f.get("tool_use_id") or ""
            out["iteration"] = step
            if event == "PreToolUse":
                out["tool_call"] = {"id": call, "name": name, "input": args}
                out["preToolUse"] = {"toolName": name, "parameters": _stringified(args)}
            else:
                result = claude.get("tool_response")
                failed = bool(f.get("is_error"))
                text = result if isinstance(result, str) else json.dumps(result)
                out["tool_result"] = {"id": call, "name": name, "input": args, "output": result,
                                      **({"error": text} if failed else {}), "durationMs": f.get("duration_ms", 0)}
                out["postToolUse"] = {"toolName": name, "parameters": _stringified(args), "result": text,
                                      "success": not failed, "executionTimeMs": f.get("duration_ms", 0)}
        elif event == "TaskStart":
            out["taskStart"] = {"taskMetadata": {}}
        elif event == "TaskComplete":
            out.update(iteration=step, turn={"outputText": claude.get("last_assistant_message") or "",
                                             "status": "completed"}, taskComplete={"taskMetadata": {}})
        elif event == "TaskError":
            error = f.get("error")
            given = error if isinstance(error, Mapping) else {"name": "Error", "message": str(error or "")}
            out.update(iteration=step, error={k: given.get(k) for k in ("name", "message", "stack")})
        return out

    def encode(self, payload: Mapping[str, Any]) -> bytes:
        return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()

    def decode(self, event: str, outcome: ProcessOutcome) -> HookAnswer:
        if event not in AWAITED:
            return HookAnswer(ignored=("started detached: Cline reads no answer",))
        if outcome.timed_out or outcome.cause in ("timeout", "spawn-failed", "cancelled"):
            return HookAnswer(failed=f"{event} hook did not answer ({outcome.cause}): Cline goes on")
        text = control_text(outcome.stdout)
        if not text:
            return HookAnswer()
        # Cline parses with JSON.parse; js_read reads as it does, bounded in depth for us.
        try:
            obj = js_read(text)
        except JsonTextError:
            return HookAnswer(ignored=("stdout is no JSON: Cline logs it and goes on",))
        if not isinstance(obj, Mapping) or not any(k in obj for k in _ANSWER_KEYS):
            return HookAnswer(ignored=("stdout",))
        context = next((obj[k] for k in ("context", "contextModification") if isinstance(obj.get(k), str)), None)
        error = obj.get("errorMessage")
        error = error if isinstance(error, str) and error.strip() else None
        rewrite = obj.get("overrideInput") if "overrideInput" in obj and event == "PreToolUse" else None
        rewritten = _host_shaped(rewrite) if isinstance(rewrite, Mapping) else None
        ignored = tuple(k for k in ("review",) if k in obj)
        if obj.get("cancel") is True:
            reason = error if error is not None else context
            return HookAnswer(stop=True, stop_reason=reason or None, updated_input=rewritten, ignored=ignored)
        said = _capped(context if context is not None else error)
        texts = (said,) if said and said.strip() else ()
        return HookAnswer(additional_context=texts, updated_input=rewritten, ignored=ignored)

    def merge(self, event: str, answers: Sequence[HookAnswer]) -> HookAnswer:
        """Cline's fold (xl in the release): any cancel cancels, contexts and reasons join by a newline,
        the last rewrite wins."""
        if len(answers) <= 1:
            return answers[0] if answers else HookAnswer()
        contexts = "\n".join(t for a in answers for t in a.additional_context if t)
        reasons = "\n".join(a.stop_reason for a in answers if a.stop_reason)
        rewrite = next((a.updated_input for a in reversed(answers) if a.updated_input is not None), None)
        return HookAnswer(stop=any(a.stop for a in answers), stop_reason=reasons or None,
                          additional_context=(contexts,) if contexts else (), updated_input=rewrite,
                          failed="; ".join(a.failed for a in answers if a.failed) or None,
                          ignored=tuple(i for a in answers for i in a.ignored))


#: The one stateless instance its unit names.
DIALECT = ClineDialect()
