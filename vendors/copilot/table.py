"""GitHub Copilot (CLI): 25 hook events from `.github/hooks/*.json`, instruction files and AGENTS.md.

Data only. Copilot reads two formats: its own camelCase events (14) and the Claude-compatible
("VS Code") format, the same events spelled PascalCase (11), which switches the payload to
snake_case and PreToolUse/PermissionRequest matchers to Claude's rules. The host has no official
Copilot bridge, so nineteen events go through this project's own Copilot bridge, five are
translated natively onto host seams and one is observed only. Both spellings of an event share
its losses (named once below).
"""

from compat_adapter.model import (
    HookVar,
    MatcherEngine,
    EventRow,
    Route,
    RulesSpec,
    Service,
    ToolName,
    degrade,
)
from vendors import shared

_OWN = degrade(
    "own-translation",
    "No official Copilot bridge exists on the host, so this project speaks the Copilot dialect "
    "itself: payload, matcher, exit codes and output fields are our re-implementation.",
)
_UNMAPPED_TOOLS = degrade(
    "matcher-narrowed",
    "Matchers are anchored as in Copilot and tool names are translated to the host's, but tools "
    "the host does not have (web_fetch, web_search, MCP tools) never match.",
)

# On the stop events only (the others carry no transcript path), but named once here.
_NO_TRANSCRIPT = degrade(
    "payload-field-missing",
    "transcriptPath on agentStop (transcript_path on Stop) is absent when the host keeps no transcript file.",
)

# True of every row: the one hook runner (and the bridges) scrub the environment.
_SCRUBBED_ENV = degrade(
    "env-differs",
    "Parent variables whose names contain KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL, and every "
    "DSH_* variable, are removed from the hook's environment, where Copilot passes them on, so "
    "a hook that reads an API token finds nothing.",
)

# Losses of one event, true of both its spellings (camelCase and PascalCase).
_PRE_TOOL = (
    shared.REWRITE_NESTED,
    shared.REWRITE_IN_HISTORY,
    degrade("decision-narrowed",
            "allow does not pre-approve the call: it only hands it to the next listener, so "
            "a later policy may still ask for approval."),
    degrade("decision-narrowed",
            "ask is sent to the host's approval, whose outcome is only allowed or rejected, "
            "so no typed user feedback comes back to the model with a refusal as it does in "
            "Copilot."),
    _UNMAPPED_TOOLS,
)

_POST_TOOL = (
    degrade("output-rewrite-ignored",
            "modifiedResult is recorded but the model still sees the tool's own result."),
    _UNMAPPED_TOOLS,
)

_POST_FAILURE = (
    degrade("scope-differs",
            "The host reports successes and failures on one post-execute seam, so this runs "
            "only for results the host flags as errors."),
)

_SESSION_START = (
    degrade("timing-differs",
            "The hook runs while the host creates the agent, so a slow hook delays the first "
            "turn, and its context lands as a sourced message for the agent's next step."),
    degrade("payload-field-missing",
            "initialPrompt is absent because the agent exists before any prompt does."),
)

_SESSION_END = (
    degrade("timing-differs",
            "agent/disposed fires whenever an agent leaves the host's registry, reloads and "
            "teardown included, which is broader than the end of a Copilot session."),
    degrade("payload-field-missing",
            "The host's dispose notice has no cause, so reason cannot tell complete, error, "
            "abort, timeout and user_exit apart."),
)

_PROMPT = (
    degrade("timing-differs",
            "The hook runs at the pre-step that claims new messages, so prompts queued "
            "together before one step reach it as a single run."),
    degrade("output-field-ignored",
            "Only additionalContext is read, as in Copilot (added after the prompt in a "
            "<system_reminder>); any other field of the answer is dropped, so a prompt cannot be blocked."),
)

#: userPromptSubmitted as Copilot CLI 1.0.102 answers it (vendor lane: prompt_block, prompt_modified).
_PROMPT_SUBMITTED = (
    _PROMPT[0],
    degrade("output-field-ignored",
            "A decision \"block\" rejects the prompt with no model call, as in Copilot, but the host's "
            "reject carries no text: Copilot's policy_blocked warning with the reason, and its exit "
            "code 1, reach no one; the audit keeps the reason."),
    degrade("scope-differs",
            "modifiedPrompt replaces the prompt the model reads, as in Copilot, as the step enters it; "
            "listeners on the inbox (agent/inbox/inserted) have already seen the original text."),
)

_AGENT_STOP = (
    degrade("message-provenance",
            "A block's reason is steered into another step of the same turn as a message "
            "sourced to the hook, where Copilot sends it as the prompt of a new turn."),
)

_SUBAGENT_STOP = (
    degrade("observe-only",
            "The child has already settled when the host reports its end, so decision "
            "\"block\" cannot make it continue."),
    degrade("output-rewrite-ignored",
            "modifiedResponse is recorded but the parent receives the child's own answer."),
    degrade("payload-field-missing",
            "agentName, agentDisplayName and agentDescription are absent from the payload."),
)

_ERROR = (
    degrade("scope-differs",
            "Only errors the host raises inside an agent's turn or step are seen; failures "
            "outside an agent turn never reach the hook."),
    degrade("payload-field-missing",
            "The host reports an error as a message only, so error.name is always \"Error\", "
            "error.stack is empty, errorContext is empty and recoverable is always false."),
)

_PRE_COMPACT = (
    degrade("timing-differs",
            "Fires on the durable compaction/start record, after compaction has begun rather "
            "than just before it."),
    degrade("payload-field-missing",
            "customInstructions is always an empty string: the host's compaction record carries none."),
)

#: The host tools whose calls Copilot asks permission for: a shell command (bash measured) and a file
#: write or edit (create measured); a read (view, grep, glob) asks nothing, nor does the host's
#: subagent or question tool.
PERMISSION_TOOLS = ("bash", "pwsh", "write", "edit")

_PERMISSION = (
    degrade("payload-field-missing",
            "permissionSuggestions is always empty: the host has no rules of its own to suggest."),
    _UNMAPPED_TOOLS,
)

EVENTS = (
    EventRow(
        event="preToolUse",
        route=Route.BUILTIN_BRIDGE,
        seams=("tools/pre-execute",),
        point="tools/pre-execute",
        blocking="verdict",
        matcher_subject="toolName",
        degradations=_PRE_TOOL,
    ),
    EventRow(
        event="postToolUse",
        route=Route.BUILTIN_BRIDGE,
        seams=("tools/post-execute",),
        point="tools/post-execute",
        fires_on="completed",  # measured: exit 3 fires postToolUse (a signal death: as CodeBuddy, unmeasured)
        blocking="context",
        matcher_subject="toolName",
        degradations=_POST_TOOL,
    ),
    EventRow(
        event="postToolUseFailure",
        route=Route.BUILTIN_BRIDGE,
        seams=("tools/post-execute",),
        point="tools/post-execute",
        fires_on="incomplete",
        blocking="context",
        degradations=_POST_FAILURE,
    ),
    EventRow(
        event="sessionStart",
        route=Route.BUILTIN_BRIDGE,
        seams=("agent/created",),
        point="agent/created",
        services=(Service.AGENTS,),
        blocking="context",
        degradations=_SESSION_START,
    ),
    EventRow(
        event="sessionEnd",
        route=Route.BUILTIN_BRIDGE,
        seams=("agent/disposed",),
        point="agent/disposed",
        degradations=_SESSION_END,
    ),
    EventRow(
        event="userPromptSubmitted",
        route=Route.BUILTIN_BRIDGE,
        seams=("agent/pre-step",),
        point="agent/pre-step/transform",
        blocking="verdict",
        degradations=_PROMPT_SUBMITTED,
    ),
    EventRow(
        event="agentStop",
        route=Route.BUILTIN_BRIDGE,
        seams=("agent/turn-stopping",),
        point="agent/turn-stopping",
        services=(Service.AGENTS,),
        blocking="continue",
        degradations=_AGENT_STOP,
    ),
    EventRow(
        event="subagentStart",
        route=Route.BUILTIN_BRIDGE,
        seams=("subagent/start",),
        point="subagent/start",
        services=(Service.SUBAGENTS,),
        blocking="context",
        matcher_subject="agentName",
        degradations=(
            degrade("scope-differs",
                    "additionalContext reaches the child only when it runs in-process and is live at "
                    "the start notice, and it is injected as a message rather than prepended to the "
                    "subagent's prompt."),
            degrade("matcher-narrowed",
                    "The host gives no agent name, so agentName is absent and a matcher cannot tell "
                    "one kind of subagent from another."),
            degrade("payload-field-missing",
                    "agentName, agentDisplayName and agentDescription are absent; only the child's "
                    "id is known."),
        ),
    ),
    EventRow(
        event="subagentStop",
        route=Route.BUILTIN_BRIDGE,
        seams=("subagent/end",),
        point="subagent/end",
        services=(Service.SUBAGENTS,),
        degradations=_SUBAGENT_STOP,
    ),
    EventRow(
        event="errorOccurred",
        route=Route.BUILTIN_BRIDGE,
        seams=("agent/error",),
        point="agent/error",
        degradations=_ERROR,
    ),
    EventRow(
        event="preCompact",
        route=Route.NATIVE_TRANSLATE,
        seams=("session/event",),
        point="compaction/start",
        matcher_subject="trigger",
        degradations=_PRE_COMPACT,
    ),
    EventRow(
        event="userPromptTransformed",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/pre-step",),
        point="agent/pre-step/transform",
        blocking="verdict",
        degradations=(
            degrade("scope-differs",
                    "Only the prompt's text is replaced, as the step enters it; listeners on the "
                    "inbox (agent/inbox/inserted) have already seen the original text."),
            degrade("payload-field-missing",
                    "The host does no prompt expansion of its own, so transformedPrompt is the "
                    "submitted text itself."),
        ),
    ),
    EventRow(
        event="notification",
        route=Route.NATIVE_SEAM,
        seams=("agent/status",),
        point="agent/status",
        fires_on="idle",
        matcher_subject="notification_type",
        degradations=(
            degrade("timing-differs",
                    "The host publishes only idle/running status flips: this fires as idle_prompt when "
                    "an agent turns idle, instead of on Copilot's typed notifications."),
            degrade("matcher-narrowed",
                    "Only idle_prompt is ever reported, so a matcher naming another notification type "
                    "selects nothing."),
            degrade("observe-only",
                    "additionalContext from this hook is recorded but not injected into the agent."),
        ),
    ),
    EventRow(
        event="permissionRequest",
        route=Route.NATIVE_TRANSLATE,
        # Copilot CLI 1.0.102 runs it for every call it asks permission for (a shell command, a
        # file write; not a read), after preToolUse left the call undecided, even under
        # --allow-all-tools; not for a preToolUse ask, nor after a preToolUse allow (vendor lane).
        seams=("tools/pre-execute",),
        point="tools/permission",
        tools=PERMISSION_TOOLS,
        blocking="verdict",
        matcher_subject="toolName",
        degradations=_PERMISSION,
    ),
)

# The Claude-compatible ("VS Code") format: the same events spelled PascalCase, with a snake_case
# payload (ISO timestamp, Claude tool names), Claude's matcher rules on PreToolUse and
# PermissionRequest, and Claude's hookSpecificOutput read on PreToolUse alone (measured on Copilot CLI
# 1.0.102). Stop is agentStop; there is no PascalCase subagentStart, notification or userPromptTransformed.

#: Each PascalCase event, in the table's order, with the camelCase row whose seams, points and losses
#: it shares (vendors/copilot/spec.py derives its row, the matcher keyed on the snake_case field);
#: UserPromptSubmit, which reads context only where userPromptSubmitted may block and rewrite, has
#: a row of its own (CLAUDE_PROMPT).
CLAUDE_SPELLING = (("SessionStart", "sessionStart"), ("SessionEnd", "sessionEnd"), ("UserPromptSubmit", None),
                   ("PreToolUse", "preToolUse"), ("PermissionRequest", "permissionRequest"),
                   ("PostToolUse", "postToolUse"), ("PostToolUseFailure", "postToolUseFailure"),
                   ("Stop", "agentStop"), ("SubagentStop", "subagentStop"), ("PreCompact", "preCompact"),
                   ("ErrorOccurred", "errorOccurred"))
#: The payload field a Claude-format matcher reads, by the camelCase one.
SNAKE_SUBJECTS = {"toolName": "tool_name"}
CLAUDE_PROMPT = EventRow(
    event="UserPromptSubmit",
    route=Route.BUILTIN_BRIDGE,
    seams=("agent/pre-step",),
    point="agent/pre-step",
    blocking="context",
    degradations=_PROMPT,
)

TOOLS = (
    ToolName(vendor="bash", host="bash"),
    ToolName(vendor="powershell", host="pwsh"),
    ToolName(vendor="edit", host="edit", arguments=(("old_str", "old"), ("new_str", "new"))),
    ToolName(vendor="create", host="write", arguments=(("file_text", "content"),)),
    ToolName(vendor="view", host="read"),
    ToolName(vendor="grep", host="grep"),
    ToolName(vendor="glob", host="glob"),
    ToolName(vendor="task", host="subagent"),
    ToolName(vendor="ask_user", host="ask_user_question"),
)

RULES = RulesSpec(
    formats=("markdown", "copilot-instructions-frontmatter"),
    default_sources=(
        ".github/copilot-instructions.md",
        ".github/instructions/**/*.instructions.md",
        "AGENTS.md",
    ),
    note=(
        "Carried byte for byte and injected as a sourced user message at every agent start, as "
        "guidance for the model and never as tool policy. The applyTo frontmatter travels as text; "
        "it does not limit a file to the paths it names."
    ),
)

#: Copilot events with no route here, and why (vendor-protocols §5.2-5.3).
UNSERVED = (
    # Copilot CLI 1.0.102 lists hooks.preMcpToolCall among its file-configurable hooks ("Runs
    # before an MCP tool is invoked"; read from the release, not driven: the lane has no MCP server).
    ("preMcpToolCall", "it runs before an MCP tool is invoked, and the host has no MCP tools, so no "
                       "call would ever fire it"),
    # In the release's HookType enum, but not among the hooks a hook file can configure: "Discovery
    # emits the file-configurable subset; SDK callbacks additionally support callback-only events".
    ("postResult", "a callback-only event of the Copilot SDK (\"Runs after an agent result is produced\"); "
                   "Copilot CLI 1.0.102 reads it from no hook file, so it never runs a command hook of it"),
    ("prePRDescription", "a callback-only event of the Copilot SDK (\"Runs before a pull request "
                         "description is generated\"); Copilot CLI 1.0.102 reads it from no hook file, so "
                         "it never runs a command hook of it"),
)

#: Copilot CLI's facts; vendors/copilot/spec.py adds its rows in both spellings.
OWN = {
    "id": "copilot",
    "aliases": ("github-copilot",),
    "losses": (_SCRUBBED_ENV, _OWN, _NO_TRANSCRIPT),
    "default_timeout_s": 30.0,
    "concurrent": False,
    "shell": "bash",
    # Measured on Copilot CLI 1.0.102, for a camelCase and a PascalCase file alike: every hook gets
    # the repository folder under both names, and the folder its hooks file is in.
    "project_dir_env": ("COPILOT_PROJECT_DIR", "CLAUDE_PROJECT_DIR"),
    "hook_vars": (HookVar(name="COPILOT_HOOK_DIR", source="hook-dir"),),
    "rules": RULES,
    "plugin_runtime": (
        "Copilot SDK hooks are callbacks inside a client session in the SDK's own language; they "
        "cannot run in the host, so only Copilot's JSON command hooks and instruction files are "
        "adapted."
    ),
    "tools": TOOLS,
    "unserved": UNSERVED,
    "measured_on": "1.0.102",  # the vendor lane's pin (scripts/vendor_lane.sh)
    # What Copilot CLI does, as data (compat_adapter.model.VendorSpec says what each field means).
    "dedupes_commands": False,
    "clamps_event_timeouts": False,
    "handler_kinds": frozenset({"command", "http"}),
    "http_losses": (),  # Copilot has no settings-level URL or variable policy
    # Literal name lists only in the Claude-format tool events; "**" matches everything too.
    "matchers": MatcherEngine(engine="anchored-regex", names=r"[A-Za-z0-9_|]+",
                              names_events=("PreToolUse", "PermissionRequest"), match_all=("**",)),
    "bad_matcher": "skips-hook",  # the built-in bridge reproduces the skip
    "exit2_blocks": True,
    "failure_denies": ("preToolUse", "PreToolUse"),  # any failing preToolUse hook denies the call
    "rules_policy": False,
    "plugin_host": False,
}
