"""Tencent WorkBuddy / CodeBuddy Code: 27 hook events, Claude-shaped `settings.json` hooks, CODEBUDDY.md.

Data only. WorkBuddy desktop has no public hook API, so every declaration is read as a hook config
for the CodeBuddy engine, which Tencent documents as Claude-compatible. Five events go through the
host's official Claude Code bridge; of the other twenty-two, ten can only be observed here although
CodeBuddy acts on their answer (native-seam), and twelve are translated by this project. A row that
lands where Claude's does is derived from Claude's row (``derive_row``), with CodeBuddy's own losses.
"""

from compat_adapter.vendor import (
    BridgeSpec, EventRow, HookVar, MatcherEngine, Route, RulesSpec, Service, ToolName, VendorSpec, degrade, derive_row,
)
from vendors import shared
from vendors.claude.table import (
    ASK_USER_QUESTION, BASH, CLAUDE, EDIT, GLOB, GREP, READ, TASK, TODO_WRITE, WRITE,
)
from vendors.surface import CLAUDE_BRIDGE

# True of every row: the dialect is assumed, not published.
# continue:false on rows whose rule ignores it. Measured with the lane (CodeBuddy 2.163.0, -p): it
# stops the agent on PreToolUse and is ignored on SessionStart, PostToolUse, Notification and
# InstructionsLoaded (vendors/workbuddy/dialect.py reads it as ignored there). The rows below cannot be
# fired in -p; CodeBuddy documents continue as a field of every hook's output, as in Claude Code.
_HALT_DOCUMENTED = degrade(
    "output-field-ignored",
    "continue:false is audited and ignored, so the session goes on, where CodeBuddy documents continue "
    "as a field of every hook's output, as in Claude Code, which stops there (not verifiable here; on "
    "the events the lane could fire besides PreToolUse, CodeBuddy ignored it).",
)
_NO_PUBLIC_API = degrade(
    "no-public-api",
    "WorkBuddy desktop publishes no hook API, so this declaration is read as a hook config for the "
    "CodeBuddy engine, which Tencent documents as Claude-compatible.",
)

# The Claude Code bridge's losses for CodeBuddy hooks: it runs them with Claude's rules.
_PROJECT_DIR = degrade(
    "env-differs",
    "Of the project variables the bridge exports only CLAUDE_PROJECT_DIR; CODEBUDDY_PROJECT_DIR and "
    "CODEBUDDY_PLUGIN_ROOT are not set, so a hook reading them sees nothing.",
)
_MODIFIED_INPUT = degrade(
    "input-rewrite-ignored",
    "The Claude bridge never reads CodeBuddy's modifiedInput (and only logs Claude's updatedInput), so "
    "no answer rewrites a tool call.",
)
_SERIAL = degrade(
    "timing-differs",
    "The bridge runs matching hooks one at a time in config order and repeats an identical command, "
    "where CodeBuddy runs them in parallel and coalesces identical commands.",
)
_BASH_C = degrade(
    "env-differs",
    "The bridge runs the command with bash -c, as the host's shell executor does, where CodeBuddy "
    "uses the user's $SHELL (else /bin/sh); portable scripts behave the same, shell-specific syntax may not.",
)
_EXIT_2_REASON = degrade(
    "exit-code-differs",
    "On exit 2 the bridge takes the reason from stderr and ignores stdout, where CodeBuddy reads it "
    "from stdout first (a JSON reason or plain text) and falls back to stderr.",
)
_BRIDGE_PAYLOAD = degrade(
    "payload-field-missing",
    "transcript_path is an empty string and permission_mode is absent.",
)
_HOST_TOOL_PAYLOAD = degrade(
    "payload-field-missing",
    "tool_name and tool_input come from the host as they are (bash, edit, a path argument instead of "
    "file_path), not in CodeBuddy's vocabulary.",
)
_TOOL_MATCHERS = degrade(
    "matcher-narrowed",
    "Tool names in matchers are rewritten to the host's (Bash and execute_command→bash, Write→write, "
    "Edit→edit …), but tools the host lacks, such as WebFetch, web_search or any mcp__ tool, never match.",
)
_REGEX_MATCHERS = degrade(
    "matcher-narrowed",
    "CodeBuddy treats a matcher as a case-sensitive unanchored regex, but the Claude bridge takes a "
    "plain name list as exact names, so Write selects only that tool here and no longer NotebookWrite.",
)


#: Stated once for the rows each is true of; grading lists them on every such row.
BRIDGE = BridgeSpec(
    package=CLAUDE_BRIDGE,
    dialect="claude-code",
    losses=(_PROJECT_DIR, _MODIFIED_INPUT, _SERIAL, _BASH_C),
    block_losses=(_EXIT_2_REASON,),
    tool_losses=(_HOST_TOOL_PAYLOAD, _TOOL_MATCHERS, _REGEX_MATCHERS),
)

# Losses shared by rows this project translates itself.
_NOT_BRIDGED = degrade(
    "own-translation",
    "The Claude Code bridge does not implement this event, so this project mounts its own listener "
    "with CodeBuddy's rules.",
)
_HOST_ONLY_TOOLS = degrade(
    "matcher-narrowed",
    "Host tools with no CodeBuddy name reach the hook under their host name, and CodeBuddy-only tools "
    "(WebFetch, web_search, mcp__ tools) never occur, so matchers naming them never fire.",
)
_AT_SESSION_CREATION = degrade(
    "timing-differs",
    "The host fixes one working directory when a session is created and never changes it, so this "
    "fires once, at session creation, instead of on a change.",
)
_TODO_ONLY = degrade(
    "scope-differs",
    "Only items of the host's todo list are visible; there are no team tasks behind them.",
)


# True of every row: the one hook runner (and the bridges) scrub the environment.
_SCRUBBED_ENV = degrade(
    "env-differs",
    "Parent variables whose names contain KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL, and every "
    "DSH_* variable, are removed from the hook's environment, where CodeBuddy passes them on, so "
    "a hook that reads an API token finds nothing.",
)


# CodeBuddy's own wording on the rows this project translates, and where the host puts it instead.
_REMINDER_IN_PROMPT = degrade(
    "message-provenance",
    "Context reaches the model in CodeBuddy's own <system-reminder data-role=\"hook\"> wrapper inside the "
    "user's prompt message, before the prompt, as CodeBuddy puts it; but the host's messages are text, so "
    "it is a paragraph of that message where CodeBuddy adds a part of its own.",
)

# CodeBuddy's two MCP elicitation events stand in on the same host fact: an agent turning idle.
_ELICITATION_ON_IDLE = {
    "route": Route.NATIVE_SEAM,
    "seams": ("agent/status",),
    "point": "agent/status",
    "fires_on": "idle",
    "matcher_subject": "mcp_server_name",
}

EVENTS = (
    derive_row(CLAUDE, "SessionStart",
        degradations=(
            _REMINDER_IN_PROMPT,
            degrade("timing-differs",
                    "It fires when the agent is created, before the first prompt, where CodeBuddy runs it "
                    "after UserPromptSubmit; its context waits for the first prompt, as in CodeBuddy."),
        ),
        official={
            "degradations": (
                degrade("output-field-ignored",
                        "Plain stdout, which CodeBuddy appends to the context, is dropped; only "
                        "hookSpecificOutput.additionalContext is injected."),
                degrade("message-provenance",
                        "The context is queued as a user message sourced from the Claude bridge."),
                _BRIDGE_PAYLOAD,
            ),
        },
    ),
    derive_row(CLAUDE, "UserPromptSubmit",
        timeout_s=None,
        degradations=(
            _REMINDER_IN_PROMPT,
            degrade("output-field-ignored",
                    "A block rejects the prompt with no model call, as in CodeBuddy, and \"UserPromptSubmit "
                    "operation blocked by hook:\\n<reason>\", which CodeBuddy gives as the turn's result, "
                    "reaches the person as the host's notice, not as the vendor's own transcript line (a session "
                    "record; on DSH a row in the web UI's chat, a notice line in headless --json, an SDK "
                    "event, and the turn's end)."),
        ),
        official={
            "timeout_s": None,
            "degradations": (
                degrade("decision-narrowed",
                        "CodeBuddy's documented block, {\"continue\": false, \"reason\": …}, does not reject "
                        "the prompt here; only exit 2 or the deprecated decision \"block\" does."),
                degrade("output-field-ignored",
                        "Plain stdout is not added to the context, and a block's reason never reaches the "
                        "user because the host's reject carries none."),
                _BRIDGE_PAYLOAD,
            ),
        },
    ),
    derive_row(CLAUDE, "PreToolUse",
        degradations=(
            degrade("decision-narrowed",
                    "allow lets the call through without skipping the host's own guards; ask goes to the "
                    "host's approval, where a person may refuse a call CodeBuddy allows up front "
                    "(--allowedTools); with nobody to answer, the call runs, as codebuddy -p runs it "
                    "(measured, lane case workbuddy:ask)."),
            # After an ask, CodeBuddy runs the PreToolUse hooks a second time when the call executes
            # (its hook cache keeps no ask, read in 2.163.0; measured, lane case workbuddy:ask: they
            # fire twice) and a deny then blocks it: so does the host, once the approval allowed the
            # call (routing/reasked.py; DSH and the embedded host).
            degrade("timing-differs",
                    "The PreToolUse hooks that answered ask run a second time when the host's approval "
                    "allows the call, just before it runs; CodeBuddy runs them as the call executes. On a "
                    "host without an approval seam they run once."),
            degrade("scope-differs",
                    "continue:false stops the agent before the call runs, as in CodeBuddy, but CodeBuddy then "
                    "runs its Stop hooks and here the turn ends without them."),
            degrade("message-provenance",
                    "After a continue:false the unrun call keeps the hook's reason as its result in the "
                    "history, which the model reads if the session goes on; CodeBuddy's model reads nothing "
                    "of it in the run."),
            # Measured, CodeBuddy Code 2.163.0 (lane case workbuddy:pre_halt): its -p JSON and the SDK's
            # stream-json carry no message to the person, and the host shows none (CodeBuddyVoice.stopped).
            shared.REWRITE_NESTED,
            _HOST_ONLY_TOOLS,
        ),
        official={
            "degradations": (
                degrade("decision-narrowed",
                        "deny blocks and ask goes to the host's approval, but allow does not bypass the "
                        "permission check as it does in CodeBuddy, and with nobody to answer the ask the "
                        "host refuses the call, which codebuddy -p runs (lane case workbuddy:ask)."),
                degrade("output-field-ignored",
                        "systemMessage is dropped, and continue:false, which stops the tool in CodeBuddy, is "
                        "only recorded while the call goes ahead."),
            ),
        },
    ),
    derive_row(CLAUDE, "PostToolUse",
        fires_on="completed",  # measured: a Bash command that exits 3 or is killed fires PostToolUse
        degradations=(
            degrade("output-rewrite-ignored", "updatedToolOutput never replaces the result."),
            degrade("payload-field-missing",
                    "tool_response is CodeBuddy's exit metadata with exitCode from the host's result "
                    "(from its error flag when it states none), while sandboxDenied is always false and "
                    "stdoutBytesTruncated and stderrBytesTruncated are always 0. As on every event here, "
                    "version names the CodeBuddy release this dialect follows (2.163.0), not a running "
                    "CodeBuddy; generation_id is derived from the session id; model is the model of the "
                    "host's last request, an empty string until the first one."),
            _HOST_ONLY_TOOLS,
        ),
        official={
            "degradations": (
                degrade("output-rewrite-ignored",
                        "additionalContext is appended, but updatedToolOutput never replaces the result, "
                        "for built-in and MCP tools alike."),
                degrade("payload-field-missing", "tool_response is the result's text flattened into one string."),
            ),
        },
    ),
    derive_row(CLAUDE, "Stop",
        degradations=(
            degrade("message-provenance",
                    "A block continues with CodeBuddy's own text (<user_query>Stop hook "
                    "feedback:\\n[<cmd>]: <reason></user_query>) steered into the same turn, as a user "
                    "message that is not marked isMeta (continue:false ends the turn with no feedback, as "
                    "in CodeBuddy)."),
            # Measured, CodeBuddy Code 2.163.0 -p (lane case stop_block_always): a Stop hook that
            # blocks every time loops with no cap until the process is killed (killed after 420 s:
            # 186 Stop blocks, 187 model calls, still looping; the lane runs it without --max-turns).
            degrade("decision-narrowed",
                    "A Stop block past the host's step bound for one turn (64 steps on the embedded host) "
                    "has no effect: the turn ends there, where CodeBuddy (run without --max-turns) has no "
                    "cap and a hook that always blocks keeps it looping until the process is killed "
                    "(measured: 186 blocks in 420 s, still looping)."),
            degrade("timing-differs",
                    "So a Stop hook that always blocks fires at most once per host step of the turn, where "
                    "CodeBuddy fires it again for as long as the process lives."),
            # Measured, CodeBuddy Code 2.163.0 (lane case workbuddy:stop_halt): neither -p JSON nor the
            # SDK's stream-json says a word of a continue:false, and the host shows none either.
        ),
        official={
            "degradations": (
                degrade("no-loop-guard",
                        "The bridge has no consecutive-block cap, so a hook that always blocks keeps "
                        "forcing steps."),
                degrade("payload-field-missing", "stop_hook_active is always false."),
                degrade("message-provenance",
                        "The continuation is a steered message sourced from the Claude bridge."),
            ),
        },
    ),
    derive_row(CLAUDE, "SessionEnd",
        timeout_s=None,
        degradations=(
            _NOT_BRIDGED,
            # Measured, CodeBuddy Code 2.163.0 (lane case session_end; with and without a matcher);
            # where it fires was read in its binary (executeSessionEndHooks' callers).
            degrade("timing-differs",
                    "CodeBuddy fires SessionEnd when a session is cleared (/clear) or exited (/exit), or its "
                    "process is stopped (SIGTERM, SIGHUP, SIGQUIT, a lost parent); a -p run that finishes "
                    "exits without it. Here it runs when the agent is disposed, the host's end of a session, "
                    "so a host run that ends fires it where codebuddy -p does not; and agent/disposed fires "
                    "whenever an agent leaves the live registry, on reload and teardown too."),
            degrade("payload-field-missing",
                    "The host gives no end reason, so reason is always \"other\" and a matcher cannot "
                    "tell clear from logout."),
            _HALT_DOCUMENTED,
        ),
    ),
    derive_row(CLAUDE, "PreCompact",
        degradations=(
            _NOT_BRIDGED,
            degrade("observe-only",
                    "Compaction is a host service call that cannot be cancelled, so a block (exit 2 in "
                    "CodeBuddy) is recorded and compaction goes ahead."),
            shared.COMPACTION_STARTED,
        ),
    ),
    derive_row(CLAUDE, "PostToolUseFailure",
        fires_on="incomplete",
        degradations=(
            _NOT_BRIDGED,
            degrade("payload-field-missing",
                    "error is the host's own failure message, which may not read like CodeBuddy's."),
            _HOST_ONLY_TOOLS,
        ),
    ),
    derive_row(CLAUDE, "SubagentStart",
        services=(Service.SUBAGENTS,),
        degradations=(
            _NOT_BRIDGED,
            degrade("scope-differs",
                    "additionalContext reaches only a child that runs in-process and is still live "
                    "when the start is announced."),
            degrade("matcher-narrowed",
                    "The host carries no agent type, so a matcher naming one cannot narrow."),
            _HALT_DOCUMENTED,
        ),
    ),
    derive_row(CLAUDE, "SubagentStop",
        matcher_subject=None,
        degradations=(
            _NOT_BRIDGED,
            degrade("observe-only",
                    "The child has already finished, so a block or continue:false cannot keep it working."),
        ),
    ),
    # Claude Code ignores a StopFailure hook's output (only terminalSequence, a display field, is read),
    # and CodeBuddy documents the same event: no answer to lose, so native-translate.
    derive_row(CLAUDE, "StopFailure",
        degradations=(
            degrade("scope-differs",
                    "It fires on any step or turn error the host reports, not only on a failure that "
                    "ends the turn."),
        ),
    ),
    derive_row(CLAUDE, "PermissionDenied",
        degradations=(
            degrade("observe-only",
                    "The rejection is already recorded when the hook runs, so no answer changes it."),
            shared.ONLY_APPROVAL_REJECTIONS,
        ),
    ),
    derive_row(CLAUDE, "TaskCreated",
        degradations=(
            shared.TASKS_FROM_SNAPSHOTS,
            _TODO_ONLY,
        ),
    ),
    derive_row(CLAUDE, "TaskCompleted",
        degradations=(
            shared.COMPLETION_FROM_SNAPSHOTS,
            shared.DROPPED_TASKS_NEVER_FIRE,
        ),
    ),
    derive_row(CLAUDE, "TeammateIdle",
        degradations=(
            degrade("observe-only",
                    "The status change has already happened, so no answer keeps the agent working."),
            degrade("scope-differs",
                    "It fires for any agent that turns idle, since the host has no teams."),
        ),
    ),
    derive_row(CLAUDE, "FileChanged",
        degradations=(
            shared.DEBOUNCED_CHANGES,
            shared.CHANGE_KIND_MISSING,
            degrade("scope-differs", "Only the session's working directory is watched."),
            _HALT_DOCUMENTED,
        ),
    ),
    derive_row(CLAUDE, "CwdChanged",
        degradations=(
            _AT_SESSION_CREATION,
            _HALT_DOCUMENTED,
        ),
    ),
    derive_row(CLAUDE, "WorktreeCreate",
        degradations=(
            degrade("observe-only",
                    "The worktree already exists when the hook runs, so neither its output nor its exit "
                    "code changes how it was created."),
            shared.POLLED_WORKTREES,
            shared.WORKTREES_GIT_ONLY,
        ),
    ),
    derive_row(CLAUDE, "WorktreeRemove",
        degradations=(
            shared.POLLED_WORKTREES,
            shared.WORKTREES_GIT_ONLY,
            _HALT_DOCUMENTED,
        ),
    ),
    EventRow(
        event="Setup",
        route=Route.NATIVE_TRANSLATE,
        seams=("session/created",),
        point="session/created",
        matcher_subject="trigger",
        degradations=(
            degrade("timing-differs",
                    "It fires when a session is created, with the host already running, not during a "
                    "setup run before the session starts."),
            _HALT_DOCUMENTED,
        ),
    ),
    derive_row(CLAUDE, "InstructionsLoaded",
        degradations=(
            shared.INSTRUCTIONS_AT_CREATION,
            degrade("scope-differs",
                    "The list is what the host discovered at session creation, which need not match "
                    "CodeBuddy's CODEBUDDY.md and rules lookup, and later files are not reported."),
        ),
    ),
    derive_row(CLAUDE, "ConfigChange",
        degradations=(
            shared.SETTINGS_COMMITTED,
            degrade("matcher-narrowed",
                    "The host names a settings namespace, not a configuration file, so file_path is null "
                    "and a matcher on the source cannot narrow."),
        ),
    ),
    EventRow(
        event="Elicitation",
        **_ELICITATION_ON_IDLE,
        degradations=(
            degrade("approximate",
                    "The host has no MCP elicitation seam, so this fires whenever an agent turns idle "
                    "rather than on an elicitation request."),
            degrade("observe-only", "The hook cannot answer, decline or cancel anything."),
            degrade("matcher-narrowed",
                    "No MCP server is named, so a matcher on the server cannot narrow."),
        ),
    ),
    EventRow(
        event="ElicitationResult",
        **_ELICITATION_ON_IDLE,
        degradations=(
            degrade("approximate",
                    "No host event carries an elicitation result, so this fires whenever an agent turns "
                    "idle."),
            degrade("observe-only", "The hook cannot change the result or turn it into a decline."),
        ),
    ),
    # Documented by CodeBuddy beyond the first 24 (vendor-protocols §3.2): Notification fired in the
    # vendor lane (CodeBuddy Code 2.163.0, `auth_success`), PermissionRequest and PostCompact did not.
    derive_row(CLAUDE, "Notification",
        idle_after_s=None,
        degradations=(
            _NOT_BRIDGED,
            degrade("timing-differs",
                    "The host publishes agent status changes, not CodeBuddy's notifications: this fires "
                    "as idle_prompt when an agent turns idle, and never for a permission prompt or "
                    "auth_success (CodeBuddy's one notification in -p, at start-up)."),
            shared.NOTIFICATION_IDLE_ONLY,
        ),
    ),
    derive_row(CLAUDE, "PermissionRequest",
        degradations=(
            _NOT_BRIDGED,
            shared.APPROVAL_ONCE,
            degrade("timing-differs",
                    "The hook runs only when the host actually asks for approval; a tool that is "
                    "already permitted never reaches it (CodeBuddy in -p never fires it at all)."),
            degrade("payload-field-missing",
                    "tool_input is the call's arguments as the host logged them (only the approval reason "
                    "when the log does not hold the call)."),
            _HOST_ONLY_TOOLS,
        ),
    ),
    derive_row(CLAUDE, "PostCompact",
        degradations=(
            _NOT_BRIDGED,
            shared.COMPACTION_ALWAYS_AUTO,
            _HALT_DOCUMENTED,
        ),
    ),
)

# The CodeBuddy engine (CLI) uses Claude's tool names; the IDE names come after, so the payload
# speaks the engine's vocabulary (the first vendor name listed for a host tool wins).
TOOLS = (
    BASH, READ, WRITE, EDIT, GLOB, GREP, TASK, ASK_USER_QUESTION, TODO_WRITE,
    ToolName(vendor="execute_command", host="bash"),
    ToolName(vendor="read_file", host="read"),
    ToolName(vendor="write_to_file", host="write"),
    ToolName(vendor="replace_in_file", host="edit"),
    ToolName(vendor="search_content", host="grep"),
    ToolName(vendor="task", host="subagent"),
)

RULES = RulesSpec(
    default_sources=("CODEBUDDY.md", ".codebuddy/CODEBUDDY.md", ".codebuddy/rules/**/*.md"),
    note=(
        "Read byte for byte from disk and injected as a sourced user message at every agent start; "
        "frontmatter (enabled, alwaysApply, paths) travels as text and is not evaluated. Project "
        "instructions typed into the WorkBuddy desktop app live in the cloud and cannot be carried."
    ),
)

#: CodeBuddy events no route here serves, each with why (grading makes a hook of one UNSUPPORTED).
UNSERVED = (
    ("FinalStop",
     "CodeBuddy Code 2.163.0 fires it once a turn has reached its final state, after the last Stop "
     "(final_stop_reason \"completed\", is_truncation_recovery, agent_type; measured in -p); no row "
     "here translates it yet, so a hook of it would not run"),
    ("UserPromptExpansion",
     "CodeBuddy Code 2.163.0 knows Claude's slash-command expansion event, but it did not fire for a "
     "plain prompt in -p, so its payload is unmeasured, and no row here translates it for CodeBuddy "
     "(the host expands no slash commands; Claude's row is an observe-only stand-in on every step)"),
)

WORKBUDDY = VendorSpec(
    id="workbuddy",
    aliases=("codebuddy",),
    losses=(_NO_PUBLIC_API, _SCRUBBED_ENV),
    bridge=BRIDGE,
    default_timeout_s=60.0,
    concurrent=True,
    shell="user",
    project_dir_env=("CODEBUDDY_PROJECT_DIR", "CLAUDE_PROJECT_DIR"),
    # Measured on codebuddy-headless 2.163.0 (--plugin-dir with a .codebuddy-plugin or a .claude-plugin
    # manifest): a plugin's hooks get its folder and data folder under both vendors' names.
    hook_vars=(HookVar(name="CODEBUDDY_PLUGIN_ROOT", source="plugin-root"),
               HookVar(name="CLAUDE_PLUGIN_ROOT", source="plugin-root"),
               HookVar(name="CODEBUDDY_PLUGIN_DATA", source="plugin-data"),
               HookVar(name="CLAUDE_PLUGIN_DATA", source="plugin-data"),
               HookVar(name="CODEBUDDY_SESSION_ID", source="session"),
               HookVar(name="CLAUDE_SESSION_ID", source="session"),
               HookVar(name="CODEBUDDY_SERVICE_PROXY_URL", source="none",
                       note="CodeBuddy points it at its own loopback service proxy "
                            "(/internal/hooks/services/invoke); this host has no such proxy, so the "
                            "variable is unset.")),
    events=EVENTS,
    rules=RULES,
    plugin_runtime=(
        "WorkBuddy and CodeBuddy plugin runtimes (IDE extensions, MCP servers, workflow scripts) are "
        "out of scope; only JSON command hooks and rules text are adapted."
    ),
    tools=TOOLS,
    unserved=UNSERVED,
    measured_on="2.163.0",  # CodeBuddy Code, shipped in the vendor lane's pinned codebuddy-agent-sdk 0.3.274
    # What CodeBuddy does, as data (compat_adapter.model.VendorSpec says what each field means).
    dedupes_commands=True,  # identical commands of one event run once, as in Claude Code
    clamps_event_timeouts=False,
    # command and prompt in settings; agent and http in agent or skill frontmatter
    handler_kinds=frozenset({"command", "http", "prompt", "agent"}),
    http_losses=(shared.HTTP_POLICIES_NOT_READ,),
    matchers=MatcherEngine(engine="js-regex", names=None, names_events=None, match_all=()),
    bad_matcher="refuses-config",
    exit2_blocks=True,
    failure_denies=(),
    plugin_host=False,
)
