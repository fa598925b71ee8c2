"""What a handler's kind and fields lose here, or why it cannot run at all. Pure: read by grading.

Each loss is said once, here, for the handler that has it; the row's own losses come from the
vendor table as before.
"""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

from compat_adapter.model import (
    CommandHandler,
    Degradation,
    EventRow,
    Handler,
    HttpHandler,
    McpToolHandler,
    ModelHandler,
    Route,
    Surface,
    VendorSpec,
    degrade,
)

if TYPE_CHECKING:
    from compat_adapter.handlers.parse import HandlerShape

__all__ = ("handler_losses", "handler_refusal")

def kind_of(handler: Handler) -> str:
    if isinstance(handler, ModelHandler):
        return handler.kind
    return {CommandHandler: "command", HttpHandler: "http", McpToolHandler: "mcp_tool"}[type(handler)]


def _plain(handler: Handler) -> bool:
    """What an official bridge can run: a command with no field it would drop."""
    return (isinstance(handler, CommandHandler) and handler.args is None and handler.if_rule is None
            and not handler.run_async and not handler.once and handler.shell != "powershell")


def handler_refusal(spec: VendorSpec, row: EventRow, handler: Handler, surface: Surface,
                    shape: HandlerShape) -> str | None:
    """Why ``handler`` cannot run on ``row`` here, or None; ``shape`` is the vendor unit's handler
    shape (which kinds run on which event), carried by the declaration."""
    kind = kind_of(handler)
    if kind not in spec.handler_kinds:
        return f"{spec.id} has no {kind!r} handlers; only command hooks are adapted for it"
    refused = shape.kind_refusal(row.event, kind)
    if refused is not None:
        return refused
    if row.route is Route.OFFICIAL_BRIDGE and not _plain(handler):
        dropped = "kind" if kind != "command" else "fields (if, args, async, once or shell)"
        return (f"{row.event} runs through the host's official bridge, which runs plain command handlers "
                f"only; this {kind} handler's {dropped} would be dropped there")
    if handler.if_rule is not None:
        # Imported here: only a handler with `if` needs the rule parser (the matrix grades none).
        from compat_adapter.handlers.rules import IF_EVENTS, parse_rule

        if row.event not in IF_EVENTS:
            return f"Claude evaluates `if` only on tool events and never runs this handler on {row.event}"
        if parse_rule(handler.if_rule) is None:
            return f"`if` {handler.if_rule!r} is not a permission rule (Tool or Tool(pattern))"
    if isinstance(handler, ModelHandler) and "model" not in surface.services:
        return (f"host {surface.host} {surface.version} has no model for {kind} hooks (the embedded host "
                "takes one from COMPAT_ADAPTER_MODEL_URL or its model= endpoint)")
    if isinstance(handler, CommandHandler) and handler.shell == "powershell" and shutil.which("pwsh") is None:
        return "the handler asks for PowerShell and this machine has no pwsh"
    return None


_IGNORED_TEXT = {
    "onFailure": "onFailure: \"block\" is not honoured: a hook that cannot start, times out or fails "
                 "lets the action through here, where Claude would block it.",
    "rewakeSummary": "rewakeSummary (the one-line notice Claude prints for the user on a rewake) is not shown.",
    "cloud": "cloud (whether a cloud session may run this hook on this machine) has no meaning on this host.",
    "loop_limit": "loop_limit (Cursor's cap on one stop or subagentStop script's follow-ups) is not read: "
                  "the follow-ups of the event's hooks end after 5 consecutive ones, Cursor's default.",
}


def handler_losses(spec: VendorSpec, row: EventRow, handler: Handler) -> tuple[Degradation, ...]:
    out: list[Degradation] = []
    if isinstance(handler, HttpHandler):
        out.extend(spec.http_losses)  # the vendor's own http policies (settings-level URL lists …)
    elif isinstance(handler, McpToolHandler):
        out.append(degrade("timing-differs",
                           "The MCP server is started over stdio for each call and stopped after it, where "
                           "Claude calls its connected server: state does not carry over between calls, and "
                           "only stdio servers of the project's .mcp.json are reached."))
    elif isinstance(handler, ModelHandler):
        named = f"model {handler.model!r}" if handler.model else "Claude's default small model"
        out.append(degrade("model-differs", f"The host's configured model answers, not {named}, "
                                            "with this project's own instructions around the prompt."))
        if handler.kind == "agent":
            out.append(degrade("scope-differs", "The agent hook answers in one model call without tools, "
                                                "where Claude's verifier can read files and run tools for "
                                                "several turns."))
        if row.event == "PreToolUse" and not handler.continue_on_block:
            out.append(degrade("decision-narrowed", "ok:false denies the call but does not end the turn, "
                                                    "as Claude does without continueOnBlock."))
    elif handler.run_async:
        out.append(degrade("output-field-ignored",
                           "The async hook's output is audited and dropped; Claude delivers its "
                           "systemMessage or additionalContext on the next turn."))
        if handler.rewake:
            out.append(degrade("message-provenance",
                               "asyncRewake: an exit 2 wakes the agent with the hook's output as a user message "
                               "sourced from the hook, where Claude adds a system reminder; without "
                               "rewakeMessage the prefix is this project's own."))
    if handler.if_rule is not None:
        from compat_adapter.handlers.rules import FILE_TOOLS, parse_rule

        rule = parse_rule(handler.if_rule)
        if rule is not None and rule.content is not None and rule.tool != "Bash" and rule.tool not in FILE_TOOLS:
            out.append(degrade("matcher-narrowed",
                               f"`if` {handler.if_rule!r}: rule content is read here only for Bash and file "
                               f"tools, so this handler never runs on {rule.tool} calls."))
        if rule is not None and rule.tool == "Bash" and rule.content is not None:
            out.append(degrade("matcher-narrowed",
                               f"`if` {handler.if_rule!r}: the command is split into simple commands by a POSIX "
                               "tokenizer, not Claude's shell parser; subshells, heredocs and command "
                               "substitutions may split differently."))
    if handler.status_message:
        out.append(degrade("output-field-ignored",
                           "statusMessage goes to the host's operator log when the hook starts, not to a spinner."))
    for name in handler.ignored:
        out.append(degrade("field-ignored", _IGNORED_TEXT.get(
            name, f"`{name}` is not a {spec.id} handler field; {spec.id} drops it, and so does this project.")))
    return tuple(out)
