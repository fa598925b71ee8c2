"""Windsurf's test support: its live speaker, and no vendor-lane driver.

Loaded only by the test machinery (the unit names it as ``lane``), never by the product. Windsurf is
an IDE with hosted models and no CLI on the registries, so nothing of it runs here: :data:`CLI` says
so. :data:`LIVE` answers as a Cascade hook does, by exit code (2 and stderr), and checks Windsurf's
payload shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from compat_adapter.testing.lane.vendors import NoCli
from compat_adapter.testing.live.harness import REASON, Exited
from compat_adapter.testing.live.speakers import Speaker

if TYPE_CHECKING:
    from compat_adapter.testing.live.harness import Session

__all__ = ("CLI", "LIVE", "WindsurfSpeaker")

CLI = NoCli("windsurf", "Windsurf is an IDE with hosted models and no CLI on the registries: nothing of it runs "
                        "here, so its rows are graded from its docs (confidence documented)")


@dataclass(frozen=True, slots=True)
class WindsurfSpeaker(Speaker):
    """The live checks in Cascade's words: exit 2 with the reason on stderr; its tool_info payloads."""

    def deny(self, event: str) -> Exited:  # type: ignore[override]
        return Exited(2, REASON)

    def block(self, event: str, reason: str = REASON) -> Exited:  # type: ignore[override]
        return Exited(2, reason)

    def observe(self, event: str) -> Exited:  # type: ignore[override]
        return Exited(2, REASON)

    def check_payload(self, s: Session, payload: Mapping[str, Any], tool: str | None) -> None:
        s.expect(payload.get("agent_action_name") == s.event and isinstance(payload.get("tool_info"), dict)
                 and {"trajectory_id", "execution_id", "timestamp"} <= set(payload),
                 f"payload is not Cascade's {{agent_action_name, trajectory_id, execution_id, timestamp, "
                 f"tool_info}}: {sorted(payload)}", f"payload agent_action_name={s.event}")

    def check_display(self, s: Session, payload: Mapping[str, Any], text: str) -> None:
        info = payload.get("tool_info")
        s.expect(isinstance(info, dict) and info.get("response") == text,
                 f"the displayed text is not the response: {payload}", "message text as tool_info.response")


#: Windsurf has no ask.
LIVE = WindsurfSpeaker("windsurf", ask_honoured=False)
