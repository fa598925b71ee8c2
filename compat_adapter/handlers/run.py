"""The one call the dispatch loop makes to run a hook, whatever its kind."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compat_adapter.handlers.command import run_command_handler
from compat_adapter.handlers.http import run_http
from compat_adapter.handlers.mcp import run_mcp_tool
from compat_adapter.handlers.model import Complete, run_model_hook
from compat_adapter.handlers.rules import IF_EVENTS, parse_rule, rule_matches, subject_of
from compat_adapter.model import CommandHandler, Handler, HttpHandler, McpToolHandler, ModelHandler
from compat_adapter.runtime.callenv import environ
from compat_adapter.runtime.outcome import ProcessOutcome

__all__ = ("HandlerRun", "if_admits", "run_handler")


@dataclass(frozen=True, slots=True)
class HandlerRun:
    """Everything one run of one hook needs besides its handler."""

    event: str
    payload: Mapping[str, Any]
    stdin: bytes
    """The payload in the dialect's framing (what a command reads)."""
    cwd: Path
    project_dir: Path
    env: Mapping[str, str]
    timeout_s: float
    limit: int
    shell: str
    """The vendor's shell on this host."""
    shell_name: str | None = None
    """What the vendor's shell knows itself as (``VendorSpec.shell_name``); None: its path."""
    complete: Complete | None = None
    """The host's model, when it has one."""


def if_admits(handler: Handler, event: str, payload: Mapping[str, Any], project_dir: str) -> bool:
    """Whether a handler's ``if`` lets it run on this event and call (Claude's rule)."""
    if handler.if_rule is None:
        return True
    if event not in IF_EVENTS:
        return False
    rule = parse_rule(handler.if_rule)
    subject = subject_of(payload)
    if rule is None or subject is None:
        return False
    return rule_matches(rule, subject[0], subject[1], project_dir)


async def run_handler(handler: Handler, run: HandlerRun) -> ProcessOutcome:
    if isinstance(handler, CommandHandler):
        return await run_command_handler(handler, stdin=run.stdin, cwd=run.cwd, env=run.env,
                                         timeout_s=run.timeout_s, limit=run.limit, vendor_shell=run.shell,
                                         shell_name=run.shell_name)
    if isinstance(handler, HttpHandler):
        body = json.dumps(run.payload, ensure_ascii=False).encode("utf-8")
        # Header variables come from the host's own environment, as Claude reads its own.
        return await run_http(handler, body, timeout_s=run.timeout_s, limit=run.limit, environ=environ())
    if isinstance(handler, McpToolHandler):
        return await run_mcp_tool(handler, run.payload, project_dir=run.project_dir, environ=run.env,
                                  timeout_s=run.timeout_s, limit=run.limit)
    assert isinstance(handler, ModelHandler)
    return await run_model_hook(handler, run.event, json.dumps(run.payload, ensure_ascii=False),
                                complete=run.complete, timeout_s=run.timeout_s, limit=run.limit)
