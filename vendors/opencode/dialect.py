"""The OpenCode dialect: OpenCode's plugin callbacks re-authored as commands, with OUR contract.

OpenCode hooks are in-process TypeScript callbacks with no stdin, stdout or exit-code contract
(`vendor-protocols.md` §4), so a hook here is a command that receives the callback's arguments and
answers on stdout. This module defines that contract.

Stdin (one JSON object plus a newline), shaped like the callback's arguments::

    {"hook": <hook key>, "input": {...}, "output": {...}}

- ``tool.execute.before``: input ``{tool, sessionID, callID}``, output ``{args}``;
- ``tool.execute.after``: input ``{tool, sessionID, callID, args}``, output
  ``{title, output, metadata}``;
- ``shell.env``: input ``{cwd, sessionID, callID}``, output ``{env: {}}``;
- ``permission`` / ``permission.ask``: input ``{id, sessionID, permission, patterns, metadata,
  always}`` (``permission`` is the OpenCode tool id), output ``{status: "ask"}``;
- ``chat.message``, ``command.execute.before``, ``experimental.session.compacting``: their
  documented input and output objects;
- any bus event (``session.idle``, ``file.edited`` …, or ``event`` itself): hook ``"event"``,
  input ``{event: {type, properties}}`` where ``properties`` holds ``sessionID`` and the host facts
  with camelCase keys, output null.

Tool ids are OpenCode's lowercase ones (``bash``, ``read``, ``write``, ``edit`` …) with arguments
renamed by the vendor table.

Answer (stdout on exit 0, one JSON object; empty stdout means "nothing to say"):

- ``{"decision": "deny", "reason": "…"}`` or ``{"throw": "message"}``: what a thrown Error does
  in OpenCode — it denies ``tool.execute.before`` (and the permission hooks), blocks the prompt in
  ``chat.message`` (no model is called); on any other hook a throw is a session error, reported as a
  failed run that blocks nothing. ``decision`` may also be
  ``"allow"`` or ``"ask"``; the permission hooks also accept ``{"status": "allow"|"deny"|"ask"}``
  and ``{"reply": "once"|"always"|"reject"}``.
- ``{"args": {...}}`` on ``tool.execute.before``: keys written over ``output.args`` (OpenCode
  mutates in place), recorded as ``updated_input``.
- ``{"output": …}`` on ``tool.execute.after``: the replacement result, recorded as
  ``updated_output``.
- ``{"additionalContext": "…"}`` (or a list of strings): context.
- ``{"env": {"NAME": "value"}}`` on ``shell.env``: variables (string values only; the caller decides
  which names it may set).
- Any other key is recorded as ignored. Plain text on stdout is ignored; output that starts like
  JSON but does not parse fails the run (fail-open).

Exit codes: any non-zero exit, a crash or a spawn failure means the callback threw: it denies
``tool.execute.before`` and the permission hooks with stderr as the message (OpenCode blocks by
throwing) and is a non-blocking failed run elsewhere. A timeout fails open everywhere (OpenCode
itself has no timeout contract; a hung callback would stall the session).

Matchers: OpenCode has none — a plugin tests ``input.tool`` in code. ``matches`` is True when no
matcher is given; a given matcher is an unanchored JavaScript regular expression (``RegExp.test``) on the tool
id for the tool hooks (an invalid one never matches) and is ignored on hooks without a tool.

Merge: hooks run in sequence; a deny wins and its reason is kept, ``args`` overlays compose in
order, the last ``output`` wins, env variables overlay in order, contexts keep order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from compat_adapter.vendor import (
    OUTPUT_CAP, AnswerDraft, HookAnswer, JsonTextError, Moment, cause_text, compile_js, encode_json, first_line,
    flatten, js_problem, js_read, js_trim, merge_answers, plain, searches, vendor_call,
)

if TYPE_CHECKING:
    from compat_adapter.vendor import ProcessOutcome

__all__ = ("DIALECT", "INTERCEPTORS", "OpenCodeDialect")

#: Hook keys with an ``(input, output)`` signature; every other event is a bus event.
INTERCEPTORS = frozenset({
    "tool.execute.before", "tool.execute.after", "shell.env", "permission", "permission.ask",
    "chat.message", "chat.params", "chat.headers", "command.execute.before",
    "experimental.chat.system.transform", "experimental.chat.messages.transform",
    "experimental.session.compacting", "experimental.compaction.autocontinue",
    "experimental.text.complete", "tool.definition",
})
_TOOL_HOOKS = frozenset({"tool.execute.before", "tool.execute.after", "permission", "permission.ask",
                         "permission.asked"})
_DENIABLE = frozenset({"tool.execute.before", "permission", "permission.ask", "permission.asked"})
_PERMISSIONS = frozenset({"permission", "permission.ask", "permission.asked"})
#: The prompt's callback: a throw there refuses the prompt (it blocks, where other throws are errors).
_PROMPT = "chat.message"
_REPLIES = {"once": "allow", "always": "allow", "reject": "deny"}


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


class OpenCodeDialect:
    """Our command contract for OpenCode hooks. Stateless; one shared instance serves every hook."""

    vendor: str = "opencode"
    trailing_newline: bool = True
    output_cap: int = OUTPUT_CAP

    # ── matchers ────────────────────────────────────────────────────────────────────────────

    def validate_matcher(self, event: str, matcher: str | None) -> str | None:
        if matcher is None or event not in _TOOL_HOOKS:
            return None
        return js_problem(matcher)

    def matches(self, event: str, matcher: str | None, subject: str | None) -> bool:
        return event not in _TOOL_HOOKS or searches(compile_js, matcher, subject)

    def subject(self, moment: Moment) -> str | None:
        if moment.event not in _TOOL_HOOKS:
            return None
        facts = flatten(moment.fields)
        return self._tool(facts)[0] or None

    # ── payload ─────────────────────────────────────────────────────────────────────────────

    def _tool(self, facts: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        raw = facts.get("tool_input")
        return vendor_call(self.vendor, str(facts.get("tool_name") or ""),
                           raw if isinstance(raw, Mapping) else {})

    def payload(self, moment: Moment) -> dict[str, Any]:
        event = moment.event
        facts = flatten(moment.fields)
        if event == "permission.asked" or event not in INTERCEPTORS:
            return {"hook": "event", "input": {"event": self._bus_event(moment, facts)}, "output": None}
        sid = moment.session_id
        call_id = str(facts.get("tool_use_id") or facts.get("call_id") or "")
        hook_input: dict[str, Any]
        hook_output: Any
        if event == "tool.execute.before":
            name, args = self._tool(facts)
            hook_input, hook_output = {"tool": name, "sessionID": sid, "callID": call_id}, {"args": args}
        elif event == "tool.execute.after":
            name, args = self._tool(facts)
            raw = facts.get("tool_response")
            text = raw if isinstance(raw, str) else json.dumps(plain(raw)) if raw is not None else ""
            hook_input = {"tool": name, "sessionID": sid, "callID": call_id, "args": args}
            hook_output = {"title": str(facts.get("title") or ""), "output": text,
                           "metadata": plain(facts.get("metadata") or {})}
        elif event == "shell.env":
            hook_input = {"cwd": moment.cwd, "sessionID": sid, "callID": call_id}
            hook_output = {"env": {}}
        elif event in _PERMISSIONS:
            hook_input, hook_output = self._permission(sid, call_id, facts), {"status": "ask"}
        elif event == "chat.message":
            prompt = str(facts.get("prompt") or "")
            # agent, model and messageID only when the prompt asked for them (a typed one does not).
            hook_input = {"sessionID": sid, **{key: facts[source] for key, source in
                                                (("agent", "agent_type"), ("model", "model"),
                                                 ("messageID", "message_id")) if facts.get(source)}}
            hook_output = {"message": {"role": "user"}, "parts": [{"type": "text", "text": prompt}]}
        elif event == "command.execute.before":
            hook_input = {"command": str(facts.get("command") or ""), "sessionID": sid,
                          "arguments": str(facts.get("arguments") or "")}
            hook_output = {"parts": []}
        elif event == "experimental.session.compacting":
            hook_input, hook_output = {"sessionID": sid}, {"context": [], "prompt": None}
        else:
            hook_input, hook_output = {"sessionID": sid}, {}
        return {"hook": event, "input": hook_input, "output": hook_output}

    def _permission(self, sid: str, call_id: str, facts: Mapping[str, Any]) -> dict[str, Any]:
        name, _ = self._tool(facts)
        reason = facts.get("reason")
        return {"id": str(facts.get("approval_id") or call_id), "sessionID": sid,
                "permission": name, "patterns": plain(facts.get("patterns") or []),
                "metadata": {"reason": reason} if reason else {},
                "always": plain(facts.get("always") or [])}

    def _bus_event(self, moment: Moment, facts: Mapping[str, Any]) -> dict[str, Any]:
        event = moment.event
        properties: dict[str, Any]
        if event == "permission.asked":
            call_id = str(facts.get("tool_use_id") or facts.get("call_id") or "")
            properties = self._permission(moment.session_id, call_id, facts)
            properties["tool"] = {"messageID": str(facts.get("message_id") or ""), "callID": call_id}
        else:
            properties = {"sessionID": moment.session_id}
            for key, value in moment.fields.items():
                properties.setdefault(_camel(key), plain(value))
        kind = str(facts.get("type") or event) if event == "event" else event
        return {"type": kind, "properties": properties}

    def encode(self, payload: Mapping[str, Any]) -> bytes:
        return encode_json(payload, newline=self.trailing_newline)

    # ── decoding ────────────────────────────────────────────────────────────────────────────

    def decode(self, event: str, outcome: ProcessOutcome) -> HookAnswer:
        if outcome.timed_out or outcome.cause == "timeout":
            return HookAnswer(failed=cause_text(outcome))
        if outcome.exit_code != 0:
            what = (f"exit code {outcome.exit_code}" if outcome.exit_code is not None
                    else cause_text(outcome))
            message = js_trim(outcome.stderr) or f"hook threw ({what})"
            return self._thrown(event, message)
        # A command standing in for a JavaScript callback: read the way Node would.
        text = js_trim(outcome.stdout)
        if not text:
            return HookAnswer()
        if text[0] not in "{[":
            return HookAnswer(ignored=("plain stdout",))
        try:
            obj = js_read(text)
        except JsonTextError as exc:
            return HookAnswer(failed=f"{event} hook printed invalid JSON: {exc}")
        if not isinstance(obj, dict):
            return HookAnswer(failed=f"{event} hook printed JSON that is not an object")
        return self._read(event, obj)

    def _thrown(self, event: str, message: str) -> HookAnswer:
        if event in _DENIABLE:
            return HookAnswer(decision="deny", reason=message)
        if event == _PROMPT:
            # A throw in chat.message refuses the prompt: OpenCode calls no model (lane case
            # opencode:prompt_block; the plugin host does the same).
            return HookAnswer(decision="block", reason=message)
        # Outside the gates a throw is a session error: reported, never blocking.
        return HookAnswer(failed=f"{event} hook threw: {first_line(message) or message}")

    def _read(self, event: str, obj: Mapping[str, Any]) -> HookAnswer:
        if "throw" in obj:
            thrown = obj["throw"]
            answer = self._thrown(event, str(thrown) if thrown is not None else "hook threw")
            extra = tuple(k for k in obj if k != "throw")
            return replace(answer, ignored=extra) if extra else answer
        d = AnswerDraft()
        used = {"decision", "reason", "additionalContext"}
        self._decision(event, obj, d)
        context = obj.get("additionalContext")
        if isinstance(context, list):
            for item in context:
                d.context(item, "additionalContext")
        else:
            d.context(context, "additionalContext")
        if event == "tool.execute.before" and "args" in obj:
            used.add("args")
            if isinstance(obj["args"], Mapping):
                d.updated_input = plain(obj["args"])
            else:
                d.problems.append("args must be an object")
        if event == "tool.execute.after" and "output" in obj:
            used.add("output")
            d.updated_output = plain(obj["output"])
        if event == "shell.env" and "env" in obj:
            used.add("env")
            env = obj["env"]
            if isinstance(env, Mapping):
                d.env = {str(k): v for k, v in env.items() if isinstance(v, str)}
                d.ignored.extend(f"env.{k}" for k, v in env.items() if not isinstance(v, str))
            else:
                d.problems.append("env must be an object")
        if event in _PERMISSIONS:
            used |= {"status", "reply"}
        d.ignored.extend(k for k in obj if k not in used)
        if d.problems:
            return HookAnswer(failed=f"{event} hook answer is invalid: {'; '.join(d.problems)}")
        return d.freeze()

    def _decision(self, event: str, obj: Mapping[str, Any], d: AnswerDraft) -> None:
        choice = obj.get("decision")
        if event in _PERMISSIONS:
            if choice is None and isinstance(obj.get("status"), str):
                choice = obj["status"]
            if choice is None and isinstance(obj.get("reply"), str):
                choice = _REPLIES.get(obj["reply"], obj["reply"])
        if choice is None:
            return
        reason = obj.get("reason")
        if choice not in ("allow", "deny", "ask"):
            d.problems.append(f"decision {choice!r} is not allow, deny or ask")
        elif event in _DENIABLE:
            d.decision = choice
            d.reason = reason if isinstance(reason, str) else None
        elif choice == "deny" and event == _PROMPT:
            d.decision = "block"
            d.reason = reason if isinstance(reason, str) else None
        elif choice == "deny":
            # Only the gates can refuse; elsewhere a deny is what a throw is: a session error.
            d.failed = f"{event} hook threw: {reason if isinstance(reason, str) else 'denied'}"
        else:
            d.ignored.append(f"decision:{choice}")

    # ── merging ─────────────────────────────────────────────────────────────────────────────

    def merge(self, event: str, answers: Sequence[HookAnswer]) -> HookAnswer:
        # In OpenCode the first throw ends the chain; with commands every hook has already run, so
        # the first deny's reason is the one kept (ranked merge keeps reasons of equal decisions).
        denies = [a for a in answers if a.decision == "deny"]
        merged = merge_answers(answers, overlay_inputs=True)
        if denies and merged.reason != denies[0].reason:
            return replace(merged, reason=denies[0].reason)
        return merged


#: The one stateless instance its unit names.
DIALECT = OpenCodeDialect()
