"""OpenCode: 29 plugin hooks and bus events, re-authored as command hooks; AGENTS.md and instructions.

Data only. OpenCode hooks are TypeScript callbacks in OpenCode's own process, so none can be carried
as written: every row runs a command written for it instead, through this project's own listener on
a host seam or service. The host has no OpenCode bridge.
"""

from compat_adapter.vendor import EventRow, MatcherEngine, Route, RulesSpec, Service, ToolName, VendorSpec, degrade
from vendors import shared
from vendors.opencode.plugins import PLUGIN_REFUSED

_CALLBACK = degrade(
    "reauthored",
    "The TypeScript callback cannot run here, so the hook must be rewritten as a command that reads "
    "the event as JSON on stdin.",
)
_APPROVAL_ONCE = degrade(
    "decision-narrowed",
    "allow becomes allowed-once and deny becomes rejected; there is no lasting \"always\" grant.",
)

# True of every row: the one hook runner (and the bridges) scrub the environment.
_SCRUBBED_ENV = degrade(
    "env-differs",
    "Parent variables whose names contain KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL, and every "
    "DSH_* variable, are removed from the hook's environment, where OpenCode passes them on, so "
    "a hook that reads an API token finds nothing.",
)

# Shared by the two language-server rows.
_FIRST_FILES = degrade("scope-differs", "Only the first few changed files of a turn are queried.")

EVENTS = (
    EventRow(
        event="tool.execute.before",
        route=Route.NATIVE_TRANSLATE,
        seams=("tools/pre-execute",),
        point="tools/pre-execute",
        blocking="verdict",
        degradations=(
            degrade("reauthored",
                    "The callback that throws to deny must be rewritten as a command whose answer "
                    "denies the call instead."),
            shared.REWRITE_NESTED,
            shared.REWRITE_IN_HISTORY,
            degrade("payload-field-missing",
                    "The plugin context (client, $, project, worktree) is not available to a command."),
            degrade("timeout-differs",
                    "OpenCode puts no time limit on a callback, whereas this project stops a command "
                    "hook after 60 s unless the hook sets its own timeout."),
        ),
    ),
    EventRow(
        event="tool.execute.after",
        route=Route.NATIVE_TRANSLATE,
        seams=("tools/post-execute",),
        point="tools/post-execute",
        blocking="context",
        degradations=(
            _CALLBACK,
            degrade("output-rewrite-ignored",
                    "Changing output.output or output.title is recorded but the model sees the tool's "
                    "own result."),
        ),
    ),
    EventRow(
        event="event",
        route=Route.NATIVE_TRANSLATE,
        seams=("session/event",),
        point="session/event",
        degradations=(
            _CALLBACK,
            degrade("scope-differs",
                    "Only records the host writes to the durable session log reach the hook, not "
                    "every bus event OpenCode publishes."),
        ),
    ),
    EventRow(
        event="shell.env",
        route=Route.NATIVE_TRANSLATE,
        seams=(),
        point="shell/env",
        services=(Service.SHELL_ENV,),
        blocking="context",
        degradations=(
            degrade("reauthored",
                    "The callback must be rewritten as a command whose stdout JSON object becomes the "
                    "variables."),
            degrade("scope-differs",
                    "Only DSH_* variables can be contributed, through the host's shell-environment "
                    "registry; any other name is not set."),
        ),
    ),
    EventRow(
        event="permission",
        route=Route.NATIVE_TRANSLATE,
        seams=("approval/request",),
        point="approval/request",
        services=(Service.APPROVAL,),
        blocking="verdict",
        degradations=(
            degrade("reauthored",
                    "OpenCode states this as permission config or a permission.ask callback; here a "
                    "command must answer each approval the host asks for."),
            _APPROVAL_ONCE,
            degrade("timing-differs",
                    "The hook runs only when the host actually asks; calls the host already permits "
                    "never reach it."),
        ),
    ),
    EventRow(
        event="command.executed",
        route=Route.NATIVE_TRANSLATE,
        seams=("session/event",),
        point="command/run",
        degradations=(
            _CALLBACK,
            degrade("timing-differs",
                    "Driven by the host's durable command/run record, written as the command's "
                    "handler starts rather than after it has run."),
        ),
    ),
    EventRow(
        event="file.edited",
        route=Route.NATIVE_TRANSLATE,
        seams=(),
        point="fs/watch",
        services=(Service.FS_WATCH,),
        degradations=(
            _CALLBACK,
            degrade("timing-differs",
                    "A real watcher on the session directory reports changes after a 250 ms debounce, "
                    "so a burst of edits arrives as one run naming every changed path."),
            degrade("scope-differs",
                    "Any change under the session directory fires it, including ones no agent tool "
                    "made."),
        ),
    ),
    EventRow(
        event="file.watcher.updated",
        route=Route.NATIVE_TRANSLATE,
        seams=(),
        point="fs/watch",
        services=(Service.FS_WATCH,),
        degradations=(
            _CALLBACK,
            degrade("timing-differs",
                    "Bursts of changes are coalesced by a 250 ms debounce into one run naming every "
                    "changed path."),
            degrade("payload-field-missing",
                    "The watcher reports paths only, so whether a file was added, changed or removed "
                    "is not given."),
        ),
    ),
    EventRow(
        event="installation.updated",
        route=Route.NATIVE_TRANSLATE,
        seams=("settings/document-updated",),
        point="settings/document-updated",
        services=(Service.SETTINGS,),
        degradations=(
            _CALLBACK,
            degrade("approximate",
                    "The host announces a settings document reaching a new revision, which stands in "
                    "for OpenCode's installation update but is a different event."),
        ),
    ),
    EventRow(
        event="lsp.client.diagnostics",
        route=Route.NATIVE_TRANSLATE,
        seams=("session/event",),
        point="lsp/query",
        services=(Service.LSP,),
        degradations=(
            _CALLBACK,
            degrade("timing-differs",
                    "Diagnostics are pulled from the language server once a turn's changed files are "
                    "known, not pushed by the server when it publishes them."),
            _FIRST_FILES,
        ),
    ),
    EventRow(
        event="lsp.updated",
        route=Route.NATIVE_TRANSLATE,
        seams=("session/event",),
        point="lsp/query",
        services=(Service.LSP,),
        degradations=(
            _CALLBACK,
            degrade("timing-differs",
                    "Fires after the language server has been queried for a turn's changed files, "
                    "not when the server itself announces an update."),
            _FIRST_FILES,
        ),
    ),
    EventRow(
        event="message.part.removed",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/inbox/inserted",),
        point="agent/inbox/inserted",
        degradations=(
            _CALLBACK,
            degrade("timing-differs",
                    "The host reports no part removal, so this fires when a message enters an agent's "
                    "inbox."),
            degrade("payload-field-missing",
                    "The payload names the arriving message, not a removed part."),
        ),
    ),
    EventRow(
        event="message.part.updated",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/inbox/inserted",),
        point="agent/inbox/inserted",
        degradations=(
            _CALLBACK,
            degrade("timing-differs",
                    "Fires once when a whole message enters an agent's inbox, not on every part "
                    "update or streamed delta."),
            degrade("payload-field-missing",
                    "The payload carries the whole message, not one part of it."),
        ),
    ),
    EventRow(
        event="message.removed",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/inbox/inserted",),
        point="agent/inbox/inserted",
        degradations=(
            _CALLBACK,
            degrade("timing-differs",
                    "The host has no hook point for removing a message, so this fires when a message "
                    "arrives in an agent's inbox."),
            degrade("payload-field-missing",
                    "The payload does not identify any removed message."),
        ),
    ),
    EventRow(
        event="message.updated",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/inbox/inserted",),
        point="agent/inbox/inserted",
        degradations=(
            _CALLBACK,
            degrade("scope-differs",
                    "Only messages entering an agent's inbox are seen; assistant messages and edits "
                    "of existing messages are not."),
        ),
    ),
    EventRow(
        event="permission.asked",
        route=Route.NATIVE_TRANSLATE,
        seams=("approval/request",),
        point="approval/request",
        services=(Service.APPROVAL,),
        blocking="verdict",
        degradations=(
            degrade("reauthored",
                    "Instead of a callback that posts once, always or reject to OpenCode's reply "
                    "endpoint, a command answers the pending approval on stdout."),
            _APPROVAL_ONCE,
            degrade("payload-field-missing",
                    "patterns and always are empty lists and metadata holds only the host's reason for "
                    "asking; the call's arguments are not given."),
        ),
    ),
    EventRow(
        event="permission.replied",
        route=Route.NATIVE_TRANSLATE,
        seams=("session/event",),
        point="approval/decided",
        degradations=(
            _CALLBACK,
            degrade("payload-field-missing",
                    "The reply is the host's approval outcome (allowed-once, rejected, cancelled, "
                    "unavailable) rather than once, always or reject."),
        ),
    ),
    EventRow(
        event="server.connected",
        route=Route.NATIVE_TRANSLATE,
        seams=("session/created",),
        point="session/created",
        degradations=(
            _CALLBACK,
            degrade("approximate",
                    "The host has no client-server connection to announce, so this fires when a "
                    "session is created."),
        ),
    ),
    EventRow(
        event="session.created",
        route=Route.NATIVE_TRANSLATE,
        seams=("session/created",),
        point="session/created",
        degradations=(
            _CALLBACK,
            degrade("payload-field-missing",
                    "The payload gives the session id and directory, not OpenCode's session info "
                    "(title, parent, version)."),
        ),
    ),
    EventRow(
        event="session.compacted",
        route=Route.NATIVE_TRANSLATE,
        seams=("session/event",),
        point="compaction/end",
        degradations=(
            _CALLBACK,
        ),
    ),
    EventRow(
        event="session.deleted",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/disposed",),
        point="agent/disposed",
        degradations=(
            _CALLBACK,
            degrade("approximate",
                    "Fires when an agent leaves the host's registry, reloads and teardown included, "
                    "which is broader than deleting a session."),
        ),
    ),
    EventRow(
        event="session.diff",
        route=Route.NATIVE_TRANSLATE,
        seams=("session/event",),
        point="workspace/changes",
        degradations=(
            _CALLBACK,
            degrade("timing-differs",
                    "Fires once per completed turn with that turn's summary of changed files, not as "
                    "a live diff."),
            degrade("payload-field-missing",
                    "The hook gets the changed paths, not the diff hunks."),
        ),
    ),
    EventRow(
        event="session.error",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/error",),
        point="agent/error",
        degradations=(
            _CALLBACK,
            degrade("scope-differs",
                    "Only errors the host raises inside an agent's turn or step are seen."),
        ),
    ),
    EventRow(
        event="session.idle",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/status",),
        point="agent/status",
        fires_on="idle",
        degradations=(
            _CALLBACK,
        ),
    ),
    EventRow(
        event="session.status",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/status",),
        point="agent/status",
        degradations=(
            _CALLBACK,
            degrade("payload-field-missing",
                    "The host knows only idle and running, so OpenCode's retry status and its "
                    "details are never reported."),
        ),
    ),
    EventRow(
        event="session.updated",
        route=Route.NATIVE_TRANSLATE,
        seams=("session/event",),
        point="session/event",
        degradations=(
            _CALLBACK,
            degrade("approximate",
                    "Fires on every durable record the session appends, which stands in for a change "
                    "of the session's own details and is much broader."),
        ),
    ),
    EventRow(
        event="tui.prompt.append",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/inbox/inserted",),
        point="agent/inbox/inserted",
        degradations=(
            _CALLBACK,
            degrade("timing-differs",
                    "The host has no prompt box, so this fires when a message is submitted to an "
                    "agent's inbox, not as text is appended to the input."),
        ),
    ),
    EventRow(
        event="tui.command.execute",
        route=Route.NATIVE_TRANSLATE,
        seams=("session/event",),
        point="command/run",
        degradations=(
            _CALLBACK,
            degrade("scope-differs",
                    "The host has no terminal UI, so every recorded command run fires it, whatever "
                    "started it."),
        ),
    ),
    EventRow(
        event="tui.toast.show",
        route=Route.NATIVE_TRANSLATE,
        seams=("agent/status",),
        point="agent/status",
        degradations=(
            _CALLBACK,
            degrade("approximate",
                    "The host shows no toasts, so an agent's status change stands in for the notice "
                    "OpenCode would display."),
        ),
    ),
)

TOOLS = (
    ToolName(vendor="bash", host="bash"),
    ToolName(vendor="read", host="read", arguments=(("filePath", "path"),)),
    ToolName(vendor="write", host="write", arguments=(("filePath", "path"),)),
    ToolName(vendor="edit", host="edit",
             arguments=(("filePath", "path"), ("oldString", "old"), ("newString", "new"))),
    ToolName(vendor="apply_patch", host="edit"),
    ToolName(vendor="glob", host="glob"),
    ToolName(vendor="grep", host="grep"),
    ToolName(vendor="task", host="subagent"),
    ToolName(vendor="todowrite", host="todo"),
    ToolName(vendor="skill", host="skill"),
    ToolName(vendor="question", host="ask_user_question"),
)

RULES = RulesSpec(
    default_sources=("AGENTS.md", "opencode.json instructions"),
    note=(
        "Carried byte for byte and injected as a sourced user message at every agent start. Remote "
        "URLs in the instructions array are never fetched; such a source must be saved as a local "
        "file first."
    ),
)

#: OpenCode events with no command-hook row here, and why (vendor-protocols §4.2-4.3). The plugin
#: hooks no seam can carry say so once, in the plugin host's table; the ones it does carry run only
#: as plugins.
_PLUGIN_ONLY = ("an in-process plugin callback whose output object a command hook cannot reach; a "
                "plugin returning it runs in the plugin host (route plugin-host), a command hook cannot")
_NO_BUS_ROW = "a bus event with no row here: the host publishes nothing it could be translated from"
_NO_PTY = ("a bus event of OpenCode's own pseudo-terminal sessions; no row here translates it (a host's "
           "terminal tools, where it has them, publish tool calls, not a pty's life)")
UNSERVED = PLUGIN_REFUSED + (
    ("experimental.chat.system.transform", _PLUGIN_ONLY),
    ("chat.message", _PLUGIN_ONLY),
    ("permission.ask", _PLUGIN_ONLY),
    ("dispose", _PLUGIN_ONLY),
    ("todo.updated", "the host's todo snapshots are durable records that no OpenCode row translates yet"),
    ("question.asked", _NO_BUS_ROW),
    ("question.replied", _NO_BUS_ROW),
    ("question.rejected", _NO_BUS_ROW),
    ("message.part.delta", _NO_BUS_ROW),
    # Known to OpenCode 1.18.33 (its plugin package's Hooks and its SDK's v1 Event type), no row here:
    ("experimental.provider.small_model", "an in-process plugin callback that picks the model a provider uses "
                                          "for small tasks; the host has no OpenCode provider layer to ask, and "
                                          "a command hook cannot return a model"),
    ("server.instance.disposed", _NO_BUS_ROW),
    ("installation.update-available", "the host has no installer that checks for a newer release"),
    ("permission.updated", _NO_BUS_ROW),
    ("vcs.branch.updated", "the host watches no version-control branch, so no branch change is published"),
    ("pty.created", _NO_PTY),
    ("pty.updated", _NO_PTY),
    ("pty.exited", _NO_PTY),
    ("pty.deleted", _NO_PTY),
)


OPENCODE = VendorSpec(
    id="opencode",
    losses=(_SCRUBBED_ENV,),
    default_timeout_s=60.0,
    concurrent=False,
    # OpenCode's hooks are plugin modules called in process with a context object (project,
    # directory, worktree, $); it sets no variable for them.
    project_dir_env=(),
    hook_vars=(),
    events=EVENTS,
    rules=RULES,
    plugin_runtime=(
        "OpenCode's own runtime is not embedded in the host: plugins run as written in the plugin "
        "host's Bun sidecar (CompatAdapter.register_plugins, or an import of the trusted project; "
        "set-up: scripts/plugin_lane.sh), which loads the .ts and .js files of OpenCode's plugin "
        "folders and the npm plugins opencode.json lists; OpenCode's event rows take command "
        "re-writes of its hooks."
    ),
    tools=TOOLS,
    unserved=UNSERVED,
    measured_on="1.18.33",  # the vendor lane's pin (scripts/vendor_lane.sh)
    # What OpenCode does, as data (compat_adapter.model.VendorSpec says what each field means).
    dedupes_commands=False,
    clamps_event_timeouts=False,
    handler_kinds=frozenset({"command"}),
    http_losses=(),
    matchers=MatcherEngine(engine="js-regex", names=None, names_events=None, match_all=()),
    bad_matcher="refuses-config",
    exit2_blocks=False,  # a plugin's thrown error blocks, not an exit code
    failure_denies=(),
    plugin_host=True,
    plugin_title_request=True,  # measured: `opencode run` asks its small model for a session title
)
