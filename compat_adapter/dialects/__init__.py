"""Per-vendor hook dialects: payload builders, output decoders, matchers and merge rules.

Pure modules: no I/O and no processes. `dialect_for` hands out the one shared instance per vendor.
"""

from __future__ import annotations

from collections.abc import Mapping

from compat_adapter.dialects.base import Dialect, HookAnswer, Moment
from compat_adapter.dialects.claude import ClaudeDialect
from compat_adapter.dialects.codebuddy import WorkBuddyDialect
from compat_adapter.dialects.codex import CodexDialect
from compat_adapter.dialects.copilot import CopilotDialect
from compat_adapter.dialects.opencode import OpenCodeDialect

__all__ = ("DIALECTS", "Dialect", "HookAnswer", "Moment", "dialect_for")

#: One stateless instance per vendor id.
DIALECTS: Mapping[str, Dialect] = {
    "claude": ClaudeDialect(),
    "codex": CodexDialect(),
    "workbuddy": WorkBuddyDialect(),
    "opencode": OpenCodeDialect(),
    "copilot": CopilotDialect(),
}


def dialect_for(vendor_id: str) -> Dialect:
    """The dialect of a vendor id or documented alias; anything else raises UNKNOWN_VENDOR."""
    from compat_adapter.catalog import resolve_vendor

    return DIALECTS[resolve_vendor(vendor_id).id]
