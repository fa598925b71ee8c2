"""OpenAI Codex CLI: 12 hook events, `hooks.json` / `config.toml` hooks, AGENTS.md and Starlark rules.

Data only. Five events go through the host's official Codex bridge; the rest are ours. Codex's hooks
copy Claude Code's protocol, so a row that lands where Claude's does is derived from Claude's row
(``derive_row``): it names the event and states Codex's losses and any routing fact that differs.
"""

from compat_adapter.vendor import (
    BridgeSpec, EventRow, HookVar, MatcherEngine, Route, RulesSpec, Service, ToolName, VendorSpec, degrade, derive_row,
)
from vendors import shared
from vendors.claude.table import CLAUDE
from vendors.surface import CODEX_BRIDGE

_NOT_BRIDGED = degrade(
    "own-translation",
    "The Codex bridge does not implement this event, so this project mounts its own listener.",
)
_SERIAL = degrade(
    "timing-differs",
    "The bridge runs the matching hooks one after another in config order, where Codex launches "
    "them all at once, so their run times add up.",
)
_EXIT_2_EMPTY = degrade(
    "exit-code-differs",
    "The bridge treats exit 2 as a block even with nothing on stderr, where Codex counts that run "
    "as failed and lets the action go on.",
)

#: The Codex bridge's own losses, stated once for the rows each is true of.
BRIDGE = BridgeSpec(
    package=CODEX_BRIDGE,
    dialect="codex",
    losses=(_SERIAL,),
    block_losses=(_EXIT_2_EMPTY,),
)

_BRIDGE_MESSAGE = degrade(
    "message-provenance",
    "Context is queued as a user message sourced from the bridge, not given as Codex developer "
    "context.",
)
_DISPOSED_BROADER = degrade(
    "timing-differs",
    "agent/disposed fires whenever an agent leaves the registry (reload and teardown too), "
    "which is broader than the end of a Codex session.",
)


# True of every row: the one hook runner (and the bridges) scrub the environment.
_SCRUBBED_ENV = degrade(
    "env-differs",
    "Parent variables whose names contain KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL, and every "
    "DSH_* variable, are removed from the hook's environment, where Codex passes them on, so "
    "a hook that reads an API token finds nothing.",
)

# Shared by the two compaction rows and by the two subagent rows.
_TRIGGER_AUTO = degrade(
    "payload-field-missing",
    "trigger is always \"auto\", even for a manual compaction.",
)


# Codex's own wording on the rows this project translates, and where the host puts it instead.
_DEVELOPER_AS_USER = degrade(
    "message-provenance",
    "Context reaches the model as bare text, as in Codex, but in a user message sourced from the hook "
    "where Codex adds a developer message: this host gives a plugin's context no developer role (its "
    "surface lists no context role; the embedded host and DSH, where the bundle makes it system-prompt "
    "text, both have one).",
)
_NO_MODEL = degrade(
    "payload-field-missing",
    "model is the model of the host's last request, an empty string until the first one, and "
    "permission_mode is \"default\": the host names neither to a listener.",
)

EVENTS = (
    derive_row(CLAUDE, "SessionStart",
        role_losses=(_DEVELOPER_AS_USER,),
        degradations=(
            _NO_MODEL,
            degrade("env-differs",
                    "No CODEX_ENV_FILE or CLAUDE_ENV_FILE is given, so the hook cannot persist variables."),
        ),
        official={
            "degradations": (
                degrade("payload-field-missing",
                        "transcript_path is always null and no hook environment (CODEX_ENV_FILE) is given."),
                _BRIDGE_MESSAGE,
            ),
        },
    ),
    derive_row(CLAUDE, "UserPromptSubmit",
        timeout_s=None,
        role_losses=(_DEVELOPER_AS_USER,),
        degradations=(
            shared.EVERY_INBOX_STEP,
            _NO_MODEL,
        ),
        official={
            "timeout_s": None,
            "degradations": (
                degrade("output-field-ignored",
                        "A block rejects the step, but its reason never reaches the model or the user."),
                degrade("payload-field-missing",
                        "prompt is the text of every claimed message run together with no separator, so "
                        "injected rules or hook context ride in it, and permission_mode is the constant "
                        "default."),
                shared.EVERY_INBOX_STEP,
                _BRIDGE_MESSAGE,
            ),
        },
    ),
    derive_row(CLAUDE, "PreToolUse",
        degradations=(
            shared.REWRITE_POST_PAYLOAD,
            degrade("message-provenance",
                    "additionalContext reaches the model as bare text, as in Codex 0.171.0, but in a user "
                    "message sourced from the hook after the tool's result, where Codex adds a developer "
                    "message before it."),
            _NO_MODEL,
            degrade("matcher-narrowed",
                    "Host tools Codex has no name for reach the hook under their host name, and MCP tools "
                    "never occur, so matchers naming them never fire."),
        ),
        official={
            "degradations": (
                degrade("decision-narrowed",
                        "Only deny blocks, as in Codex, but output Codex rejects as a failed run (ask, "
                        "approve, continue:false) is not checked, so a deny written beside it still blocks."),
                degrade("input-rewrite-ignored", "updatedInput with allow does not rewrite the call."),
                degrade("payload-field-missing",
                        "tool_input is flattened to {command} (empty for non-shell tools) and tool_name is the "
                        "host's name (bash, edit, write), not Bash or apply_patch."),
                degrade("matcher-narrowed",
                        "Matchers are translated to host tool names (Bash→bash, apply_patch and Edit→edit, "
                        "Write→write), so apply_patch no longer selects the host's write tool, and MCP tool "
                        "names never match."),
                degrade("scope-differs",
                        "A hook without a matcher also runs for host tools Codex never hooks (read, glob, "
                        "grep …), with tool_input {\"command\": \"\"}."),
                degrade("output-field-ignored", "additionalContext and systemMessage from PreToolUse are not shown."),
            ),
        },
    ),
    derive_row(CLAUDE, "PostToolUse",
        fires_on="any",
        blocking="verdict",
        role_losses=(_DEVELOPER_AS_USER,),
        degradations=(
            degrade("text-differs",
                    "A block replaces the tool output with the reason, as in Codex, but the host marks "
                    "that result as an error."),
            degrade("payload-field-missing",
                    "tool_response is a Bash command's stdout and stderr run together when the host's "
                    "result states them, else the result's text."),
        ),
        official={
            "degradations": (
                degrade("output-field-ignored",
                        "Blocking feedback and additionalContext work, but continue:false is recorded "
                        "without stopping the processing of the result."),
                degrade("payload-field-missing",
                        "tool_response is flattened to text, tool_input to {command} (empty for non-shell "
                        "tools), and tool_name is the host's name (bash, edit, write)."),
                degrade("matcher-narrowed",
                        "Matchers are translated to host tool names, so apply_patch no longer selects the "
                        "host's write tool, and MCP tools never match."),
            ),
        },
    ),
    derive_row(CLAUDE, "Stop",
        services=(),
        degradations=(
            degrade("message-provenance",
                    "A block continues with Codex's own prompt (<hook_prompt hook_run_id=\"stop:N:<file>\">"
                    "reason</hook_prompt>) steered into the same turn rather than a new one; hook_run_id "
                    "names the hook's id when it did not come from a file."),
            _NO_MODEL,
        ),
        official={
            "services": (),
            "degradations": (
                degrade("payload-field-missing",
                        "stop_hook_active is always false and last_assistant_message is null."),
                degrade("no-loop-guard",
                        "The bridge has no consecutive-block cap: an unconditional block keeps forcing steps."),
                degrade("message-provenance",
                        "The continuation is a steered message from the bridge, not a new user prompt."),
                degrade("output-field-ignored",
                        "continue:false does not override a block as it does in Codex, so the turn goes on."),
            ),
        },
    ),
    derive_row(CLAUDE, "PermissionRequest",
        degradations=(
            _NOT_BRIDGED,
            degrade("decision-narrowed",
                    "allow maps to allowed-once and deny to rejected; there is no broader grant. An "
                    "answer carrying updatedInput, updatedPermissions or interrupt is a failed hook whose "
                    "answer is void, as in Codex 0.171.0; the host's approval then decides, where Codex "
                    "hands the call to its automatic reviewer."),
            degrade("timing-differs",
                    "The hook runs when something here asks for approval: a pre-tool answer of ask, or a "
                    ".rules prompt. Codex 0.171.0 also runs it for a call that asks to leave its sandbox "
                    "(sandbox_permissions require_escalated, under --approve-for-me or an on-request "
                    "approval policy; measured). The host has no sandbox and its model no escalation "
                    "request, so such a call runs here without the hook, and a deny it would give never "
                    "refuses it."),
            degrade("payload-field-missing",
                    "tool_input is the call's arguments as the host logged them (a Bash command is an "
                    "empty string when the log does not hold the call); description holds the host's "
                    "approval reason."),
        ),
    ),
    derive_row(CLAUDE, "PreCompact",
        matcher_subject=None,
        degradations=(
            degrade("observe-only",
                    "Compaction is a service call here, not a cancellable step: continue:false and a block "
                    "are audited and ignored."),
            degrade("timing-differs", "Fires on the durable compaction/start record, after compaction began."),
            _TRIGGER_AUTO,
        ),
    ),
    derive_row(CLAUDE, "PostCompact",
        matcher_subject=None,
        route=Route.NATIVE_SEAM,
        degradations=(
            degrade("observe-only", "The compaction has already finished; nothing the hook answers changes it."),
            _TRIGGER_AUTO,
        ),
    ),
    # Codex takes no answer on SessionEnd or Interrupt (vendor-protocols §2.2: "no", "observational"),
    # so watching them loses nothing: native-translate, without an observe-only loss.
    derive_row(CLAUDE, "SessionEnd",
        matcher_subject=None,
        timeout_s=3.0,
        degradations=(
            _DISPOSED_BROADER,
            degrade("payload-field-missing",
                    "The host gives no end reason, so reason is always \"other\"."),
        ),
    ),
    derive_row(CLAUDE, "SubagentStart",
        services=(Service.SUBAGENTS,),
        degradations=(
            _NOT_BRIDGED,
            degrade("scope-differs",
                    "additionalContext reaches only an in-process child that is live during the start "
                    "notification."),
            shared.NO_AGENT_TYPE,
        ),
    ),
    derive_row(CLAUDE, "SubagentStop",
        degradations=(
            _NOT_BRIDGED,
            degrade("observe-only",
                    "The child has already settled: a block cannot continue it."),
            degrade("payload-field-missing", "agent_transcript_path is always null."),
            shared.NO_AGENT_TYPE,
        ),
    ),
    EventRow(
        event="Interrupt",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/status",),
        point="agent/status",
        fires_on="idle",
        timeout_s=3.0,
        degradations=(
            degrade("approximate",
                    "The host publishes status flips, not interrupts: this fires when an agent returns to "
                    "idle, which an interrupt causes but does not identify."),
        ),
    ),
)

TOOLS = (
    ToolName(vendor="Bash", host="bash"),
    ToolName(vendor="apply_patch", host="edit"),
    ToolName(vendor="Edit", host="edit"),
    ToolName(vendor="Write", host="write"),
)

RULES = RulesSpec(
    formats=("markdown", "starlark"),
    default_sources=("AGENTS.override.md", "AGENTS.md", ".codex/rules/*.rules"),
    note=(
        "Carried byte for byte and injected as a sourced user message at every agent start. Codex "
        "Starlark rules (prefix_rule) are a command-execution policy: they are enforced on the host's "
        "shell tool as Codex enforces them, where the host has a pre-execute waterfall; this carried "
        "text is documentation for the model, never a security boundary."
    ),
)

#: Codex events with no route here, and why.
UNSERVED = (
    # Named in Codex 0.169's and 0.171's hook event list (read from the binary: PreModelRequest,
    # PreToolUse, PermissionRequest, PostToolUse, PreCompact, PostCompact, SessionStart, SessionEnd,
    # SubagentStart, SubagentStop, Interrupt, with UserPromptSubmit and Stop) but in no Codex document.
    ("PreModelRequest", "Codex 0.171 has this event but documents neither its payload nor what its "
                        "answer may do, so there is no faithful translation of it here"),
)

CODEX = VendorSpec(
    id="codex",
    aliases=("openai-codex",),
    losses=(_SCRUBBED_ENV,),
    bridge=BRIDGE,
    default_timeout_s=600.0,
    context_role="developer",
    concurrent=True,
    # Measured on Codex 0.171 (the vendor lane's real binary): a hook command runs as `/bin/bash -c`,
    # so a redirection it cannot open exits 1 (a failed hook, the call runs), not dash's 2.
    shell="bash",
    # Codex 0.169 gives a project's .codex/hooks.json hooks no variable of its own (measured: only
    # the CODEX_HOME it inherits), no project folder among them. Its plugins' hooks (a .codex-plugin
    # or .claude-plugin manifest) get Claude's two plugin variables: read from the binary's strings,
    # not run (codex exec loads no plugin folder offline).
    project_dir_env=(),
    hook_vars=(HookVar(name="CLAUDE_PLUGIN_ROOT", source="plugin-root"),
               HookVar(name="CLAUDE_PLUGIN_DATA", source="plugin-data")),
    events=EVENTS,
    rules=RULES,
    plugin_runtime=(
        "Codex plugins are hook and MCP bundles; only their command hooks.json and rules files are "
        "adapted, never an MCP server or a prompt/agent handler."
    ),
    tools=TOOLS,
    unserved=UNSERVED,
    measured_on="0.171.0",  # the vendor lane's pin (scripts/vendor_lane.sh)
    # What Codex does, as data (compat_adapter.model.VendorSpec says what each field means).
    dedupes_commands=False,
    clamps_event_timeouts=True,  # SessionEnd/Interrupt: 3 s caps a hook's longer timeout too
    handler_kinds=frozenset({"command"}),
    http_losses=(),
    matchers=MatcherEngine(engine="rust-regex", names=r"[A-Za-z0-9_|]+", names_events=None, match_all=()),
    bad_matcher="refuses-config",
    exit2_blocks=True,
    failure_denies=(),
    plugin_host=False,
)
