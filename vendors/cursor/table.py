"""Cursor (the IDE's agent and ``cursor-agent``): 20 hook events from ``.cursor/hooks.json``, and the
Claude Code hooks it runs from ``.claude/settings*.json`` when "Third-party configs" is on.

Data only. Cursor has no CLI on the registries and its models are Cursor-hosted, so nothing here was
measured: every row's semantics come from Cursor's documentation (cursor.com/docs/hooks and
/docs/reference/third-party-hooks) and say so (``confidence="documented"``); where the docs leave a
question open the stricter reading is taken and the loss is listed. Fifteen agent events are
translated onto host seams; the two MCP events, afterAgentThought and the two Tab events have no
seam here (unserved). The eight Claude event names Cursor maps onto its own (PreToolUse →
preToolUse …) are rows of their own, spelled as Claude spells them: the importer reads a Claude
settings file in Cursor's compatibility mode only when it is named for Cursor.
"""

from compat_adapter.model import (
    HookVar,
    MatcherEngine,
    EventRow,
    Route,
    RulesSpec,
    Service,
    ToolName,
    VendorSpec,
    degrade,
)
from vendors import shared
from vendors.claude.table import GREP, READ, TASK, WRITE

_DOC = "documented"

_OWN = degrade(
    "own-translation",
    "No Cursor bridge exists on the host and no Cursor CLI runs here, so this project speaks Cursor's "
    "hook protocol itself as Cursor's documentation describes it: payload, matcher, exit codes and "
    "output fields are our reading of the docs, never compared with a running Cursor.",
)
_ENV = degrade(
    "env-differs",
    "CURSOR_PROJECT_DIR and CLAUDE_PROJECT_DIR are set, but CURSOR_VERSION, CURSOR_USER_EMAIL and "
    "CURSOR_TRANSCRIPT_PATH are not; parent variables whose names contain KEY, TOKEN, SECRET, PASSWORD "
    "or CREDENTIAL, and every DSH_* variable, are removed from the hook's environment.",
)
_COMMON = degrade(
    "payload-field-missing",
    "Of the common fields, user_email is always null, cursor_version is empty (this is not a Cursor "
    "release), generation_id is derived from the host session and turn, and workspace_roots holds the "
    "one session folder.",
)
_TIMEOUT = degrade(
    "timeout-differs",
    "Cursor documents its default timeout only as a \"platform default\"; a hook without a timeout is "
    "stopped here after 30 s.",
)
_SERIAL = degrade(
    "timing-differs",
    "Cursor's docs do not say whether the hooks of one event run one after another or at once; here "
    "they run one after another in file order, each one even after an earlier one denied.",
)

# Losses of the rows whose answer is a verdict.
_MERGE = degrade(
    "decision-narrowed",
    "Where hooks answer differently Cursor lets the higher-priority source (enterprise, team, project, "
    "user, then Claude files) take precedence; here the strictest answer wins (deny over ask over "
    "allow) whatever file it came from.",
)
_NOT_PRE_APPROVED = degrade(
    "decision-narrowed",
    "allow does not pre-approve the call: it hands it to the next listener, so a later policy may "
    "still ask for approval or refuse it.",
)
_UNNAMED_TOOLS = degrade(
    "matcher-narrowed",
    "Tool names follow Cursor's documented list (bash is Shell, read Read, write and edit Write, grep "
    "Grep, subagent Task); host tools Cursor's docs do not name (glob, todo, ask_user_question) keep "
    "the host's name, and MCP tools never reach the hook (the host has none).",
)
_TOOL_INPUT = degrade(
    "payload-field-missing",
    "Cursor documents tool_input only for Shell ({command, working_directory}); other tools' inputs "
    "carry the host's arguments (path as file_path, old and new as old_string and new_string), and "
    "the model's agent_message before the call is absent.",
)
_DENY_TEXT = degrade(
    "text-differs",
    "What Cursor tells the model about a deny without agent_message is not documented; here the model "
    "reads the hook's agent_message, or \"blocked by cursor <event> hook\" (a failClosed hook's failure: "
    "\"<event> hook failed and is fail-closed: <why>\"), and user_message (meant for the user) is logged.",
)

_PRE_TOOL = (shared.REWRITE_NESTED, shared.REWRITE_IN_HISTORY, _NOT_PRE_APPROVED, _MERGE, _DENY_TEXT,
             _UNNAMED_TOOLS, _TOOL_INPUT)

_POST_TOOL = (
    degrade("output-rewrite-ignored",
            "updated_mcp_tool_output has no effect: it applies only to MCP tools, which the host does not have."),
    degrade("payload-field-missing",
            "tool_output is the host's result as a JSON string ({\"output\": text} when the host gives "
            "only text), not Cursor's own result object; duration is measured from the end of the "
            "pre-tool hooks."),
    degrade("scope-differs",
            "Cursor does not document whether a shell command that ran and exited non-zero is a "
            "success; here it is, so it fires postToolUse rather than postToolUseFailure."),
    _UNNAMED_TOOLS,
)

_POST_FAILURE = (
    degrade("scope-differs",
            "A call a hook denied never fires it here (Cursor reports it with failure_type "
            "\"permission_denied\"); only calls the host reports as failed do."),
    degrade("payload-field-missing",
            "failure_type is always \"error\" (the host's result does not say a call timed out), and "
            "is_interrupt is always false."),
    _UNNAMED_TOOLS,
)

_SESSION_START = (
    degrade("timing-differs",
            "Cursor runs it fire-and-forget; here the host waits for it while it creates the agent, so a "
            "slow hook delays the first step."),
    degrade("message-provenance",
            "additional_context lands as a sourced message for the agent's next step, not in the "
            "conversation's initial system context."),
    degrade("output-field-ignored",
            "env is recorded but not passed to the session's later hooks, where Cursor sets those "
            "variables for every hook that follows."),
    degrade("payload-field-missing",
            "is_background_agent is always false and composer_mode always \"agent\"."),
)

_SESSION_END = (
    degrade("timing-differs",
            "agent/disposed fires whenever an agent leaves the host's registry, reloads and teardown "
            "included, which is broader than the end of a Cursor conversation."),
    degrade("payload-field-missing",
            "The host's dispose notice has no cause: reason is always \"completed\", and duration_ms, "
            "final_status and error_message are absent."),
)

_PROMPT = (
    shared.EVERY_INBOX_STEP,
    degrade("payload-field-missing", "attachments is always empty: the host's prompts carry no attachments."),
    degrade("output-field-ignored",
            "user_message (shown to the user when the prompt is blocked) is logged; the host has no "
            "client to show it in."),
)

_STOP = (
    degrade("message-provenance",
            "Cursor submits followup_message as the next user message, a new turn; here it steers another "
            "step of the same turn as a message sourced to the hook."),
    degrade("payload-field-missing",
            "status is \"completed\" unless the host says the turn was aborted or failed, and loop_count "
            "counts the follow-ups of this turn where Cursor counts those of the conversation."),
    degrade("decision-narrowed",
            "The cap of 5 follow-ups (Cursor's default loop_limit) counts the follow-ups of all the "
            "event's hooks together, where Cursor counts each script's own."),
)

_SUBAGENT_TYPE = degrade(
    "matcher-narrowed",
    "The host names no subagent type, so subagent_type is \"default\" and a matcher naming "
    "generalPurpose, explore or shell never fires.",
)

_SUBAGENT_START = (
    degrade("observe-only",
            "The host reports the child once it exists, so permission \"deny\" cannot stop it."),
    _SUBAGENT_TYPE,
    degrade("payload-field-missing",
            "task, tool_call_id, subagent_model and git_branch are absent; is_parallel_worker is always "
            "false."),
)

_SUBAGENT_STOP = (
    degrade("observe-only",
            "The child has already settled when the host reports its end, so followup_message cannot "
            "make it continue."),
    _SUBAGENT_TYPE,
    degrade("payload-field-missing",
            "task, description, duration_ms, message_count, tool_call_count, modified_files and "
            "agent_transcript_path are absent; summary is the child's last message."),
)

_PRE_COMPACT = (
    shared.COMPACTION_STARTED,
    degrade("payload-field-missing",
            "trigger is always \"auto\"; context_usage_percent, context_tokens, context_window_size, "
            "message_count, messages_to_compact and is_first_compaction are absent."),
    degrade("output-field-ignored", "user_message (shown to the user when compaction occurs) is logged."),
)

# The Claude-file rows: what running a Claude hook under Cursor's compatibility mode adds.
_CLAUDE_PAYLOAD = degrade(
    "payload-field-missing",
    "Cursor's docs describe only the name mapping, so a Claude hook is sent Cursor's payload for the "
    "mapped event (hook_event_name is Cursor's name, conversation_id stands for session_id, no "
    "permission_mode): a script that reads Claude's fields finds them absent.",
)
_CLAUDE_TOOLS = degrade(
    "matcher-narrowed",
    "Claude tool names in the matcher are read as Cursor maps them (Bash as Shell, Edit as Write); "
    "Glob, WebFetch and WebSearch have no Cursor tool and match nothing.",
)
_CLAUDE_REASON = degrade(
    "text-differs",
    "permissionDecisionReason is read as user_message, as Cursor maps it: the model is not told why, "
    "where Claude Code shows the reason to the model.",
)
_CLAUDE_STOP = degrade(
    "decision-narrowed",
    "Cursor sets no follow-up limit on a Claude Stop hook (its loop_limit is null); here the follow-ups "
    "end after 5 consecutive ones.",
)


EVENTS = (
    EventRow(event="sessionStart", route=Route.NATIVE_TRANSLATE, seams=("agent/created",),
             point="agent/created", services=(Service.AGENTS,), blocking="context",
             degradations=_SESSION_START, confidence=_DOC),
    EventRow(event="sessionEnd", route=Route.NATIVE_TRANSLATE, seams=("agent/disposed",),
             point="agent/disposed", degradations=_SESSION_END, confidence=_DOC),
    EventRow(event="preToolUse", route=Route.NATIVE_TRANSLATE, seams=("tools/pre-execute",),
             point="tools/pre-execute", blocking="verdict", matcher_subject="tool_name",
             degradations=_PRE_TOOL, confidence=_DOC),
    EventRow(event="postToolUse", route=Route.NATIVE_TRANSLATE, seams=("tools/post-execute",),
             point="tools/post-execute", fires_on="completed", blocking="context", matcher_subject="tool_name",
             degradations=_POST_TOOL, confidence=_DOC),
    EventRow(event="postToolUseFailure", route=Route.NATIVE_TRANSLATE, seams=("tools/post-execute",),
             point="tools/post-execute", fires_on="incomplete", matcher_subject="tool_name",
             degradations=_POST_FAILURE, confidence=_DOC),
    EventRow(event="subagentStart", route=Route.NATIVE_SEAM, seams=("subagent/start",),
             point="subagent/start", services=(Service.SUBAGENTS,), matcher_subject="subagent_type",
             degradations=_SUBAGENT_START, confidence=_DOC),
    EventRow(event="subagentStop", route=Route.NATIVE_SEAM, seams=("subagent/end",),
             point="subagent/end", services=(Service.SUBAGENTS,), matcher_subject="subagent_type",
             degradations=_SUBAGENT_STOP, confidence=_DOC),
    EventRow(event="beforeShellExecution", route=Route.NATIVE_TRANSLATE, seams=("tools/pre-execute",),
             point="tools/pre-execute", blocking="verdict", matcher_subject="command", tools=("bash",),
             degradations=(
                 degrade("decision-narrowed",
                         "ask is sent to the host's approval, whose outcome is only allowed or rejected, so "
                         "no prompt with the hook's user_message is shown as Cursor shows one."),
                 degrade("payload-field-missing", "sandbox is always false."),
                 _NOT_PRE_APPROVED, _MERGE, _DENY_TEXT,
             ), confidence=_DOC),
    EventRow(event="afterShellExecution", route=Route.NATIVE_TRANSLATE, seams=("tools/post-execute",),
             point="tools/post-execute", fires_on="completed", matcher_subject="command", tools=("bash",),
             degradations=(
                 degrade("payload-field-missing",
                         "output is the host's result text (its stdout and stderr as the host joins them), "
                         "duration is measured from the end of the pre-tool hooks, and sandbox is always false."),
             ), confidence=_DOC),
    EventRow(event="beforeReadFile", route=Route.NATIVE_TRANSLATE, seams=("tools/pre-execute",),
             point="tools/pre-execute", blocking="verdict", matcher_subject="tool_type", tools=("read",),
             degradations=(
                 degrade("payload-field-missing",
                         "content is absent (the hook runs before the host reads the file, and this project "
                         "does not read it for the hook), and attachments is always empty."),
                 degrade("scope-differs",
                         "Only the host's read tool fires it: files the agent reaches another way (grep, a "
                         "shell command) or a prompt's attachments never do."),
                 _MERGE, _DENY_TEXT,
             ), confidence=_DOC),
    EventRow(event="afterFileEdit", route=Route.NATIVE_TRANSLATE, seams=("tools/post-execute",),
             point="tools/post-execute", fires_on="success", matcher_subject="tool_type", tools=("write", "edit"),
             degradations=(
                 degrade("payload-field-missing",
                         "A whole-file write is one edit whose old_string is empty and new_string the new "
                         "content; the edits of Cursor's multi-edit tools have no host counterpart."),
             ), confidence=_DOC),
    EventRow(event="beforeSubmitPrompt", route=Route.NATIVE_TRANSLATE, seams=("agent/pre-step",),
             point="agent/pre-step", blocking="verdict", matcher_subject="event_value",
             degradations=_PROMPT, confidence=_DOC),
    EventRow(event="preCompact", route=Route.NATIVE_TRANSLATE, seams=("session/event",),
             point="compaction/start", degradations=_PRE_COMPACT, confidence=_DOC),
    EventRow(event="stop", route=Route.NATIVE_TRANSLATE, seams=("agent/turn-stopping",),
             point="agent/turn-stopping", services=(Service.AGENTS,), blocking="continue",
             matcher_subject="event_value", degradations=_STOP, confidence=_DOC),
    EventRow(event="afterAgentResponse", route=Route.NATIVE_TRANSLATE, seams=("session/event",),
             point="message/display", matcher_subject="event_value",
             degradations=(
                 degrade("timing-differs",
                         "It fires for every assistant message the host commits, the text of a step that "
                         "goes on to call tools included."),
             ), confidence=_DOC),
    # The Claude Code events Cursor maps onto its own, for hooks read from .claude/settings*.json.
    EventRow(event="SessionStart", route=Route.NATIVE_TRANSLATE, seams=("agent/created",),
             point="agent/created", services=(Service.AGENTS,), blocking="context",
             degradations=(*_SESSION_START, _CLAUDE_PAYLOAD), confidence=_DOC),
    EventRow(event="SessionEnd", route=Route.NATIVE_TRANSLATE, seams=("agent/disposed",),
             point="agent/disposed", degradations=(*_SESSION_END, _CLAUDE_PAYLOAD), confidence=_DOC),
    EventRow(event="PreToolUse", route=Route.NATIVE_TRANSLATE, seams=("tools/pre-execute",),
             point="tools/pre-execute", blocking="verdict", matcher_subject="tool_name",
             degradations=(*_PRE_TOOL, _CLAUDE_PAYLOAD, _CLAUDE_TOOLS, _CLAUDE_REASON), confidence=_DOC),
    EventRow(event="PostToolUse", route=Route.NATIVE_TRANSLATE, seams=("tools/post-execute",),
             point="tools/post-execute", fires_on="completed", blocking="context", matcher_subject="tool_name",
             degradations=(*_POST_TOOL, _CLAUDE_PAYLOAD, _CLAUDE_TOOLS,
                           degrade("output-field-ignored",
                                   "Cursor's docs map no Claude output field of PostToolUse: hookSpecificOutput"
                                   ".additionalContext is not read (only Cursor's own additional_context is).")),
             confidence=_DOC),
    EventRow(event="UserPromptSubmit", route=Route.NATIVE_TRANSLATE, seams=("agent/pre-step",),
             point="agent/pre-step", blocking="verdict", matcher_subject="event_value",
             degradations=(*_PROMPT, _CLAUDE_PAYLOAD,
                           degrade("output-field-ignored",
                                   "Claude's decision \"block\" and additionalContext are not read: Cursor's "
                                   "beforeSubmitPrompt reads only continue and user_message.")),
             confidence=_DOC),
    EventRow(event="Stop", route=Route.NATIVE_TRANSLATE, seams=("agent/turn-stopping",),
             point="agent/turn-stopping", services=(Service.AGENTS,), blocking="continue",
             matcher_subject="event_value", degradations=(*_STOP[:2], _CLAUDE_PAYLOAD, _CLAUDE_STOP),
             confidence=_DOC),
    EventRow(event="SubagentStop", route=Route.NATIVE_SEAM, seams=("subagent/end",),
             point="subagent/end", services=(Service.SUBAGENTS,), matcher_subject="subagent_type",
             degradations=(*_SUBAGENT_STOP, _CLAUDE_PAYLOAD), confidence=_DOC),
    EventRow(event="PreCompact", route=Route.NATIVE_TRANSLATE, seams=("session/event",),
             point="compaction/start", degradations=(*_PRE_COMPACT, _CLAUDE_PAYLOAD), confidence=_DOC),
)

TOOLS = (
    ToolName(vendor="Shell", host="bash"),
    READ,
    # Cursor names both a new file and an edit Write (its docs map Claude's Edit onto Write).
    ToolName(vendor="Write", host="edit",
             arguments=(("file_path", "path"), ("old_string", "old"), ("new_string", "new"))),
    WRITE, GREP, TASK,
)

RULES = RulesSpec(
    formats=("markdown", "cursor-mdc-frontmatter"),
    default_sources=(".cursor/rules/**/*.mdc", ".cursor/rules/**/*.md", ".cursorrules", "AGENTS.md"),
    note=(
        "Carried byte for byte and injected as a sourced user message at every agent start, as guidance "
        "for the model and never as tool policy. The alwaysApply, globs and description frontmatter "
        "travel as text: a rule meant for some files, or for the model to pick, is always there."
    ),
)

#: Cursor events with no route here, and why.
UNSERVED = (
    ("beforeMCPExecution", "the host has no MCP tools, so there is no MCP call to gate"),
    ("afterMCPExecution", "the host has no MCP tools, so no MCP call ever completes"),
    ("afterAgentThought", "the host records no thinking blocks, so there is no moment to fire it on"),
    ("beforeTabFileRead", "a Tab (inline completion) event: the host has no editor completions, so "
                          "there is no seam to fire it on"),
    ("afterTabFileEdit", "a Tab (inline completion) event: the host has no editor completions, so "
                         "there is no seam to fire it on"),
)

CURSOR = VendorSpec(
    id="cursor",
    aliases=("cursor-agent", "cursor-ide"),
    losses=(_ENV, _OWN, _COMMON, _TIMEOUT, _SERIAL),
    default_timeout_s=30.0,
    concurrent=False,
    shell="sh",
    project_dir_env=("CURSOR_PROJECT_DIR", "CLAUDE_PROJECT_DIR"),
    # What Cursor's docs say it also gives a hook, which no host here has (its _ENV loss says so).
    hook_vars=(HookVar(name="CURSOR_VERSION", source="none", note="Cursor's own version: no Cursor runs here"),
               HookVar(name="CURSOR_USER_EMAIL", source="none",
                       note="the signed-in Cursor user's e-mail: the host has no Cursor account"),
               HookVar(name="CURSOR_TRANSCRIPT_PATH", source="none",
                       note="Cursor's transcript file: the host keeps no Cursor transcript")),
    events=EVENTS,
    rules=RULES,
    plugin_runtime=(
        "Cursor plugins bundle MCP servers, rules, skills and hooks for Cursor's own runtime; their "
        "hooks.json is not read here (Cursor's CLI does not read it either), and the runtime never is."
    ),
    tools=TOOLS,
    unserved=UNSERVED,
    # What Cursor does, as data, by its documentation (compat_adapter.model.VendorSpec says what each
    # field means); nothing here was measured.
    dedupes_commands=False,
    clamps_event_timeouts=False,
    handler_kinds=frozenset({"command"}),
    http_losses=(),
    matchers=MatcherEngine(engine="js-regex", names=None, names_events=None, match_all=()),
    bad_matcher="refuses-config",
    exit2_blocks=True,
    failure_denies=(),  # only a failClosed hook's failure denies, hook by hook
    rules_policy=False,
    plugin_host=False,
    confidence=_DOC,
)
