"""The embedded host's ``@deepseek-ai/dsh-hooks-codex`` bridge, as data.

Five events (no subagent points); codex matchers (always an unanchored regex); stdin JSON without
a trailing newline; the payload adds ``model``, ``permission_mode: "default"`` and ``turn_id`` and
flattens ``tool_input`` to ``{command}``; plain exit-0 stdout is context for SessionStart and
UserPromptSubmit; only ``deny`` counts at PreToolUse; ``timeout`` or ``timeoutSec``; ``async``
hooks are skipped; no environment is added and nothing is substituted in commands.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from compat_adapter.host.embedded.bridges.bridge import BridgeOptions, Dialect, Site
from vendors.surface import CODEX_BRIDGE

__all__ = ("CODEX",)

EVENTS: Mapping[str, str] = MappingProxyType({
    "PreToolUse": "tools/pre-execute",
    "PostToolUse": "tools/post-execute",
    "SessionStart": "agent/created",
    "UserPromptSubmit": "agent/pre-step",
    "Stop": "agent/turn-stopping",
})


def _payload(point: str, site: Site, fields: Mapping[str, Any],
             options: BridgeOptions) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "session_id": site.session_id,
        "transcript_path": None,
        "cwd": str(site.cwd),
        "hook_event_name": point,
        "model": options.model,
        "permission_mode": "default",
    }
    if point != "SessionStart":
        payload["turn_id"] = str(site.turn if site.turn is not None else 0)
    for name, value in fields.items():
        if name == "tool_input":
            # Only the shell command survives; other arguments (and non-string commands) are lost.
            command = value.get("command") if isinstance(value, Mapping) else None
            value = {"command": command if isinstance(command, str) else ""}
        payload[name] = value
    if point == "Stop":
        payload["last_assistant_message"] = None
    return payload


def _env(site: Site, options: BridgeOptions) -> Mapping[str, str]:
    return {}


def _substitutions(options: BridgeOptions) -> Mapping[str, str]:
    return {}


CODEX = Dialect(
    name="codex",
    package=CODEX_BRIDGE,
    label="hooks-codex",
    events=EVENTS,
    trailing_newline=False,
    honours_ask=False,
    plain_stdout_context=frozenset({"SessionStart", "UserPromptSubmit"}),
    # The Codex bridge ignores updatedInput without a word.
    warns_updated_input=False,
    payload=_payload,
    env=_env,
    substitutions=_substitutions,
    timeout_keys=("timeout", "timeoutSec"),
    skip_async=True,
    runs_only="only sync command hooks run",
)
