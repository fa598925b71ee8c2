"""The Factory Droid dialect (vendor id ``factory``): Claude Code's, with Droid's tool names and payload.

What differs from :mod:`vendors.claude.dialect` (Droid 0.215.0, as the vendor lane records it):

- Tools carry Droid's names (``Execute``, ``Create``, ``Edit`` …, :mod:`vendors.factory.table`), so a
  matcher is tested against them: ``Bash`` never matches a shell call under Droid.
- The payload has no ``tool_use_id``, ``prompt_id`` or ``effort``; Stop has no
  ``last_assistant_message``, ``background_tasks`` or ``session_crons`` (Droid's own ``elapsed_time``,
  ``message_id`` and ``tool_execution_count`` are not known here: the vendor's payload loss says so).
- A UserPromptSubmit ``decision: "block"`` blocks nothing: Droid rejects a prompt only on exit 2, exit
  3 or ``continue: false`` (measured, lane case factory:prompt_block under ``droid exec -o
  stream-jsonrpc``: the prompt ran, the tool ran, the reason reached no one; its bundle's
  executeUserPromptSubmitHooks reads no ``decision``), so here the field is ignored as well.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from compat_adapter.vendor import Moment
from vendors.claude.dialect import TOP_LEVEL_BLOCK, ClaudeDialect

__all__ = ("DIALECT", "FactoryDialect")

#: Fields of Claude's payload that Droid 0.215.0 never sends, on every event and on Stop.
_NOT_SENT = ("prompt_id", "effort")
_NOT_SENT_ON_STOP = ("last_assistant_message", "background_tasks", "session_crons")


class FactoryDialect(ClaudeDialect):
    """Droid's hook protocol: Claude's rules, Droid's names and payload."""

    vendor: str = "factory"
    sends_tool_use_id: ClassVar[bool] = False
    top_level_block: ClassVar[frozenset[str]] = TOP_LEVEL_BLOCK - {"UserPromptSubmit"}

    def payload(self, moment: Moment) -> dict[str, Any]:
        out: Mapping[str, Any] = ClaudeDialect.payload(self, moment)
        dropped = _NOT_SENT + (_NOT_SENT_ON_STOP if out.get("hook_event_name") == "Stop" else ())
        return {k: v for k, v in out.items() if k not in dropped}


DIALECT = FactoryDialect()
