"""The Claude Code dialect (v2.1.2xx), as `vendor-protocols.md` §1 describes it.

Payload: see :mod:`vendors.claude.payload`. Stdin ends with a newline.

Output: read the JavaScript way (`compat_adapter.jsontext`): on exit 0, stdout is ``trim``-med and is JSON only
when it then starts with ``{`` and ``JSON.parse`` takes it (a BOM, a raw U+2028, a 5000-digit
integer or deep nesting included); up to 10 MiB of it is read. Anything else is plain text, which
is context on UserPromptSubmit, UserPromptExpansion and SessionStart (worded apart from a JSON
additionalContext: ``HookAnswer.printed``) and ignored elsewhere. A
parsed object that breaks the schema (wrong types, unknown decision values, a
``hookSpecificOutput`` without the right ``hookEventName``) is a non-blocking hook error. Exit 2
blocks on the events that can block (deny on PreToolUse, block elsewhere), with the JSON's blocking
reason if any, else stderr; it is ignored on PermissionRequest and Notification and only shown to
the user on the rest. Any other exit is a non-blocking error ("Failed with non-blocking status
code: <first stderr line>") unless stdout is a schema-valid object, which then decides. A run with
no exit code (timeout, signal, spawn failure) renders no decision. WorktreeCreate fails on any
non-zero exit.

Matchers: absent, ``""`` or ``"*"`` match everything; a matcher made only of letters, digits,
``_``, ``-``, spaces, ``,`` and ``|`` is a list of exact names split on ``|`` and ``,`` (FileChanged
and StopFailure use the narrower ``[A-Za-z0-9_|]`` set); anything else is an unanchored JavaScript
regular expression (``RegExp.test``, run in linear time by `patterns.compile_js`). Events without
matcher support ignore the matcher.

Merge: deny > ask > allow > none (block ranks with deny); contexts in config order; the last
rewrite given wins (Claude's own "last to finish" is not deterministic).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from compat_adapter.vendor import (
    OUTPUT_CAP, AnswerDraft, HookAnswer, Moment, cause_text, compile_js, first_line, js_lines, js_object, js_problem,
    js_trim, keyed_subject, merge_answers, plain,
)
from vendors.claude.payload import TOOL_EVENTS, ClaudePayload

if TYPE_CHECKING:
    from compat_adapter.vendor import ProcessOutcome

__all__ = ("ClaudeDialect", "DIALECT")

#: The payload key each matcher-capable event tests its matcher against.
SUBJECT_KEY: Mapping[str, str] = {
    **{event: "tool_name" for event in TOOL_EVENTS},
    "SessionStart": "source",
    "Setup": "trigger",
    "InstructionsLoaded": "load_reason",
    "UserPromptExpansion": "command_name",
    "Notification": "notification_type",
    "SubagentStart": "agent_type",
    "SubagentStop": "agent_type",
    "StopFailure": "error",
    "ConfigChange": "source",
    "DirectoryAdded": "source",
    "FileChanged": "file_path",
    "PreCompact": "trigger",
    "PostCompact": "trigger",
    "Elicitation": "mcp_server_name",
    "ElicitationResult": "mcp_server_name",
    "SessionEnd": "reason",
}

#: Events whose top-level ``decision: "block"`` blocks.
TOP_LEVEL_BLOCK = frozenset({"UserPromptSubmit", "UserPromptExpansion", "PostToolUse",
                             "PostToolUseFailure", "PostToolBatch", "Stop", "SubagentStop",
                             "ConfigChange", "PreCompact", "TaskCreated"})
#: Events where exit 2 blocks (decision "block").
EXIT2_BLOCK = frozenset({"UserPromptSubmit", "UserPromptExpansion", "PostToolUse",
                         "PostToolUseFailure", "PostToolBatch", "Stop", "SubagentStop", "TaskCreated",
                         "TaskCompleted", "TeammateIdle", "ConfigChange", "PreCompact",
                         "WorktreeCreate"})
#: Events where exit 2 denies.
EXIT2_DENY = frozenset({"PreToolUse", "Elicitation", "ElicitationResult"})
#: Events where exit 2 means nothing at all.
EXIT2_IGNORED = frozenset({"PermissionRequest", "Notification"})
#: Events where plain stdout on exit 0 becomes context.
PLAIN_CONTEXT = frozenset({"UserPromptSubmit", "UserPromptExpansion", "SessionStart"})

_WIDE_EXACT = re.compile(r"[A-Za-z0-9_\- ,|]+")
_NARROW_EXACT = re.compile(r"[A-Za-z0-9_|]+")
_NARROW_EVENTS = frozenset({"FileChanged", "StopFailure"})

_UNIVERSAL = frozenset({"continue", "stopReason", "suppressOutput", "systemMessage", "decision",
                        "reason", "hookSpecificOutput", "terminalSequence"})

class ClaudeDialect(ClaudePayload):
    """Claude Code's hook protocol. Stateless; one shared instance serves every hook."""

    vendor: str = "claude"
    trailing_newline: bool = True
    output_cap: int = OUTPUT_CAP
    #: Matcher-capable events and the payload key each tests.
    subject_keys: ClassVar[Mapping[str, str]] = SUBJECT_KEY
    #: Whether Stop/SubagentStop ``additionalContext`` keeps the agent working (Claude: yes).
    stop_context_continues: ClassVar[bool] = True
    #: Events where the vendor goes on after a ``continue: false`` (measured with the vendor lane,
    #: Claude Code 2.1.332 -p, cases *_halt; TaskCreated and StopFailure as documented): read as an
    #: ignored field.
    continue_ignored: ClassVar[frozenset[str]] = frozenset({
        "SessionStart", "InstructionsLoaded", "CwdChanged", "FileChanged", "PostToolUseFailure",
        "PermissionRequest", "SessionEnd", "TaskCreated", "StopFailure"})
    #: The pre-tool ``permissionDecision`` values the vendor knows; any other is a schema break.
    pre_tool_decisions: ClassVar[tuple[str, ...]] = ("allow", "deny", "ask", "defer")
    #: Events whose top-level ``decision: "block"`` blocks; elsewhere ``decision`` is an ignored field.
    top_level_block: ClassVar[frozenset[str]] = TOP_LEVEL_BLOCK

    # ── matchers ────────────────────────────────────────────────────────────────────────────

    def _exact(self, event: str, matcher: str) -> tuple[str, ...] | None:
        """The exact names a literal matcher lists, or None when it is a regular expression."""
        if event in _NARROW_EVENTS:
            if _NARROW_EXACT.fullmatch(matcher):
                return tuple(matcher.split("|"))
            return None
        if _WIDE_EXACT.fullmatch(matcher):
            return tuple(t.strip() for t in re.split(r"[|,]", matcher) if t.strip())
        return None

    def validate_matcher(self, event: str, matcher: str | None) -> str | None:
        if event not in self.subject_keys or matcher in (None, "", "*"):
            return None
        assert matcher is not None
        if self._exact(event, matcher) is not None:
            return None
        return js_problem(matcher)

    def matches(self, event: str, matcher: str | None, subject: str | None) -> bool:
        if event not in self.subject_keys or matcher in (None, "", "*"):
            return True
        assert matcher is not None
        value = subject or ""
        names = self._exact(event, matcher)
        if names is not None:
            return value in names
        compiled = compile_js(matcher)
        return not isinstance(compiled, str) and compiled.search(value)

    def subject(self, moment: Moment) -> str | None:
        value = keyed_subject(self, moment, self.subject_keys)
        # FileChanged matchers name files, not paths.
        return os.path.basename(value) if moment.event == "FileChanged" and value is not None else value

    # ── decoding ────────────────────────────────────────────────────────────────────────────

    def parse_stdout(self, text: str) -> dict[str, Any] | None:
        """The JSON object on stdout, or None when stdout is plain text by Claude's rule.

        Claude Code is JavaScript: stdout is ``trim``-med (a BOM or NBSP goes too) and, when it
        starts with ``{``, read with ``JSON.parse`` (no digit limit, no depth limit).
        """
        body = js_trim(text)
        return js_object(body) if body.startswith("{") else None

    def read_json(self, event: str, obj: Mapping[str, Any]) -> AnswerDraft:
        """Everything the object says for `event`; schema breaks go to ``problems``."""
        d = AnswerDraft()
        for key in obj:
            if key not in _UNIVERSAL:
                d.ignored.append(key if key != "permissionDecision" else "permissionDecision (top level)")
        self._read_continue(event, obj, d)
        message = obj.get("systemMessage")
        if isinstance(message, str):
            d.system_message = message
        elif message is not None:
            d.problems.append("systemMessage must be a string")
        if "suppressOutput" in obj:
            if not isinstance(obj["suppressOutput"], bool):
                d.problems.append("suppressOutput must be a boolean")
            d.ignored.append("suppressOutput")
        if "terminalSequence" in obj:
            d.ignored.append("terminalSequence")
        self._read_decision(event, obj, d)
        specific = obj.get("hookSpecificOutput")
        if specific is not None:
            if not isinstance(specific, Mapping):
                d.problems.append("hookSpecificOutput must be an object")
            else:
                named = specific.get("hookEventName")
                if named == event:
                    self._read_specific(event, specific, d)
                else:
                    self._wrong_event(event, named, specific, d)
        return d

    def _wrong_event(self, event: str, named: Any, specific: Mapping[str, Any], d: AnswerDraft) -> None:
        # Claude validates hookSpecificOutput against the event: a missing or foreign
        # hookEventName makes the whole output invalid (a non-blocking hook error).
        d.problems.append(f"hookSpecificOutput.hookEventName is {named!r}, expected {event!r}")

    def _read_continue(self, event: str, obj: Mapping[str, Any], d: AnswerDraft) -> None:
        keep_going = obj.get("continue", True)
        reason = obj.get("stopReason")
        if reason is not None and not isinstance(reason, str):
            d.problems.append("stopReason must be a string")
            reason = None
        if not isinstance(keep_going, bool):
            d.problems.append("continue must be a boolean")
        elif keep_going is False and event in self.continue_ignored:
            d.ignored.append("continue")
        elif keep_going is False:
            d.stop = True
            d.stop_reason = reason

    def _read_decision(self, event: str, obj: Mapping[str, Any], d: AnswerDraft) -> None:
        decision = obj.get("decision")
        reason = obj.get("reason")
        if reason is not None and not isinstance(reason, str):
            d.problems.append("reason must be a string")
            reason = None
        if decision is None:
            return
        if event == "PreToolUse":
            # Deprecated spelling of allow / deny.
            legacy = {"approve": "allow", "block": "deny"}
            mapped = legacy.get(decision) if isinstance(decision, str) else None
            if mapped is None:
                d.problems.append(f"decision {decision!r} is not approve or block")
                return
            d.decision = mapped  # type: ignore[assignment]
            d.reason = reason
        elif event in self.top_level_block:
            if decision == "block":
                d.decision = "block"
                d.reason = reason
            elif decision == "approve":
                d.ignored.append("decision:approve")
            else:
                d.problems.append(f"decision {decision!r} is not block")
        else:
            d.ignored.append("decision")

    def _read_specific(self, event: str, hso: Mapping[str, Any], d: AnswerDraft) -> None:
        used = {"hookEventName", "additionalContext"}
        if event == "PreToolUse":
            used |= {"permissionDecision", "permissionDecisionReason", "updatedInput"}
            self._pre_tool(hso, d)
        elif event == "PermissionRequest":
            used.add("decision")
            self._permission(hso.get("decision"), d)
        elif event == "PostToolUse":
            used |= {"updatedToolOutput", "updatedMCPToolOutput"}
            for key in ("updatedMCPToolOutput", "updatedToolOutput"):
                if key in hso:
                    d.updated_output = plain(hso[key])
        elif event in ("Elicitation", "ElicitationResult"):
            used |= {"action", "content"}
            action = hso.get("action")
            if action is not None:
                if action not in ("accept", "decline", "cancel"):
                    d.problems.append(f"action {action!r} is not accept, decline or cancel")
                else:
                    d.answers = {"action": action, "content": plain(hso.get("content"))}
                    d.decision = "allow" if action == "accept" else "deny"
        elif event == "MessageDisplay" and "displayContent" in hso:
            used.add("displayContent")
            d.updated_output = hso["displayContent"]
        elif event == "WorktreeCreate" and "worktreePath" in hso:
            used.add("worktreePath")
            d.updated_output = hso["worktreePath"]
        d.context(hso.get("additionalContext"), "additionalContext")
        if (self.stop_context_continues and event in ("Stop", "SubagentStop")
                and d.additional_context and d.decision == "none"):
            # Stop feedback continues the turn like a block, labelled as feedback.
            d.decision = "block"
        d.ignored.extend(f"hookSpecificOutput.{k}" for k in hso if k not in used)

    def _pre_tool(self, hso: Mapping[str, Any], d: AnswerDraft) -> None:
        if "permissionDecision" in hso:
            choice = hso["permissionDecision"]
            if choice not in self.pre_tool_decisions:
                *others, last = self.pre_tool_decisions
                d.problems.append(f"permissionDecision {choice!r} is not {', '.join(others)} or {last}")
            elif choice == "defer":
                # defer only works under -p with one tool call; here it is no decision.
                d.decision, d.reason = "none", None
                d.ignored.append("permissionDecision:defer")
            else:
                # hookSpecificOutput wins over a top-level decision.
                d.decision = choice
                reason = hso.get("permissionDecisionReason")
                d.reason = reason if isinstance(reason, str) else None
        self._rewrite(hso, d)

    def _rewrite(self, hso: Mapping[str, Any], d: AnswerDraft) -> None:
        if "updatedInput" in hso:
            new = hso["updatedInput"]
            if isinstance(new, Mapping):
                d.updated_input = plain(new)
            else:
                d.problems.append("updatedInput must be an object")

    def _permission(self, decision: Any, d: AnswerDraft) -> None:
        if decision is None:
            return
        if not isinstance(decision, Mapping):
            d.problems.append("decision must be an object")
            return
        behavior = decision.get("behavior")
        if behavior not in ("allow", "deny"):
            d.problems.append(f"decision.behavior {behavior!r} is not allow or deny")
            return
        d.decision = behavior
        message = decision.get("message")
        d.reason = message if isinstance(message, str) else None
        if isinstance(decision.get("updatedInput"), Mapping):
            d.updated_input = plain(decision["updatedInput"])
        if "updatedPermissions" in decision:
            d.ignored.append("decision.updatedPermissions")
        if behavior == "deny" and decision.get("interrupt") is True:
            d.stop = True

    def _invalid(self, event: str, d: AnswerDraft) -> HookAnswer:
        return HookAnswer(failed=f"{event} hook error: invalid output: {'; '.join(d.problems)}")

    def _plain(self, event: str, text: str) -> HookAnswer:
        if not js_trim(text):
            return HookAnswer()
        if event in PLAIN_CONTEXT:
            # Context all the same, worded apart from a JSON additionalContext (the voice's `printed`).
            return HookAnswer(additional_context=(js_trim(text),), printed=(js_trim(text),))
        if event == "WorktreeCreate":
            lines = [js_trim(line) for line in js_lines(text) if js_trim(line)]
            return HookAnswer(updated_output=lines[-1])
        return HookAnswer(ignored=("plain stdout",))

    def exit2_message(self, outcome: ProcessOutcome, obj: Mapping[str, Any] | None,
                      d: AnswerDraft | None) -> str | None:
        """The block message of an exit-2 run: the JSON's blocking reason, else stderr as written
        (Claude Code 2.1.332 keeps its trailing newline: lane cases deny_exit2_newline and
        stop_block_exit2_newline)."""
        if d is not None and d.decision in ("deny", "block") and d.reason:
            return d.reason
        return outcome.stderr if js_trim(outcome.stderr) else None

    def _exit2(self, event: str, outcome: ProcessOutcome, obj: Mapping[str, Any] | None) -> HookAnswer:
        if event in EXIT2_IGNORED:
            return HookAnswer(ignored=("exit code 2",))
        d = self.read_json(event, obj) if obj is not None else None
        if d is not None and d.problems:
            d = None  # schema-invalid JSON still blocks, with stderr as the reason
        message = self.exit2_message(outcome, obj, d)
        if event in EXIT2_DENY or event in EXIT2_BLOCK:
            if d is None or event in ("Elicitation", "ElicitationResult"):
                d = AnswerDraft()
            # A reason the JSON gave is worded as a JSON answer's (measured, 2.1.332: lane cases
            # deny_exit2_json, deny_exit2_json_block, stop_block_exit2_json): no command quoted.
            from_json = bool(d.reason) and d.decision in ("deny", "block") and message == d.reason
            d.decision = "deny" if event in EXIT2_DENY else "block"
            d.reason = message
            if event in ("Elicitation", "ElicitationResult"):
                d.answers = {"action": "decline"}
            return replace(d.freeze(), json_reason=from_json)
        # Events that cannot block: stderr is only shown to the user.
        return HookAnswer(system_message=js_trim(outcome.stderr) or None)

    def decode(self, event: str, outcome: ProcessOutcome) -> HookAnswer:
        if outcome.exit_code is None:
            why = cause_text(outcome)
            if event == "WorktreeCreate":
                return HookAnswer(decision="block", reason=why, failed=why)
            return HookAnswer(failed=why)
        obj = self.parse_stdout(outcome.stdout)
        code = outcome.exit_code
        if code == 0:
            if obj is None:
                return self._plain(event, outcome.stdout)
            d = self.read_json(event, obj)
            return self._invalid(event, d) if d.problems else d.freeze()
        if code == 2:
            return self._exit2(event, outcome, obj)
        return self._other_exit(event, outcome, obj)

    def _other_exit(self, event: str, outcome: ProcessOutcome, obj: Mapping[str, Any] | None) -> HookAnswer:
        if event == "WorktreeCreate":
            why = first_line(outcome.stderr) or f"exit code {outcome.exit_code}"
            return HookAnswer(decision="block", reason=why, failed=f"WorktreeCreate hook failed: {why}")
        if obj is not None:
            # A schema-valid object decides whatever the exit code.
            d = self.read_json(event, obj)
            if not d.problems:
                return d.freeze()
        line = first_line(outcome.stderr) or f"exit code {outcome.exit_code}"
        return HookAnswer(failed=f"Failed with non-blocking status code: {line}")

    # ── merging ─────────────────────────────────────────────────────────────────────────────

    def merge(self, event: str, answers: Sequence[HookAnswer]) -> HookAnswer:
        return merge_answers(answers)


#: The one stateless instance its unit names.
DIALECT = ClaudeDialect()
