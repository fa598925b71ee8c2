"""The OpenAI Codex CLI dialect (0.137 docs, ≈0.153 behaviour), as `vendor-protocols.md` §2 says.

Payload (Codex 0.171.0 as the vendor lane records it): ``session_id``, ``transcript_path`` (null
when unknown), ``cwd``, ``hook_event_name``, then — on every event but SessionEnd, which stops there
and adds ``reason`` — ``model`` (the model of the host's last request, ``""`` before the first),
``permission_mode`` and, on every turn-scoped event (all but SessionStart), ``turn_id``: the host
turn as a string (``"0"`` when there is none, as the host's Codex bridge sends). Codex only ever
names ``Bash``, ``apply_patch`` and ``mcp__…`` tools: a host ``bash`` call becomes ``Bash`` with
``tool_input`` ``{command}`` only; a host ``write`` or ``edit`` becomes ``apply_patch`` whose
``command`` is a small patch envelope naming the file and the new text (an approximation of the
patch Codex would send). Other tools keep the catalog's name and their arguments. PostToolUse
``tool_response`` is a plain string: a shell call's output as the command wrote it. Stdin has no
trailing newline.

Output (§2.4): exit 0 with empty stdout is success; stdout starting with ``{`` or ``[`` must be a
JSON object or the run fails (the action proceeds); plain text is context on SessionStart,
SubagentStart and UserPromptSubmit, a failed run on Stop and SubagentStop, ignored elsewhere. Exit 2
blocks only with a non-empty stderr (the reason); with empty stderr the run fails. Any other exit
code, a timeout or a crash fails the run, fail-open. Fields an event does not support fail the run
(fail-open) — on PreToolUse ``permissionDecision: "ask"``, ``decision: "approve"``,
``continue: false``, ``stopReason`` and ``suppressOutput``; ``updatedInput`` needs ``allow``.
PermissionRequest's reserved ``updatedInput`` / ``updatedPermissions`` / ``interrupt`` make the
run a failed hook whose answer is void, never an allow or a deny: measured on Codex 0.171.0 (vendor
lane, permission_reserved), the hook is reported Failed and the decision falls to Codex's automatic
reviewer (here: to the host's approval). A ``hookSpecificOutput`` whose ``hookEventName`` is missing or names another event
does not parse, so the run fails. PostToolUse ``decision: "block"`` (or exit 2) replaces the tool
result with the reason. On Stop and SubagentStop, ``continue: false`` from any hook beats a
continuation.

Matchers (§2.5): absent, ``""`` or ``"*"`` match everything; a matcher made only of ASCII letters,
digits, ``_`` and ``|`` is a list of exact names (a hyphen or a comma sends it to the regex path);
anything else is an unanchored regular expression in the Rust ``regex`` dialect, run by RE2 in
linear time (`patterns.compile_rust`) — look-arounds and back-references are rejected as invalid,
as Rust rejects them, and an invalid matcher never matches. The
matcher is tested against the tool name and its aliases (``apply_patch`` also answers to ``Edit``
and ``Write``). UserPromptSubmit, Stop, PreCompact, PostCompact, Interrupt and SessionEnd ignore
matchers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from compat_adapter.vendor import (
    OUTPUT_CAP, AnswerDraft, HookAnswer, JsonTextError, Moment, cause_text, compile_rust, encode_json, flatten,
    keyed_subject, merge_answers, plain, rust_read, rust_trim, vendor_call,
)

if TYPE_CHECKING:
    from compat_adapter.vendor import ProcessOutcome

__all__ = ("ALIASES", "CodexDialect", "DIALECT", "patch_text")

SUBJECT_KEY: Mapping[str, str] = {
    "PreToolUse": "tool_name",
    "PermissionRequest": "tool_name",
    "PostToolUse": "tool_name",
    "SessionStart": "source",
    "SubagentStart": "agent_type",
    "SubagentStop": "agent_type",
}
#: Other names a canonical tool name answers to in matchers.
ALIASES: Mapping[str, tuple[str, ...]] = {"apply_patch": ("Edit", "Write")}

_TURNLESS = frozenset({"SessionStart", "SessionEnd"})
_TOOL_EVENTS = frozenset({"PreToolUse", "PermissionRequest", "PostToolUse"})
_PLAIN_CONTEXT = frozenset({"SessionStart", "SubagentStart", "UserPromptSubmit"})
_PLAIN_INVALID = frozenset({"Stop", "SubagentStop"})
_STOPS = frozenset({"Stop", "SubagentStop"})
#: Events that read the common fields (continue, stopReason, systemMessage, suppressOutput).
_COMMON_FIELDS = frozenset({"SessionStart", "PreCompact", "PostCompact", "UserPromptSubmit",
                            "SubagentStop", "Stop", "PostToolUse", "SubagentStart"})
_BLOCKING_DECISION = frozenset({"PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop"})
_CONTEXT_EVENTS = frozenset({"PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart",
                             "SubagentStart"})
_OBSERVATIONAL = frozenset({"Interrupt", "SessionEnd"})

_EXACT = re.compile(r"[A-Za-z0-9_|]+")


def patch_text(host_tool: str, args: Mapping[str, Any]) -> str:
    """A Codex-style patch envelope for a host ``write`` or ``edit`` call: the file and new text."""
    path = str(args.get("path") or args.get("file_path") or "")
    if host_tool == "write":
        body = str(args.get("content") or "")
        lines = [f"*** Add File: {path}", *(f"+{line}" for line in body.splitlines())]
    else:
        old = str(args.get("old") or args.get("old_string") or "")
        new = str(args.get("new") or args.get("new_string") or "")
        lines = [f"*** Update File: {path}", "@@",
                 *(f"-{line}" for line in old.splitlines()),
                 *(f"+{line}" for line in new.splitlines())]
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"]) + "\n"


class CodexDialect:
    """Codex's hook protocol. Stateless; one shared instance serves every hook."""

    vendor: str = "codex"
    trailing_newline: bool = False
    output_cap: int = OUTPUT_CAP

    # ── matchers ────────────────────────────────────────────────────────────────────────────

    def validate_matcher(self, event: str, matcher: str | None) -> str | None:
        if event not in SUBJECT_KEY or matcher in (None, "", "*"):
            return None
        assert matcher is not None
        if _EXACT.fullmatch(matcher):
            return None
        compiled = compile_rust(matcher)
        if isinstance(compiled, str):
            return f"invalid matcher {matcher!r}: {compiled}"
        return None

    def matches(self, event: str, matcher: str | None, subject: str | None) -> bool:
        if event not in SUBJECT_KEY or matcher in (None, "", "*"):
            return True
        assert matcher is not None
        value = subject or ""
        candidates = (value, *ALIASES.get(value, ()))
        if _EXACT.fullmatch(matcher):
            names = matcher.split("|")
            return any(c in names for c in candidates)
        if self.validate_matcher(event, matcher) is not None:
            return False
        compiled = compile_rust(matcher)
        return not isinstance(compiled, str) and any(compiled.search(c) for c in candidates)

    def subject(self, moment: Moment) -> str | None:
        return keyed_subject(self, moment, SUBJECT_KEY)

    # ── payload ─────────────────────────────────────────────────────────────────────────────

    def _tool(self, facts: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        host_name = str(facts.get("tool_name") or "")
        raw = facts.get("tool_input")
        args: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        name, vendor_args = vendor_call(self.vendor, host_name, args)
        if name == "Bash":
            command = args.get("command")
            return "Bash", {"command": command if isinstance(command, str) else ""}
        if name in ("apply_patch", "Edit", "Write"):
            return "apply_patch", {"command": patch_text(host_name, args)}
        return name, vendor_args

    def payload(self, moment: Moment) -> dict[str, Any]:
        event = moment.event
        facts = flatten({**moment.logged, **moment.fields})
        out: dict[str, Any] = {
            "session_id": moment.session_id,
            "transcript_path": moment.transcript_path,
            "cwd": moment.cwd,
            "hook_event_name": event,
        }
        if event == "SessionEnd":
            # Measured on Codex 0.171.0: SessionEnd names neither the model nor the mode.
            out["reason"] = str(facts.get("reason") or facts.get("stop_reason") or "other")
            return out
        out["model"] = str(facts.get("model") or "")
        out["permission_mode"] = str(facts.get("permission_mode") or "default")
        if event not in _TURNLESS:
            out["turn_id"] = str(moment.turn) if moment.turn is not None else "0"
        if event in _TOOL_EVENTS:
            name, tool_input = self._tool(facts)
            out["tool_name"] = name
            if event != "PermissionRequest":
                out["tool_use_id"] = str(facts.get("tool_use_id") or "")
            else:
                tool_input = {**tool_input, "description": str(facts.get("reason") or "")}
            out["tool_input"] = tool_input
            if event == "PostToolUse":
                out["tool_response"] = self._tool_response(name, facts)
        elif event == "UserPromptSubmit":
            out["prompt"] = str(facts.get("prompt") or "")
        elif event in _STOPS:
            out["stop_hook_active"] = bool(facts.get("stop_hook_active", False))
            out["last_assistant_message"] = facts.get("last_assistant_message")
            if event == "SubagentStop":
                out["agent_id"] = str(facts.get("agent_id") or "")
                out["agent_type"] = str(facts.get("agent_type") or "")
                out["agent_transcript_path"] = facts.get("agent_transcript_path")
        elif event == "SubagentStart":
            out["agent_id"] = str(facts.get("agent_id") or "")
            out["agent_type"] = str(facts.get("agent_type") or "")
        elif event == "SessionStart":
            out["source"] = str(facts.get("source") or "startup")
        elif event in ("PreCompact", "PostCompact"):
            out["trigger"] = str(facts.get("trigger") or "auto")
        return out

    def _tool_response(self, name: str, facts: Mapping[str, Any]) -> Any:
        raw = facts.get("tool_response")
        if isinstance(raw, Mapping):
            return plain(raw)
        if name == "Bash" and isinstance(facts.get("stdout"), str):
            # Codex 0.171.0 sends a shell call's output as one plain string, as the command wrote it.
            return facts["stdout"] + str(facts.get("stderr") or "")
        return "" if raw is None else str(raw)

    def encode(self, payload: Mapping[str, Any]) -> bytes:
        return encode_json(payload, newline=self.trailing_newline)

    # ── decoding ────────────────────────────────────────────────────────────────────────────

    def decode(self, event: str, outcome: ProcessOutcome) -> HookAnswer:
        if outcome.exit_code is None:
            return HookAnswer(failed=cause_text(outcome))
        code = outcome.exit_code
        if code == 2:
            return self._exit2(event, outcome)
        if code != 0:
            return HookAnswer(failed=f"hook exited with code {code}")
        # Codex is Rust: str::trim, then serde_json (64-bit integers, 128 levels deep at most).
        text = rust_trim(outcome.stdout)
        if not text:
            return HookAnswer()
        if text[0] in "{[":
            try:
                value = rust_read(text)
            except JsonTextError as exc:
                return HookAnswer(failed=f"{event} hook returned invalid JSON output: {exc}")
            if not isinstance(value, dict):
                return HookAnswer(failed=f"{event} hook returned JSON that is not an object")
            return self._from_json(event, value)
        if event in _PLAIN_CONTEXT:
            return HookAnswer(additional_context=(text,))
        if event in _PLAIN_INVALID:
            return HookAnswer(failed=f"{event} hook returned plain text; it must print JSON")
        return HookAnswer(ignored=("plain stdout",))

    def _exit2(self, event: str, outcome: ProcessOutcome) -> HookAnswer:
        reason = rust_trim(outcome.stderr)
        if not reason:
            return HookAnswer(failed=(f"{event} hook exited with code 2 but did not write a "
                                      "blocking reason to stderr"))
        if event in ("PreToolUse", "PermissionRequest"):
            return HookAnswer(decision="deny", reason=reason)
        if event == "PostToolUse":
            return HookAnswer(decision="block", reason=reason, updated_output=reason)
        if event in ("UserPromptSubmit", "Stop", "SubagentStop"):
            return HookAnswer(decision="block", reason=reason)
        return HookAnswer(failed=f"{event} hook exited with code 2, but {event} cannot block")

    def _from_json(self, event: str, obj: Mapping[str, Any]) -> HookAnswer:
        if event in _OBSERVATIONAL:
            return HookAnswer(ignored=tuple(obj))
        d = AnswerDraft()
        self._universal(event, obj, d)
        self._decision(event, obj, d)
        specific = obj.get("hookSpecificOutput")
        if specific is not None:
            if not isinstance(specific, Mapping):
                d.problems.append(f"{event} hook returned hookSpecificOutput that is not an object")
            elif specific.get("hookEventName") != event:
                d.problems.append(f"{event} hook returned hookSpecificOutput for event "
                                  f"{specific.get('hookEventName')!r}")
            else:
                self._specific(event, specific, d)
        for key in obj:
            if key not in ("continue", "stopReason", "systemMessage", "suppressOutput", "decision",
                           "reason", "hookSpecificOutput"):
                d.ignored.append(key)
        if d.problems:
            if d.decision == "deny" and d.failed:
                return HookAnswer(decision="deny", reason=d.reason, failed=d.failed)
            return HookAnswer(failed="; ".join(d.problems))
        if event in _STOPS and d.stop:
            # "Marked stopped" takes precedence over any continuation.
            d.decision, d.reason = "none", None
        return d.freeze()

    def _universal(self, event: str, obj: Mapping[str, Any], d: AnswerDraft) -> None:
        keep_going = obj.get("continue", True)
        stop_reason = obj.get("stopReason")
        suppress = obj.get("suppressOutput", False)
        message = obj.get("systemMessage")
        if isinstance(message, str):
            d.system_message = message
        if event in ("PreToolUse", "PermissionRequest"):
            if keep_going is not True:
                d.problems.append(f"{event} hook returned unsupported continue:false")
            if stop_reason is not None:
                d.problems.append(f"{event} hook returned unsupported stopReason")
            if suppress is not False:
                d.problems.append(f"{event} hook returned unsupported suppressOutput")
            return
        if event == "PostToolUse" and suppress is not False:
            d.problems.append("PostToolUse hook returned unsupported suppressOutput")
        elif "suppressOutput" in obj:
            d.ignored.append("suppressOutput")
        if keep_going is False:
            # SubagentStart: parsed, no effect; PostToolUse: the turn goes on (measured, Codex
            # 0.169.0 exec, lane case codex:post_halt), although the docs say it stops processing.
            if event in ("SubagentStart", "PostToolUse"):
                d.ignored.append("continue")
                if event == "PostToolUse" and isinstance(stop_reason, str):
                    # The turn goes on, yet the terminal UI shows "Hook stopped" with the reason
                    # (measured, 0.171.0, lane case codex:post_halt read off the screen): a reason
                    # to show without a stop.
                    d.stop_reason = stop_reason
            else:
                d.stop = True
                d.stop_reason = stop_reason if isinstance(stop_reason, str) else None

    def _decision(self, event: str, obj: Mapping[str, Any], d: AnswerDraft) -> None:
        decision = obj.get("decision")
        if decision is None:
            return
        reason = obj.get("reason")
        reason = reason if isinstance(reason, str) and reason.strip() else None
        if event == "PreToolUse":
            if decision == "block":
                d.decision, d.reason = "deny", reason
            else:
                d.problems.append(f"PreToolUse hook returned unsupported decision:{decision}")
        elif event in _BLOCKING_DECISION:
            if decision != "block":
                d.problems.append(f"{event} hook returned unsupported decision:{decision}")
            elif reason is None:
                d.problems.append(f"{event} hook returned decision:block without a reason")
            else:
                d.decision, d.reason = "block", reason
                if event == "PostToolUse":
                    d.updated_output = reason  # the feedback replaces the tool result
        else:
            d.ignored.append("decision")

    def _specific(self, event: str, hso: Mapping[str, Any], d: AnswerDraft) -> None:
        used = {"hookEventName"}
        if event in _CONTEXT_EVENTS:
            used.add("additionalContext")
            d.context(hso.get("additionalContext"), "additionalContext")
        if event == "PreToolUse":
            used |= {"permissionDecision", "permissionDecisionReason", "updatedInput"}
            self._pre_tool(hso, d)
        elif event == "PermissionRequest":
            used.add("decision")
            self._permission(hso.get("decision"), d)
        elif event == "PostToolUse" and "updatedMCPToolOutput" in hso:
            used.add("updatedMCPToolOutput")
            d.problems.append("PostToolUse hook returned unsupported updatedMCPToolOutput")
        d.ignored.extend(f"hookSpecificOutput.{k}" for k in hso if k not in used)

    def _pre_tool(self, hso: Mapping[str, Any], d: AnswerDraft) -> None:
        choice = hso.get("permissionDecision")
        if choice is not None:
            if choice in ("allow", "deny"):
                reason = hso.get("permissionDecisionReason")
                d.decision = choice
                d.reason = reason if isinstance(reason, str) else None
            else:
                d.problems.append(f"PreToolUse hook returned unsupported permissionDecision:{choice}")
        if "updatedInput" in hso:
            new = hso["updatedInput"]
            if choice != "allow":
                d.problems.append("PreToolUse hook returned updatedInput without permissionDecision:allow")
            elif not isinstance(new, Mapping):
                d.problems.append("PreToolUse hook returned updatedInput that is not an object")
            elif "command" in new and not isinstance(new["command"], str):
                d.problems.append("PreToolUse hook returned updatedInput whose command is not a string")
            else:
                d.updated_input = plain(new)

    def _permission(self, decision: Any, d: AnswerDraft) -> None:
        if decision is None:
            return
        if not isinstance(decision, Mapping) or decision.get("behavior") not in ("allow", "deny"):
            d.problems.append("PermissionRequest hook returned a decision without behavior allow or deny")
            return
        reserved = [k for k in ("updatedInput", "updatedPermissions", "interrupt") if k in decision]
        message = decision.get("message")
        if reserved:
            # The run fails and its answer is void: whoever approves next decides (Codex: its reviewer).
            d.problems.append(f"PermissionRequest hook returned reserved field(s): {', '.join(reserved)}")
            return
        d.decision = decision["behavior"]
        d.reason = message if isinstance(message, str) else None

    # ── merging ─────────────────────────────────────────────────────────────────────────────

    def merge(self, event: str, answers: Sequence[HookAnswer]) -> HookAnswer:
        def stopped_wins(merged: HookAnswer) -> HookAnswer:
            if event in _STOPS and merged.stop and merged.decision != "none":
                return replace(merged, decision="none", reason=None)
            return merged

        return merge_answers(answers, finish=stopped_wins)


#: The one stateless instance its unit names.
DIALECT = CodexDialect()
