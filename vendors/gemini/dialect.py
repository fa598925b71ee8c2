"""The Gemini CLI dialect (0.61.0), as its shipped hook runner, aggregator and planner behave.

Payload: compact ``JSON.stringify`` with no trailing newline: ``session_id``, ``transcript_path``,
``cwd``, ``hook_event_name``, an ISO-8601 ``timestamp`` (milliseconds, ``Z``), then the event's own
fields (vendor lane samples): SessionStart ``source``; SessionEnd ``reason``; BeforeAgent ``prompt``;
AfterAgent ``prompt``, ``prompt_response``, ``stop_hook_active``; BeforeTool ``tool_name``,
``tool_input`` (Gemini's tool names, translated from the host's); AfterTool adds ``tool_response``
``{llmContent, returnDisplay}``; PreCompress ``trigger``; Notification ``notification_type``,
``message``, ``details``. No tool-use id on any event.

Output, read the way ``hookRunner`` reads it: the text is stdout trimmed, or stderr trimmed when
stdout is empty. Text that ``JSON.parse`` takes as an object (an array too, with no fields) is the
answer, whatever the exit code; a JSON string holding JSON is parsed twice; a JSON number, boolean
or null is no answer. Text that does not parse becomes ``{decision: "allow", systemMessage: text}``
on exit 0, the same with ``"Warning: "`` before it on exit 1, and ``{decision: "deny", reason: text}``
on any other exit: so exit 2, and exit 3 too (measured, lane case gemini:deny_exit3, where the docs
say "warning"), blocks with stderr as the reason, and a non-zero exit with nothing printed does
nothing. A run killed by a signal counts as exit 0 (``exitCode || 0``); a timeout or a spawn
failure gives no answer.

Fields: ``decision`` ``"deny"`` or ``"block"`` blocks (BeforeTool: the call; AfterTool: the result,
replaced by the reason; BeforeAgent: the turn; AfterAgent: the stop, continuing with the reason),
``"ask"`` asks (BeforeTool only); ``continue: false`` stops the agent (ignored on SessionStart,
SessionEnd, PreCompress, Notification); the reason of either is ``stopReason || reason || "No reason
provided"``. ``hookSpecificOutput`` is read without checking ``hookEventName``: ``additionalContext``
(a string) on SessionStart, BeforeAgent and AfterTool, ``tool_input`` (an object, the WHOLE new input:
``tool.build(tool_input)``, measured) on BeforeTool, ``clearContext`` on AfterAgent (not honoured),
``tailToolCallRequest`` on AfterTool (not honoured).

Matchers: trimmed; absent, ``""`` and ``"*"`` match everything; on BeforeTool and AfterTool an
unanchored JavaScript regular expression (``new RegExp(m).test(name)``), and a pattern that does not
compile is compared as an exact name; on SessionStart, SessionEnd and PreCompress the exact source,
reason or trigger; every other event ignores its matcher.

Merge (``mergeWithOrDecision``): any deny or block wins, then ask; every hook's reason joined with
newlines, every additionalContext joined with newlines into one text; the last ``tool_input`` given
wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from compat_adapter.vendor import (
    OUTPUT_CAP, AnswerDraft, Decision, HookAnswer, JsonTextError, Moment, cause_text, chain_input, compile_js,
    encode_json, first_line, flatten, js_read, js_trim, keyed_subject, plain, vendor_call,
)

if TYPE_CHECKING:
    from compat_adapter.vendor import ProcessOutcome

__all__ = ("DIALECT", "GeminiDialect", "SUBJECT_KEY", "TOOL_EVENTS")

TOOL_EVENTS = frozenset({"BeforeTool", "AfterTool"})
#: The payload key each matcher-capable event tests its matcher against.
SUBJECT_KEY: Mapping[str, str] = MappingProxyType({
    "BeforeTool": "tool_name", "AfterTool": "tool_name",
    "SessionStart": "source", "SessionEnd": "reason", "PreCompress": "trigger",
})
#: Gemini's SessionStart sources; the host's others start a session as "startup".
_SOURCES = frozenset({"startup", "resume", "clear"})
#: Where decision deny/block means something, and what it becomes.
_BLOCKS: Mapping[str, Decision] = MappingProxyType({
    "BeforeTool": "deny", "AfterTool": "block", "BeforeAgent": "block", "AfterAgent": "block",
    "BeforeModel": "block"})
#: Where continue:false stops the agent (Gemini ignores it on the advisory events).
_STOPS = frozenset(_BLOCKS)
#: Where additionalContext is read (BeforeTool's is read and then dropped, as Gemini drops it).
_CONTEXT = frozenset({"SessionStart", "BeforeAgent", "AfterTool", "BeforeTool"})
#: What Gemini sends as AfterAgent's prompt_response when the turn produced no text.
NO_RESPONSE = "[no response text]"
#: The confirmation kind Gemini's Notification names for a tool (``toSerializableDetails``).
_CONFIRMATION = MappingProxyType({"run_shell_command": ("exec", "execution"),
                                  "write_file": ("edit", "editing"), "replace": ("edit", "editing")})
#: Marks text that is not JSON (it becomes an answer of its own by the exit code).
_PLAIN = object()


def _iso(facts: Mapping[str, Any]) -> str:
    value = facts.get("timestamp")
    when = datetime.fromtimestamp(value, UTC) if isinstance(value, int | float) and not isinstance(value, bool) \
        else datetime.now(UTC)
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _as_is(text: str) -> str:
    return text


def _parse(text: str) -> Any:
    """``JSON.parse`` as hookRunner applies it: an object (or array) is the answer, a string is
    parsed again, anything else is no answer; text that throws is :data:`_PLAIN`."""
    try:
        value = js_read(text)
        if isinstance(value, str):
            value = js_read(value)
    except JsonTextError:
        return _PLAIN
    if isinstance(value, Mapping):
        return value
    return {} if isinstance(value, list) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


class GeminiDialect:
    """Gemini CLI's hook protocol. Stateless; one shared instance serves every hook."""

    vendor: str = "gemini"
    trailing_newline: bool = False
    output_cap: int = OUTPUT_CAP

    # ── matchers ────────────────────────────────────────────────────────────────────────────

    def validate_matcher(self, event: str, matcher: str | None) -> str | None:
        # Every string is usable: a pattern that does not compile is an exact tool name to Gemini.
        return None

    def matches(self, event: str, matcher: str | None, subject: str | None) -> bool:
        if event not in SUBJECT_KEY or not matcher:
            return True
        pattern = js_trim(matcher)
        if pattern in ("", "*"):
            return True
        value = subject or ""
        if event not in TOOL_EVENTS:
            return pattern == value
        compiled = compile_js(pattern)
        return pattern == value if isinstance(compiled, str) else bool(compiled.search(value))

    def subject(self, moment: Moment) -> str | None:
        return keyed_subject(self, moment, SUBJECT_KEY)

    # ── payload ─────────────────────────────────────────────────────────────────────────────

    def _tool(self, facts: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        args = facts.get("tool_input")
        return vendor_call(self.vendor, str(facts.get("tool_name") or ""), args if isinstance(args, Mapping) else {})

    def payload(self, moment: Moment) -> dict[str, Any]:
        event = moment.event
        facts = flatten({**moment.logged, **moment.fields})
        out: dict[str, Any] = {"session_id": moment.session_id, "transcript_path": moment.transcript_path or "",
                               "cwd": moment.cwd, "hook_event_name": event, "timestamp": _iso(facts)}
        if event in TOOL_EVENTS or event == "Notification":
            name, args = self._tool(facts)
        if event in TOOL_EVENTS:
            out.update(tool_name=name, tool_input=args)
            if event == "AfterTool":
                out["tool_response"] = self._response(facts)
        elif event == "SessionStart":
            source = facts.get("source")
            out["source"] = source if source in _SOURCES else "startup"
        elif event == "SessionEnd":
            out["reason"] = "exit"  # what Gemini sends when the CLI exits; the host gives no cause
        elif event == "BeforeAgent":
            out["prompt"] = str(facts.get("prompt") or "")
        elif event == "AfterAgent":
            out.update(prompt=str(facts.get("prompt") or ""),
                       prompt_response=str(facts.get("last_assistant_message") or NO_RESPONSE),
                       stop_hook_active=bool(facts.get("stop_hook_active", False)))
        elif event == "PreCompress":
            out["trigger"] = str(facts.get("trigger") or "auto")
        elif event == "Notification":
            kind, verb = _CONFIRMATION.get(name, ("info", "confirmation"))
            # What the host's approval record holds: the tool and the outcome, not the call's input.
            details: dict[str, Any] = {"type": kind, "title": name}
            if isinstance(facts.get("outcome"), str):
                details["outcome"] = facts["outcome"]
            out.update(notification_type="ToolPermission", message=f"Tool {name} requires {verb}",
                       details=details)
        return out

    @staticmethod
    def _response(facts: Mapping[str, Any]) -> Any:
        raw = facts.get("tool_response")
        if isinstance(raw, Mapping):
            return plain(raw)
        text = "" if raw is None else str(raw)
        # returnDisplay is what a user would see: a shell call's output without the trailing newline.
        stdout = facts.get("stdout")
        shown = stdout.rstrip("\n") if isinstance(stdout, str) and not facts.get("is_error") else text
        return {"llmContent": text, "returnDisplay": shown}

    def encode(self, payload: Mapping[str, Any]) -> bytes:
        return encode_json(payload, newline=self.trailing_newline)

    # ── decoding ────────────────────────────────────────────────────────────────────────────

    def read_json(self, event: str, obj: Mapping[str, Any]) -> AnswerDraft:
        """What one answer object says for `event` (Gemini validates nothing: a field of the wrong
        type is simply not used)."""
        d = AnswerDraft()
        reason, stop_reason = _text(obj.get("reason")), _text(obj.get("stopReason"))
        d.system_message = _text(obj.get("systemMessage"))
        if "suppressOutput" in obj:
            d.ignored.append("suppressOutput")
        decision = obj.get("decision")
        block = _BLOCKS.get(event)
        if decision in ("deny", "block") and block is not None:
            d.decision = block
        elif decision == "ask" and event == "BeforeTool":
            d.decision = "ask"
        elif decision is not None and decision != "allow":
            d.ignored.append(f"decision:{decision}" if isinstance(decision, str) else "decision")
        if obj.get("continue") is False:
            if event in _STOPS:
                d.stop, d.stop_reason = True, stop_reason or reason or "No reason provided"
            else:
                d.ignored.append("continue")
        # The reason a block carries: stopReason first (getEffectiveReason).
        d.reason = (stop_reason or reason) if d.decision in ("deny", "block") else reason
        specific = obj.get("hookSpecificOutput")
        if isinstance(specific, Mapping):
            self._read_specific(event, specific, d)
        return d

    def _read_specific(self, event: str, hso: Mapping[str, Any], d: AnswerDraft) -> None:
        used = {"hookEventName"}
        context = hso.get("additionalContext")
        if event in _CONTEXT and isinstance(context, str):
            used.add("additionalContext")
            if context.strip():
                d.additional_context.append(context)
        new = hso.get("tool_input")
        if event == "BeforeTool" and isinstance(new, Mapping):
            used.add("tool_input")
            d.updated_input = plain(new)
        d.ignored.extend(f"hookSpecificOutput.{k}" for k in hso if k not in used)

    def decode(self, event: str, outcome: ProcessOutcome) -> HookAnswer:
        if outcome.exit_code is None and outcome.cause != "signal":
            return HookAnswer(failed=cause_text(outcome))
        code = outcome.exit_code or 0  # a signal death reads as exit 0 (exitCode || 0)
        failed = None if code == 0 else \
            f"exit code {code}" + (f": {first_line(outcome.stderr)}" if first_line(outcome.stderr) else "")
        text = js_trim(outcome.stdout) or js_trim(outcome.stderr)
        if not text:
            return HookAnswer(failed=failed)
        obj = _parse(text)
        if obj is None:
            return HookAnswer(failed=failed, ignored=("non-object JSON",))
        if obj is _PLAIN:
            if code in (0, 1):
                obj = {"decision": "allow", "systemMessage": text if code == 0 else f"Warning: {text}"}
            else:
                obj = {"decision": "deny", "reason": text}
        d = self.read_json(event, obj)
        d.failed = failed
        return d.freeze()

    def chained(self, event: str, payload: Mapping[str, Any], outcome: ProcessOutcome) -> dict[str, Any]:
        """executeHooksSequential (0.61.0): after a hook that exited 0 with a JSON answer, BeforeAgent's
        ``prompt`` gains its additionalContext after a blank line (an empty one too) and BeforeTool's
        ``tool_input`` its ``tool_input`` keys; BeforeModel's ``llm_request`` is not served here."""
        if outcome.exit_code != 0:
            return dict(payload)
        obj = _parse(js_trim(outcome.stdout) or js_trim(outcome.stderr))
        specific = obj.get("hookSpecificOutput") if isinstance(obj, Mapping) else None
        return chain_input(payload, specific, prompt_context=_as_is if event == "BeforeAgent" else None,
                           tool_input=event == "BeforeTool")

    # ── merging ─────────────────────────────────────────────────────────────────────────────

    def merge(self, event: str, answers: Sequence[HookAnswer]) -> HookAnswer:
        if not answers:
            return HookAnswer()
        blocking = next((a.decision for a in answers if a.decision in ("deny", "block")), None)
        decision: Decision = blocking or ("ask" if any(a.decision == "ask" for a in answers) else "none")
        reasons = "\n".join(a.reason for a in answers if a.reason) or None
        stops = [a for a in answers if a.stop]
        stop_reason = "\n".join(a.stop_reason for a in stops if a.stop_reason) or None
        contexts = [c for a in answers for c in a.additional_context]
        rewrites = [a.updated_input for a in answers if a.updated_input is not None]
        messages = "\n".join(a.system_message for a in answers if a.system_message) or None
        failures = "; ".join(a.failed for a in answers if a.failed) or None
        return HookAnswer(
            decision=decision,
            reason=(stop_reason or reasons or "No reason provided") if decision in ("deny", "block") else reasons,
            additional_context=("\n".join(contexts),) if contexts else (),
            system_message=messages, stop=bool(stops), stop_reason=stop_reason if stops else None,
            updated_input=rewrites[-1] if rewrites else None, failed=failures,
            ignored=tuple(i for a in answers for i in a.ignored))


#: The one stateless instance its unit names.
DIALECT = GeminiDialect()
