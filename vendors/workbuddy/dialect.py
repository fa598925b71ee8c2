"""The CodeBuddy Code / WorkBuddy dialect (vendor id ``workbuddy``): Claude-compatible, with the
differences `vendor-protocols.md` §3 lists.

What differs from :mod:`vendors.claude.dialect`:

- Payload (CodeBuddy Code 2.163.0 as the vendor lane records it): Claude's shape without
  ``prompt_id`` and ``effort``, plus ``client: "CLI"``, ``version`` (the release this dialect
  follows, :data:`VERSION`), ``generation_id`` and ``model`` on every event; tool events add
  ``call_id`` (equal to ``tool_use_id``, the host's call id) and ``agent_type: "cli"`` (the main
  agent's type); a Bash PostToolUse ``tool_response`` is exit metadata only (``exitCode``,
  ``signal``, ``interrupted``, ``sandboxDenied``, ``stdoutBytesTruncated``,
  ``stderrBytesTruncated``, ``tool_error_code``), no output, plus ``is_error`` and CodeBuddy's
  ``error`` text when the command ended non-zero (which is a PostToolUse to CodeBuddy); Stop adds
  ``is_truncation_recovery`` and ``agent_type``, UserPromptSubmit ``is_internal_continuation``;
  SessionStart has no ``cwd`` and Notification neither ``session_id`` nor ``generation_id`` (its ``title`` defaults to
  CodeBuddy's own). ``generation_id`` is derived from the session id (stable for a session, as
  measured); host tools get the CLI names (``Bash``, ``Write`` …).
- Matchers are ALWAYS an unanchored, case-sensitive JavaScript regular expression (``Write`` matches
  ``NotebookWrite``; write ``^Write$`` for exact), tested against the tool name and its CLI/IDE alias
  (``Bash``/``execute_command``, ``Write``/``write_to_file``, ``Edit``/``replace_in_file``,
  ``Read``/``read_file``, ``Glob``/``list_dir``, ``Grep``/``search_content``).
- Exit 2 takes its message from stdout first (JSON ``reason`` or ``stopReason``, else the plain
  text) and from stderr only when stdout is empty. Any other exit code is a non-blocking error; the
  JSON on such a run is not read.
- ``reason`` is an alias of ``stopReason``. ``continue: false`` on an event that can block means
  "block it and tell the agent why" (on SubagentStop, as documented: keep working, the opposite of
  Claude). On Stop it is a plain stop, as in Claude: measured on CodeBuddy Code 2.163.0 (lane case
  workbuddy:stop_halt), Stop fired once and the turn ended on the answer the model had given, with
  no feedback and no further model call. On PreToolUse it stops the agent before the call runs
  (workbuddy:pre_halt). On events that cannot block it halts the run as in Claude.
- A PreToolUse hook that outlives its timeout (60 s unless the handler sets ``timeout``) is killed
  and the call does not run: the model reads ``Error: Hook timed out after <ms>ms`` as the tool's
  result (measured, CodeBuddy Code 2.163.0, lane case workbuddy:pre_timeout, and with the default
  60 s). A guard that was asked decides, or its call does not run.
- PreToolUse rewrites with ``updatedInput``, a PARTIAL override recorded as is; apply it with
  :func:`overlay_input` (keys the hook leaves out keep their original value). The documented
  ``modifiedInput`` is ignored: measured on CodeBuddy Code 2.163.0, the original input ran
  unchanged (conformance case codebuddy-005). ``decision: "block"`` on PostToolUse is deprecated
  and has no effect.
- ``hookSpecificOutput`` without ``hookEventName`` is read (the docs never require it); one naming
  another event is dropped and recorded as ignored, without failing the run.
- SessionStart and UserPromptSubmit: the context is ``hookSpecificOutput.additionalContext``, else
  the hook's stdout as printed, JSON or not (Claude reads a JSON object without a context as no
  context), unless it says ``suppressOutput: true``. Of several hooks, the last additionalContext
  wins and drops every stdout; else the stdouts are one text, joined by newlines (measured, 2.163.0,
  lane cases prompt_json_unknown, session_json_unknown, prompt_context_mixed, prompt_context_two_*).
- Stop / SubagentStop ``additionalContext`` is plain context, not a continuation; SubagentStop,
  Stop and UserPromptSubmit take no matcher.
- Merge: as Claude, except that partial ``updatedInput`` overrides compose in config order.
"""

from __future__ import annotations

import signal
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from compat_adapter.dialects.base import HookAnswer, Moment
from vendors.claude.dialect import EXIT2_BLOCK, EXIT2_DENY, SUBJECT_KEY, ClaudeDialect
from compat_adapter.dialects.common import (
    AnswerDraft,
    first_line,
    merge_answers,
    overlay,
)
from compat_adapter.dialects.patterns import compile_js
from compat_adapter.jsontext import js_trim

if TYPE_CHECKING:
    from compat_adapter.runtime.outcome import ProcessOutcome

__all__ = ("DIALECT", "IDE_ALIASES", "WorkBuddyDialect", "overlay_input")

_PAIRS = (("Bash", "execute_command"), ("Write", "write_to_file"), ("Edit", "replace_in_file"),
          ("Read", "read_file"), ("Glob", "list_dir"), ("Grep", "search_content"))
#: CLI tool name ↔ IDE tool name, both ways.
IDE_ALIASES: Mapping[str, str] = {**dict(_PAIRS), **{ide: cli for cli, ide in _PAIRS}}


def overlay_input(original: Mapping[str, Any] | None, modified: Mapping[str, Any]) -> dict[str, Any]:
    """The tool input CodeBuddy runs after ``updatedInput``: its keys written over the original."""
    return overlay(original, modified)


#: What CodeBuddy Code's headless CLI names itself in ``client``.
CLIENT = "CLI"
#: The CodeBuddy Code release whose payload this dialect sends (the vendor lane's pin).
VERSION = "2.163.0"
#: The title CodeBuddy gives a notification that has none of its own.
NOTIFICATION_TITLE = "CodeBuddy Code"
#: ``agent_type`` of the main agent (CodeBuddy Code 2.163.0).
MAIN_AGENT_TYPE = "cli"
_TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})
_STOPS = frozenset({"Stop", "SubagentStop"})
#: The events whose hook stdout is context unless a JSON additionalContext is given.
_STDOUT_CONTEXT = frozenset({"SessionStart", "UserPromptSubmit"})
_GENERATION_NS = uuid.UUID("9b3e6f20-41c7-4d8a-a5f2-6c0e1d7b3a58")


def generation_id(session_id: str) -> str:
    """CodeBuddy's ``generation_id`` shape (32 hex digits), stable for one session."""
    return uuid.uuid5(_GENERATION_NS, session_id).hex


def _exit_metadata(facts: Mapping[str, Any]) -> dict[str, Any]:
    """A Bash result as CodeBuddy 2.163.0 hands it to PostToolUse: how it ended, not what it printed.
    With no exit code nor signal from the host, the error flag stands for it (1 or 0). A command
    that ended non-zero (exit 3, or killed by SIGKILL: lane cases post_exit_nonzero, post_killed)
    adds CodeBuddy's error code (8002 an exit, 8013 a signal), is_error and its error text."""
    code, number = facts.get("exit_code"), facts.get("signal")
    sig = _signal_name(number) if isinstance(number, int) and not isinstance(number, bool) else number
    if sig is not None:
        code = None
    elif not isinstance(code, int) or isinstance(code, bool):
        code = 1 if facts.get("is_error") else 0
    out: dict[str, Any] = {"exitCode": code, "signal": sig, "interrupted": False, "sandboxDenied": False,
                           "stderrBytesTruncated": 0, "stdoutBytesTruncated": 0, "tool_error_code": str(code)}
    if sig is None and code == 0:
        return out
    command = (facts.get("tool_input") or {}).get("command", "")
    lines = [f"Command: {command}"] + [
        f"{name}: {str(facts.get(key) or '').rstrip(chr(10)) or '(empty)'}"
        for name, key in (("Stdout", "stdout"), ("Stderr", "stderr"))]
    lines += [f"Exit Code: {'(none)' if code is None else code}", f"Signal: {sig or '(none)'}"]
    return {**out, "tool_error_code": "8013" if sig is not None else "8002", "is_error": True,
            "error": "\n".join(lines)}


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


class WorkBuddyDialect(ClaudeDialect):
    """CodeBuddy Code's hook protocol (WorkBuddy uses the same engine)."""

    vendor: str = "workbuddy"
    trailing_newline: bool = True
    sends_tool_use_id: ClassVar[bool] = False
    # CodeBuddy continues a stop only through continue:false (or the deprecated block).
    stop_context_continues: ClassVar[bool] = False
    # Measured (CodeBuddy 2.163.0 -p): the agent goes on after these events' continue:false.
    continue_ignored: ClassVar[frozenset[str]] = frozenset({
        "SessionStart", "PostToolUse", "Notification", "InstructionsLoaded"})
    # The reference lists no matcher for SubagentStop (nor for Stop and UserPromptSubmit).
    subject_keys: ClassVar[Mapping[str, str]] = {
        event: key for event, key in SUBJECT_KEY.items() if event != "SubagentStop"}

    sends_prompt_id: ClassVar[bool] = False
    no_permission_mode: ClassVar[frozenset[str]] = frozenset()
    effort_events: ClassVar[frozenset[str]] = frozenset()
    # CodeBuddy's schema has no defer.
    pre_tool_decisions: ClassVar[tuple[str, ...]] = ("allow", "deny", "ask")

    def payload(self, moment: Moment) -> dict[str, Any]:
        out = super().payload(moment)
        event = moment.event
        facts = {**moment.logged, **moment.fields}
        if event == "SessionStart":
            out.pop("cwd", None)
        elif event == "Notification":
            out.pop("session_id", None)
            out.setdefault("title", NOTIFICATION_TITLE)
        if event in _TOOL_EVENTS:
            out["call_id"] = out["tool_use_id"] = str(facts.get("tool_use_id") or "")
        if event in _TOOL_EVENTS or event in _STOPS:
            out["agent_type"] = str(facts.get("agent_type") or MAIN_AGENT_TYPE)
        if event in _STOPS:
            out["is_truncation_recovery"] = False  # the host never resumes a truncated answer
        elif event == "UserPromptSubmit":
            out["is_internal_continuation"] = False  # a prompt the user typed
        if event == "PostToolUse" and out.get("tool_name") == "Bash":
            out["tool_response"] = _exit_metadata(facts)
        out.pop("duration_ms", None)  # CodeBuddy does not time its tools for hooks
        out.update(client=CLIENT, version=VERSION)
        if event != "Notification":  # measured: a notification belongs to no generation
            out["generation_id"] = generation_id(moment.session_id)
        out["model"] = str(facts.get("model") or "")
        return out

    # ── matchers ────────────────────────────────────────────────────────────────────────────

    # validate_matcher is Claude's: a literal name list is a regular expression that always compiles,
    # so reading every matcher as one finds the same problems.

    def matches(self, event: str, matcher: str | None, subject: str | None) -> bool:
        if event not in self.subject_keys or matcher in (None, "", "*"):
            return True
        assert matcher is not None
        compiled = compile_js(matcher)
        if isinstance(compiled, str):
            return False
        value = subject or ""
        candidates = (value, IDE_ALIASES[value]) if value in IDE_ALIASES else (value,)
        return any(compiled.search(c) for c in candidates)

    # ── decoding ────────────────────────────────────────────────────────────────────────────

    def read_json(self, event: str, obj: Mapping[str, Any]) -> AnswerDraft:
        d = super().read_json(event, obj)
        if d.stop and event not in ("PreToolUse", "Stop") and (event in EXIT2_DENY or event in EXIT2_BLOCK):
            # continue:false blocks the action and the reason goes to the agent. On PreToolUse it
            # stops the agent: the call does not run and the model is not called again (measured,
            # CodeBuddy 2.163.0, lane case workbuddy:pre_halt), as in Claude Code.
            d.decision = "deny" if event in EXIT2_DENY else "block"
            d.reason = d.stop_reason
            d.stop, d.stop_reason = False, None
        return d

    def _read_continue(self, event: str, obj: Mapping[str, Any], d: AnswerDraft) -> None:
        super()._read_continue(event, obj, d)
        alias = obj.get("reason")
        if d.stop and d.stop_reason is None and isinstance(alias, str):
            d.stop_reason = alias

    def _read_decision(self, event: str, obj: Mapping[str, Any], d: AnswerDraft) -> None:
        if event == "PostToolUse" and "decision" in obj:
            d.ignored.append("decision (deprecated on PostToolUse, no effect)")
            return
        super()._read_decision(event, obj, d)

    def _wrong_event(self, event: str, named: Any, specific: Mapping[str, Any], d: AnswerDraft) -> None:
        if named is None:
            self._read_specific(event, specific, d)
        else:
            d.ignored.append(f"hookSpecificOutput (hookEventName {named!r})")

    def _rewrite(self, hso: Mapping[str, Any], d: AnswerDraft) -> None:
        # Claude's reading of updatedInput (an object, recorded as is); CodeBuddy overlays it.
        super()._rewrite(hso, d)
        if "modifiedInput" in hso:
            d.ignored.append("hookSpecificOutput.modifiedInput (not applied by CodeBuddy 2.163)")

    def exit2_message(self, outcome: ProcessOutcome, obj: Mapping[str, Any] | None,
                      d: AnswerDraft | None) -> str | None:
        text = js_trim(outcome.stdout)
        if text:
            if obj is not None:
                for key in ("reason", "stopReason"):
                    if isinstance(obj.get(key), str) and js_trim(obj[key]):
                        return js_trim(obj[key])
            return text
        return js_trim(outcome.stderr) or None

    def decode(self, event: str, outcome: ProcessOutcome) -> HookAnswer:
        if event == "PreToolUse" and (outcome.timed_out or outcome.cause == "timeout"):
            # CodeBuddy fails closed on a guard's timeout: the call is denied, in its own words.
            limit = f"{round(outcome.timeout_s * 1000)}ms" if outcome.timeout_s is not None else "its timeout"
            why = f"Hook timed out after {limit}"
            return HookAnswer(decision="deny", reason=why, failed=f"{why}; CodeBuddy denies the call")
        answer = super().decode(event, outcome)
        if event in _STDOUT_CONTEXT and outcome.exit_code == 0 and not answer.additional_context:
            obj = self.parse_stdout(outcome.stdout)
            quiet = obj is None or obj.get("suppressOutput") is True or answer.failed or answer.stop
            if not quiet and answer.decision == "none":
                # CodeBuddy reads context from hookSpecificOutput.additionalContext, else from the
                # hook's stdout as printed, JSON or not (measured, 2.163.0: prompt_json_unknown,
                # prompt_json_known, session_json_unknown); suppressOutput: true keeps it out.
                text = js_trim(outcome.stdout)
                return replace(answer, additional_context=(text,), printed=(text,))
        return answer

    def _other_exit(self, event: str, outcome: ProcessOutcome, obj: Mapping[str, Any] | None) -> HookAnswer:
        if event == "WorktreeCreate":
            return super()._other_exit(event, outcome, obj)
        line = first_line(outcome.stderr) or f"exit code {outcome.exit_code}"
        return HookAnswer(failed=f"non-blocking error (exit code {outcome.exit_code}): {line}")

    # ── merging ─────────────────────────────────────────────────────────────────────────────

    def merge(self, event: str, answers: Sequence[HookAnswer]) -> HookAnswer:
        # Partial updatedInput overrides compose: each one's keys land on the previous result.
        merged = merge_answers(answers, overlay_inputs=True)
        return _one_context(merged, answers) if event in _STDOUT_CONTEXT else merged


def _one_context(merged: HookAnswer, answers: Sequence[HookAnswer]) -> HookAnswer:
    """CodeBuddy's one context of the event's hooks (measured, 2.163.0): the additionalContext of the
    last hook in config order that gives one, the others' and every printed stdout dropped
    (prompt_context_two_json, prompt_context_mixed); else the printed stdouts joined by a newline
    into one text (prompt_context_two_plain)."""
    given = [a for a in answers if len(a.additional_context) > len(a.printed)]
    if given:
        kept = tuple(c for c in given[-1].additional_context if c not in given[-1].printed)
        if kept == merged.additional_context:
            return merged
        return replace(merged, additional_context=kept, printed=(),
                       ignored=(*merged.ignored, "context (the last hook's additionalContext wins)"))
    if len(merged.printed) < 2:
        return merged
    text = "\n".join(merged.printed)
    return replace(merged, additional_context=(text,), printed=(text,))


#: The one stateless instance its unit names.
DIALECT = WorkBuddyDialect()
