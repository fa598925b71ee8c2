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
    VendorIncomplete,
)

if TYPE_CHECKING:
    from compat_adapter.declare import Declared, declare_hook
    from compat_adapter.grading import grade, grade_rules, grade_runtime
    from compat_adapter.host.embedded.memory import MemoryHost
    from compat_adapter.host.protocol import Host, Surface, validate_host
    from compat_adapter.matrix import build_matrix
    from compat_adapter.model import (
        Capability,
        CapabilityResult,
        Degradation,
        DegradationCode,
        Route,
        VendorSpec,
        capability_result,
    )
    from compat_adapter.registry import Later, VendorUnit, vendor_unit
    from compat_adapter.service import AdapterConfig, CompatAdapter, Status

__all__ = (
    "AdapterConfig",
    "AdapterDisposed",
    "Capability",
    "CapabilityResult",
    "CompatAdapter",
    "CompatError",
    "Declared",
    "Degradation",
    "DegradationCode",
    "Host",
    "HostSurfaceMismatch",
    "InvalidDeclaration",
    "InvalidHandler",
    "InvalidMatcher",
    "Later",
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
    "VendorIncomplete",
    "VendorSpec",
    "VendorUnit",
    "build_matrix",
    "capability_result",
    "declare_hook",
    "grade",
    "grade_rules",
    "grade_runtime",
    "validate_host",
    "vendor_unit",
)


#: Imported on first use, so that `import compat_adapter` stays cheap: pydantic alone costs about
#: 100 ms, and a command that only needs the errors or one grade should not pay for the service,
#: the routes, anyio or the embedded host's services.
_LAZY = {
    **dict.fromkeys(("Declared", "declare_hook"), "compat_adapter.declare"),
    **dict.fromkeys(("grade", "grade_rules", "grade_runtime"), "compat_adapter.grading"),
    **dict.fromkeys(("Host", "Surface", "validate_host"), "compat_adapter.host.protocol"),
    **dict.fromkeys(("Capability", "CapabilityResult", "Degradation", "DegradationCode", "Route",
                     "VendorSpec", "capability_result"), "compat_adapter.model"),
    **dict.fromkeys(("Later", "VendorUnit", "vendor_unit"), "compat_adapter.registry"),
    **dict.fromkeys(("AdapterConfig", "CompatAdapter", "Status"), "compat_adapter.service"),
    "MemoryHost": "compat_adapter.host.embedded.memory",
    "build_matrix": "compat_adapter.matrix",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'compat_adapter' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
