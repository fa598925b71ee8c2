"""A vendor's handler mapping → one frozen :mod:`compat_adapter.model` handler, every field accounted for.

The field lists are Claude Code's own handler schema (read from the 2.1.328 binary in the vendor
lane): a field named there is honoured or listed in ``ignored``; any other key is listed in
``ignored`` too (Claude's schema drops unknown keys, so the vendor ignores it as well, but the author
is told). CodeBuddy and WorkBuddy write the same shape. Codex and Copilot keep their own keys.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from compat_adapter.errors import InvalidHandler
from compat_adapter.model import CommandHandler, Handler, HttpHandler, McpToolHandler, ModelHandler

__all__ = ("CLAUDE_SHAPED", "MAX_TIMEOUT_S", "RUN_KINDS", "parse_mapping")

#: The longest per-hook timeout accepted (a day); longer is a typo, not a hook.
MAX_TIMEOUT_S = 86_400
#: Every handler type this project can run (what a vendor accepts where is the importer's call).
RUN_KINDS = frozenset({"command", "http", "mcp_tool", "prompt", "agent"})
#: Vendors whose handlers have Claude's shape and field names.
CLAUDE_SHAPED = frozenset({"claude", "codebuddy", "workbuddy"})

_COMMON = frozenset({"type", "if", "timeout", "statusMessage", "once"})
#: Fields of each Claude handler type besides the common ones.
_CLAUDE_FIELDS: Mapping[str, frozenset[str]] = {
    "command": frozenset({"command", "args", "shell", "onFailure", "async", "asyncRewake",
                          "rewakeMessage", "rewakeSummary", "cloud"}),
    "http": frozenset({"url", "headers", "allowedEnvVars", "onFailure", "cloud"}),
    "mcp_tool": frozenset({"server", "tool", "input", "onFailure"}),
    "prompt": frozenset({"prompt", "model", "continueOnBlock"}),
    "agent": frozenset({"prompt", "model"}),
}
#: Fields of the other vendors' command handlers (their own shapes, read by their importers).
_OTHER_FIELDS: Mapping[str, frozenset[str]] = {
    "codex": frozenset({"type", "command", "timeout", "timeoutSec", "statusMessage", "commandWindows",
                        "command_windows", "async"}),
    "copilot": frozenset({"type", "bash", "powershell", "command", "cwd", "env", "timeoutSec", "timeout",
                          "comment", "exec", "args", "matcher"}),
}
#: Fields of Copilot's ``http`` entries (hooks reference: url, headers, allowedEnvVars, timeoutSec).
_COPILOT_HTTP = frozenset({"type", "url", "headers", "allowedEnvVars", "timeoutSec", "timeout", "comment", "matcher"})
#: Claude fields accepted but not honoured here, each with what that loses (the grader lists it).
_NOT_HONOURED = frozenset({"rewakeSummary", "cloud"})


def _timeout(vendor: str, h: Mapping[str, Any]) -> float | None:
    timeout = h.get("timeout", h.get("timeoutSec"))
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int | float)
                                or not 0 < timeout <= MAX_TIMEOUT_S or not math.isfinite(timeout)):
        # NaN and infinity fail the range test too; JSON files may carry both.
        raise InvalidHandler(f"timeout must be a number of seconds in (0, {MAX_TIMEOUT_S}], "
                             f"not {timeout!r}", vendor=vendor)
    return timeout


def _string(vendor: str, h: Mapping[str, Any], key: str, *, required: bool = False) -> str | None:
    value = h.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value.strip()):
        raise InvalidHandler(f"`{key}` must be a non-empty string", vendor=vendor)
    return value


def _flag(vendor: str, h: Mapping[str, Any], key: str) -> bool:
    value = h.get(key, False)
    if not isinstance(value, bool):
        raise InvalidHandler(f"`{key}` must be true or false, not {value!r}", vendor=vendor)
    return value


def _ignored(vendor: str, kind: str, h: Mapping[str, Any]) -> tuple[str, ...]:
    """The handler's keys that are not honoured here, in the file's order."""
    if vendor in CLAUDE_SHAPED:
        known = _COMMON | _CLAUDE_FIELDS[kind]
        return tuple(k for k in h if k not in known or k in _NOT_HONOURED
                     # The wake-up prefix means something only with asyncRewake.
                     or (k == "rewakeMessage" and h.get("asyncRewake") is not True)
                     # "block": a failing hook would block in Claude; it does not here.
                     or (k == "onFailure" and h[k] != "continue"))
    fields = _COPILOT_HTTP if (vendor, kind) == ("copilot", "http") else _OTHER_FIELDS.get(vendor)
    return tuple(k for k in h if k not in fields) if fields is not None else ()


def _common(vendor: str, kind: str, h: Mapping[str, Any]) -> dict[str, Any]:
    rule = _string(vendor, h, "if")
    return dict(timeout_s=_timeout(vendor, h), if_rule=rule.strip() if rule else None,
                once=_flag(vendor, h, "once"), status_message=_string(vendor, h, "statusMessage"),
                ignored=_ignored(vendor, kind, h))


def _pairs(vendor: str, value: object, what: str) -> tuple[tuple[str, str], ...]:
    value = value or {}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                 for k, v in value.items()):
        raise InvalidHandler(f"{what} must map names to strings", vendor=vendor)
    return tuple(sorted(value.items()))


def _strings(vendor: str, value: object, what: str) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise InvalidHandler(f"{what} must be a list of strings", vendor=vendor)
    return tuple(value)


def _thaw(value: Any) -> Any:
    """Plain JSON values from the read-only copies importers keep (mapping proxies, tuples)."""
    if isinstance(value, Mapping):
        return {str(k): _thaw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_thaw(v) for v in value]
    return value


def parse_mapping(vendor: str, kind: str, h: Mapping[str, Any]) -> Handler:
    """One handler of a known ``kind`` (see :data:`RUN_KINDS`); raises InvalidHandler."""
    common = _common(vendor, kind, h)
    if kind == "http":
        url = _string(vendor, h, "url", required=True)
        assert url is not None
        if not url.startswith(("http://", "https://")):
            raise InvalidHandler(f"an http hook's url is http:// or https://, not {url!r}", vendor=vendor)
        return HttpHandler(url=url, headers=_pairs(vendor, h.get("headers"), "headers"),
                           allowed_env=_strings(vendor, h.get("allowedEnvVars", []), "allowedEnvVars"),
                           **common)
    if kind == "mcp_tool":
        arguments = h.get("input", {})
        if not isinstance(arguments, Mapping):
            raise InvalidHandler("an mcp_tool hook's input is an object of tool arguments", vendor=vendor)
        return McpToolHandler(server=_string(vendor, h, "server", required=True),
                              tool=_string(vendor, h, "tool", required=True),
                              input_json=json.dumps(_thaw(arguments), sort_keys=True), **common)
    if kind in ("prompt", "agent"):
        return ModelHandler(kind=kind, prompt=_string(vendor, h, "prompt", required=True),
                            model=_string(vendor, h, "model"),
                            continue_on_block=_flag(vendor, h, "continueOnBlock"), **common)
    return _command(vendor, h, common)


def _command(vendor: str, h: Mapping[str, Any], common: dict[str, Any]) -> CommandHandler:
    command = h.get("command")
    args = None
    if vendor == "copilot":
        command, args = _copilot_command(h)
    if not isinstance(command, str) or not command.strip():
        raise InvalidHandler("a command handler needs a non-empty command string", vendor=vendor)
    cwd = h.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise InvalidHandler("cwd must be a string", vendor=vendor)
    shell = None
    if vendor in CLAUDE_SHAPED:
        if "args" in h:
            args = _strings(vendor, h["args"], "args")
        shell = h.get("shell")
        if shell is not None and shell not in ("bash", "powershell"):
            raise InvalidHandler(f"shell is \"bash\" or \"powershell\", not {shell!r}", vendor=vendor)
    rewake = _flag(vendor, h, "asyncRewake") if vendor in CLAUDE_SHAPED else False
    return CommandHandler(command=command, cwd=cwd, env=_pairs(vendor, h.get("env"), "env"), args=args,
                          shell=shell, run_async=rewake or (vendor in CLAUDE_SHAPED and _flag(vendor, h, "async")),
                          rewake=rewake, rewake_message=_string(vendor, h, "rewakeMessage") if rewake else None,
                          **common)


def _copilot_command(h: Mapping[str, Any]) -> tuple[object, tuple[str, ...] | None]:
    """Copilot's own shape: ``{bash, powershell, command, exec, args, cwd, env, timeoutSec}``.

    On a POSIX host Copilot runs ``bash`` and falls back to ``command``; this host runs POSIX sh.
    ``exec`` with ``args`` starts the program directly, no shell. An empty ``bash`` is a hook that
    does nothing: Copilot CLI 1.0.102 still runs it (measured: with a missing ``cwd`` it fails and
    denies the call, so it is started, not skipped), and ``:`` is the shell's own empty command.
    """
    bash, command = h.get("bash"), h.get("command")
    chosen = bash or command
    if isinstance(chosen, str) and chosen.strip():
        return chosen, None
    if "exec" in h:
        program = h.get("exec")
        if not isinstance(program, str) or not program.strip():
            raise InvalidHandler("`exec` must name a program", vendor="copilot")
        return program, _strings("copilot", h.get("args", []), "args")
    if "" in (bash, command) and all(isinstance(v, str) for v in (bash, command) if v is not None):
        return ":", None
    if chosen is None and h.get("powershell") is not None:
        raise InvalidHandler("this host runs POSIX shell commands; the handler has only a "
                             "powershell command", vendor="copilot")
    return chosen, None
