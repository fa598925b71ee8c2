"""Declare: loose input (vendor, event, matcher, handler) → one resolved :class:`Declared`, once.

This is the only place a hook's vendor and event are looked up by name. Grading, the routes and the
service take the :class:`Declared` record and read its ``spec`` and ``row``; nothing downstream
looks the vendor or the event up again.

A declaration that cannot be processed raises the documented errors (UNKNOWN_VENDOR,
UNKNOWN_EVENT, INVALID_HANDLER, INVALID_MATCHER, INVALID_DECLARATION); poor portability does not
raise here, it is a grade.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from compat_adapter.catalog import resolve_event, resolve_vendor
from compat_adapter.errors import InvalidDeclaration, InvalidHandler, InvalidMatcher
from compat_adapter.model import CommandHandler, EventRow, HookDeclaration, VendorSpec
from compat_adapter.spawncheck import spawn_problem

__all__ = ("MAX_TIMEOUT_S", "REFUSED_HANDLER_TYPES", "Declared", "declare_hook", "parse_handler")

#: Handler types a vendor may declare that would make this project run something other than a
#: command (a web request, an MCP call, a model prompt, a sub-agent). Refused, never approximated.
REFUSED_HANDLER_TYPES = frozenset({"http", "mcp_tool", "prompt", "agent"})
#: The longest per-hook timeout accepted (a day); longer is a typo, not a hook.
MAX_TIMEOUT_S = 86_400

HandlerKind = Literal["command", "callable"]


@dataclass(frozen=True, slots=True)
class Declared:
    """One hook, resolved: the vendor's spec and event row themselves, not their names."""

    spec: VendorSpec
    row: EventRow
    handler: CommandHandler | None
    """None when the handler can never run here (a callable); the grader says why."""
    handler_kind: HandlerKind
    matcher: str | None = None
    id: str | None = None
    origin: str | None = None
    """Where the declaration came from (file and place), for messages."""

    @property
    def vendor(self) -> str:
        return self.spec.id

    @property
    def event(self) -> str:
        return self.row.event

    def declaration(self) -> HookDeclaration:
        """The serialisable, string-only form (for files, the wire and messages)."""
        return HookDeclaration(vendor=self.spec.id, event=self.row.event, matcher=self.matcher,
                               handler=self.handler, handler_kind=self.handler_kind, id=self.id,
                               origin=self.origin)


def parse_handler(vendor: VendorSpec, handler: object) -> tuple[CommandHandler | None, HandlerKind]:
    """Normalise any vendor's handler shape; returns (handler, kind) with kind command|callable."""
    if callable(handler):
        return None, "callable"
    if isinstance(handler, str):
        if not handler.strip():
            raise InvalidHandler("the command is empty", vendor=vendor.id)
        return CommandHandler(command=handler), "command"
    if isinstance(handler, CommandHandler):
        return handler, "command"
    if not isinstance(handler, Mapping):
        raise InvalidHandler(f"a handler is a command string or a mapping, not {type(handler).__name__}",
                             vendor=vendor.id)
    kind = handler.get("type", "command")
    if not isinstance(kind, str):
        raise InvalidHandler(f"a handler type is a string, not {type(kind).__name__}", vendor=vendor.id)
    if kind in REFUSED_HANDLER_TYPES:
        raise InvalidHandler(f"{kind!r} handlers are not run here: only command hooks are adapted",
                             vendor=vendor.id, type=kind)
    if kind != "command":
        raise InvalidHandler(f"unknown handler type {kind!r}", vendor=vendor.id, type=kind)
    command = handler.get("command")
    if vendor.id == "copilot":
        # Copilot's own shape: {bash, powershell, cwd, env, timeoutSec}. On a POSIX host Copilot
        # runs `bash` and falls back to `command`; this host runs POSIX sh.
        command = handler.get("bash") or command
        if command is None and handler.get("powershell") is not None:
            raise InvalidHandler("this host runs POSIX shell commands; the handler has only a "
                                 "powershell command", vendor=vendor.id)
    if not isinstance(command, str) or not command.strip():
        raise InvalidHandler("a command handler needs a non-empty command string", vendor=vendor.id)
    timeout = handler.get("timeout", handler.get("timeoutSec"))
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int | float)
                                or not 0 < timeout <= MAX_TIMEOUT_S):
        # NaN and infinity fail the range test too; JSON files may carry both.
        raise InvalidHandler(f"timeout must be a number of seconds in (0, {MAX_TIMEOUT_S}], "
                             f"not {timeout!r}", vendor=vendor.id)
    env = handler.get("env") or {}
    if not isinstance(env, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                               for k, v in env.items()):
        raise InvalidHandler("env must map names to strings", vendor=vendor.id)
    cwd = handler.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise InvalidHandler("cwd must be a string", vendor=vendor.id)
    return CommandHandler(command=command, timeout_s=timeout, cwd=cwd,
                          env=tuple(sorted(env.items()))), "command"


def declare_hook(vendor: object, event: object, matcher: object = None, handler: object = None,
                 id: str | None = None, origin: str | None = None) -> Declared:
    """Resolve loose input into a :class:`Declared`, raising the documented errors.

    ``vendor`` may also be a :class:`VendorSpec` already resolved (the tables' own rows, the
    matrix); it is then taken as it is.
    """
    spec = vendor if isinstance(vendor, VendorSpec) else resolve_vendor(vendor)
    row = event if isinstance(event, EventRow) else resolve_event(spec, event)
    if matcher is not None and not isinstance(matcher, str):
        raise InvalidMatcher(f"the matcher must be a string, not {type(matcher).__name__}",
                             vendor=spec.id, event=row.event)
    if handler is None:
        raise InvalidHandler("a hook needs a handler", vendor=spec.id, event=row.event)
    command, kind = parse_handler(spec, handler)
    if command is not None and (problem := spawn_problem(command.command, command.env, command.cwd)):
        raise InvalidHandler(problem, vendor=spec.id, event=row.event)
    if matcher:
        problem = _matcher_problem(spec, row, matcher)
        if problem:
            raise InvalidMatcher(f"matcher {matcher!r} on {spec.id} {row.event}: {problem}",
                                 vendor=spec.id, event=row.event, matcher=matcher)
    if id is not None and (not isinstance(id, str) or not id.strip()):
        raise InvalidDeclaration("id must be a non-empty string", vendor=spec.id)
    return Declared(spec=spec, row=row, handler=command, handler_kind=kind, matcher=matcher, id=id,
                    origin=origin)


def _matcher_problem(spec: VendorSpec, row: EventRow, matcher: str) -> str | None:
    # Copilot skips a hook whose pattern does not compile; that is the vendor's own behaviour and
    # the built-in bridge reproduces it, so it is not an error here. For the other vendors a bad
    # pattern would make the whole bridge config (every hook in it) refuse to load.
    if spec.id == "copilot" or row.matcher_subject is None:
        return None
    # Imported here: the dialects (and their regex engines) load on the first matcher checked,
    # so that `import compat_adapter` stays cheap.
    from compat_adapter.dialects import DIALECTS

    return DIALECTS[spec.id].validate_matcher(row.event, matcher)
