"""Google Gemini CLI (0.61.0): 11 hook events from `.gemini/settings.json`, and GEMINI.md rules.

Data only. The host has no Gemini bridge, so this project speaks Gemini's hook protocol itself
(``vendors/gemini/dialect.py``). Nine events are translated onto host seams (BeforeModel onto the step
before each model call, which it can refuse); AfterModel and BeforeToolSelection have no seam here and
grade UNSUPPORTED. Every fact
below was read in Gemini CLI 0.61.0's shipped source (``bundle/chunk-*.js``: hookRunner,
hookAggregator, hookPlanner, coreToolHookTriggers, the non-interactive loop) and measured with the
vendor lane (``vendors/gemini/lane.py``); where its documentation says otherwise, the CLI won.

``TOOLS`` is Gemini's tool vocabulary (``run_shell_command``, ``write_file``, ``replace`` …) against
the host's tools; Qwen Code, a Gemini CLI fork, names its tools the same way and may import it.
"""

from compat_adapter.vendor import (
    EventRow, HookVar, MatcherEngine, Route, RulesSpec, Service, ToolName, VendorSpec, degrade,
)
from vendors import shared

__all__ = ("GEMINI", "TOOLS")

_OWN = degrade(
    "own-translation",
    "No Gemini CLI bridge exists on the host, so this project speaks Gemini's hook protocol itself: "
    "payload, matcher, exit codes, output fields and merging are our re-implementation of 0.61.0.",
)
_SCRUBBED_ENV = degrade(
    "env-differs",
    "Parent variables whose names contain KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL, and every DSH_* "
    "variable, are removed from the hook's environment, where Gemini CLI passes its whole environment on "
    "(outside GitHub Actions); GEMINI_PROJECT_DIR and CLAUDE_PROJECT_DIR are set, but GEMINI_SESSION_ID, "
    "GEMINI_CWD and GEMINI_PLANS_DIR are not, so a command naming them reads an empty value.",
)
_NAMED_TWICE = degrade(
    "scope-differs",
    "Identical commands of one event run once; Gemini keys a hook by its name and command, so the same "
    "command under two different names runs twice there.",
)
_UNMAPPED_TOOLS = degrade(
    "matcher-narrowed",
    "Matchers are tested against Gemini's tool names (run_shell_command, write_file, replace, read_file "
    "…), translated from the host's; host tools with no Gemini name keep the host's name, and Gemini-only "
    "tools (google_web_search, web_fetch, list_directory, MCP tools) never occur, so a matcher naming "
    "them never fires.",
)

_SESSION_START = (
    degrade("timing-differs",
            "The hook runs while the host creates the agent, before any prompt; its context waits for the "
            "first prompt and is put before it, as Gemini does in a non-interactive run "
            "(<hook_context>…</hook_context>, with < and > escaped as &lt; and &gt;)."),
    degrade("matcher-narrowed",
            "The host starts every agent as \"startup\": Gemini's \"resume\" and \"clear\" sources never "
            "occur, so a matcher naming them never fires."),
    degrade("output-field-ignored",
            "systemMessage (which Gemini prints to the user) is recorded, not shown."),
)

_SESSION_END = (
    degrade("timing-differs",
            "agent/disposed fires whenever an agent leaves the host's registry, reloads and teardown "
            "included, which is broader than Gemini CLI exiting."),
    degrade("payload-field-missing",
            "The host's dispose notice has no cause, so reason is always \"exit\" (what Gemini sends when "
            "the CLI exits) and a clear, logout or prompt_input_exit is never told apart; a matcher naming "
            "one never fires."),
)

_BEFORE_AGENT = (
    shared.EVERY_INBOX_STEP,
    degrade("decision-narrowed",
            "A deny and a continue:false both refuse the step, so the model is not called; Gemini drops a "
            "denied prompt from its history but keeps one stopped by continue:false."),
    degrade("payload-field-missing",
            "prompt is the text the user typed; when a SessionStart hook added context, Gemini's prompt also "
            "carries that <hook_context> block before it."),
)

#: BeforeModel (0.61.0's geminiChat): before every model call, a block (a deny or block decision, or
#: an exit but 0 and 1) ends the turn with no model call (AgentExecutionBlockedError), continue:false
#: stops the agent; an llm_request answer changes the call, an llm_response one answers it instead.
_BEFORE_MODEL = (
    degrade("payload-field-missing",
            "llm_request (the model, its config and the messages Gemini is about to send) is not in the "
            "payload: the host publishes no seam around a model request, only the step before it."),
    degrade("output-field-ignored",
            "hookSpecificOutput.llm_request (a changed model, config or messages) is not applied, and a "
            "block's llm_response (a synthetic answer Gemini gives in place of the call) is not read: "
            "the step is refused with no model call, and the host's refusal carries no text."),
    degrade("timing-differs",
            "It runs before each step of a turn (the first and every tool continuation), where Gemini runs "
            "it before each model request, a retry of the same step included."),
)

_AFTER_AGENT = (
    degrade("message-provenance",
            "A block's reason is steered into another step of the same turn as a message sourced to the "
            "hook, where Gemini sends the bare reason as the prompt of a new turn (and fires BeforeAgent "
            "for it)."),
    degrade("output-field-ignored",
            "hookSpecificOutput.clearContext never clears the conversation, and systemMessage is recorded, "
            "not shown."),
    degrade("payload-field-missing",
            "prompt is empty: the host's turn-stopping notice does not say which prompt the turn answers."),
)

_BEFORE_TOOL = (
    shared.REWRITE_NESTED,
    degrade("text-differs",
            "After an input rewrite Gemini appends \"[System] Tool input parameters were modified by a hook "
            "before execution.\" to the tool's result; here the result is the tool's own."),
    degrade("message-provenance",
            "After a continue:false the agent stops before the call runs, as in Gemini, but the unrun call "
            "keeps \"Tool execution blocked: <reason>\" as its result in the history, where Gemini records "
            "\"Agent execution stopped by hook: <reason>\"; the model reads it only if the session goes on."),
    degrade("decision-narrowed",
            "decision \"ask\" is sent to the host's approval, which only allows or rejects; allow does not "
            "pre-approve the call, so a later policy may still ask."),
    _UNMAPPED_TOOLS,
)

_AFTER_TOOL = (
    shared.REWRITE_POST_PAYLOAD,
    degrade("payload-field-missing",
            "tool_response.llmContent and returnDisplay are the host's own result text, not Gemini's "
            "rendering of it (a shell result there reads \"<untrusted_context>\\nOutput: …\\nProcess Group "
            "PGID: …\"), and error is absent."),
    degrade("output-field-ignored",
            "hookSpecificOutput.tailToolCallRequest never runs another tool, and systemMessage is recorded, "
            "not shown."),
    _UNMAPPED_TOOLS,
)

_PRE_COMPRESS = (
    degrade("timing-differs",
            "Gemini CLI 0.61.0 fires PreCompress before every model request of a turn, a tool "
            "continuation's too, because its compression check runs the hook before it looks at the token "
            "count; so does this row. But Gemini compresses, when it does, right after that firing; the "
            "host compacts at its own moment, so a hook that saves the transcript before a compaction "
            "saves it up to a step earlier, and a compaction itself fires nothing more."),
    shared.COMPACTION_ALWAYS_AUTO,
)

_NOTIFICATION = (
    degrade("timing-differs",
            "Gemini fires it when a tool call starts waiting for the user's confirmation (ToolPermission); "
            "here it fires once the host's approval service has decided such a request, which a call the "
            "host permits never makes."),
    degrade("payload-field-missing",
            "message and details name the tool by its Gemini name (Gemini: its display title); details holds "
            "the confirmation type and the approval's outcome, but no command, fileDiff or file contents."),
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
        degradations=_SESSION_START,
    ),
    EventRow(
        event="SessionEnd",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/disposed",),
        point="agent/disposed",
        matcher_subject="reason",
        degradations=_SESSION_END,
    ),
    EventRow(
        event="BeforeAgent",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/pre-step",),
        point="agent/pre-step",
        blocking="verdict",
        degradations=_BEFORE_AGENT,
    ),
    EventRow(
        event="BeforeModel",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/pre-step",),
        point="agent/pre-step",
        fires_on="every-step",
        blocking="verdict",
        degradations=_BEFORE_MODEL,
    ),
    EventRow(
        event="AfterAgent",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/turn-stopping",),
        point="agent/turn-stopping",
        services=(Service.AGENTS,),
        blocking="continue",
        degradations=_AFTER_AGENT,
    ),
    EventRow(
        event="BeforeTool",
        route=Route.NATIVE_TRANSLATE,
        seams=("tools/pre-execute",),
        point="tools/pre-execute",
        blocking="verdict",
        matcher_subject="tool_name",
        degradations=_BEFORE_TOOL,
    ),
    EventRow(
        event="AfterTool",
        route=Route.NATIVE_TRANSLATE,
        seams=("tools/post-execute",),
        point="tools/post-execute",
        blocking="verdict",  # a deny replaces the result the model reads
        matcher_subject="tool_name",
        degradations=_AFTER_TOOL,
    ),
    EventRow(
        event="PreCompress",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/pre-step",),
        point="agent/pre-step",
        fires_on="every-step",
        matcher_subject="trigger",
        degradations=_PRE_COMPRESS,
    ),
    EventRow(
        event="Notification",
        route=Route.NATIVE_TRANSLATE,
        seams=("session/event",),
        point="approval/decided",
        services=(Service.APPROVAL,),
        degradations=_NOTIFICATION,
    ),
)

#: Gemini CLI 0.61.0's built-in tools (the function declarations it offers the model) against the
#: host's; its argument names where they differ.
# By name, the tools Qwen Code kept from Gemini CLI's vocabulary (its fork) list the same entries.
RUN_SHELL_COMMAND = ToolName(vendor="run_shell_command", host="bash")
READ_FILE = ToolName(vendor="read_file", host="read", arguments=(("file_path", "path"),))
WRITE_FILE = ToolName(vendor="write_file", host="write", arguments=(("file_path", "path"),))
GLOB = ToolName(vendor="glob", host="glob")
GREP_SEARCH = ToolName(vendor="grep_search", host="grep")
TOOLS = (
    RUN_SHELL_COMMAND, READ_FILE, WRITE_FILE,
    ToolName(vendor="replace", host="edit",
             arguments=(("file_path", "path"), ("old_string", "old"), ("new_string", "new"))),
    GLOB, GREP_SEARCH,
    ToolName(vendor="invoke_agent", host="subagent"),
    ToolName(vendor="activate_skill", host="skill"),
)

RULES = RulesSpec(
    default_sources=("GEMINI.md",),
    note=(
        "GEMINI.md (or the names context.fileName gives in .gemini/settings.json) is carried byte for "
        "byte and injected as a sourced user message at every agent start, as Gemini loads it into its "
        "system instruction as memory: context for the model, never tool policy. Gemini's @file imports "
        "stay text, and GEMINI.md files in subfolders are not searched."
    ),
)

#: Gemini events with no route here, and why.
_NO_MODEL_SEAM = ("the host publishes no seam around a model request on this surface (its agent/request "
                  "waterfall is not offered, and request/header is logged only when the model config "
                  "changes), so nothing can see the request Gemini hands this hook (llm_request: model, "
                  "messages, config)")
UNSERVED = (
    ("AfterModel", _NO_MODEL_SEAM + " or the response chunk it gets back (llm_response), nor redact or "
                   "replace that chunk"),
    ("BeforeToolSelection", _NO_MODEL_SEAM + ", nor narrow the tools the model may call (toolConfig)"),
)

GEMINI = VendorSpec(
    id="gemini",
    aliases=("gemini-cli",),
    losses=(_SCRUBBED_ENV, _OWN, _NAMED_TWICE),
    default_timeout_s=60.0,  # DEFAULT_HOOK_TIMEOUT: 60000 ms; a hook's own timeout is in ms too
    concurrent=True,  # a group runs its hooks in parallel unless one of the event's groups is sequential
    shell="bash",  # getShellConfiguration() on POSIX: bash -c
    # 0.x's hook runner spawns {executable: "bash"} by name (spawn, shell: false): bash is `bash` to itself.
    shell_name="bash",
    # Measured on 0.61.0 (the vendor lane's recorder; HookRunner.executeCommandHook in its bundle):
    # every command hook gets the project folder under two names, the same folder as GEMINI_CWD, the
    # session id and its plans folder, then the handler's own `env` over them. The command text's
    # $GEMINI_PROJECT_DIR (and the rest) are replaced by their shell-quoted values before the shell
    # sees them.
    project_dir_env=("GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"),
    hook_vars=(HookVar(name="GEMINI_CWD", source="project"),
               HookVar(name="GEMINI_SESSION_ID", source="session"),
               HookVar(name="GEMINI_PLANS_DIR", source="none",
                       note="Gemini CLI points it at its own per-session plans folder "
                            "(~/.gemini/tmp/<project>/<session-id>/plans, or the settings' plans directory); "
                            "this host keeps no such folder, so the variable is unset.")),
    events=EVENTS,
    rules=RULES,
    plugin_runtime=(
        "Gemini CLI extensions can bundle MCP servers, commands and their own hooks; extension hooks and "
        "in-process runtime hooks load only inside Gemini CLI, so only the command hooks of settings "
        "files and GEMINI.md are adapted."
    ),
    tools=TOOLS,
    unserved=UNSERVED,
    measured_on="0.61.0",  # the vendor lane's pin (scripts/vendor_lane.sh)
    # What Gemini CLI does, as data (compat_adapter.model.VendorSpec says what each field means).
    dedupes_commands=True,  # hookPlanner.deduplicateHooks, keyed by name and command
    clamps_event_timeouts=False,
    handler_kinds=frozenset({"command"}),
    http_losses=(),  # Gemini has no http handler
    # Tool events: `new RegExp(matcher).test(name)`, unanchored; lifecycle events: the exact string.
    matchers=MatcherEngine(engine="js-regex", names=r".+", names_events=("SessionStart", "SessionEnd",
                                                                          "PreCompress"), match_all=()),
    # A pattern that does not compile is compared as an exact tool name instead: never refused or skipped.
    bad_matcher="skips-hook",
    exit2_blocks=True,
    failure_denies=(),
    plugin_host=False,
)
