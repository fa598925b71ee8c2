"""Qwen Code: 22 hook events, Claude-shaped `settings.json` hooks with Gemini CLI's tool names, QWEN.md.

Data only. The events are the ones the pinned release knows and documents (Qwen Code 0.24.4: its
``HookEventName`` enum and the hooks guide it ships, ``bundled/qc-helper/docs/features/hooks.md``),
a superset of the 17 on the project's main docs. Six more events are named only by Qwen's "1.x"
docs; 0.24.4 skips them with a warning, so they are unserved rows. The host has no Qwen bridge:
every row is this project's own reading of Qwen's hook runner (``packages/core/src/hooks/``, read
from the release's bundle) and of what the vendor lane saw the real CLI do. Its hooks copy Claude's
protocol, so each row is derived from Claude's row of the event (``derive_row``), with Qwen's own losses.
"""

from compat_adapter.vendor import (
    HookVar, MatcherEngine, Route, RulesSpec, ToolName, VendorSpec, degrade, derive_row,
)
from vendors import shared
from vendors.claude.table import CLAUDE
from vendors.gemini.table import GLOB, GREP_SEARCH, READ_FILE, RUN_SHELL_COMMAND, WRITE_FILE

#: The release these rows follow (the vendor lane's pin).
RELEASE = "0.24.4"

# todo_write of the release (todoWrite chunk): each event fires per item in phase validation, before
# the list is written (a block refuses the write), then again in phase postWrite.
_TODO_ONCE = degrade(
    "timing-differs",
    "It runs once per item, after the list is written; Qwen runs it twice, in phase validation before the "
    "write and in phase postWrite after it.",
)
_TODO_BY_TEXT = degrade(
    "scope-differs",
    "Items are told apart by their text, where Qwen uses its todo ids: an item whose text changes is a "
    "new item here.",
)
_OWN = degrade(
    "own-translation",
    "No official Qwen Code bridge exists on the host, so this project speaks Qwen's dialect itself: "
    "payload, matcher, exit codes and output fields are our re-implementation of its hook runner.",
)
# True of every row: the one hook runner scrubs the environment.
_SCRUBBED_ENV = degrade(
    "env-differs",
    "Parent variables whose names contain KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL, and every "
    "DSH_* variable, are removed from the hook's environment, where Qwen Code passes them on (and adds "
    "its own QWEN_CODE_* session variables), so a hook that reads an API token or QWEN_CODE_SESSION_ID "
    "finds nothing.",
)
_DERIVED_IDS = degrade(
    "payload-field-missing",
    "Where Qwen sends them, prompt_id is a UUID derived from the session and the host's id of the "
    "prompt message (Qwen's own is the session id and a counter), and tool_use_id has Qwen's "
    "toolu_<ms>_<random> shape but is derived from the host's call id, so it is stable for one call "
    "instead of time-based.",
)

_HOST_ONLY_TOOLS = degrade(
    "matcher-narrowed",
    "Host tools reach the hook under Qwen's ids (bash→run_shell_command, read→read_file, write→"
    "write_file, edit→edit …) and matchers also accept Qwen's display names and Claude's names "
    "(Bash, Write), but host tools with no Qwen id keep their host name and Qwen-only tools "
    "(web_fetch, web_search, MCP tools) never occur, so matchers naming them never fire.",
)
_CONTEXT_IN_PROMPT = degrade(
    "message-provenance",
    "Context reaches the model in Qwen's own wrapper (<qwen:user-prompt-submit-context>, < and > "
    "escaped) inside the user's prompt message, after the prompt, as Qwen adds it; but the host's "
    "messages are text, so it is a paragraph of that message where Qwen adds a part of its own.",
)
_HALT_DOCUMENTED = degrade(
    "output-field-ignored",
    "continue:false is audited and ignored, so the session goes on; Qwen's hook runner reads it only "
    "on the tool, prompt and stop events, so there too it changes nothing (read from the release).",
)

EVENTS = (
    derive_row(CLAUDE, "PreToolUse",
        degradations=(
            degrade("decision-narrowed",
                    "allow lets the call through without skipping the host's own guards, and ask goes to "
                    "the host's approval (denied with the hook's reason when the host has none, as Qwen "
                    "denies an ask in -p)."),
            degrade("decision-narrowed",
                    "When several hooks answer, Qwen keeps the last hook's hookSpecificOutput fields, so a "
                    "later permissionDecision allow overrides an earlier deny; here the strictest answer "
                    "wins (deny over ask over allow)."),
            _HOST_ONLY_TOOLS,
        ),
    ),
    derive_row(CLAUDE, "PostToolUse",
        # Claude's fires_on (success) holds, measured: a shell command that ran and exited non-zero is
        # a PostToolUseFailure in Qwen.
        blocking="verdict",
        degradations=(
            degrade("payload-field-missing",
                    "tool_response is Qwen's {llmContent, returnDisplay}; for a shell call llmContent is "
                    "rebuilt in Qwen's words from the host's result (Directory is always \"(root)\", "
                    "Signal and Process Group PGID \"(none)\"), and duration_ms runs from the end of the "
                    "pre-tool hooks to the result."),
            _HOST_ONLY_TOOLS,
        ),
    ),
    derive_row(CLAUDE, "PostToolUseFailure",
        degradations=(
            degrade("payload-field-missing",
                    "error is the host's own failure message, which may not read like Qwen's, and "
                    "is_interrupt is always false."),
            _HOST_ONLY_TOOLS,
        ),
    ),
    derive_row(CLAUDE, "PostToolBatch",
        degradations=(
            degrade("observe-only",
                    "step/end is a record of a finished step, so a block (or continue:false, or exit 2) "
                    "cannot replace the last result, and additionalContext is not appended to it, as Qwen "
                    "does before the next model call."),
            degrade("payload-field-missing",
                    "tool_calls names the step's tools in Claude's batch shape: no status, tool_call_id "
                    "or Qwen's response_parts."),
        ),
    ),
    derive_row(CLAUDE, "UserPromptSubmit",
        timeout_s=None,
        # Measured: Qwen fires it again after every tool result, with an empty prompt.
        fires_on="every-step",
        degradations=(
            _CONTEXT_IN_PROMPT,
            degrade("timing-differs",
                    "It runs on every step, as Qwen runs it again after every tool result with an empty "
                    "prompt, so a steered continuation triggers it too, where Qwen skips steer, cron and "
                    "notification sends."),
            degrade("message-provenance",
                    "On a tool continuation its context is a user message of its own after the tool "
                    "results, where Qwen adds a text part to the request that carries them."),
            degrade("output-field-ignored",
                    "A block or continue:false rejects the prompt with no model call, as in Qwen, but the "
                    "host's reject carries no text; the audit keeps the reason."),
        ),
    ),
    derive_row(CLAUDE, "UserPromptExpansion",
        degradations=(
            degrade("observe-only",
                    "The step's messages are already assembled when the hook runs, so it can neither block "
                    "an expansion nor add its context to the expanded prompt."),
            degrade("timing-differs",
                    "It fires for each step that brings new messages, not once per expanded slash command."),
            degrade("matcher-narrowed",
                    "No command name is known at this point, so a matcher on the command name cannot narrow."),
        ),
    ),
    derive_row(CLAUDE, "SessionStart",
        # Qwen appends the context to its system instruction (measured, lane case qwen:session_context).
        context_role="system",
        role_losses=(degrade("message-provenance",
                             "The context reaches the model in Qwen's own block (<qwen:session-start-context "
                             "hidden=\"true\">SessionStart additional context: …, < and > escaped), but as a user "
                             "message sourced from the hook, where Qwen appends it to the system instruction: "
                             "this host gives hook context no system role."),),
        degradations=(
            degrade("payload-field-missing", "model is the model of the host's last request, empty before one."),
        ),
    ),
    derive_row(CLAUDE, "SessionEnd",
        timeout_s=None,
        degradations=(
            degrade("timing-differs",
                    "agent/disposed fires whenever an agent leaves the live registry, on reload and "
                    "teardown too, where Qwen fires it when an interactive session is cleared or exited "
                    "(never in -p, measured)."),
            degrade("payload-field-missing",
                    "The host gives no end reason, so reason is always \"other\" and a matcher cannot "
                    "tell clear from prompt_input_exit."),
        ),
    ),
    derive_row(CLAUDE, "MessageDisplay",
        timeout_s=None,
        degradations=(
            degrade("approximate",
                    "The host has no display step, so this reports each durable assistant message as it "
                    "is logged, once and final, where Qwen fires it repeatedly as the reply streams."),
            degrade("payload-field-missing",
                    "displayed_text is the whole message and is_final is always true."),
        ),
    ),
    derive_row(CLAUDE, "Stop",
        degradations=(
            degrade("message-provenance",
                    "A block, exit 2 or continue:false continues the turn with the bare reason as a user "
                    "message, as in Qwen, steered into the same turn (at most 8 times in a row, as Qwen's "
                    "default cap)."),
            degrade("payload-field-missing",
                    "background_tasks and crons are always empty, and context_usage, context_limit and "
                    "input_tokens are absent."),
        ),
    ),
    derive_row(CLAUDE, "StopFailure",
        degradations=(
            degrade("approximate",
                    "It fires on any step or turn error the host reports, not only when an API error or "
                    "loop detection ends the turn."),
            degrade("payload-field-missing",
                    "error and error_details come from the host's failure and are not mapped onto Qwen's "
                    "error types (rate_limit, server_error …), so an error-type matcher may not select it."),
        ),
    ),
    derive_row(CLAUDE, "SubagentStart",
        degradations=(
            shared.NO_AGENT_TYPE,
            degrade("scope-differs",
                    "The context reaches only a child that runs in-process and is still live when its "
                    "start is announced."),
        ),
    ),
    derive_row(CLAUDE, "SubagentStop",
        degradations=(
            degrade("observe-only",
                    "The child has already finished: a block cannot keep it working."),
            degrade("payload-field-missing",
                    "stop_hook_active is always false, and agent_transcript_path, background_tasks and "
                    "crons are absent."),
            shared.NO_AGENT_TYPE,
        ),
    ),
    derive_row(CLAUDE, "PreCompact",
        degradations=(
            degrade("observe-only",
                    "Compaction is a host service call that cannot be cancelled, so an answer is recorded "
                    "and compaction goes ahead."),
            shared.COMPACTION_STARTED,
            degrade("payload-field-missing", "custom_instructions is always empty."),
            shared.COMPACTION_ALWAYS_AUTO,
        ),
    ),
    derive_row(CLAUDE, "PostCompact",
        degradations=(
            shared.COMPACTION_ALWAYS_AUTO,
            degrade("payload-field-missing",
                    "compact_summary is the durable summary record's text; no field tells a failed "
                    "compaction from a finished one."),
        ),
    ),
    derive_row(CLAUDE, "Notification",
        idle_after_s=None,
        degradations=(
            degrade("timing-differs",
                    "The host publishes agent status changes, not Qwen's notifications: this fires as "
                    "idle_prompt when an agent turns idle, and never for a permission prompt or "
                    "auth_success (Qwen's one notification in -p, at start-up)."),
            shared.NOTIFICATION_IDLE_ONLY,
        ),
    ),
    derive_row(CLAUDE, "PermissionRequest",
        degradations=(
            shared.APPROVAL_ONCE,
            degrade("input-rewrite-ignored", "An allow's updatedInput is not applied to the call."),
            degrade("timing-differs",
                    "The hook runs only when the host asks for approval; the host has no approval modes of "
                    "its own, so a call Qwen's default mode would ask about runs without the hook (Qwen in "
                    "-p never fires it: a call that needs approval is declined before any hook runs)."),
            degrade("payload-field-missing",
                    "tool_input is the call's arguments as the host logged them, and permission_suggestions "
                    "is empty."),
            _HOST_ONLY_TOOLS,
        ),
    ),
    # Qwen ignores this hook's output and exit code (hooks.md, PermissionDenied: "Output Options:
    # None"), so watching it loses nothing: native-translate, without an observe-only loss.
    derive_row(CLAUDE, "PermissionDenied",
        route=Route.NATIVE_TRANSLATE,
        degradations=(
            degrade("scope-differs",
                    "Qwen fires it for AUTO-mode classifier denials; here any approval the host rejects "
                    "fires it, and a deny from a hook or a guard never does."),
            degrade("payload-field-missing", "tool_input is empty: only the tool name and the reason are known."),
        ),
    ),
    # Qwen's todo-item events are Claude's task events under Qwen's names, on the same todo list.
    derive_row(CLAUDE, "TaskCreated",
        event="TodoCreated",
        degradations=(
            degrade("observe-only",
                    "New todo items are found by comparing whole todo-list snapshots after they are "
                    "written, so a block cannot refuse the write, as it does in Qwen."),
            _TODO_ONCE,
            _TODO_BY_TEXT,
            degrade("payload-field-missing",
                    "todo_id, all_todos and phase are absent: only the item's text and status are known."),
        ),
    ),
    derive_row(CLAUDE, "TaskCompleted",
        event="TodoCompleted",
        degradations=(
            # An item dropped without being completed fires nothing in Qwen either (detectTodoChanges).
            shared.COMPLETION_FROM_SNAPSHOTS,
            _TODO_ONCE,
            _TODO_BY_TEXT,
            degrade("scope-differs",
                    "An item that is written already completed fires it here besides TodoCreated; Qwen "
                    "fires only TodoCreated for a new item."),
            degrade("payload-field-missing",
                    "todo_id, previous_status, all_todos and phase are absent: only the item's text is known."),
        ),
    ),
    derive_row(CLAUDE, "InstructionsLoaded",
        matcher_subject="file_path",
        degradations=(
            shared.INSTRUCTIONS_AT_CREATION,
            degrade("scope-differs",
                    "The list is what the host discovered at session creation, which need not match Qwen's "
                    "QWEN.md lookup (Qwen also reports its own files under ~/.qwen), and imports are not "
                    "reported."),
        ),
    ),
)

#: Documented by Qwen's "1.x" docs, unknown to the pinned release (0.24.4 skips the event with a
#: warning, so the hook never runs there either).
_NEWER = ("Qwen Code's 1.x docs name this event, but Qwen Code 0.24.4 (the release graded here) does "
          "not know it: it skips the entry with a warning, so the hook never runs.")
_DELETE = ("The host has no seam for deleting a stored session, so a SessionDelete hook (run by Qwen "
           "after a session the user picked is deleted, its answer ignored) has nowhere to run.")

# Qwen's tool ids (Gemini CLI's vocabulary, packages/core/src/tools/tool-names.ts of the release);
# the first name listed for a host tool is the one a payload carries.
TOOLS = (
    RUN_SHELL_COMMAND, READ_FILE, WRITE_FILE,
    ToolName(vendor="edit", host="edit",
             arguments=(("file_path", "path"), ("old_string", "old"), ("new_string", "new"))),
    GLOB, GREP_SEARCH,
    ToolName(vendor="agent", host="subagent"),
    ToolName(vendor="todo_write", host="todo"),
    ToolName(vendor="ask_user_question", host="ask_user_question"),
    ToolName(vendor="skill", host="skill"),
    ToolName(vendor="exit_plan_mode", host="exit_plan_mode"),
)

RULES = RulesSpec(
    default_sources=("QWEN.md", ".qwen/QWEN.md", "AGENTS.md"),
    note=(
        "Read byte for byte from disk and injected as a sourced user message at every agent start; "
        "@path imports stay text, and a context.fileName set in settings names other files, which are "
        "found only when imported by name."
    ),
)

QWEN = VendorSpec(
    id="qwen",
    aliases=("qwen-code",),
    losses=(_SCRUBBED_ENV, _OWN, _DERIVED_IDS),
    default_timeout_s=60.0,
    concurrent=True,
    shell="bash",
    # 0.24.4's getShellConfiguration() answers {executable: "bash"} on POSIX, spawned by name.
    shell_name="bash",
    # Measured on 0.24.4 (the vendor lane's recorder; executeCommandHook and getShellContextEnvVars in
    # its bundle): every command hook gets the project folder under three names, the session id, and
    # Qwen's own state: QWEN_CODE_PROJECT_DIR is not the project but Qwen's folder for it
    # (~/.qwen/projects/<the project path, dashed>), then the CLI's entry, model, model identity,
    # sub-agent and prompt ids; the handler's `env` goes over them. The launcher's own variables
    # (QWEN_CODE_LAUNCHER_PID, QWEN_CODE_STARTUP_VERSION …) reach a hook only as inherited ones.
    project_dir_env=("QWEN_PROJECT_DIR", "CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"),
    hook_vars=(HookVar(name="QWEN_CODE_SESSION_ID", source="session"),
               HookVar(name="QWEN_CODE_PROJECT_DIR", source="none",
                       note="Qwen Code sets it to its own state folder of the project (~/.qwen/projects/<the "
                            "project path, dashed>), not the project; this host keeps none, so it is unset."),
               HookVar(name="QWEN_CODE_CLI", source="none",
                       note="Qwen Code sets it to its own CLI entry, for a hook that calls qwen back; there is "
                            "no qwen here, so it is unset."),
               HookVar(name="QWEN_CODE_MODEL", source="none",
                       note="Qwen Code sets it to the model its session uses; this host's model is not Qwen "
                            "Code's setting, so it is unset."),
               HookVar(name="QWEN_CODE_MODEL_IDENTITY", source="none",
                       note="Qwen Code sets it to the model's identity (name@hash); unset here."),
               HookVar(name="QWEN_CODE_AGENT_ID", source="none",
                       note="Qwen Code sets it to the id of the sub-agent a call is made in; unset here."),
               HookVar(name="QWEN_CODE_PROMPT_ID", source="none",
                       note="Qwen Code sets it to the id of the prompt a call answers; unset here.")),
    events=EVENTS,
    unserved=(
        ("SessionDelete", _DELETE),
        ("QueryEnd", _NEWER),
        ("ConfigChange", _NEWER),
        ("TeammateIdle", _NEWER),
        ("CwdChanged", _NEWER),
        ("FileChanged", _NEWER),
        ("WorktreeCreate", _NEWER),
    ),
    rules=RULES,
    plugin_runtime=(
        "Qwen Code extensions (MCP servers, commands, skills, subagents, function hooks registered in "
        "process) are out of scope; only settings command hooks and rules text are adapted."
    ),
    tools=TOOLS,
    measured_on="0.24.4",  # the vendor lane's pin (scripts/vendor_lane.sh)
    # What Qwen Code 0.24.4 does, as data (compat_adapter.model.VendorSpec says what each field means).
    dedupes_commands=True,  # the planner runs one hook per name:command of an event
    clamps_event_timeouts=False,
    handler_kinds=frozenset({"command", "http", "prompt"}),
    http_losses=(degrade("scope-differs",
                         "Qwen's allowedHttpHookUrls list and its SSRF guard are not applied: the URL and "
                         "headers are used as the handler gives them."),),
    matchers=MatcherEngine(engine="js-regex", names=None, names_events=None, match_all=(".*",)),
    bad_matcher="skips-hook",
    exit2_blocks=True,
    failure_denies=(),
    plugin_host=False,
)
