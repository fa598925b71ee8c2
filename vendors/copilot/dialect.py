"""The GitHub Copilot CLI dialect (1.0.7x), as `vendor-protocols.md` §5 describes it.

Two input formats, chosen by how the event is spelled:

- camelCase events (``preToolUse`` …): camelCase payload with ``sessionId``, ``timestamp`` (Unix
  milliseconds) and ``cwd``; tool events carry ``toolName`` (Copilot's runtime name: ``bash``,
  ``view``, ``create``, ``edit`` …) and ``toolArgs`` as an OBJECT — measured on Copilot CLI
  1.0.102 (vendor lane), where the docs and github/copilot-cli#3349 describe a JSON-encoded
  string; permissionRequest sends ``toolInput`` (an object) with ``hookName`` and
  ``permissionSuggestions``; ``toolResult`` is ``{resultType, textResultForLlm}``; agentStop adds
  ``transcriptPath`` when the host has a transcript; ``stop_hook_active`` stays snake_case.
- PascalCase events (``PreToolUse`` …, the "VS Code compatible" format): snake_case payload with
  ``hook_event_name``, ``session_id``, an ISO-8601 ``timestamp``, ``tool_name`` as the Claude name
  (``bash`` → ``Bash``, ``view`` → ``Read`` …) and ``tool_input`` as an object. Only Stop carries
  ``transcript_path``; it carries no ``last_assistant_message`` (both measured on 1.0.102).

``timestamp`` comes from ``Moment.fields["timestamp"]`` (epoch seconds); when the host gives none
the current clock is read — the only impure read in the dialects. Stdin carries no trailing
newline: the protocol documents no framing, and Copilot writes the JSON text alone.

Output (§5.4): stdout lines that alone are a ``{"type": "progress"}`` object are dropped, the rest
is trimmed and parsed with ONE ``JSON.parse``; empty or unparsable output is "no output" (no
error) — two objects on stdout are therefore ignored. Fields are top-level; ``hookSpecificOutput``
is read only on PascalCase PreToolUse (measured: a deny there denies), its fields under the
top-level ones; every other event ignores it (measured on SessionStart, UserPromptSubmit, PostToolUse, Stop). preToolUse is fail-CLOSED: exit 2 or any other non-zero exit (or a crash) denies, even
when stdout says allow, as does an http entry that reaches no server, whose address Copilot refuses, or
whose server answers a status that is not 2xx (each measured on 1.0.102: lane pre_http_unresolved and
pre_http_refused, and HTTP 500 from a server reached with COPILOT_HOOK_ALLOW_LOCALHOST=1; the docs say
fail-open); only a timeout fails open.
permissionRequest: exit 2 is ``behavior: deny`` merged with stdout. Elsewhere exit 2 is a warning
(stderr shown to the user) and any other non-zero exit is logged and fails open — postToolUseFailure
included: the docs say exit 2 appends stdout as context, but measured on Copilot CLI 1.0.102 the
stdout of an exit-2 run was dropped (conformance case copilot-020). A read (``view``) never reaches
a permissionRequest hook (copilot-017): its rows name the tools it fires for. Honoured fields: preToolUse ``permissionDecision``
(allow / deny / ask), ``permissionDecisionReason``, ``modifiedArgs`` (or ``updatedInput``, recorded
as ``updated_input``), ``additionalContext``; permissionRequest ``behavior``, ``message``,
``interrupt``; postToolUse ``modifiedResult`` (``updated_output``) and ``additionalContext``;
agentStop / subagentStop ``decision: "block"`` + ``reason`` (the next prompt) and subagentStop
``modifiedResponse``; userPromptTransformed ``modifiedTransformedPrompt`` (``replacement_prompt``);
sessionStart, subagentStart and notification ``additionalContext``; userPromptSubmitted ``decision:
"block"`` + ``reason`` (the prompt is blocked before any model call), ``modifiedPrompt`` (what the
model reads instead) and ``additionalContext`` (after the prompt), as Copilot CLI 1.0.102 does them
(vendor lane); on its PascalCase spelling only ``additionalContext`` is read.

Matchers (§5.5): JavaScript regular expressions (`patterns.compile_js`: linear time, JavaScript's
meanings). On camelCase events the pattern is compiled as ``^(?:P)$`` and must match the
whole value (``bas`` does not match ``bash``); an absent or empty matcher matches everything; a
pattern that does not compile (``*`` included) makes the hook skipped, never match-all. Matchers
apply to preToolUse, permissionRequest and postToolUse (``toolName``), notification
(``notification_type``), preCompact (``trigger``) and subagentStart (``agentName``). PascalCase
PreToolUse and PermissionRequest follow Claude's rules: ``*``, ``**`` or ``""`` match all; a literal
or ``|`` list matches when a name equals the Claude name or a runtime name that maps to it;
anything else is anchored like above against the Claude name.

Merge: any deny wins (then ask, then allow); permissionRequest outputs merge later-over-earlier;
on agentStop / subagentStop any block continues, with the reasons joined, and a
``modifiedResponse`` is dropped when the run blocks (the last one given wins otherwise).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from compat_adapter.dialects.base import HookAnswer, Moment
from vendors.copilot.voice import HOOK_ERRORED
from compat_adapter.dialects.common import (
    OUTPUT_CAP,
    AnswerDraft,
    cause_text,
    encode_json,
    merge_answers,
    plain,
    vendor_call,
)
from compat_adapter.dialects.facts import flatten
from compat_adapter.dialects.patterns import compile_js, js_problem
from compat_adapter.handlers.outcome import UNANSWERED, UNREACHABLE
from compat_adapter.jsontext import js_lines, js_object, js_trim

if TYPE_CHECKING:
    from compat_adapter.runtime.outcome import ProcessOutcome

__all__ = ("CLAUDE_NAMES", "DENIED_BY_HOOK", "CopilotDialect", "DIALECT", "is_claude_format")

#: Copilot runtime tool name → the Claude name PascalCase payloads and matchers use.
CLAUDE_NAMES: Mapping[str, str] = {
    "bash": "Bash", "powershell": "Bash", "view": "Read", "create": "Write", "edit": "Edit",
    "str_replace_editor": "Edit", "apply_patch": "Edit", "grep": "Grep", "rg": "Grep",
    "glob": "Glob", "web_fetch": "WebFetch", "web_search": "WebSearch",
    "ask_user": "AskUserQuestion", "update_todo": "TodoWrite", "task": "Agent",
}

#: camelCase events whose matcher is tested, and the payload key it is tested against.
SUBJECT_KEY: Mapping[str, str] = {
    "preToolUse": "toolName",
    "permissionRequest": "toolName",
    "postToolUse": "toolName",
    "notification": "notification_type",
    "preCompact": "trigger",
    "subagentStart": "agentName",
    "PreToolUse": "tool_name",
    "PermissionRequest": "tool_name",
    "PostToolUse": "tool_name",
    "PreCompact": "trigger",
}
#: The message of a permissionRequest deny that gives none (an exit 2, a deny without ``message``).
DENIED_BY_HOOK = "Permission denied by hook."
_CLAUDE_RULES = frozenset({"PreToolUse", "PermissionRequest"})
_LITERAL = re.compile(r"[A-Za-z0-9_|]+")

# Event families, by both spellings.
_PRE_TOOL = frozenset({"preToolUse", "PreToolUse"})
_PERMISSION = frozenset({"permissionRequest", "PermissionRequest"})
_POST_TOOL = frozenset({"postToolUse", "PostToolUse"})
_POST_FAILURE = frozenset({"postToolUseFailure", "PostToolUseFailure"})
_STOPS = frozenset({"agentStop", "Stop", "subagentStop", "SubagentStop"})
_CONTEXT_ONLY = frozenset({"sessionStart", "SessionStart", "subagentStart", "notification"})
_TOOL_EVENTS = _PRE_TOOL | _PERMISSION | _POST_TOOL | _POST_FAILURE

# A fresh session is "new" (measured on Copilot CLI 1.0.102), as is one cleared.
_SOURCES = {"startup": "new", "resume": "resume", "clear": "new", "compact": "resume"}


def is_claude_format(event: str) -> bool:
    """Whether `event` is spelled PascalCase (snake_case payload, Claude matcher rules)."""
    return event[:1].isupper()


def _timestamp(facts: Mapping[str, Any]) -> float:
    value = facts.get("timestamp")
    return float(value) if isinstance(value, (int, float)) else time.time()


class CopilotDialect:
    """Copilot's hook protocol. Stateless; one shared instance serves every hook."""

    vendor: str = "copilot"
    trailing_newline: bool = False
    #: Copilot reads up to 10 MiB of a hook's stdout (hooks reference, "stdout parsing").
    output_cap: int = OUTPUT_CAP

    # ── matchers ────────────────────────────────────────────────────────────────────────────

    def validate_matcher(self, event: str, matcher: str | None) -> str | None:
        if event not in SUBJECT_KEY or not matcher:
            return None
        if event in _CLAUDE_RULES and (matcher in ("*", "**") or _LITERAL.fullmatch(matcher)):
            return None
        return js_problem(f"^(?:{matcher})$")

    def matches(self, event: str, matcher: str | None, subject: str | None) -> bool:
        if event not in SUBJECT_KEY or not matcher:
            return True
        value = subject or ""
        if event in _CLAUDE_RULES:
            if matcher in ("*", "**"):
                return True
            if _LITERAL.fullmatch(matcher):
                return any(t == value or CLAUDE_NAMES.get(t) == value for t in matcher.split("|"))
        compiled = compile_js(f"^(?:{matcher})$")
        return not isinstance(compiled, str) and compiled.search(value)

    def subject(self, moment: Moment) -> str | None:
        key = SUBJECT_KEY.get(moment.event)
        if key is None:
            return None
        value = self.payload(moment).get(key)
        return value if isinstance(value, str) else None

    # ── payload ─────────────────────────────────────────────────────────────────────────────

    def _tool(self, facts: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        raw = facts.get("tool_input")
        return vendor_call(self.vendor, str(facts.get("tool_name") or ""),
                           raw if isinstance(raw, Mapping) else {})

    def _result(self, facts: Mapping[str, Any]) -> tuple[str, str]:
        raw = facts.get("tool_response")
        text = raw if isinstance(raw, str) else json.dumps(plain(raw)) if raw is not None else ""
        # A shell command that ran and ended non-zero is a success to Copilot 1.0.102 (lane case
        # copilot:post_exit_nonzero, exit 3): a failure is a call with no ending to report.
        code = facts.get("exit_code")
        ended = isinstance(code, int) and not isinstance(code, bool) or facts.get("signal") is not None
        return ("failure" if facts.get("is_error") and not ended else "success"), text

    def payload(self, moment: Moment) -> dict[str, Any]:
        facts = flatten({**moment.logged, **moment.fields})
        if is_claude_format(moment.event):
            return self._snake(moment, facts)
        return self._camel(moment, facts)

    def _camel(self, moment: Moment, facts: Mapping[str, Any]) -> dict[str, Any]:
        event = moment.event
        out: dict[str, Any] = {"sessionId": moment.session_id,
                               "timestamp": int(_timestamp(facts) * 1000), "cwd": moment.cwd}
        if event in _TOOL_EVENTS:
            name, args = self._tool(facts)
            out["toolName"] = name
            if event in _PERMISSION:
                # As Copilot CLI 1.0.102 sends it (vendor lane): the hook's name and the suggestions,
                # and a shell call's input without the model's description.
                if name == "bash":
                    args = {k: v for k, v in args.items() if k != "description"}
                out = {"hookName": event, **out, "toolName": name, "toolInput": args,
                       "permissionSuggestions": plain(facts.get("permission_suggestions") or [])}
            else:
                out["toolArgs"] = args
            if event in _POST_TOOL:
                kind, text = self._result(facts)
                out["toolResult"] = {"resultType": kind, "textResultForLlm": text}
            elif event in _POST_FAILURE:
                out["error"] = str(facts.get("error_message") or self._result(facts)[1])
        elif event == "sessionStart":
            out["source"] = _SOURCES.get(str(facts.get("source") or "startup"), "new")
            if facts.get("initial_prompt"):
                out["initialPrompt"] = facts["initial_prompt"]
        elif event == "sessionEnd":
            out["reason"] = str(facts.get("reason") or "complete")
        elif event == "userPromptSubmitted":
            out["prompt"] = str(facts.get("prompt") or "")
        elif event == "userPromptTransformed":
            prompt = str(facts.get("prompt") or "")
            out["prompt"] = prompt
            out["transformedPrompt"] = str(facts.get("transformed_prompt") or prompt)
        elif event in ("agentStop", "subagentStop"):
            if moment.transcript_path:
                out["transcriptPath"] = moment.transcript_path
            out["stopReason"] = str(facts.get("stop_reason") or "end_turn")
            out["stop_hook_active"] = bool(facts.get("stop_hook_active", False))
            if event == "subagentStop":
                self._agent(facts, out)
                if facts.get("response") is not None or facts.get("last_assistant_message"):
                    out["response"] = facts.get("response") or facts.get("last_assistant_message")
        elif event == "subagentStart":
            self._agent(facts, out)
        elif event == "preCompact":
            out["trigger"] = str(facts.get("trigger") or "auto")
            out["customInstructions"] = str(facts.get("custom_instructions") or "")
        elif event == "errorOccurred":
            error = facts.get("error")
            if isinstance(error, Mapping):
                out["error"] = {"message": str(error.get("message") or ""),
                                "name": str(error.get("name") or "Error"),
                                "stack": str(error.get("stack") or "")}
            else:
                out["error"] = {"message": str(error or ""), "name": "Error", "stack": ""}
            out["errorContext"] = str(facts.get("error_context") or "")
            out["recoverable"] = bool(facts.get("recoverable", False))
        elif event == "notification":
            out["hook_event_name"] = "notification"
            out["message"] = str(facts.get("message") or "")
            if facts.get("title"):
                out["title"] = facts["title"]
            out["notification_type"] = str(facts.get("notification_type") or "")
        return out

    def _agent(self, facts: Mapping[str, Any], out: dict[str, Any]) -> None:
        for key, source in (("agentName", "agent_name"), ("agentDisplayName", "agent_display_name"),
                            ("agentDescription", "agent_description"), ("agentId", "agent_id"),
                            ("agentType", "agent_type")):
            if facts.get(source):
                out[key] = facts[source]

    def _snake(self, moment: Moment, facts: Mapping[str, Any]) -> dict[str, Any]:
        event = moment.event
        stamp = datetime.fromtimestamp(_timestamp(facts), UTC)
        out: dict[str, Any] = {
            "hook_event_name": event,
            "session_id": moment.session_id,
            "timestamp": stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "cwd": moment.cwd,
        }
        if event in _TOOL_EVENTS:
            name, args = self._tool(facts)
            out["tool_name"] = CLAUDE_NAMES.get(name, name)
            out["tool_input"] = args
            if event in _POST_TOOL:
                kind, text = self._result(facts)
                out["tool_result"] = {"result_type": kind, "text_result_for_llm": text}
            elif event in _POST_FAILURE:
                out["error"] = str(facts.get("error_message") or self._result(facts)[1])
        elif event == "UserPromptSubmit":
            out["prompt"] = str(facts.get("prompt") or "")
        elif event == "SessionStart":
            out["source"] = _SOURCES.get(str(facts.get("source") or "startup"), "new")
            if facts.get("initial_prompt"):
                out["initial_prompt"] = facts["initial_prompt"]
        elif event == "SessionEnd":
            out["reason"] = str(facts.get("reason") or "complete")
        elif event in ("Stop", "SubagentStop"):
            if moment.transcript_path:
                out["transcript_path"] = moment.transcript_path
            out["stop_reason"] = str(facts.get("stop_reason") or "end_turn")
            out["stop_hook_active"] = bool(facts.get("stop_hook_active", False))
            if event == "SubagentStop":  # not measured; Stop sends no last_assistant_message
                out["last_assistant_message"] = facts.get("last_assistant_message")
        elif event == "PreCompact":
            out["trigger"] = str(facts.get("trigger") or "auto")
            out["custom_instructions"] = str(facts.get("custom_instructions") or "")
        elif event == "ErrorOccurred":
            out["error"] = str(facts.get("error_message") or "")
        return out

    def encode(self, payload: Mapping[str, Any]) -> bytes:
        return encode_json(payload, newline=self.trailing_newline)

    # ── decoding ────────────────────────────────────────────────────────────────────────────

    def parse_stdout(self, text: str) -> dict[str, Any] | None:
        """The one JSON object on stdout after progress lines are dropped, else None (no output).

        Copilot is JavaScript: lines are split on ``\n`` only (a raw U+2028 or U+0085 inside a
        string is no line break), a line that alone is a ``{"type": "progress"}`` object is
        dropped, and the rest is ``trim``-med and read with one ``JSON.parse``.
        """
        kept = []
        for line in js_lines(text):
            alone = js_trim(line)
            if alone.startswith("{") and alone.endswith("}"):
                value = js_object(alone)
                if value is not None and value.get("type") == "progress":
                    continue
            kept.append(line)
        body = js_trim("\n".join(kept))
        return js_object(body) if body else None

    def decode(self, event: str, outcome: ProcessOutcome) -> HookAnswer:
        code = outcome.exit_code
        if outcome.timed_out or outcome.cause == "timeout":
            # Timeouts fail open everywhere, preToolUse and policy hooks included.
            return HookAnswer(failed=cause_text(outcome))
        if outcome.cause in (UNANSWERED, UNREACHABLE) and event not in _PRE_TOOL:
            # No usable answer (no server, a refused address, non-2xx) is lost; preToolUse denies below.
            return HookAnswer(failed=js_trim(outcome.stderr) or f"{event} hook got no answer")
        if event in _PRE_TOOL and code != 0:
            return self._fail_closed(event, outcome)
        if code is None:
            return HookAnswer(failed=cause_text(outcome))
        obj = self.parse_stdout(outcome.stdout)
        if code == 0:
            return self._read(event, obj) if obj is not None else HookAnswer()
        if code == 2 and event in _PERMISSION:
            # {"behavior": "deny"} merged with whatever stdout says; stderr is not read.
            return self._read(event, {**(obj or {}), "behavior": "deny"})
        stderr = js_trim(outcome.stderr) or None
        if code == 2:
            return HookAnswer(system_message=stderr, failed=f"{event} hook exited with code 2 (warning)")
        return HookAnswer(failed=f"{event} hook exited with code {code}")

    def _fail_closed(self, event: str, outcome: ProcessOutcome) -> HookAnswer:
        code = outcome.exit_code
        obj = self.parse_stdout(outcome.stdout) if code is not None else None
        d = self._draft(event, obj) if obj is not None else AnswerDraft()
        if code == 2:
            # Measured on Copilot CLI 1.0.102: the model reads "Denied by preToolUse hook: hook exited
            # with code 2" — the vendor's own reason; neither stderr nor a JSON reason is shown.
            d.reason = "hook exited with code 2"
            d.failed = None
        else:
            what = (js_trim(outcome.stderr) if outcome.cause in (UNANSWERED, UNREACHABLE)
                    else f"exit code {code}" if code is not None else cause_text(outcome))
            # Copilot's words name the hook's file (the voice adds it), never the exit code.
            d.reason = HOOK_ERRORED
            d.failed = f"{event} hook errored ({what}); the call is denied"
        d.decision = "deny"  # stdout cannot turn a failed preToolUse into an allow
        return d.freeze()

    def _read(self, event: str, obj: Mapping[str, Any]) -> HookAnswer:
        return self._draft(event, obj).freeze()

    def _draft(self, event: str, obj: Mapping[str, Any]) -> AnswerDraft:
        d = AnswerDraft()
        used: set[str] = set()
        nested = obj.get("hookSpecificOutput")
        if event == "PreToolUse" and isinstance(nested, Mapping):
            # Copilot CLI 1.0.102 reads Claude's hookSpecificOutput on PreToolUse alone (vendor lane:
            # deny_json_pascal, pre_context_pascal_nested); on SessionStart, UserPromptSubmit,
            # PostToolUse and Stop it ignores it (the *_pascal_nested cases). Top level wins.
            lifted = {k: v for k, v in nested.items() if k != "hookEventName" and k not in obj}
            obj = {**{k: v for k, v in obj.items() if k != "hookSpecificOutput"}, **lifted}
        if event == "userPromptSubmitted":
            # Measured on Copilot CLI 1.0.102 (vendor lane, prompt_block, prompt_modified):
            # decision "block" blocks the prompt before any model call (the reason is Copilot's
            # policy_blocked warning), modifiedPrompt replaces what the model reads, and
            # additionalContext follows the prompt in a <system_reminder>.
            used |= {"decision", "reason", "modifiedPrompt", "additionalContext"}
            if obj.get("decision") == "block":
                reason = obj.get("reason")
                d.decision = "block"
                d.reason = reason if isinstance(reason, str) else None
            value = obj.get("modifiedPrompt")
            if isinstance(value, str) and value:
                d.replacement_prompt = value
            elif value is not None:
                d.ignored.append("modifiedPrompt (not a non-empty string)")
            self._context(obj, d)
            d.ignored.extend(k for k in obj if k not in used)
            return d
        if event == "UserPromptSubmit":
            # The Claude-compatible spelling: only additionalContext was measured to count (vendor
            # lane, observe_pascal); its block and modifiedPrompt were not run in this format.
            self._context(obj, d)
            d.ignored.extend(k for k in obj if k != "additionalContext")
            return d
        if event in _PRE_TOOL:
            used |= {"permissionDecision", "permissionDecisionReason", "modifiedArgs", "updatedInput",
                     "additionalContext"}
            choice = obj.get("permissionDecision")
            if choice in ("allow", "deny", "ask"):
                d.decision = choice
                reason = obj.get("permissionDecisionReason")
                d.reason = reason if isinstance(reason, str) else None
            elif choice is not None:
                d.ignored.append(f"permissionDecision:{choice}")
            for key in ("modifiedArgs", "updatedInput"):
                if isinstance(obj.get(key), Mapping):
                    d.updated_input = plain(obj[key])
                    break
            self._context(obj, d)
        elif event in _PERMISSION:
            used |= {"behavior", "message", "interrupt"}
            behavior = obj.get("behavior")
            if behavior in ("allow", "deny"):
                d.decision = behavior
                message = obj.get("message")
                # A deny with no message is worded with Copilot's own (1.0.102, vendor lane).
                d.reason = message if isinstance(message, str) else DENIED_BY_HOOK if behavior == "deny" else None
                d.stop = behavior == "deny" and obj.get("interrupt") is True
        elif event in _POST_TOOL:
            used |= {"modifiedResult", "additionalContext"}
            if isinstance(obj.get("modifiedResult"), Mapping):
                d.updated_output = plain(obj["modifiedResult"])
            self._context(obj, d)
        elif event in _POST_FAILURE or event in _CONTEXT_ONLY:
            used.add("additionalContext")
            self._context(obj, d)
        elif event in _STOPS:
            used |= {"decision", "reason", "modifiedResponse"}
            if obj.get("decision") == "block":
                reason = obj.get("reason")
                d.decision = "block"
                d.reason = reason if isinstance(reason, str) else None
            if event in ("subagentStop", "SubagentStop") and isinstance(obj.get("modifiedResponse"), str):
                if d.decision == "block":
                    d.ignored.append("modifiedResponse (dropped: the hook blocks)")
                else:
                    d.updated_output = obj["modifiedResponse"]
        elif event == "userPromptTransformed":
            used.add("modifiedTransformedPrompt")
            value = obj.get("modifiedTransformedPrompt")
            if isinstance(value, str) and value:
                d.replacement_prompt = value
            elif value is not None:
                d.ignored.append("modifiedTransformedPrompt (not a non-empty string)")
        d.ignored.extend(k for k in obj if k not in used)
        return d

    def _context(self, obj: Mapping[str, Any], d: AnswerDraft) -> None:
        value = obj.get("additionalContext")
        if isinstance(value, str):
            d.context(value, "additionalContext")
        elif value is not None:
            d.ignored.append("additionalContext (not a string)")

    # ── merging ─────────────────────────────────────────────────────────────────────────────

    def merge(self, event: str, answers: Sequence[HookAnswer]) -> HookAnswer:
        if event in _PERMISSION:
            return merge_answers(answers, last_decision_wins=True)
        if event in _STOPS:
            def drop_response(merged: HookAnswer) -> HookAnswer:
                if merged.decision == "block" and merged.updated_output is not None:
                    return replace(merged, updated_output=None,
                                   ignored=(*merged.ignored, "modifiedResponse (dropped: the run blocks)"))
                return merged

            return merge_answers(answers, reason_sep="\n\n", finish=drop_response)
        return merge_answers(answers)


#: The one stateless instance its unit names.
DIALECT = CopilotDialect()
