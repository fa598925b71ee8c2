"""compat-adapter: run other agents' hooks and rules on a host, with every loss graded."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from compat_adapter.errors import (
    AdapterDisposed,
    CompatError,
    HostSurfaceMismatch,
    InvalidDeclaration,
    InvalidHandler,
    InvalidMatcher,
    MountFailed,
    RulesSourceMissing,
    RulesTooLarge,
    RulesUnreadable,
    UnknownEvent,
    UnknownVendor,
)
from compat_adapter.grading import declare_hook, grade, grade_rules, grade_runtime
from compat_adapter.host.protocol import Host, Surface, validate_host
from compat_adapter.matrix import build_matrix
from compat_adapter.model import (
    Capability,
    CapabilityResult,
    Degradation,
    DegradationCode,
    Route,
    capability_result,
)
from compat_adapter.service import AdapterConfig, CompatAdapter, Status

if TYPE_CHECKING:
    from compat_adapter.host.memory import MemoryHost

__all__ = (
    "AdapterConfig",
    "AdapterDisposed",
    "Capability",
    "CapabilityResult",
    "CompatAdapter",
    "CompatError",
    "Degradation",
    "DegradationCode",
    "Host",
    "HostSurfaceMismatch",
    "InvalidDeclaration",
    "InvalidHandler",
    "InvalidMatcher",
    "MemoryHost",
    "MountFailed",
    "Route",
    "RulesSourceMissing",
    "RulesTooLarge",
    "RulesUnreadable",
    "Status",
    "Surface",
    "UnknownEvent",
    "UnknownVendor",
    "build_matrix",
    "capability_result",
    "declare_hook",
    "grade",
    "grade_rules",
    "grade_runtime",
    "validate_host",
)


def __getattr__(name: str) -> Any:
    # The embedded host is imported on first use so that `import compat_adapter` stays cheap.
    if name == "MemoryHost":
        from compat_adapter.host.memory import MemoryHost

        return MemoryHost
    raise AttributeError(f"module 'compat_adapter' has no attribute {name!r}")
