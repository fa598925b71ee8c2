"""Importers: read vendor-native config files into hook and rules declarations.

The caller names the vendor; nothing is guessed from a file's name except its format within that
vendor (a Codex ``.toml`` is config.toml, a ``.json`` is hooks.json; a Claude ``.md`` is a rules
file …). An import reads files and nothing else: it never runs, fetches or registers. What would
never run here comes back as :class:`Refused` with a code and a reason; a file that cannot be read
raises, naming the file and the place.

Files are taken in the order given, lowest precedence first (``import_project`` gives them in the
vendor's order). A file-level switch (Claude or Copilot ``disableAllHooks``, Codex
``[features] hooks``) is decided by the last file that sets it and applies to every hook of the
import, the way merged settings apply.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compat_adapter.capability import PluginRuntime, capability
from compat_adapter.catalog import resolve_vendor, unit_of
from compat_adapter.errors import CompatError, InvalidDeclaration, NoSuchPath, NotAFolder
from compat_adapter.importers.common import (
    REFUSAL_CODES,
    FileImport,
    ImportedHook,
    ImportedPlugin,
    ImportedRules,
    ImportResult,
    Refused,
)
from compat_adapter.importers.gate import gate, importer_for

if TYPE_CHECKING:
    from compat_adapter.model import CapabilityResult
    from compat_adapter.service import CompatAdapter

__all__ = (
    "REFUSAL_CODES",
    "ImportResult",
    "ImportedHook",
    "ImportedPlugin",
    "ImportedRules",
    "Refused",
    "import_files",
    "import_project",
    "plugin_runtime",
    "plugin_source",
    "register_import",
)

def import_files(vendor: str, paths: Sequence[str | Path], *, trust_all: bool | None = None,
                 unusable: list[CompatError] | None = None) -> ImportResult:
    """Read the named files as the named vendor's config, hooks, plugin or rules files.

    Hooks of a file the user has not trusted come back refused (``UNTRUSTED``, see
    :mod:`compat_adapter.trust`); ``trust_all=True`` is the loud, dangerous opt-out. A file that
    cannot be used raises, unless ``unusable`` is given: then its error is appended there and the
    other files still import (one bad file never hides another file's hooks).
    """
    spec = resolve_vendor(vendor)
    importer = importer_for(spec.id)
    if isinstance(paths, str | Path):
        paths = [paths]  # one path given bare; a str is a Sequence too, so never iterate it
    parts: list[FileImport] = []
    for given in paths:
        path = Path(given)
        try:
            if not path.exists():
                raise NoSuchPath(f"{given}: no such file", path=str(given))
            parts.append(gate(spec, path, str(given), partial(importer.import_file, spec, path, str(given)),
                              trust_all=trust_all))
        except CompatError as exc:
            if unusable is None:
                raise
            unusable.append(exc)
    return _fold(spec.id, parts)


def import_project(vendor: str, root: str | Path, *, trust_all: bool | None = None) -> ImportResult:
    """Read the vendor's default project files under ``root`` (only those that exist)."""
    spec = resolve_vendor(vendor)
    base = Path(root)
    if not base.exists():
        raise NoSuchPath(f"{root}: no such project folder", path=str(root))
    if not base.is_dir():
        raise NotAFolder(f"{root}: is a file, not a project folder", path=str(root))
    return import_files(spec.id, importer_for(spec.id).project_files(base), trust_all=trust_all)


def _fold(vendor_id: str, parts: Sequence[FileImport]) -> ImportResult:
    refused = [r for p in parts for r in p.refused]
    managed = [h for p in parts if p.managed for h in p.hooks]
    hooks = [h for p in parts if not p.managed for h in p.hooks]
    only = next((p.managed_only for p in parts if p.managed_only), None)
    if only:
        refused += [Refused(vendor=vendor_id, what=f"{h.event} hook {_command(h)}",
                            reason=f"only managed hooks run: {only} is true", origin=h.origin,
                            code="SKIPPED_BY_VENDOR", event=h.event, matcher=h.matcher) for h in hooks]
        hooks = []
    switches = [p.hooks_switch for p in parts if p.hooks_switch is not None and not p.managed]
    if switches and switches[-1][0]:
        where = switches[-1][1]
        refused += [Refused(vendor=vendor_id, what=f"{h.event} hook {_command(h)}",
                            reason=f"hooks are switched off by {where}", origin=h.origin,
                            code="SKIPPED_BY_VENDOR", event=h.event, matcher=h.matcher) for h in hooks]
        hooks = []
    hooks = managed + hooks  # managed hooks cannot be switched off from a user or project file
    return ImportResult(hooks=tuple(hooks), rules=tuple(r for p in parts for r in p.rules),
                        refused=tuple(refused), plugins=tuple(x for p in parts for x in p.plugins),
                        permissions=tuple(r for p in parts for r in p.permissions),
                        permission_settings=tuple(s for p in parts for s in p.permission_settings))


def _command(hook: ImportedHook) -> str:
    h = hook.handler
    text = h if isinstance(h, str) else str(h.get("command") or h.get("bash") or "")
    return text if len(text) <= 60 else text[:57] + "..."


async def register_import(adapter: CompatAdapter, result: ImportResult, *,
                          prefer: str | None = None) -> tuple[CapabilityResult, ...]:
    """Register every imported hook, then every rules entry, in one batch; results in order.

    ``prefer`` is the route policy for these hooks (default: the adapter's). Refused items are not
    registered: they are already the answer for those parts of the files.
    """
    out: list[CapabilityResult] = []
    async with adapter.batch(prefer=prefer):  # type: ignore[arg-type]
        for h in result.hooks:
            out.append(await adapter.register(h.declared))
        for r in result.rules:
            out.append(await adapter.register_rules(r.vendor, r.sources, base_dir=r.base_dir))
        out.extend(adapter.register_permissions(result.permissions, result.permission_settings))
        # OpenCode plugins load in the adapter's plugin sidecar, one load per project, in the
        # order OpenCode loads them (config entries, then the plugin folders).
        by_root: dict[str, list[ImportedPlugin]] = {}
        for plugin in result.plugins:
            by_root.setdefault(plugin.root, []).append(plugin)
        for root, plugins in by_root.items():
            out.extend(await adapter.register_plugins(root, sources=[plugin_source(p) for p in plugins]))
    return tuple(out)


def plugin_source(plugin: ImportedPlugin) -> Any:
    """The plugin runtime's source for an imported plugin: the runtime its vendor's unit brings
    (:class:`compat_adapter.capability.PluginRuntime`)."""
    return plugin_runtime(plugin.vendor).source(plugin)


def plugin_runtime(vendor: str) -> PluginRuntime:
    """The plugin runtime ``vendor``'s unit brings; a vendor without one has no plugins to load."""
    runtime = capability(unit_of(vendor), PluginRuntime)
    if runtime is None:
        raise InvalidDeclaration(f"{vendor} brings no plugin runtime, so its plugins cannot load", vendor=vendor)
    return runtime
