"""Anthropic Claude Code: 33 hook events, `settings.json` hooks, CLAUDE.md and `.claude/rules`.

Data only. Seven events go through the host's official Claude Code bridge. Of the twenty-six this
project runs itself, eleven can only be observed here although Claude acts on their answer
(native-seam), and fifteen are translated (Claude either acts on the answer the same way here, or
only observes the event itself).
"""

from compat_adapter.vendor import (
    BridgeSpec, EventRow, HookVar, MatcherEngine, Route, RulesSpec, Service, ToolName, VendorSpec, degrade,
)
from vendors import shared
from vendors.surface import CLAUDE_BRIDGE

# The Claude Code bridge's own losses: the bridge owns these runs, we only write its config.
_SERIAL = degrade(
    "timing-differs",
    "The bridge runs the matching hooks one after another in config order, where Claude Code starts "
    "them all at once, so their run times add up.",
)
_BASH_C = degrade(
    "env-differs",
    "The bridge runs the command with bash -c, as the host's shell executor does, where Claude Code "
    "runs sh -c; portable scripts behave the same, shell-specific syntax may not.",
)
_JSON_ON_EXIT_0 = degrade(
    "exit-code-differs",
    "The bridge reads stdout JSON only after exit 0, so an answer printed with another exit code "
    "(exit 1 with a deny object, say) is dropped, where Claude Code lets valid JSON decide on any "
    "exit but 2.",
)
_TOOL_MATCHERS = degrade(
    "matcher-narrowed",
    "Tool names in matchers are rewritten to the host's (Bash→bash, Edit→edit, Write→write, "
    "Read→read …), but tools the host lacks, such as WebFetch, WebSearch or any mcp__ tool, never match.",
)
_HOST_TOOL_PAYLOAD = degrade(
    "payload-field-missing",
    "tool_name and tool_input come from the host as they are (bash, edit, a path argument instead of "
    "file_path), and permission_mode and prompt_id are absent.",
)

#: Stated once for the rows each is true of; grading lists them on every such row.
BRIDGE = BridgeSpec(
    package=CLAUDE_BRIDGE,
    dialect="claude-code",
    losses=(_SERIAL, _BASH_C),
    answer_losses=(_JSON_ON_EXIT_0,),
    tool_losses=(_HOST_TOOL_PAYLOAD, _TOOL_MATCHERS),
)

_CONSTANT_AGENT_TYPE = degrade(
    "matcher-narrowed",
    "The bridge reports agent_type as the constant \"general-purpose\", so a matcher naming any other "
    "agent type never fires.",
)

# Losses shared by rows this project translates itself.
_HOST_ONLY_TOOLS = degrade(
    "matcher-narrowed",
    "Host tools with no Claude name reach the hook under their host name, and Claude-only tools "
    "(WebFetch, WebSearch, mcp__ tools) never occur, so matchers naming them never fire.",
)
_AT_SESSION_CREATION = degrade(
    "timing-differs",
    "The host fixes one working directory when a session is created and never changes or adds one, "
    "so this fires once, at session creation, instead of on a change.",
)

# continue:false on rows whose rule ignores it. Measured with the lane (Claude Code 2.1.328 and 2.1.332, -p):
# honoured on the tool loop's events (PreToolUse, PostToolUse, PostToolBatch), ignored on every other
# event it could fire (SessionStart, InstructionsLoaded, CwdChanged, FileChanged with a matcher,
# PostToolUseFailure, PermissionRequest), so those rows agree (vendors/claude/dialect.py reads it as
# ignored). The rows below cannot be fired (or their effect seen) in -p; there the documented rule
# ("stops Claude entirely", on any event) stands.
_HALT_DOCUMENTED = degrade(
    "output-field-ignored",
    "continue:false is audited and ignored, so the session goes on, where Claude Code documents it as "
    "stopping Claude on any event (not verifiable here; on every event the lane could fire outside the "
    "tool loop, Claude ignored it too).",
)
_TODO_ONLY = degrade(
    "scope-differs",
    "Only items of the host's todo list are visible; there are no team tasks, so task_description, "
    "teammate_name and team_name are absent.",
)

# True of every row: the one hook runner (and the bridges) scrub the environment.
_SCRUBBED_ENV = degrade(
    "env-differs",
    "Parent variables whose names contain KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL, and every "
    "DSH_* variable, are removed from the hook's environment, where Claude Code passes them on, so "
    "a hook that reads an API token finds nothing.",
)





# What Claude Code shows the model, and where the host puts it instead (rows this project translates).
_CONTEXT_AS_USER = degrade(
    "message-provenance",
    "Hook context reaches the model in Claude's own words (\"<Event> hook additional context: …\", or "
    "\"<hook> hook success: …\" for plain output), but "
    "as a user message sourced from the hook, where Claude Code sends a system message: this host gives "
    "a plugin's context no system role (its surface lists no context role; the embedded host and DSH, "
    "where the bundle makes it system-prompt text, both have one).",
)
_NO_FORK = degrade("matcher-narrowed",
    "The host never reports a \"fork\" source (a forked session starts as \"startup\"), "
    "so a fork matcher never fires."
)

_IN_PROCESS_CHILD = degrade("scope-differs",
    "additionalContext is injected only into a child that runs in-process and is still "
    "live when the start is announced."
)

_CHILD_FINISHED = degrade("observe-only",
    "The child has already finished: a block cannot keep it running and no context "
    "reaches it."
)

EVENTS = (
    EventRow(
        event="SessionStart",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/created",),
        point="agent/created",
        services=(Service.AGENTS,),
        blocking="context",
        matcher_subject="source",
        role_losses=(_CONTEXT_AS_USER,),
        degradations=(
            degrade("output-field-ignored",
                    "initialUserMessage, sessionTitle, watchPaths and reloadSkills are dropped, and "
                    "continue:false refuses the next turn's first step instead of ending the session."),
            degrade("payload-field-missing", "model, agent_type and session_title are absent."),
            degrade("env-differs", "There is no CLAUDE_ENV_FILE to persist variables into."),
            _NO_FORK,
        ),
        official=EventRow(
            event="SessionStart",
            route=Route.OFFICIAL_BRIDGE,
            bridge_event="SessionStart",
            seams=("agent/created",),
            point="SessionStart",
            services=(Service.AGENTS,),
            blocking="context",
            matcher_subject="source",
            degradations=(
                degrade("output-field-ignored",
                        "Only hookSpecificOutput.additionalContext is used: plain stdout, initialUserMessage, "
                        "sessionTitle, watchPaths and reloadSkills are dropped."),
                degrade("payload-field-missing",
                        "The payload carries source but not model, agent_type or session_title, and "
                        "transcript_path is an empty string."),
                degrade("env-differs",
                        "Of Claude's variables the bridge sets only CLAUDE_PROJECT_DIR (besides its shell "
                        "executor's NO_COLOR, TERM=dumb, PAGER and GIT_PAGER); there is no CLAUDE_ENV_FILE "
                        "to persist variables into."),
                _NO_FORK,
                degrade("message-provenance",
                        "The context is queued as a user message sourced from the bridge, not given as "
                        "Claude's system reminder."),
            ),
        ),
    ),
    EventRow(
        event="UserPromptSubmit",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/pre-step",),
        point="agent/pre-step",
        blocking="verdict",
        timeout_s=30.0,
        role_losses=(_CONTEXT_AS_USER,),
        degradations=(
            degrade("output-field-ignored",
                    "A block or continue:false rejects the prompt before any model call, as in Claude "
                    "Code, and \"UserPromptSubmit operation blocked by hook: <reason>\" (or the stopReason) "
                    "reaches the person as the host's notice, not as the vendor's own transcript line (a session "
                    "record; on DSH a row in the web UI's chat, a notice line in headless --json, an SDK "
                    "event, and the turn's end)."),
            shared.EVERY_INBOX_STEP,
            degrade("payload-field-missing",
                    "permission_mode is always \"default\"; prompt_id is a UUID derived from the session "
                    "and the host's id "
                    "of the message the user typed "
                    "(the same for every event of one prompt, not Claude's own random id)."),
        ),
        official=EventRow(
            event="UserPromptSubmit",
            route=Route.OFFICIAL_BRIDGE,
            bridge_event="UserPromptSubmit",
            seams=("agent/pre-step",),
            point="UserPromptSubmit",
            blocking="verdict",
            timeout_s=30.0,
            degradations=(
                degrade("output-field-ignored",
                        "Plain stdout is not turned into context, and the reason of a block reaches neither "
                        "the user nor the model because the host's reject carries none."),
                shared.EVERY_INBOX_STEP,
                degrade("payload-field-missing",
                        "prompt is the text of every claimed message run together with no separator, so "
                        "injected rules or hook context ride in it; prompt_id and permission_mode are absent."),
            ),
        ),
    ),
    EventRow(
        event="PreToolUse",
        route=Route.NATIVE_TRANSLATE,
        seams=("tools/pre-execute",),
        point="tools/pre-execute",
        blocking="verdict",
        matcher_subject="tool_name",
        role_losses=(_CONTEXT_AS_USER,),
        degradations=(
            degrade("decision-narrowed",
                    "allow lets the call through without skipping the host's own guards, defer is read "
                    "as no decision, and ask goes to the host's approval (denied with the hook's reason "
                    "when the host has none)."),
            shared.REWRITE_NESTED,
            _HOST_ONLY_TOOLS,
        ),
        official=EventRow(
            event="PreToolUse",
            route=Route.OFFICIAL_BRIDGE,
            bridge_event="PreToolUse",
            seams=("tools/pre-execute",),
            point="PreToolUse",
            blocking="verdict",
            matcher_subject="tool_name",
            degradations=(
                degrade("decision-narrowed",
                        "deny blocks and ask goes to the host's approval, but allow does not skip "
                        "approval and defer is not supported."),
                degrade("input-rewrite-ignored",
                        "updatedInput is parsed and logged with a warning, never applied to the call."),
                degrade("output-field-ignored",
                        "additionalContext and systemMessage from PreToolUse are dropped, and continue:false "
                        "is recorded without halting anything."),
            ),
        ),
    ),
    EventRow(
        event="PostToolUse",
        route=Route.NATIVE_TRANSLATE,
        seams=("tools/post-execute",),
        point="tools/post-execute",
        fires_on="success",
        blocking="context",
        matcher_subject="tool_name",
        degradations=(
            degrade("message-provenance",
                    "The result stands and a block's feedback (\"PostToolUse:Bash hook blocking error from "
                    "command: …\") and additionalContext follow it in Claude's words, but as a user message "
                    "before the next model call, where Claude Code adds a system message."),
            degrade("output-rewrite-ignored",
                    "updatedToolOutput and updatedMCPToolOutput never replace the result."),
            degrade("payload-field-missing",
                    "A Bash tool_response has the command's stdout and stderr when the host's result "
                    "states them (else the result's text in one of them) and noOutputExpected is always "
                    "false; duration_ms runs from the end of the pre-tool hooks (or from when the host "
                    "logged the call) to the result; prompt_id is a UUID derived from the session and "
                    "the host's id "
                    "of the message the user typed "
                    "(the same for every event of one prompt, not Claude's own random id). "
                    "effort.level is Claude's default \"medium\": the host has no effort setting."),
            _HOST_ONLY_TOOLS,
        ),
        official=EventRow(
            event="PostToolUse",
            route=Route.OFFICIAL_BRIDGE,
            bridge_event="PostToolUse",
            seams=("tools/post-execute",),
            point="PostToolUse",
            blocking="verdict",
            matcher_subject="tool_name",
            degradations=(
                degrade("output-rewrite-ignored",
                        "A block and additionalContext take effect, but updatedToolOutput and "
                        "updatedMCPToolOutput never replace the result."),
                degrade("payload-field-missing",
                        "tool_response is the result's text flattened into one string, and duration_ms is absent."),
            ),
        ),
    ),
    EventRow(
        event="Stop",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/turn-stopping",),
        point="agent/turn-stopping",
        services=(Service.AGENTS,),
        blocking="continue",
        degradations=(
            degrade("message-provenance",
                    "A block continues the turn with Claude Code 2.1.332's own user message (\"Stop hook "
                    "feedback:\\n<reason>\", the command quoted on exit 2, in a <system-reminder> after "
                    "its lead \"The text below is the output of a hook …\"), steered into the same turn, but "
                    "Claude's system message \"Stop hook blocking error from command: …\" is not added; a "
                    "Claude Code started with CLAUDE_CODE_SHINY_FOUNTAIN=0 or false sends the feedback "
                    "unwrapped, a switch of Claude's own process that no hook config carries (the same "
                    "variable in a project's settings.json env leaves the wrapper on, measured), so here "
                    "it is always wrapped."),
            degrade("payload-field-missing",
                    "background_tasks and session_crons are always empty; prompt_id is a UUID derived "
                    "from the session and the host's id "
                    "of the message the user typed "
                    "(the same for every event of one prompt, not Claude's own random id). "
                    "effort.level is Claude's default \"medium\": the host has no effort setting."),
        ),
        official=EventRow(
            event="Stop",
            route=Route.OFFICIAL_BRIDGE,
            bridge_event="Stop",
            seams=("agent/turn-stopping",),
            point="Stop",
            services=(Service.AGENTS,),
            blocking="continue",
            degradations=(
                degrade("payload-field-missing",
                        "stop_hook_active is always false, and last_assistant_message, background_tasks and "
                        "session_crons are absent."),
                degrade("no-loop-guard",
                        "The bridge does not stop after eight consecutive blocks as Claude Code does, so a "
                        "hook that always blocks keeps the turn going forever."),
                degrade("output-field-ignored",
                        "Only a block continues the turn: hookSpecificOutput.additionalContext does not, and "
                        "continue:false does not end the session."),
                degrade("message-provenance",
                        "The continuation is a steered message sourced from the bridge, not Claude's "
                        "feedback to the model."),
            ),
        ),
    ),
    EventRow(
        event="SubagentStart",
        route=Route.NATIVE_TRANSLATE,
        seams=("subagent/start",),
        point="subagent/start",
        services=(Service.SUBAGENTS, Service.AGENTS),
        blocking="context",
        matcher_subject="agent_type",
        role_losses=(degrade("message-provenance",
                             "The child reads the context in Claude's words as a user message, not a system "
                             "message: this host gives a plugin's context no system role."),),
        degradations=(
            shared.NO_AGENT_TYPE,
            _IN_PROCESS_CHILD,
            _HALT_DOCUMENTED,
        ),
        official=EventRow(
            event="SubagentStart",
            route=Route.OFFICIAL_BRIDGE,
            bridge_event="SubagentStart",
            seams=("subagent/start",),
            point="SubagentStart",
            services=(Service.SUBAGENTS, Service.AGENTS),
            blocking="context",
            matcher_subject="agent_type",
            degradations=(
                _CONSTANT_AGENT_TYPE,
                _IN_PROCESS_CHILD,
                degrade("timing-differs",
                        "The bridge runs this hook detached from the child's start, so its context can "
                        "arrive after the child's first request."),
                degrade("payload-field-missing",
                        "session_id and cwd describe the child's session, and transcript_path is an empty string."),
            ),
        ),
    ),
    EventRow(
        event="SubagentStop",
        route=Route.NATIVE_SEAM,
        seams=("subagent/end",),
        point="subagent/end",
        services=(Service.SUBAGENTS,),
        matcher_subject="agent_type",
        degradations=(
            _CHILD_FINISHED,
            degrade("payload-field-missing",
                    "stop_hook_active is always false, and agent_transcript_path, background_tasks and "
                    "session_crons are absent."),
            shared.NO_AGENT_TYPE,
        ),
        official=EventRow(
            event="SubagentStop",
            route=Route.OFFICIAL_BRIDGE,
            bridge_event="SubagentStop",
            seams=("subagent/end",),
            point="SubagentStop",
            services=(Service.SUBAGENTS,),
            matcher_subject="agent_type",
            degradations=(
                _CHILD_FINISHED,
                degrade("payload-field-missing",
                        "stop_hook_active is always false, and agent_transcript_path, last_assistant_message, "
                        "background_tasks and session_crons are absent."),
                _CONSTANT_AGENT_TYPE,
            ),
        ),
    ),
    EventRow(
        event="PreCompact",
        route=Route.NATIVE_SEAM,
        seams=("session/event",),
        point="compaction/start",
        matcher_subject="trigger",
        degradations=(
            degrade("observe-only",
                    "Compaction is a host service call that cannot be cancelled, so a block is recorded "
                    "in the audit and compaction goes ahead."),
            shared.COMPACTION_STARTED,
            degrade("payload-field-missing", "custom_instructions is always an empty string."),
            degrade("matcher-narrowed",
                    "trigger is always \"auto\", even for a manual compaction, so a \"manual\" matcher "
                    "never fires."),
        ),
    ),
    EventRow(
        event="SessionEnd",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/disposed",),
        point="agent/disposed",
        matcher_subject="reason",
        timeout_s=1.5,
        degradations=(
            degrade("timing-differs",
                    "agent/disposed fires whenever an agent leaves the live registry, on reload and "
                    "teardown too, which is broader than the end of a Claude session."),
            degrade("payload-field-missing",
                    "The host gives no end reason, so reason is always \"other\" and a matcher cannot "
                    "tell clear from logout or exit."),
            degrade("timeout-differs",
                    "Each hook gets its own 1.5 s default or its own timeout, uncapped, where Claude gives "
                    "all SessionEnd hooks one shared budget raised at most to 60 s."),
        ),
    ),
    EventRow(
        event="PostCompact",
        route=Route.NATIVE_TRANSLATE,
        seams=("session/event",),
        point="compaction/end",
        matcher_subject="trigger",
        degradations=(
            shared.COMPACTION_ALWAYS_AUTO,
            degrade("payload-field-missing",
                    "compact_summary is the text of the durable summary record, and nothing in the "
                    "payload tells a failed compaction from a finished one."),
            _HALT_DOCUMENTED,
        ),
    ),
    EventRow(
        event="InstructionsLoaded",
        route=Route.NATIVE_TRANSLATE,
        seams=("session/created",),
        point="agent/instructions-loaded",
        matcher_subject="load_reason",
        degradations=(
            shared.INSTRUCTIONS_AT_CREATION,
            degrade("scope-differs",
                    "Only files discovered at session creation are reported; lazily loaded nested or "
                    "path-scoped files and files added later are not, so load_reason is always "
                    "session_start."),
        ),
    ),
    EventRow(
        event="UserPromptExpansion",
        route=Route.NATIVE_SEAM,
        seams=("agent/pre-step",),
        point="agent/pre-step",
        matcher_subject="command_name",
        degradations=(
            degrade("observe-only",
                    "The step's messages are already assembled when the hook runs, so it can neither "
                    "block nor rewrite an expansion."),
            degrade("timing-differs",
                    "It fires for each step that brings new messages, not once per expanded slash "
                    "command or skill."),
            degrade("matcher-narrowed",
                    "The host knows no command name at this point, so a command_name matcher cannot narrow."),
        ),
    ),
    EventRow(
        event="MessageDisplay",
        route=Route.NATIVE_TRANSLATE,
        seams=("session/event",),
        point="message/display",
        timeout_s=10.0,
        degradations=(
            degrade("approximate",
                    "The host has no display step, so this reports each durable assistant message as it "
                    "is logged, which is what a front end would show."),
            degrade("output-rewrite-ignored",
                    "displayContent cannot alter, delay or hide what is shown."),
            degrade("payload-field-missing",
                    "It fires once per committed message, so there are no streaming deltas."),
            _HALT_DOCUMENTED,
        ),
    ),
    EventRow(
        event="PermissionRequest",
        route=Route.NATIVE_TRANSLATE,
        seams=("approval/request",),
        point="approval/request",
        services=(Service.APPROVAL,),
        blocking="verdict",
        matcher_subject="tool_name",
        degradations=(
            shared.APPROVAL_ONCE,
            degrade("input-rewrite-ignored", "updatedInput in an allow does not change the call."),
            degrade("timing-differs",
                    "The hook runs when something here asks for approval: a pre-tool answer of ask, or an "
                    "ask rule of the project's permissions. Claude Code 2.1.332 also asks for every call "
                    "its session has not allowed up front (a Bash command no allow rule, --allowedTools or "
                    "earlier approval covers; an output redirection): a policy of Claude's own session, "
                    "not of a project file (measured: `claude -p` without --allowedTools runs the hook for "
                    "a plain echo). The host decides such calls by its own approval policy, so they run "
                    "here without the hook."),
            degrade("payload-field-missing",
                    "tool_input is the call's arguments as the host logged them (only the approval reason "
                    "when the log does not hold the call), and permission_suggestions is empty; "
                    "prompt_id is a UUID derived from the session and the host's id "
                    "of the message the user typed "
                    "(the same for every event of one prompt, not Claude's own random id). The optional "
                    "tool_kind (\"mcp_skill\"), mcp_server and mcp_skill of Claude Code 2.1.332, sent only "
                    "for the ask before an MCP server's skill loads, never occur: the host loads no MCP "
                    "skills."),
            _HOST_ONLY_TOOLS,
        ),
    ),
    EventRow(
        event="PermissionDenied",
        route=Route.NATIVE_SEAM,
        seams=("session/event",),
        point="approval/decided",
        fires_on="rejected",  # the host's approval service rejected the call
        matcher_subject="tool_name",
        degradations=(
            degrade("observe-only",
                    "The rejection is already recorded when the hook runs, so retry:true is ignored."),
            shared.ONLY_APPROVAL_REJECTIONS,
            degrade("payload-field-missing",
                    "tool_input is an empty object; only the tool name and the reason are known."),
        ),
    ),
    EventRow(
        event="PostToolUseFailure",
        route=Route.NATIVE_TRANSLATE,
        seams=("tools/post-execute",),
        point="tools/post-execute",
        fires_on="failure",
        blocking="context",
        matcher_subject="tool_name",
        degradations=(
            degrade("own-translation",
                    "The Claude Code bridge does not implement this event, so this project mounts its "
                    "own listener on the post-execute seam."),
            degrade("payload-field-missing",
                    "error is the host's own failure message, so text a hook parses, such as the "
                    "\"Exit code N\" prefix of a failed Bash call, may differ."),
            _HOST_ONLY_TOOLS,
        ),
    ),
    EventRow(
        event="PostToolBatch",
        route=Route.NATIVE_SEAM,
        seams=("session/event",),
        point="step/end",
        degradations=(
            degrade("observe-only",
                    "step/end is a record of a finished step, so a block cannot stop the loop before "
                    "the next model call."),
            degrade("payload-field-missing",
                    "tool_calls names the step's tools but carries no tool results."),
        ),
    ),
    EventRow(
        event="Notification",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/status",),
        point="agent/status",
        fires_on="idle",
        # Measured on Claude Code 2.1.332: the interactive app fires idle_prompt ("Claude is waiting
        # for your input") 60 s after a turn ends with no input since (61.7 s after Stop); `claude -p`
        # exits first and never fires it. The host's agent turns idle at once: this waits as long.
        idle_after_s=60.0,
        matcher_subject="notification_type",
        degradations=(
            degrade("timing-differs",
                    "The host publishes agent status changes, not Claude's notifications: this fires as "
                    "idle_prompt once an agent has stayed idle 60 s after a turn (Claude's default wait; a "
                    "session that ends sooner, as `claude -p` does, never fires it), but a user's own "
                    "messageIdleNotifThresholdMs is not read and a background subagent does not hold it "
                    "back; never for a permission prompt, auth_success or an elicitation dialog."),
            shared.NOTIFICATION_IDLE_ONLY,
            _HALT_DOCUMENTED,
        ),
    ),
    EventRow(
        event="TaskCreated",
        route=Route.NATIVE_SEAM,
        seams=("session/event",),
        point="todo/write",
        fires_on="created",
        degradations=(
            shared.TASKS_FROM_SNAPSHOTS,
            _TODO_ONLY,
        ),
    ),
    EventRow(
        event="TaskCompleted",
        route=Route.NATIVE_SEAM,
        seams=("session/event",),
        point="todo/write",
        fires_on="done",
        degradations=(
            shared.COMPLETION_FROM_SNAPSHOTS,
            shared.DROPPED_TASKS_NEVER_FIRE,
            _TODO_ONLY,
        ),
    ),
    EventRow(
        event="StopFailure",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/error",),
        point="agent/error",
        matcher_subject="error",
        degradations=(
            degrade("approximate",
                    "It fires on any step or turn error the host reports, not only when an API error "
                    "ends the turn."),
            degrade("payload-field-missing",
                    "error and error_details are derived from the host's failure and not mapped onto "
                    "Claude's error types, so an error-type matcher may not select it."),
            degrade("output-field-ignored", "terminalSequence is not written to any terminal."),
        ),
    ),
    EventRow(
        event="TeammateIdle",
        route=Route.NATIVE_SEAM,
        seams=("agent/status",),
        point="agent/status",
        fires_on="idle",
        degradations=(
            degrade("observe-only",
                    "The status change has already happened, so a block cannot keep the agent working."),
            degrade("scope-differs",
                    "It fires for any agent that turns idle, since the host has no teams; teammate_name "
                    "and team_name are absent."),
        ),
    ),
    EventRow(
        event="ConfigChange",
        route=Route.NATIVE_SEAM,
        seams=("settings/document-updated",),
        point="settings/document-updated",
        services=(Service.SETTINGS,),
        matcher_subject="source",
        degradations=(
            shared.SETTINGS_COMMITTED,
            degrade("payload-field-missing",
                    "The host names a settings namespace, not a configuration file, so file_path is null."),
            degrade("matcher-narrowed",
                    "source is not one of Claude's settings scopes (user_settings, project_settings …), "
                    "so a matcher on it cannot narrow."),
        ),
    ),
    EventRow(
        event="CwdChanged",
        route=Route.NATIVE_TRANSLATE,
        seams=("session/created",),
        point="session/created",
        degradations=(
            _AT_SESSION_CREATION,
            degrade("payload-field-missing", "There is no earlier directory, so old_cwd cannot name one."),
        ),
    ),
    EventRow(
        event="DirectoryAdded",
        route=Route.NATIVE_TRANSLATE,
        seams=("session/created",),
        point="session/created",
        matcher_subject="source",
        degradations=(
            _AT_SESSION_CREATION,
            degrade("matcher-narrowed",
                    "Nothing tells how the directory was added, so a matcher on slash_command or "
                    "register_repo_root cannot narrow."),
            _HALT_DOCUMENTED,
        ),
    ),
    EventRow(
        event="FileChanged",
        route=Route.NATIVE_TRANSLATE,
        seams=(),
        point="fs/watch",
        services=(Service.FS_WATCH,),
        matcher_subject="file_path",
        degradations=(
            shared.DEBOUNCED_CHANGES,
            shared.CHANGE_KIND_MISSING,
            degrade("scope-differs",
                    "Only the session's working directory is watched, so a file named in a matcher that "
                    "lives elsewhere never fires."),
        ),
    ),
    EventRow(
        event="WorktreeCreate",
        route=Route.NATIVE_SEAM,
        seams=(),
        point="git/worktrees",
        services=(Service.WORKTREES,),
        degradations=(
            degrade("observe-only",
                    "Claude lets this hook create the worktree (its stdout names the path, a failure "
                    "aborts it); here the worktree already exists, so neither the output nor the exit "
                    "code changes anything."),
            shared.POLLED_WORKTREES,
            shared.WORKTREES_GIT_ONLY,
        ),
    ),
    EventRow(
        event="WorktreeRemove",
        route=Route.NATIVE_TRANSLATE,
        seams=(),
        point="git/worktrees",
        services=(Service.WORKTREES,),
        degradations=(
            shared.POLLED_WORKTREES,
            shared.WORKTREES_GIT_ONLY,
            _HALT_DOCUMENTED,
        ),
    ),
    EventRow(
        event="PreModelSwitch",
        route=Route.NATIVE_SEAM,
        seams=("session/event",),
        point="request/header",
        degradations=(
            degrade("timing-differs",
                    "The switch is seen when the next request header carries the new model, so the hook "
                    "runs as the switch takes effect, not before it."),
            degrade("observe-only", "The new model is already chosen, so the hook cannot veto the switch."),
        ),
    ),
    EventRow(
        event="PostModelSwitch",
        route=Route.NATIVE_TRANSLATE,
        seams=("session/event",),
        point="request/header",
        degradations=(
            degrade("timing-differs",
                    "It shares one detection with PreModelSwitch, so both fire for the same transition, "
                    "just before the first request that uses the new model."),
            _HALT_DOCUMENTED,
        ),
    ),
    EventRow(
        event="Elicitation",
        route=Route.NATIVE_TRANSLATE,
        seams=("user-questions/request",),
        point="user-questions/request",
        services=(Service.USER_QUESTIONS,),
        blocking="verdict",
        matcher_subject="mcp_server_name",
        degradations=(
            degrade("scope-differs",
                    "The host asks the user structured questions rather than relaying an MCP server's "
                    "request, so the payload carries the questions, not mode, url or requested_schema."),
            degrade("matcher-narrowed",
                    "No MCP server is involved, so a matcher naming one cannot narrow."),
            degrade("decision-narrowed",
                    "Only an accept answers the questions; decline and cancel have no counterpart in the "
                    "host's answer, and answers to questions that were not asked are dropped."),
            _HALT_DOCUMENTED,
        ),
    ),
    EventRow(
        event="ElicitationResult",
        route=Route.NATIVE_SEAM,
        seams=("user-questions/request",),
        point="user-questions/request",
        services=(Service.USER_QUESTIONS,),
        matcher_subject="mcp_server_name",
        degradations=(
            degrade("observe-only",
                    "The answer is already chosen when the hook runs, so it cannot change it or turn it "
                    "into a decline."),
            degrade("timing-differs",
                    "It fires once per answered set of questions, not once per MCP elicitation round trip."),
            degrade("payload-field-missing",
                    "action and content are rebuilt from the host's answer (selected options and free "
                    "text), not taken from an MCP response."),
        ),
    ),
)
#: What stays Claude's when another vendor's table derives from CLAUDE's facts (cn, Droid, Kimi, Cline):
#: the host's official Claude Code bridge, which runs a hook under Claude's names and rules, and Claude's
#: plugin variables. A vendor that gives variables of its own states them after these.
CLAUDE_ONLY = {"bridge": None, "hook_vars": ()}

# Claude Code's tools, by name: the agents that adopted a tool under Claude's name and arguments
# (CodeBuddy, cn, Droid, Kimi Code) list the same entry.
BASH = ToolName(vendor="Bash", host="bash")
READ = ToolName(vendor="Read", host="read", arguments=(("file_path", "path"),))
WRITE = ToolName(vendor="Write", host="write", arguments=(("file_path", "path"),))
EDIT = ToolName(vendor="Edit", host="edit",
                arguments=(("file_path", "path"), ("old_string", "old"), ("new_string", "new")))
GLOB = ToolName(vendor="Glob", host="glob")
GREP = ToolName(vendor="Grep", host="grep")
AGENT = ToolName(vendor="Agent", host="subagent")
TASK = ToolName(vendor="Task", host="subagent")
ASK_USER_QUESTION = ToolName(vendor="AskUserQuestion", host="ask_user_question")
TODO_WRITE = ToolName(vendor="TodoWrite", host="todo")
SKILL = ToolName(vendor="Skill", host="skill")
EXIT_PLAN_MODE = ToolName(vendor="ExitPlanMode", host="exit_plan_mode")
TOOLS = (BASH, READ, WRITE, EDIT, GLOB, GREP, AGENT, TASK, ASK_USER_QUESTION, TODO_WRITE, SKILL, EXIT_PLAN_MODE)

RULES = RulesSpec(
    formats=("markdown", "claude-rules-frontmatter"),
    default_sources=("CLAUDE.md", ".claude/CLAUDE.md", ".claude/rules/**/*.md"),
    note=(
        "Read byte for byte and injected as a sourced user message at every agent start, the way "
        "Claude treats memory: context for the model, never tool policy. A rule with paths frontmatter "
        "is injected at start rather than when a matching file is read, and @path imports stay text."
    ),
)

#: Two payload facts the host does not have, on every event where Claude sends them.
_DERIVED_FACTS = degrade(
    "payload-field-missing",
    "Where Claude sends them, effort.level is Claude's default \"medium\" (the host has no effort "
    "setting) and prompt_id is a UUID derived from the session and the host's id of the prompt "
    "message, not Claude's own.",
)

#: Claude Code events no route here serves, each with why (grading makes a hook of one UNSUPPORTED).
UNSERVED = (
    ("Setup",
     "Claude Code 2.1.332 runs Setup hooks only on its own init and maintenance runs (`claude --init`, "
     "`--init-only`, `--maintenance`: trigger init or maintenance), never when an ordinary or -p session "
     "starts (lane case claude:setup_not_fired). The host has no such run, so there is no moment at which "
     "Claude would run the hook"),
    ("PreSkillShellCommand",
     "Claude Code 2.1.332 runs it before a skill's inline shell command (!`…` in a SKILL.md, run when "
     "the skill is expanded), sending tool_name \"Bash\", tool_input.command, tool_use_id, command_name, "
     "command_source and invoked_by; a deny, an ask, exit 2 or any updatedInput keeps the command from "
     "running (the skill then reads \"[not run: blocked by hook: <reason>]\"), allow runs it, and "
     "PreToolUse does not fire for it. The host has no skill loader that runs a skill's inline shell "
     "commands, so there is no command for the hook to guard"),
)

CLAUDE = VendorSpec(
    id="claude",
    aliases=("claude-code", "cc"),
    losses=(_SCRUBBED_ENV, _DERIVED_FACTS),
    bridge=BRIDGE,
    default_timeout_s=600.0,
    context_role="system",
    concurrent=True,
    project_dir_env=("CLAUDE_PROJECT_DIR",),
    # Measured on Claude Code 2.1.328 (a --plugin-dir plugin beside a project settings file): a
    # plugin's hooks also get its folder and its data folder (~/.claude/plugins/data/<name>-inline),
    # a project file's hooks neither; every hook gets the session id. CLAUDE_ENV_FILE (SessionStart
    # only) is the SessionStart row's own loss.
    hook_vars=(HookVar(name="CLAUDE_PLUGIN_ROOT", source="plugin-root"),
               HookVar(name="CLAUDE_PLUGIN_DATA", source="plugin-data"),
               HookVar(name="CLAUDE_CODE_SESSION_ID", source="session")),
    events=EVENTS,
    rules=RULES,
    plugin_runtime=(
        "Claude Code plugins can bundle MCP servers, agents, skills and http, mcp_tool, prompt or agent "
        "handlers; only their command hooks and rules files are adapted, never the runtime itself."
    ),
    tools=TOOLS,
    unserved=UNSERVED,
    measured_on="2.1.332",  # the vendor lane's pin (scripts/vendor_lane.sh)
    # What Claude Code does, as data (compat_adapter.model.VendorSpec says what each field means).
    dedupes_commands=True,  # identical commands of one event run once
    clamps_event_timeouts=False,
    handler_kinds=frozenset({"command", "http", "mcp_tool", "prompt", "agent"}),
    http_losses=(shared.HTTP_POLICIES_NOT_READ,),
    matchers=MatcherEngine(engine="js-regex", names=r"[A-Za-z0-9_\- ,|]+", names_events=None, match_all=()),
    bad_matcher="refuses-config",
    exit2_blocks=True,
    failure_denies=(),
    plugin_host=False,
)
