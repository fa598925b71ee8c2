"""Cursor CLI's permission tokens, read and judged as Cursor's docs describe them (confidence
documented: Cursor's CLI does not run offline here, so none of this is measured).

Where (docs, CLI reference "Permissions"): ``permissions.allow`` and ``permissions.deny`` in
``~/.cursor/cli-config.json`` (global) and ``<project>/.cursor/cli.json`` (the project; the CLI reads
every ``.cursor/cli.json`` from the git root down to the working folder). Lists from every file are
taken together here (a deny anywhere wins, as a deny beats an allow).

Tokens: ``Shell(commandBase)`` — the command's first word (``Shell(git)`` is any git command);
``Read(pathOrGlob)`` and ``Write(pathOrGlob)`` — a glob with ``**``, ``*`` and ``?``, relative to the
workspace unless absolute; ``Mcp(server, tool)`` — an MCP tool (``*`` for any). A deny beats an allow;
a call neither names is left to Cursor's approval (here: the host's). The docs do not say what the
model reads for a denied call, nor whether a script's later commands are judged: every command of a
script is judged here (any denied command denies the call), which can only be stricter.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from compat_adapter.vendor import split

__all__ = ("Token", "Ruling", "judge", "parse_token", "tokens_of")

Kind = Literal["Shell", "Read", "Write", "Mcp"]
_TOKEN = re.compile(r"^(Shell|Read|Write|Mcp)\((.*)\)$", re.S)


@dataclass(frozen=True, slots=True)
class Token:
    kind: Kind
    argument: str
    action: Literal["allow", "deny"]
    written: str
    source: str


@dataclass(frozen=True, slots=True)
class Ruling:
    action: Literal["allow", "deny"]
    token: Token
    text: str


def parse_token(text: str, action: Literal["allow", "deny"], source: str) -> Token:
    """One permission token; ValueError for a shape Cursor does not document."""
    if not isinstance(text, str):
        raise ValueError(f"{source}: a permission token is a string, not {text!r}")
    found = _TOKEN.match(text.strip())
    if not found or not found.group(2).strip():
        raise ValueError(f"{source}: {text!r} is not Shell(…), Read(…), Write(…) or Mcp(…)")
    return Token(found.group(1), found.group(2).strip(), action, text, source)  # type: ignore[arg-type]


def tokens_of(config: Mapping[str, Any], source: str) -> tuple[Token, ...]:
    """The tokens of one cli.json / cli-config.json object (its ``permissions``)."""
    permissions = config.get("permissions") if isinstance(config, Mapping) else None
    if permissions is None:
        return ()
    if not isinstance(permissions, Mapping):
        raise ValueError(f"{source}: permissions is not an object")
    out: list[Token] = []
    for action in ("allow", "deny"):
        listed = permissions.get(action, [])
        if not isinstance(listed, list):
            raise ValueError(f"{source}: permissions.{action} is not a list")
        out += [parse_token(t, action, source) for t in listed]
    return tuple(out)


@lru_cache(maxsize=1024)
def _glob(pattern: str) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("^" + "".join(out) + "$", re.S)


def _path_matches(argument: str, path: str, workspace: str) -> bool:
    full = path if posixpath.isabs(path) else posixpath.join(workspace, path)
    full = posixpath.normpath(full)
    target = argument if posixpath.isabs(argument) else posixpath.join(workspace, argument)
    if _glob(posixpath.normpath(target)).match(full):
        return True
    # A folder named without a glob covers what is under it.
    return not any(c in argument for c in "*?") and full.startswith(posixpath.normpath(target) + "/")


def _matches(token: Token, tool: str, args: Mapping[str, Any], workspace: str) -> bool:
    if token.kind == "Shell" and tool == "bash":
        command = args.get("command")
        if not isinstance(command, str):
            return False
        parts = split(command).commands
        return any(p.name == token.argument for p in parts)
    if token.kind in ("Read", "Write"):
        wanted = ("read",) if token.kind == "Read" else ("write", "edit")
        path = args.get("path")
        return tool in wanted and isinstance(path, str) and _path_matches(token.argument, path, workspace)
    if token.kind == "Mcp" and tool.startswith("mcp__"):
        server, _, name = tool[5:].partition("__")
        want_server, _, want_tool = (p.strip() for p in token.argument.partition(","))
        return want_server in ("*", server) and want_tool in ("*", name, "")
    return False


def judge(tokens: Sequence[Token], tool: str, args: Mapping[str, Any], workspace: str) -> Ruling | None:
    """Cursor's answer to one host tool call (host tool name and arguments): a deny token that
    matches, else an allow token that matches, else None (left to the approval)."""
    for action in ("deny", "allow"):
        for token in tokens:
            if token.action == action and _matches(token, tool, args, workspace):
                text = f"Denied by permission rule {token.written} ({token.source})" if action == "deny" else ""
                return Ruling(action, token, text)
    return None
