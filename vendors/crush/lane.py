"""Crush's test support: its live speaker, and no vendor-lane driver.

Loaded only by the test machinery (the unit names it as ``lane``), never by the product. Crush's npm
package (``@charmland/crush``) downloads its Go binary from GitHub when it installs, and CI reaches
only PyPI, npm and Debian, so nothing of Crush runs here: :data:`CLI` says so and the vendor lane has
no case of it. :data:`LIVE` speaks Crush's own envelope (``decision``, ``reason``, ``context``,
``halt``) as :mod:`vendors.crush.dialect` reads it, and checks Crush's payload shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from compat_adapter.testing.lane.vendors import NoCli
from compat_adapter.testing.live.harness import CONTEXT, REASON
from compat_adapter.testing.live.speakers import Speaker
from vendors.crush.table import TOOL_NAMES

if TYPE_CHECKING:
    from compat_adapter.testing.live.harness import Session

__all__ = ("CLI", "LIVE", "CrushSpeaker")

CLI = NoCli("crush", "Crush's npm package downloads its binary from GitHub at install, which CI cannot reach: "
                     "nothing of Crush runs here, so its row is graded from its source (confidence documented)")


@dataclass(frozen=True, slots=True)
class CrushSpeaker(Speaker):
    """The live checks in Crush's words: its own envelope, its ``event``-keyed payload, its tool names."""

    def deny(self, event: str) -> dict[str, Any]:
        return {"decision": "deny", "reason": REASON}

    def context(self, event: str) -> dict[str, Any]:
        return {"context": CONTEXT}

    def observe(self, event: str) -> dict[str, Any]:
        return {"decision": "deny", "halt": True, "reason": REASON, "context": CONTEXT}

    def tool_name(self, s: Session, tool: str) -> str:
        return TOOL_NAMES.get(tool, tool)

    def check_payload(self, s: Session, payload: Mapping[str, Any], tool: str | None) -> None:
        s.expect(set(payload) == {"event", "session_id", "cwd", "tool_name", "tool_input"}
                 and payload.get("event") == s.event,
                 f"payload is not Crush's {{event, session_id, cwd, tool_name, tool_input}}: {sorted(payload)}",
                 f"payload event={s.event}")
        if tool is not None:
            want = self.tool_name(s, tool)
            s.expect(payload.get("tool_name") == want and isinstance(payload.get("tool_input"), dict),
                     f"tool_name {payload.get('tool_name')!r}, expected {want!r} and an input object",
                     f"tool_name={want}")


#: Crush reads ask as no opinion: no ask reaches the host's approval.
LIVE = CrushSpeaker("crush", ask_honoured=False)
