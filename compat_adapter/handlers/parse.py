"""A vendor's handler mapping → one frozen :mod:`compat_adapter.model` handler, every field accounted for.

Which keys a vendor reads is its :class:`HandlerShape`, named by its unit: a key the shape reads is
honoured or listed in ``ignored``; any other key is listed in ``ignored`` too (the vendor drops it,
but the author is told). Claude-shaped vendors share Claude's shape (``vendors/claude/handlers.py``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from compat_adapter.errors import InvalidHandler
from compat_adapter.model import CommandHandler, Handler, HttpHandler, McpToolHandler, ModelHandler

__all__ = ("MAX_TIMEOUT_S", "RUN_KINDS", "CommandOptions", "HandlerShape", "flag_field", "parse_mapping",
           "string_field", "strings_field")

#: The longest per-hook timeout accepted (a day); longer is a typo, not a hook.
MAX_TIMEOUT_S = 86_400
#: Every handler type this project can run (what a vendor accepts where is the importer's call).
RUN_KINDS = frozenset({"command", "http", "mcp_tool", "prompt", "agent"})


@dataclass(frozen=True, slots=True)
class CommandOptions:
    """How a command handler runs, beyond its command line: what a vendor's shape reads."""

    args: tuple[str, ...] | None = None
    shell: Literal["bash", "powershell"] | None = None
    run_async: bool = False
    rewake: bool = False
    rewake_message: str | None = None
    fail_closed: bool = False


@dataclass(frozen=True, slots=True)
class HandlerShape:
    """How one vendor writes a handler mapping: the keys it reads, its command form, its options.

    Each vendor unit names its shape (``VendorUnit.handlers``); a Claude-shaped vendor takes
    Claude's (``vendors/claude/handlers.py``), a vendor with keys of its own lists them here.
    ``keys``: per handler kind, the keys the vendor reads (any other key is listed as ignored);
    a kind not there reads ``other``, and ``other`` None lists no key as ignored.
    """

    keys: Mapping[str, frozenset[str]]
    other: frozenset[str] | None
    #: The address ranges the vendor refuses to send an http hook to (`HttpHandler.refused_networks`).
    refused_networks: tuple[str, ...] = ()
    #: And the host names (`HttpHandler.refused_hosts`).
    refused_hosts: tuple[str, ...] = ()

    def ignored(self, vendor: str, kind: str, h: Mapping[str, Any]) -> tuple[str, ...]:
        """The handler's keys that are not honoured here, in the file's order."""
        known = self.keys.get(kind, self.other)
        return tuple(k for k in h if k not in known) if known is not None else ()

    def command(self, vendor: str, h: Mapping[str, Any]) -> tuple[object, tuple[str, ...] | None]:
        """The command (checked by the caller) and, for an exec form, its arguments."""
        return h.get("command"), None

    def options(self, vendor: str, h: Mapping[str, Any]) -> CommandOptions:
        """What else the vendor reads of a command handler (exec arguments, shell, async …)."""
        return CommandOptions()

    def kind_refusal(self, event: str, kind: str) -> str | None:
        """Why the vendor never runs a handler of this kind (one of its ``handler_kinds``) on this
        event, or None when it does."""
        return None


def _timeout(vendor: str, h: Mapping[str, Any]) -> float | None:
    timeout = h.get("timeout", h.get("timeoutSec"))
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int | float)
                                or not 0 < timeout <= MAX_TIMEOUT_S or not math.isfinite(timeout)):
        # NaN and infinity fail the range test too; JSON files may carry both.
        raise InvalidHandler(f"timeout must be a number of seconds in (0, {MAX_TIMEOUT_S}], "
                             f"not {timeout!r}", vendor=vendor)
    return timeout


def string_field(vendor: str, h: Mapping[str, Any], key: str, *, required: bool = False) -> str | None:
    value = h.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value.strip()):
        raise InvalidHandler(f"`{key}` must be a non-empty string", vendor=vendor)
    return value


def flag_field(vendor: str, h: Mapping[str, Any], key: str) -> bool:
    value = h.get(key, False)
    if not isinstance(value, bool):
        raise InvalidHandler(f"`{key}` must be true or false, not {value!r}", vendor=vendor)
    return value


def _common(shape: HandlerShape, vendor: str, kind: str, h: Mapping[str, Any]) -> dict[str, Any]:
    rule = string_field(vendor, h, "if")
    return dict(timeout_s=_timeout(vendor, h), if_rule=rule.strip() if rule else None,
                once=flag_field(vendor, h, "once"), status_message=string_field(vendor, h, "statusMessage"),
                ignored=shape.ignored(vendor, kind, h))


def _pairs(vendor: str, value: object, what: str) -> tuple[tuple[str, str], ...]:
    value = value or {}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                 for k, v in value.items()):
        raise InvalidHandler(f"{what} must map names to strings", vendor=vendor)
    return tuple(sorted(value.items()))


def strings_field(vendor: str, value: object, what: str) -> tuple[str, ...]:
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


def parse_mapping(shape: HandlerShape, vendor: str, kind: str, h: Mapping[str, Any]) -> Handler:
    """One handler of a known ``kind`` (see :data:`RUN_KINDS`), read in ``vendor``'s shape (its
    unit's ``handlers``); raises InvalidHandler."""
    common = _common(shape, vendor, kind, h)
    if kind == "http":
        url = string_field(vendor, h, "url", required=True)
        assert url is not None
        if not url.startswith(("http://", "https://")):
            raise InvalidHandler(f"an http hook's url is http:// or https://, not {url!r}", vendor=vendor)
        return HttpHandler(url=url, headers=_pairs(vendor, h.get("headers"), "headers"),
                           allowed_env=strings_field(vendor, h.get("allowedEnvVars", []), "allowedEnvVars"),
                           refused_networks=shape.refused_networks, refused_hosts=shape.refused_hosts, **common)
    if kind == "mcp_tool":
        arguments = h.get("input", {})
        if not isinstance(arguments, Mapping):
            raise InvalidHandler("an mcp_tool hook's input is an object of tool arguments", vendor=vendor)
        import json  # here: only an mcp_tool handler writes JSON (the matrix reads no handler file)

        return McpToolHandler(server=string_field(vendor, h, "server", required=True),
                              tool=string_field(vendor, h, "tool", required=True),
                              input_json=json.dumps(_thaw(arguments), sort_keys=True), **common)
    if kind in ("prompt", "agent"):
        return ModelHandler(kind=kind, prompt=string_field(vendor, h, "prompt", required=True),
                            model=string_field(vendor, h, "model"),
                            continue_on_block=flag_field(vendor, h, "continueOnBlock"), **common)
    return _command(shape, vendor, h, common)


def _command(shape: HandlerShape, vendor: str, h: Mapping[str, Any], common: dict[str, Any]) -> CommandHandler:
    command, args = shape.command(vendor, h)
    if not isinstance(command, str) or not command.strip():
        raise InvalidHandler("a command handler needs a non-empty command string", vendor=vendor)
    cwd = h.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise InvalidHandler("cwd must be a string", vendor=vendor)
    options = shape.options(vendor, h)
    return CommandHandler(command=command, cwd=cwd, env=_pairs(vendor, h.get("env"), "env"),
                          args=options.args if args is None else args, shell=options.shell,
                          run_async=options.run_async, rewake=options.rewake,
                          rewake_message=options.rewake_message, fail_closed=options.fail_closed, **common)
