"""Preset plugins: objects or modules with ``apply(adapter)`` that declare hooks and rules.

A preset is found by name through the entry-point group ``compat_adapter.presets``, or given as a
Python file path, or as ``module:attr``. ``apply`` may be sync or async; registrations inside it run
in one batch, so each bridge is mounted once.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from compat_adapter.errors import CompatError, PresetError

__all__ = ("ENTRY_POINT_GROUP", "Preset", "apply_preset", "available_presets", "load_preset")

ENTRY_POINT_GROUP = "compat_adapter.presets"


@runtime_checkable
class Preset(Protocol):
    def apply(self, adapter: Any) -> Any: ...


def available_presets() -> dict[str, str]:
    """Installed presets: entry-point name → its target."""
    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def _from_file(path: Path) -> Any:
    if not path.is_file():
        raise PresetError(f"preset file {path} does not exist", path=path)
    spec = importlib.util.spec_from_file_location(f"compat_adapter_preset_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise PresetError(f"{path} is not a Python module", path=path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise PresetError(f"preset file {path} failed to load: {exc}", path=path) from exc
    return getattr(module, "PRESET", module)


def load_preset(ref: object) -> Preset:
    """Resolve a preset object, module, file path, `module:attr` or entry-point name."""
    if not isinstance(ref, str):
        target = ref
    elif ref.endswith(".py") or "/" in ref:
        target = _from_file(Path(ref))
    elif ":" in ref:
        module_name, _, attr = ref.partition(":")
        try:
            target = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise PresetError(f"cannot load preset {ref!r}: {exc}", preset=ref) from exc
    else:
        found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == ref]
        if not found:
            known = ", ".join(sorted(available_presets())) or "none installed"
            raise PresetError(f"no preset named {ref!r} (installed: {known})", preset=ref)
        target = found[0].load()
    if not callable(getattr(target, "apply", None)):
        raise PresetError(f"{ref!r} has no apply(adapter)", preset=str(ref))
    return target  # type: ignore[return-value]


async def apply_preset(adapter: Any, ref: object, *, prefer: str | None = None) -> Preset:
    """Load and apply a preset on ``adapter`` in one batch. Errors from the preset keep their code.

    ``prefer`` is the route policy for the preset's hooks (default: the adapter's; a preset may
    also pass ``prefer`` to each ``register_hook`` itself).
    """
    preset = load_preset(ref)
    async with adapter.batch(prefer=prefer):
        try:
            outcome = preset.apply(adapter)
            if inspect.isawaitable(outcome):
                await outcome
        except CompatError:
            raise
        except Exception as exc:
            raise PresetError(f"preset {ref!r} failed: {type(exc).__name__}: {exc}", preset=str(ref)) from exc
    return preset
