"""Tool names in a session script: the host's (``bash``) or a vendor's (``Bash``, ``run_shell_command``).

A user writing a script for their Claude hooks thinks in Claude's tools; the embedded host's agent
calls the host's. A vendor's name is turned into the host's (with the vendor's argument names,
``file_path`` → ``path``), taking the project's own vendors first where two vendors spell one name
differently (Cursor's ``Write`` edits, Claude's writes). A name that is neither is refused
(``SCRIPT_ERROR``, exit 2) instead of reaching the agent as a call the host answers "unknown tool".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from compat_adapter.errors import ScriptError

__all__ = ("host_tool_names",)


def _names(vendors: Sequence[str]) -> dict[str, tuple[str, dict[str, str]]]:
    from compat_adapter.catalog import vendors as every

    order = [*vendors, *(s.id for s in every() if s.id not in vendors)]
    from compat_adapter.catalog import resolve_vendor

    table: dict[str, tuple[str, dict[str, str]]] = {}
    for vendor in order:
        for tool in resolve_vendor(vendor).tools:
            table.setdefault(tool.vendor, (tool.host, dict(tool.arguments)))
    return table


def _call(call: Any, host: frozenset[str], table: Mapping[str, tuple[str, dict[str, str]]]) -> Any:
    if not isinstance(call, Mapping) or not isinstance(call.get("name"), str) or call["name"] in host:
        return call  # the host's own name (or a shape the script reader refuses with its own words)
    name = call["name"]
    if name not in table or table[name][0] not in host:
        known = ", ".join(sorted(host))
        lacks = f" (a vendor tool, {table[name][0]} here, which this host does not have)" if name in table else ""
        raise ScriptError(f"unknown tool {name!r} in the session script{lacks}: use a host tool ({known}) or a "
                          "vendor's name for one (Bash, Read, Write, Edit, run_shell_command …)", tool=name)
    target, renames = table[name]
    arguments = call.get("arguments", {})
    if isinstance(arguments, Mapping):
        arguments = {renames.get(k, k): v for k, v in arguments.items()}
    return {**call, "name": target, "arguments": arguments}


def host_tool_names(items: Sequence[Any], host: frozenset[str], vendors: Sequence[str] = ()) -> list[Any]:
    """``items`` (a session script's JSON steps) with every tool call named as the host names it,
    in sub-agent scripts too."""
    table = _names(vendors)

    def walk(steps: Any) -> Any:
        if not isinstance(steps, list):
            return steps
        out = []
        for step in steps:
            if isinstance(step, Mapping) and isinstance(step.get("tools"), list):
                step = {**step, "tools": [_call(c, host, table) for c in step["tools"]]}
            if isinstance(step, Mapping) and isinstance(step.get("subagent"), Mapping):
                sub = step["subagent"]
                step = {**step, "subagent": {**sub, "script": walk(sub.get("script", []))}}
            out.append(step)
        return out

    return walk(list(items))
