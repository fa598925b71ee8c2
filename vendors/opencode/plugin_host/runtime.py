"""OpenCode's plugin runtime as a capability of its unit (and of Kilo's, a fork whose plugins are
OpenCode's): the core finds it by kind (``compat_adapter.capability.PluginRuntime``) and never names it.

Moved here from ``compat_adapter/plugin_host`` (issue 37): the sidecar, its lane, the sources, the
grading of keys, the payloads, the plugin-host route (was ``compat_adapter/routing/plugins.py``) and
port's plugin shim (was ``compat_adapter/port/plugins.py``) are OpenCode's machinery. Reading this
module loads none of them: each is imported on first use, so a unit loads only its table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, MutableSequence, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vendors.opencode.plugins import LOAD_EVENT, PLUGIN_EVENTS, PLUGIN_LOSSES, PLUGIN_REFUSED, PLUGIN_TIMEOUT_S
from vendors.opencode.table import OPENCODE

if TYPE_CHECKING:
    from compat_adapter.vendor import (AuditRecord, CapabilityResult, Degradation, EventRow, HookAnswer, Host,
        ImportedPlugin, Moment, Surface)
    from vendors.opencode.plugin_host.grade import GradedHook
    from vendors.opencode.plugin_host.router import PluginHostRouter

__all__ = ("RUNTIME", "OpenCodePlugins", "OpenCodePort")



@dataclasses.dataclass(frozen=True, slots=True)
class OpenCodePort:
    """Port's shim for an OpenCode plugin file (:mod:`vendors.opencode.plugin_host.port`)."""

    timeout_s: float = PLUGIN_TIMEOUT_S

    async def keys(self, root: Path, relpath: str) -> tuple[list[str], str | None]:
        from vendors.opencode.plugin_host.port import plugin_keys

        return await plugin_keys(root, relpath)

    def unported_reason(self, key: str, target: str) -> str | None:
        from vendors.opencode.plugin_host.port import unported_reason

        return unported_reason(key, target)

    def losses(self, key: str, target: str) -> tuple[Degradation, ...]:
        from vendors.opencode.plugin_host.port import key_losses

        return key_losses(key, target)

    def blocks(self, key: str) -> bool:
        from vendors.opencode.plugin_host.port import THROW_BLOCKS

        return key in THROW_BLOCKS

    def digest(self, path: Path) -> str:
        from vendors.opencode.plugin_host.port import digest

        return digest(path)

    async def answer(self, hooks: Sequence[Mapping[str, Any]], key: str, moment: Moment,
                     timeout_s: float) -> HookAnswer:
        from vendors.opencode.plugin_host.port import plugin_answer

        return await plugin_answer(hooks, key, moment, timeout_s)


@dataclasses.dataclass(frozen=True, slots=True)
class OpenCodePlugins:
    """OpenCode's TypeScript plugins run as written in a Bun sidecar, for ``vendor`` (OpenCode, or
    a fork that runs them: its rows carry its own id and table, on OpenCode's plugin rows)."""

    vendor: str
    home: str = OPENCODE.id
    load_event: str = LOAD_EVENT
    port: OpenCodePort = OpenCodePort()

    def for_vendor(self, vendor: str) -> OpenCodePlugins:
        """The same runtime, speaking for a fork."""
        return dataclasses.replace(self, vendor=vendor)

    def installed(self) -> bool:
        from vendors.opencode.plugin_host.lane import lane

        return lane().installed

    def row(self, key: str) -> EventRow | None:
        from vendors.opencode.plugin_host.keys import plugin_row

        return plugin_row(key)

    def rows(self) -> tuple[EventRow, ...]:
        return PLUGIN_EVENTS

    def unsupported(self, id: str, event: str, reason: str, vendor: str | None = None) -> CapabilityResult:
        from vendors.opencode.plugin_host.keys import unsupported

        return unsupported(id, event, reason, vendor or self.vendor)

    def matrix_rows(self, surface: Surface) -> tuple[CapabilityResult, ...]:
        from vendors.opencode.plugin_host.keys import grade_key

        keys = [row.event for row in PLUGIN_EVENTS] + [key for key, _ in PLUGIN_REFUSED]
        return tuple(grade_key(f"{self.home}:plugin:{key}", key, surface) for key in keys)

    def matrix_summary(self, rows: Sequence[CapabilityResult]) -> str:
        from compat_adapter.vendor import Capability

        adapted = sum(h.capability is Capability.ADAPTED for h in rows)
        return (f"**{self.home} plugins, as written**: {adapted} hook keys ADAPTED on the plugin host (a Bun "
                f"sidecar), {len(rows) - adapted} UNSUPPORTED.")

    def matrix_section(self, rows: Sequence[CapabilityResult]) -> tuple[str, str, tuple[Degradation, ...]]:
        return ("OpenCode plugins, as written: the plugin host",
                "A project's OpenCode plugins (the `.ts`/`.js` files of `.opencode/plugin/` and "
                "`.opencode/plugins/`, and the npm plugins `opencode.json` lists) load in the plugin host: one "
                "Bun sidecar per adapter in its own process group, killed with the adapter (set-up: `bash "
                "scripts/plugin_lane.sh`), never in this process. Grading a plugin loads it there and gives one "
                "row per hook key it returns, graded as below; a plugin that throws at load, or fails to import, "
                "is one UNSUPPORTED row with the error. The OpenCode rows above stay for teams that re-write a "
                "hook as a command.",
                OPENCODE.losses + PLUGIN_LOSSES)

    def source(self, plugin: ImportedPlugin) -> Any:
        from vendors.opencode.plugin_host.sources import PluginSource, file_source

        if plugin.kind == "npm":
            return PluginSource(id=plugin.name, kind="npm", spec=plugin.name, options=plugin.options,
                                origin=plugin.origin, vendor=plugin.vendor)
        return file_source(Path(plugin.root), Path(plugin.name), options=plugin.options, origin=plugin.origin,
                           vendor=plugin.vendor)

    async def grade(self, root: Path, surface: Surface, sources: Sequence[Any]) -> tuple[GradedHook, ...]:
        from vendors.opencode.plugin_host.host import grade_plugins

        return await grade_plugins(root, surface, sources=sources)

    def router(self, host: Host, adapter_id: str, audit: MutableSequence[AuditRecord]) -> PluginHostRouter:
        from vendors.opencode.plugin_host.router import PluginHostRouter

        return PluginHostRouter(host, adapter_id, audit)


#: OpenCode's own (Kilo's unit declares ``RUNTIME.for_vendor("kilo")``).
RUNTIME = OpenCodePlugins(OPENCODE.id)
