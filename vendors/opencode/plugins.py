"""OpenCode plugin hooks as written: each key a plugin returns, on the point the plugin host runs it.

Data only. The plugin host (``vendors/opencode/plugin_host``) loads a project's OpenCode plugins in a
Bun sidecar with the real ``@opencode-ai/plugin`` package, and every key of the hooks object a plugin
returns is one hook: a row below when the host has a seam for it, else a refusal with the reason.
What the real OpenCode 1.18.33 did is in the vendor lane's README (its OpenCode rows).
"""

from compat_adapter.vendor import EventRow, Route, Service, degrade
from vendors import shared

#: The event of a row that stands for a whole plugin that could not be loaded.
LOAD_EVENT = "plugin-load"
#: A ported plugin entry's timeout: a sidecar's start and load, then the callback (OpenCode bounds none).
PLUGIN_TIMEOUT_S = 60.0

#: True of every plugin-host row, stated once here.
PLUGIN_LOSSES = (
    degrade("payload-field-missing",
            "The plugin's client is reduced to what this host can serve: app.log and tui.showToast "
            "reach the host's log; every other client call (sessions, files, find, config …) throws "
            "'not available on this host' and is reported, and serverUrl points at no server."),
    degrade("scope-differs",
            "Only the project's opencode.json plugin list and its .opencode/plugin(s) folders are "
            "loaded; the global config and ~/.config/opencode/plugins are not."),
    degrade("timing-differs",
            "OpenCode starts loading plugin files in sorted path order but loads them concurrently, so "
            "which plugin's hook runs first can change from run to run (vendor lane); here plugins "
            "always run in load order: opencode.json entries, then the sorted plugin files."),
    degrade("timeout-differs",
            "OpenCode waits on a callback for ever and the session stalls; here a callback that has "
            "not finished after 60 s fails as a throw would, and a sidecar blocked by it is restarted "
            "(its plugins load again, losing their in-memory state)."),
)

PLUGIN_EVENTS = (
    EventRow(
        event="tool.execute.before",
        route=Route.PLUGIN_HOST,
        seams=("tools/pre-execute",),
        point="tools/pre-execute",
        blocking="verdict",
        degradations=(shared.REWRITE_NESTED, shared.REWRITE_IN_HISTORY),
    ),
    EventRow(
        event="tool.execute.after",
        route=Route.PLUGIN_HOST,
        seams=("tools/post-execute",),
        point="tools/post-execute",
        blocking="context",
        degradations=(
            degrade("approximate",
                    "A rewritten output.output reaches the model through the host's result block, so "
                    "the result is marked as an error where OpenCode keeps it a success."),
            degrade("output-field-ignored",
                    "Changes to output.title and output.metadata are not shown anywhere."),
            degrade("payload-field-missing",
                    "output.output is the host's result text (trailing newline trimmed, stderr after a "
                    "[stderr] line) rather than OpenCode's raw tool output, and metadata.truncated is "
                    "always false."),
        ),
    ),
    EventRow(
        event="shell.env",
        route=Route.PLUGIN_HOST,
        seams=(),
        point="shell/env",
        services=(Service.SHELL_ENV,),
        blocking="context",
        degradations=(
            degrade("scope-differs",
                    "Only DSH_* variables reach the model's bash runs, through the host's "
                    "shell-environment registry; any other name the plugin sets is dropped, and the "
                    "plugins' own $ commands do not get them."),
        ),
    ),
    EventRow(
        event="chat.message",
        route=Route.PLUGIN_HOST,
        seams=("agent/pre-step",),
        point="agent/pre-step",
        blocking="context",
        degradations=(
            degrade("payload-field-missing",
                    "The message and its text parts are built from the host's prompt batch: ids are "
                    "this host's, and model and variant are not given."),
            degrade("output-field-ignored",
                    "Only text parts are read back (changed text, added parts); file and agent parts "
                    "and changes to the message object are ignored."),
            degrade("approximate",
                    "An added text part is appended to the prompt message's text on a new line, where "
                    "OpenCode sends it as a separate part of the same message."),
        ),
    ),
    EventRow(
        event="permission.ask",
        route=Route.PLUGIN_HOST,
        seams=("approval/request",),
        point="approval/request",
        services=(Service.APPROVAL,),
        blocking="verdict",
        degradations=(
            degrade("timing-differs",
                    "The real OpenCode 1.18.33 never calls this hook (vendor lane); here it runs on "
                    "every approval the host asks for."),
            degrade("decision-narrowed",
                    "allow becomes allowed-once and deny becomes rejected; ask leaves the approval to "
                    "the host."),
        ),
    ),
    EventRow(
        event="event",
        route=Route.PLUGIN_HOST,
        seams=("session/created", "agent/status", "agent/error", "agent/inbox/inserted"),
        point="plugin/event",
        degradations=(
            degrade("scope-differs",
                    "Only session.created, session.status, session.idle, session.error and "
                    "message.updated are delivered, from the host's own moments; OpenCode's other bus "
                    "events (message.part.*, session.diff, file.edited, permission.* …) are not."),
            degrade("payload-field-missing",
                    "Event properties carry the session id and what the host knows (status, error "
                    "text, message text); OpenCode's session info (slug, title, version, tokens) is "
                    "not given."),
        ),
    ),
    EventRow(
        event="experimental.chat.system.transform",
        route=Route.PLUGIN_HOST,
        seams=("agent/pre-step",),
        point="agent/pre-step",
        blocking="context",
        degradations=(
            degrade("message-provenance",
                    "Called before every model request, as OpenCode calls it, but the lines pushed to "
                    "output.system reach the model as one sourced system message in the history (a user "
                    "message on a host with no system role), added before the first request they appear "
                    "in and again only when they change, where OpenCode puts them in the system prompt of "
                    "each request (a line a later call drops stays in the history here)."),
        ),
    ),
    EventRow(
        event="dispose",
        route=Route.PLUGIN_HOST,
        seams=(),
        point="plugin/dispose",
        degradations=(
            degrade("timing-differs",
                    "Called when the adapter is disposed (at most 2 s), not when OpenCode's instance "
                    "shuts down."),
        ),
    ),
)

#: Hook keys a plugin may return that no seam of this host can carry, with the reason.
PLUGIN_REFUSED = (
    ("chat.params", "the host has no seam to change a model request's temperature, topP, topK or "
                    "options"),
    ("chat.headers", "the host has no seam to change a model request's headers"),
    ("experimental.chat.messages.transform", "the host has no seam that rewrites the message history "
                                             "before a request"),
    ("experimental.session.compacting", "the host's compaction records are emitted after the fact; no "
                                        "seam lets a listener add compaction context or replace the prompt"),
    ("experimental.compaction.autocontinue", "the host has no synthetic continue turn to skip"),
    ("experimental.text.complete", "the host has no seam that rewrites the assistant's text parts"),
    ("tool.definition", "the host has no seam that rewrites the tool schemas sent to the model"),
    ("command.execute.before", "the host has no slash-command seam whose parts a listener can rewrite"),
    ("tool", "custom tools from a plugin cannot be registered on this host's tool set"),
    ("auth", "provider authentication belongs to OpenCode's own provider layer"),
    ("provider", "model providers belong to OpenCode's own provider layer"),
    ("config", "there is no OpenCode config object on this host to hand the plugin"),
)
