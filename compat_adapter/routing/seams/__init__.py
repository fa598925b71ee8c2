"""The listeners of the seam routes, one module per seam family, and which seam each listens on.

A listener takes the adapter's :class:`~compat_adapter.routing.dispatch.Runner` first, then what
the host passes (the event, and ``next`` on a waterfall). It builds the point's fields, runs the
point through the one loop and carries out what the point's rule decided.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from compat_adapter.routing import points
from compat_adapter.routing.seams import agents, prompts, session, tools

__all__ = ("LISTENERS",)

#: Host seam → its listener.
LISTENERS: Mapping[str, Callable[..., Any]] = MappingProxyType({
    points.PRE_EXECUTE.seam: tools.on_pre_execute,
    tools.EXECUTE_SEAM: tools.on_execute,
    points.POST_EXECUTE.seam: tools.on_post_execute,
    points.APPROVAL.seam: tools.on_approval,
    points.PRE_STEP.seam: prompts.on_pre_step,
    points.QUESTIONS.seam: prompts.on_questions,
    points.AGENT_CREATED.seam: agents.on_agent_created,
    points.TURN_STOPPING.seam: agents.on_turn_stopping,
    points.DISPOSED.seam: agents.on_disposed,
    points.AGENT_ERROR.seam: agents.on_error,
    points.AGENT_STATUS.seam: agents.on_status,
    points.INBOX.seam: agents.on_inbox,
    points.SUBAGENT_START.seam: agents.on_subagent_start,
    points.SUBAGENT_END.seam: agents.on_subagent_end,
    points.SETTINGS.seam: session.on_settings,
    points.SESSION_CREATED.seam: session.on_session_created,
    points.SESSION_EVENT.seam: session.on_session_event,
})
