"""``mcp_tool`` hooks: one tool of an MCP server named in the vendor's MCP config, called with the `mcp` SDK.

For Claude the servers are the project's ``.mcp.json`` (``mcpServers``). Only stdio servers are
reached: the server is started for the call (in the project directory, with the hook
environment plus the server's own ``env``) and stopped after it, where Claude calls the server its
session keeps connected. ``${VAR}`` and ``${VAR:-default}`` in the server's command, args and env
are expanded as Claude expands them. String values of the tool input may hold ``${path}`` into the
hook input (``${tool_input.file_path}``). The tool's text content is the hook's stdout; a tool
error or a server that cannot be reached is a non-blocking error.

The server process is started by the SDK's stdio transport, not by the hook runner: it is ended
when the call ends or times out, but it is not placed in the runner's cgroup.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio

from compat_adapter.handlers.outcome import answered, failed, timed_out
from compat_adapter.model import McpToolHandler
from compat_adapter.runtime.outcome import ProcessOutcome

__all__ = ("fill_input", "run_mcp_tool", "server_config")

_PLACEHOLDER = re.compile(r"\$\{([A-Za-z0-9_.\-]+)\}")
_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
MCP_CONFIG = ".mcp.json"


def _lookup(payload: Mapping[str, Any], path: str) -> Any:
    value: Any = payload
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return ""
        value = value[part]
    return value


def fill_input(value: Any, payload: Mapping[str, Any]) -> Any:
    """The tool arguments with ``${path}`` placeholders filled from the hook input."""
    if isinstance(value, str):
        def one(m: re.Match[str]) -> str:
            found = _lookup(payload, m.group(1))
            return found if isinstance(found, str) else json.dumps(found)
        return _PLACEHOLDER.sub(one, value)
    if isinstance(value, list):
        return [fill_input(v, payload) for v in value]
    if isinstance(value, Mapping):
        return {k: fill_input(v, payload) for k, v in value.items()}
    return value


def _expand(text: str, environ: Mapping[str, str]) -> str:
    return _ENV.sub(lambda m: environ.get(m.group(1)) or (m.group(2) or ""), text)


def server_config(project_dir: Path, name: str, environ: Mapping[str, str]) -> dict[str, Any] | str:
    """The named stdio server of the project's MCP config, expanded; or why there is none."""
    path = project_dir / MCP_CONFIG
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return f"no {MCP_CONFIG} in {project_dir}, so MCP server {name!r} is not configured"
    except (OSError, ValueError) as exc:
        return f"{path}: cannot read the MCP config: {exc}"
    servers = data.get("mcpServers") if isinstance(data, Mapping) else None
    server = servers.get(name) if isinstance(servers, Mapping) else None
    if not isinstance(server, Mapping):
        return f"MCP server {name!r} is not configured in {path}"
    if server.get("type", "stdio") != "stdio" or not isinstance(server.get("command"), str):
        return f"MCP server {name!r} is not a stdio server; only stdio servers are reached here"
    args = server.get("args", [])
    env = server.get("env", {})
    if not isinstance(args, list) or not isinstance(env, Mapping):
        return f"MCP server {name!r} in {path}: args must be a list and env an object"
    return {"command": _expand(server["command"], environ),
            "args": [_expand(str(a), environ) for a in args],
            "env": {str(k): _expand(str(v), environ) for k, v in env.items()}}


async def run_mcp_tool(handler: McpToolHandler, payload: Mapping[str, Any], *, project_dir: Path,
                       environ: Mapping[str, str], timeout_s: float, limit: int) -> ProcessOutcome:
    # Imported here: the SDK is large and only an mcp_tool hook needs it.
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    started = time.perf_counter()
    config = server_config(project_dir, handler.server, environ)
    if isinstance(config, str):
        return failed(f"mcp_tool hook: {config}", started)
    arguments = fill_input(json.loads(handler.input_json), payload)
    params = StdioServerParameters(command=config["command"], args=config["args"],
                                   env={**environ, **config["env"]}, cwd=project_dir)
    result = None
    try:
        with open(os.devnull, "w") as errlog, anyio.move_on_after(timeout_s):
            async with stdio_client(params, errlog=errlog) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool(handler.tool, arguments)
    except Exception as exc:  # noqa: BLE001 - any failure of the server is the hook's failure
        return failed(f"mcp_tool hook: {handler.server}/{handler.tool}: {type(exc).__name__}: {exc}", started)
    if result is None:
        return timed_out(f"mcp_tool hook: {handler.server}/{handler.tool} did not answer within "
                         f"{timeout_s:g} s", started, timeout_s)
    text = "\n".join(block.text for block in result.content if block.type == "text")
    if result.is_error:
        return failed(f"mcp_tool hook: {handler.server}/{handler.tool} failed: {text}", started)
    return answered(text, started, limit)
