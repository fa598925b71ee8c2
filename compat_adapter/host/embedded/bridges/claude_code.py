"""The embedded host's ``@deepseek-ai/dsh-hooks-claude-code`` bridge, as data.

Seven events (``dsh-seams.md`` §5.2); claude-code matchers (``[A-Za-z0-9_|]`` patterns are exact
``|`` lists, anything else an unanchored regex); stdin JSON with a trailing newline; the payload of
§5.3 with host tool names and host arguments as they are (the bridge translates nothing);
``CLAUDE_PROJECT_DIR`` exported and ``${CLAUDE_PROJECT_DIR}`` / ``${CLAUDE_PLUGIN_ROOT}`` replaced
in commands when configured; ``ask`` honoured.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from compat_adapter.host.embedded.bridges.bridge import BridgeOptions, Dialect, Site
from vendors.surface import CLAUDE_BRIDGE

__all__ = ("CLAUDE_CODE",)

EVENTS: Mapping[str, str] = MappingProxyType({
    "SessionStart": "agent/created",
    "UserPromptSubmit": "agent/pre-step",
    "PreToolUse": "tools/pre-execute",
    "PostToolUse": "tools/post-execute",
    "Stop": "agent/turn-stopping",
    "SubagentStart": "subagent/start",
    "SubagentStop": "subagent/end",
})


def _payload(point: str, site: Site, fields: Mapping[str, Any],
             options: BridgeOptions) -> dict[str, Any]:
    # ≈0.2 always sends an empty transcript path.
    return {"session_id": site.session_id, "transcript_path": "", "cwd": str(site.cwd),
            "hook_event_name": point, **fields}


def _env(site: Site, options: BridgeOptions) -> Mapping[str, str]:
    # The configured project dir, else the session's cwd, else nothing at all (no session).
    if options.project_dir is not None:
        return {"CLAUDE_PROJECT_DIR": str(options.project_dir)}
    if site.session is not None:
        return {"CLAUDE_PROJECT_DIR": str(site.cwd)}
    return {}


def _substitutions(options: BridgeOptions) -> Mapping[str, str]:
    # Only configured tokens are replaced; an unset one stays for the shell (which sees the
    # exported CLAUDE_PROJECT_DIR).
    found: dict[str, str] = {}
    if options.plugin_root is not None:
        found["${CLAUDE_PLUGIN_ROOT}"] = str(options.plugin_root)
    if options.project_dir is not None:
        found["${CLAUDE_PROJECT_DIR}"] = str(options.project_dir)
    return found


CLAUDE_CODE = Dialect(
    name="claude-code",
    package=CLAUDE_BRIDGE,
    label="hooks-claude-code",
    events=EVENTS,
    trailing_newline=True,
    honours_ask=True,
    # Only hookSpecificOutput.additionalContext counts; plain stdout is ignored (Claude Code
    # itself would use it).
    plain_stdout_context=frozenset(),
    warns_updated_input=True,
    payload=_payload,
    env=_env,
    substitutions=_substitutions,
    # `timeoutSec` is not read: a Claude hook with only `timeoutSec` gets the bridge default.
    timeout_keys=("timeout",),
    skip_async=False,
    runs_only="only command hooks run",
)
