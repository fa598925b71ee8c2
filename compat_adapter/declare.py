"""Declare: loose input (vendor, event, matcher, handler) → one resolved :class:`Declared`, once.

This is the only place a hook's vendor and event are looked up by name. Grading, the routes and the
service take the :class:`Declared` record and read its ``spec``, ``row`` and ``unit`` (the vendor's
parts: dialect, voice, handler shape, landing facts); nothing downstream looks the vendor or the
event up again.

A declaration that cannot be processed raises the documented errors (UNKNOWN_VENDOR,
UNKNOWN_EVENT, INVALID_HANDLER, INVALID_MATCHER, INVALID_DECLARATION); poor portability does not
raise here, it is a grade.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from compat_adapter.catalog import resolve_event, unit_of
from compat_adapter.errors import InvalidDeclaration, InvalidHandler, InvalidMatcher
from compat_adapter.handlers.parse import MAX_TIMEOUT_S, RUN_KINDS, parse_mapping
from compat_adapter.model import (
    CommandHandler,
    EventRow,
    Handler,
    HookDeclaration,
    HookPlace,
    HttpHandler,
    McpToolHandler,
    ModelHandler,
    VendorSpec,
)
from compat_adapter.spawncheck import spawn_problem

if TYPE_CHECKING:
    from compat_adapter.registry import VendorUnit

__all__ = ("MAX_TIMEOUT_S", "REFUSED_HANDLER_TYPES", "Declared", "declare_hook", "parse_handler")

#: Handler types other than a command (a web request, an MCP call, a model prompt, a sub-agent):
#: run for the vendors whose importers accept them (Claude, CodeBuddy), refused by the others.
REFUSED_HANDLER_TYPES = RUN_KINDS - {"command"}

HandlerKind = Literal["command", "http", "mcp_tool", "prompt", "agent", "callable"]


@dataclass(frozen=True, slots=True)
class Declared:
    """One hook, resolved: the vendor's spec, unit and event row themselves, not their names."""

    spec: VendorSpec
    unit: VendorUnit = field(repr=False, compare=False)
    """The vendor's unit, resolved once here: everything downstream asks it, never the catalog."""
    row: EventRow
    handler: Handler | None
    """None when the handler can never run here (a callable); the grader says why."""
    handler_kind: HandlerKind
    matcher: str | None = None
    id: str | None = None
    origin: str | None = None
    """Where the declaration came from (file and place), for messages."""
    place: HookPlace | None = None
    """Where its file sits as the vendor reads it (project folder, plugin): the variables the vendor
    gives the hook are filled from it. None: declared from code, only the session's."""

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


def parse_handler(vendor: VendorSpec, handler: object, unit: VendorUnit | None = None
                  ) -> tuple[Handler | None, HandlerKind]:
    """Normalise any vendor's handler shape; returns (handler, kind). ``unit``: the vendor's, when
    the caller holds it already (else it is looked up by the table's id)."""
    if callable(handler):
        return None, "callable"
    if isinstance(handler, str):
        if not handler.strip():
            raise InvalidHandler("the command is empty", vendor=vendor.id)
        return CommandHandler(command=handler), "command"
    if isinstance(handler, CommandHandler | HttpHandler | McpToolHandler):
        return handler, _KIND[type(handler)]
    if isinstance(handler, ModelHandler):
        return handler, handler.kind
    if not isinstance(handler, Mapping):
        raise InvalidHandler(f"a handler is a command string or a mapping, not {type(handler).__name__}",
                             vendor=vendor.id)
    kind = handler.get("type", "command")
    if not isinstance(kind, str):
        raise InvalidHandler(f"a handler type is a string, not {type(kind).__name__}", vendor=vendor.id)
    if kind not in RUN_KINDS:
        raise InvalidHandler(f"unknown handler type {kind!r}", vendor=vendor.id, type=kind)
    shape = (unit or unit_of(vendor.id)).handlers
    return parse_mapping(shape, vendor.id, kind, handler), kind  # type: ignore[return-value]


_KIND: dict[type, HandlerKind] = {CommandHandler: "command", HttpHandler: "http", McpToolHandler: "mcp_tool"}


def declare_hook(vendor: object, event: object, matcher: object = None, handler: object = None,
                 id: str | None = None, origin: str | None = None, place: HookPlace | None = None) -> Declared:
    """Resolve loose input into a :class:`Declared`, raising the documented errors.

    ``vendor`` may also be a :class:`VendorSpec` already resolved (the tables' own rows, the
    matrix); it is then taken as it is.
    """
    unit = unit_of(vendor.id if isinstance(vendor, VendorSpec) else vendor)
    spec = vendor if isinstance(vendor, VendorSpec) else unit.spec
    row = event if isinstance(event, EventRow) else resolve_event(spec, event)
    if matcher is not None and not isinstance(matcher, str):
        raise InvalidMatcher(f"the matcher must be a string, not {type(matcher).__name__}",
                             vendor=spec.id, event=row.event)
    if handler is None:
        raise InvalidHandler("a hook needs a handler", vendor=spec.id, event=row.event)
    command, kind = parse_handler(spec, handler, unit)
    if isinstance(command, CommandHandler) and (problem := _spawn_problem(command)):
        raise InvalidHandler(problem, vendor=spec.id, event=row.event)
    if matcher:
        problem = _matcher_problem(spec, unit, row, matcher)
        if problem:
            raise InvalidMatcher(f"matcher {matcher!r} on {spec.id} {row.event}: {problem}",
                                 vendor=spec.id, event=row.event, matcher=matcher)
    if id is not None and (not isinstance(id, str) or not id.strip()):
        raise InvalidDeclaration("id must be a non-empty string", vendor=spec.id)
    return Declared(spec=spec, unit=unit, row=row, handler=command, handler_kind=kind, matcher=matcher, id=id,
                    origin=origin, place=place)


def _spawn_problem(handler: CommandHandler) -> str | None:
    problem = spawn_problem(handler.command, handler.env, handler.cwd)
    if problem is None and any("\0" in a for a in handler.args or ()):
        return "an argument contains a NUL byte; no process can be started with it"
    return problem


def _matcher_problem(spec: VendorSpec, unit: VendorUnit, row: EventRow, matcher: str) -> str | None:
    # A vendor that skips a hook whose pattern does not compile (Copilot; the built-in bridge
    # reproduces it) is not in error here. For the others a bad pattern would make the whole
    # bridge config (every hook in it) refuse to load.
    if spec.bad_matcher == "skips-hook" or row.matcher_subject is None:
        return None
    # The unit loads its dialect (and its regex engines) on the first matcher checked, so that
    # `import compat_adapter` stays cheap.
    return unit.dialect.validate_matcher(row.event, matcher)
