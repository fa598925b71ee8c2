"""Kimi Code: 16 hook events with Claude Code's names, ``[[hooks]]`` in ``config.toml``.

Data only: Kimi's own facts, from which :mod:`vendors.kimi.spec` derives its table from Claude
Code's (:mod:`vendors.claude.table`) for the fourteen events both have. Kimi's hook runner
(``packages/agent-core-v2/src/features/externalHooks`` in the release's bundle, 2.1.0) is a narrow
reading of Claude's protocol: a hook blocks only by exit 2 (stderr the reason) or by
``hookSpecificOutput.permissionDecision: "deny"`` on exit 0, and only PreToolUse and Stop act on a
block; nothing else a hook prints is read (no context, no rewrite, no continue), and errors,
timeouts and other exit codes let the call go on.
"""

from compat_adapter.vendor import MatcherEngine, RulesSpec, ToolName, degrade
from vendors.claude.table import AGENT, ASK_USER_QUESTION, BASH, CLAUDE_ONLY, EXIT_PLAN_MODE, GLOB, GREP, SKILL

#: The release these rows follow (vendors/kimi/lane.pin).
RELEASE = "2.1.0"

#: Kimi's hook events that Claude's table has rows for (its settings schema lists sixteen; the
#: other two, PermissionResult and Interrupt, are unserved here).
KIMI_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "UserPromptSubmit", "Stop",
               "StopFailure", "SessionStart", "SessionEnd", "SubagentStart", "SubagentStop", "PreCompact",
               "PostCompact", "Notification")
OWN_UNSERVED = (
    ("PermissionResult", "Kimi Code fires it after a permission prompt is answered; no row here serves it yet."),
    ("Interrupt", "Kimi Code fires it when the user interrupts a turn; no row here serves it yet."),
    # Named by the release's HOOK_EVENT_TYPES beside the sixteen its settings schema documents.
    ("UserPromptQueued", "Kimi Code fires it for a prompt queued while a turn runs; the host queues none."),
    ("TurnStarted", "Kimi Code fires it as a turn starts; no row here serves it yet."),
    ("SessionHeartbeat", "Kimi Code fires it now and then while a session lives (not awaited); no row serves it."),
    ("TaskStarted", "Kimi Code fires it when a background task starts; the host has no background tasks."),
)

_OWN = degrade(
    "own-translation",
    "No Kimi Code bridge exists on the host, so this project speaks Kimi's dialect itself, read from its "
    "release (runHook.ts, matchHooks.ts): exit 2 or permissionDecision deny blocks, on PreToolUse and Stop "
    "only; every other output is ignored. Each row is Claude Code's, so its losses are worded as Claude's.",
)
_PAYLOAD = degrade(
    "payload-field-missing",
    "Kimi sends client_type, tool_call_id (not tool_use_id), tool_output, the prompt as content parts and "
    "is_steer (measured, 2.1.0); this dialect sends them in Kimi's names, with the host's call id and the "
    "prompt as one text part, and none of Claude's transcript_path, permission_mode, prompt_id or effort.",
)

TOOLS = (
    BASH,
    ToolName(vendor="Read", host="read", arguments=(("path", "path"),)),
    ToolName(vendor="Write", host="write", arguments=(("path", "path"),)),
    ToolName(vendor="Edit", host="edit"),
    GLOB, GREP, AGENT, ASK_USER_QUESTION, SKILL, EXIT_PLAN_MODE,
)

RULES = RulesSpec(
    default_sources=("AGENTS.md",),
    note="Read byte for byte and injected as a sourced user message at every agent start: context, never policy.",
)

#: Kimi's own facts over Claude's table (vendors/kimi/spec.py derives the table from them).
OWN = {
    "id": "kimi",
    "aliases": ("kimi-code",),
    **CLAUDE_ONLY,
    "project_dir_env": (),
    "shell": "sh",
    "default_timeout_s": 30.0,
    "handler_kinds": frozenset({"command"}),
    "http_losses": (),
    # matchHooks.ts: "" matches all, anything else is `new RegExp(matcher).test(value)`; an invalid
    # pattern matches nothing.
    "matchers": MatcherEngine(engine="js-regex", names=None, names_events=None, match_all=("",)),
    "bad_matcher": "skips-hook",
    "dedupes_commands": True,
    "rules": RULES,
    "plugin_runtime": ("Kimi Code plugins, skills and MCP servers are out of scope; only the command hooks "
                       "of a config.toml and AGENTS.md are adapted."),
    "tools": TOOLS,
    "measured_on": RELEASE,
    # A prompt hook's stdout reaches the model inside the user's message (measured).
    "context_role": "user",
}
OWN_LOSSES = (_OWN, _PAYLOAD)
_UNAWAITED = degrade(
    "timing-differs",
    "Kimi starts these hooks and does not wait for them (fireAndForget in the release), where this host "
    "waits for each: a slow hook here delays the session, and under Kimi it may never finish.",
)
_KILLED = degrade(
    "timing-differs",
    "Kimi starts a post-tool hook without waiting for it and hands it the turn's abort signal: when the model "
    "answers and the turn ends before the hook's process is up, Kimi kills the hook before writing its input "
    "(runHook, 2.1.0; measured: with the lane's model answering at once the hook never ran, with 3 s of model "
    "latency it did), where this host runs it to the end.",
)
#: Row losses of Kimi's own, by event. (After a Stop hook blocks, Kimi runs no Stop hook again until
#: the turn ends, and neither does this host: its voice's stop_again, lane case kimi:stop_block_exit2.)
OWN_ROW_LOSSES = {"PostToolUse": (_KILLED,), "PostToolUseFailure": (_KILLED,), "SubagentStop": (_UNAWAITED,),
                  "PermissionRequest": (_UNAWAITED,)}
#: Where Kimi reads less of an answer than Claude's row does (runHook.ts and its callers, 2.1.0):
#: SessionStart and SubagentStart run by ``trigger`` and drop the result, PostToolUse,
#: PostToolUseFailure and PermissionRequest by ``fireAndForget``; so no context, decision or
#: rewrite of theirs reaches anything, under Kimi as here (observe rows, with no observe-only loss).
#: A prompt hook's stdout is the one context Kimi reads, and it cannot block (not a triggerBlock).
#: What Kimi tests a matcher against where Claude's row has none or another key (matchHooks.ts).
OWN_SUBJECTS = {"UserPromptSubmit": "prompt", "SubagentStart": "agent_name", "SubagentStop": "agent_name",
                "StopFailure": "error_type"}
OWN_BLOCKING = {"SessionStart": "observe", "SubagentStart": "observe", "PostToolUse": "observe",
                "PostToolUseFailure": "observe", "PermissionRequest": "observe", "UserPromptSubmit": "context"}
#: Claude's losses about what a hook's answer does, moot where Kimi reads nothing of it (SubagentStart's
#: scope-differs is about where its context lands); where Kimi reads context only, its decision losses.
ANSWER_LOSSES = frozenset({"message-provenance", "output-field-ignored", "output-rewrite-ignored",
                           "decision-narrowed", "input-rewrite-ignored", "scope-differs"})
DECISION_LOSSES = frozenset({"output-field-ignored", "decision-narrowed"})
NOT_KIMI = "Kimi Code 2.1.0 has no such hook event, so a hook on it never runs."
