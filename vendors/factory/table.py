"""Factory Droid: 9 hook events in Claude Code's shape, its own tool names, AGENTS.md.

Data only: Droid's own facts, from which :mod:`vendors.factory.spec` derives its table from Claude
Code's (:mod:`vendors.claude.table`). Droid copies Claude's
hook protocol (nested ``hooks`` tables, stdin JSON, exit 2, ``hookSpecificOutput``), so each of its
rows is Claude's row of the same event, taken as Claude's table states it (route, seams, blocking,
losses), without Claude's official-bridge alternative: the host's Claude Code bridge would hand a
Droid hook Claude's tool names (``Bash``), which a Droid matcher (``Execute``) never matches.

The events are the ones the release knows (Droid 0.215.0: the hook-event enum compiled into its
binary, ``PreToolUse … SessionEnd``); Claude's other events are unserved here because Droid has no
such event. What the vendor lane measured on 0.215.0 (``droid exec`` with a BYOK model at the
scripted server, driven as ``droid exec -o stream-jsonrpc``) is stated where it differs from Claude.
"""

from compat_adapter.vendor import RulesSpec, ToolName, degrade
from vendors.claude.table import CLAUDE_ONLY, GLOB, GREP, READ, TASK

#: The release these rows follow (the vendor lane's pin, vendors/factory/lane.pin).
RELEASE = "0.215.0"

#: Droid 0.215.0's hook events (its binary's enum, in its order).
DROID_EVENTS = ("PreToolUse", "PostToolUse", "Notification", "UserPromptSubmit", "Stop", "SubagentStop",
                "PreCompact", "SessionStart", "SessionEnd")

_OWN = degrade(
    "own-translation",
    "No official Droid bridge exists on the host, so this project speaks Droid's dialect itself: it is "
    "Claude Code's protocol, and each row is Claude Code's, so its losses are worded as Claude's and hold "
    "for Droid as the vendor lane measured them.",
)
_NO_TOOL_USE_ID = degrade(
    "payload-field-missing",
    "Droid sends no tool_use_id, prompt_id or effort (measured, 0.215.0), and neither does this dialect; "
    "Droid's Stop elapsed_time, message_id and tool_execution_count, its SessionEnd message_count and "
    "session_duration_ms, and its permission_mode on session events are not known here and are absent.",
)

# Droid's tool ids (the tools `droid exec` offers the model, 0.215.0); the first name listed for a
# host tool is the one a payload carries.
TOOLS = (
    ToolName(vendor="Execute", host="bash"),
    READ,
    ToolName(vendor="Create", host="write", arguments=(("file_path", "path"),)),
    ToolName(vendor="Edit", host="edit",
             arguments=(("file_path", "path"), ("old_str", "old"), ("new_str", "new"))),
    GLOB, GREP, TASK,
)

RULES = RulesSpec(
    default_sources=("AGENTS.md",),
    note=("Read byte for byte and injected as a sourced user message at every agent start, as Droid "
          "reads AGENTS.md: context for the model, never tool policy."),
)

#: What the lane measured of Droid where it is not Claude, as losses of the rows it touches.
OWN_ROW_LOSSES = {
    "UserPromptSubmit": (degrade(
        "timing-differs",
        "Droid 0.215.0 runs UserPromptSubmit hooks only in its JSON-RPC session, for every prompt as this "
        "host does: droid exec --output-format stream-jsonrpc with a prompt (measured, vendor lane) or with "
        "--input-format stream-jsonrpc, the mode Factory's SDKs drive and its own process transport spawns "
        "(its bundle: the session's processUserMessage is the one caller). Plain droid exec never fires it "
        "(measured with text, json and stream-json output; its stream-json input runner calls no such hook "
        "either, per its bundle), so for a run started that way a hook that blocks or adds context here "
        "acts where Droid would not have run it."),
        degrade(
            "output-field-ignored",
            "A decision:block rejects nothing, under Droid 0.215.0 (its hook runner reads no decision on "
            "UserPromptSubmit; measured, vendor lane prompt_block) as here: exit 2 or continue:false reject "
            "the prompt before any model call, under Droid and here, and \"UserPromptSubmit operation blocked by hook: "
            "<reason>\" (or the stopReason) reaches the person as the host's notice, not as Droid's own "
            "transcript line."),),
}
#: Claude's losses of a row that Droid words anew above (Claude's text would say what Droid does not).
REWORDED = {"UserPromptSubmit": frozenset({"output-field-ignored"})}


#: Droid runs every hook with the hook's own timeout, else 60 s (0.215.0: its executeHooks,
#: ``T.timeout||60`` seconds, the hooks of one event in parallel), on every event alike: none of
#: Claude's per-event defaults (SessionEnd's 1.5 s, UserPromptSubmit's 30 s) nor Claude's shared
#: SessionEnd budget, whose loss is moot here (Droid awaits its SessionEnd hooks at the end of
#: `droid exec` with no budget of their own: its executeSessionEndHooks).
TIMEOUT_S = 60.0

#: Droid's own facts over Claude's table (vendors/factory/spec.py derives the table from them).
OWN = {
    "default_timeout_s": TIMEOUT_S,
    "id": "factory",
    "aliases": ("droid", "factory-droid"),
    **CLAUDE_ONLY,
    # Measured on 0.215.0 (the lane's recorder): Droid exports the project under its own name and
    # Claude's, and no session variable.
    "project_dir_env": ("FACTORY_PROJECT_DIR", "CLAUDE_PROJECT_DIR"),
    # Droid's hook settings name one handler type (its /hooks editor and schema: command).
    "handler_kinds": frozenset({"command"}),
    "http_losses": (),
    # Measured: context reaches the model as a user message of its own (SessionStart, PostToolUse).
    "context_role": "user",
    "rules": RULES,
    "plugin_runtime": ("Droid plugins and its other settings (MCP servers, custom droids, commandAllowlist, "
                       "skills) are out of scope; only its command hooks and AGENTS.md are adapted."),
    "tools": TOOLS,
    "measured_on": RELEASE,
}
#: Droid's losses besides Claude's first (the scrubbed environment, true of every vendor's runner).
OWN_LOSSES = (_OWN, _NO_TOOL_USE_ID)
#: Why Claude's other events are no rows here.
NOT_DROID = ("Droid 0.215.0 has no such hook event (its binary's enum has nine), so a hook on it never runs.")
