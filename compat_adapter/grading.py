"""Grading: declaration × vendor row × host surface → a frozen CapabilityResult. Pure and synchronous.

Two kinds of outcome, kept apart on purpose:

* a declaration that cannot be processed (unknown vendor or event, a matcher that is not a string or
  does not compile, an `http` / `mcp_tool` / `prompt` / `agent` handler) **raises** a CompatError;
* poor portability never raises: it is a grade. A callable handler, a missing shell, a missing
  bridge package, a missing seam or service each give UNSUPPORTED with a reason naming what is
  missing. There is no silent fallback and no home-made stand-in for a missing bridge.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from compat_adapter.catalog import resolve_event, resolve_vendor
from compat_adapter.errors import InvalidDeclaration, InvalidHandler, InvalidMatcher
from compat_adapter.host.protocol import SeamMode, Surface
from compat_adapter.host.surfaces import DSH_0_2_SURFACE
from compat_adapter.model import (
    Capability,
    CapabilityResult,
    CommandHandler,
    Degradation,
    EventRow,
    HookDeclaration,
    Route,
    VendorSpec,
    capability_result,
    degrade,
)

__all__ = (
    "REFUSED_HANDLER_TYPES",
    "SAMPLE_HANDLER",
    "TABLE_SURFACE",
    "declare_hook",
    "grade",
    "grade_declaration",
    "grade_rules",
    "grade_runtime",
    "parse_handler",
)

#: Handler types a vendor may declare that would make this project run something other than a
#: command (a web request, an MCP call, a model prompt, a sub-agent). Refused, never approximated.
REFUSED_HANDLER_TYPES = frozenset({"http", "mcp_tool", "prompt", "agent"})

_LITERAL = re.compile(r"^[A-Za-z0-9_|]+$")
#: The longest per-hook timeout accepted (a day); longer is a typo, not a hook.
MAX_TIMEOUT_S = 86_400


def parse_handler(vendor: VendorSpec, handler: object
                  ) -> tuple[CommandHandler | None, Literal["command", "callable"]]:
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
                 id: str | None = None, origin: str | None = None) -> HookDeclaration:
    """Turn loose input into a HookDeclaration, raising the documented errors."""
    spec = resolve_vendor(vendor)
    row = resolve_event(spec, event)
    if matcher is not None and not isinstance(matcher, str):
        raise InvalidMatcher(f"the matcher must be a string, not {type(matcher).__name__}",
                             vendor=spec.id, event=row.event)
    if handler is None:
        raise InvalidHandler("a hook needs a handler", vendor=spec.id, event=row.event)
    command, kind = parse_handler(spec, handler)
    if matcher:
        problem = _matcher_problem(spec, row, matcher)
        if problem:
            raise InvalidMatcher(f"matcher {matcher!r} on {spec.id} {row.event}: {problem}",
                                 vendor=spec.id, event=row.event, matcher=matcher)
    if id is not None and (not isinstance(id, str) or not id.strip()):
        raise InvalidDeclaration("id must be a non-empty string", vendor=spec.id)
    return HookDeclaration(vendor=spec.id, event=row.event, matcher=matcher, handler=command,
                           handler_kind=kind, id=id, origin=origin)


def _matcher_problem(spec: VendorSpec, row: EventRow, matcher: str) -> str | None:
    # Copilot skips a hook whose pattern does not compile; that is the vendor's own behaviour and
    # the built-in bridge reproduces it, so it is not an error here. For the other vendors a bad
    # pattern would make the whole bridge config (every hook in it) refuse to load.
    if spec.id == "copilot" or row.matcher_subject is None:
        return None
    from compat_adapter.dialects import dialect_for

    return dialect_for(spec.id).validate_matcher(row.event, matcher)


def _matcher_losses(spec: VendorSpec, row: EventRow, matcher: str | None) -> tuple[Degradation, ...]:
    """Losses that depend on this declaration's matcher rather than on the row."""
    if matcher and matcher != "*" and row.matcher_subject is None:
        # The vendor itself ignores a matcher here; so do we, and the author should know.
        return (degrade("matcher-narrowed",
                        f"{spec.id} {row.event} takes no matcher, so {matcher!r} is ignored and the "
                        "hook runs every time the event fires."),)
    if not matcher or row.matcher_subject != "tool_name" or not _LITERAL.match(matcher):
        return ()
    known = {t.vendor for t in spec.tools}
    missing = [name for name in matcher.split("|") if name and name not in known]
    if not missing:
        return ()
    names = ", ".join(missing)
    return (degrade("matcher-narrowed",
                    f"{names} has no host tool here, so this matcher never selects it."),)


def _refusal(decl: HookDeclaration, row: EventRow, spec: VendorSpec, surface: Surface) -> str | None:
    if decl.handler_kind == "callable":
        return ("a function handler would run foreign code inside the host; only command hooks "
                "are adapted")
    if "shell" not in surface.services:
        return "no shell executor in this composition, so no command hook can run"
    if row.route is Route.OFFICIAL_BRIDGE and spec.bridge_package not in surface.bridge_packages:
        return (f"the official bridge package {spec.bridge_package} is not available on host "
                f"{surface.host}; this project does not stand in for a missing bridge")
    for seam in row.seams:
        if seam not in surface.seams:
            return f"host {surface.host} {surface.version} has no {seam} seam"
        if (row.blocking == "verdict" and TABLE_SURFACE.seams.get(seam) is SeamMode.WATERFALL
                and surface.seams[seam] is not SeamMode.WATERFALL):
            return (f"host {surface.host} {surface.version} has {seam} only as an "
                    f"{surface.seams[seam]} seam, so no answer can reach it")
    for service in row.services:
        if service not in surface.services:
            return f"host {surface.host} {surface.version} has no {service} service"
    return None


#: The surface the vendor tables were written against; a host whose seam modes differ from it
#: changes what a row can do, and grading says so.
TABLE_SURFACE = DSH_0_2_SURFACE


def _mode_losses(seams: tuple[str, ...], blocking: str, surface: Surface) -> tuple[Degradation, ...]:
    """Losses from seams this host dispatches in another mode than the tables assume."""
    out = []
    for seam in seams:
        wanted, have = TABLE_SURFACE.seams.get(seam), surface.seams.get(seam)
        if wanted is SeamMode.SERIAL and have is SeamMode.EMIT and blocking != "observe":
            out.append(degrade(
                "timing-differs",
                f"On {surface.host} {surface.version} {seam} is an emit seam, not serial: the host "
                "does not wait for this listener, so what it injects can miss the agent's first request."))
    return tuple(out)


def grade(decl: HookDeclaration, row: EventRow, surface: Surface, *, id: str | None = None
          ) -> CapabilityResult:
    """Grade one hook declaration against its vendor row on one host surface."""
    spec = resolve_vendor(decl.vendor)
    common: dict[str, Any] = dict(id=id or decl.id or f"{spec.id}:{row.event}", vendor=spec.id,
                                  event=row.event, matcher=decl.matcher)
    reason = _refusal(decl, row, spec, surface)
    if reason is not None:
        return capability_result(**common, capability=Capability.UNSUPPORTED,
                                 route=Route.UNSUPPORTED, reason=reason)
    return capability_result(
        **common,
        capability=Capability.ADAPTED,
        route=row.route,
        seams=row.seams,
        services=tuple(str(s) for s in row.services),
        point=row.point,
        degradations=(spec.losses_for(row) + _matcher_losses(spec, row, decl.matcher)
                      + _mode_losses(row.seams, row.blocking, surface)),
    )


def grade_declaration(decl: HookDeclaration, surface: Surface, *, id: str | None = None
                      ) -> CapabilityResult:
    spec = resolve_vendor(decl.vendor)
    return grade(decl, resolve_event(spec, decl.event), surface, id=id)


def grade_rules(vendor: object, surface: Surface, *, id: str | None = None, files=()
                ) -> CapabilityResult:
    """Rules are carried as text on agent/created, never turned into policy."""
    spec = resolve_vendor(vendor)
    rid = id or f"{spec.id}:rules"
    if "agent/created" not in surface.seams:
        return capability_result(id=rid, vendor=spec.id, event="rules",
                                 capability=Capability.UNSUPPORTED, route=Route.UNSUPPORTED,
                                 reason=f"host {surface.host} {surface.version} has no agent/created seam")
    return capability_result(id=rid, vendor=spec.id, event="rules", capability=Capability.CARRY,
                             route=Route.CARRY, seams=("agent/created",), point="agent/created",
                             files=tuple(files),
                             degradations=_mode_losses(("agent/created",), "context", surface))


def grade_runtime(vendor: object) -> CapabilityResult:
    """A vendor's plugin runtime is out of scope everywhere."""
    spec = resolve_vendor(vendor)
    return capability_result(id=f"{spec.id}:plugin-runtime", vendor=spec.id, event="plugin-runtime",
                             capability=Capability.UNSUPPORTED, route=Route.UNSUPPORTED,
                             reason=spec.plugin_runtime)


#: The handler the matrix grades each row with: a plain command, as any preset would declare.
SAMPLE_HANDLER = CommandHandler(command="true")
