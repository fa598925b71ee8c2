"""What each translation point is, apart from what it does: its seam, how the seam dispatches,
what an answer may become there, the service it arms, and the record it follows.

This is the table a point's name is spelled in. ``routing/points.py`` gives each of these facts its
verdict rule and its payload fields (:class:`~compat_adapter.routing.points.Point`); the facts stand
apart so that what only reads them (the support matrix: `compat-adapter matrix` names what each
point's answer becomes) loads no rule, no host answer type and no payload builder.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

__all__ = ("FACTS", "Mode", "PointFacts")

Mode = Literal["waterfall", "serial", "emit", "service"]


@dataclass(frozen=True, slots=True)
class PointFacts:
    name: str
    seam: str | None
    """The host seam whose event drives it (None: a host service calls back)."""
    mode: Mode
    produces: str
    """What an answer may become here (for the matrix); "none (observe)" when nothing."""
    service: str | None = None
    """A host service armed when the first hook mounts here."""
    log_pair: bool = False
    """Write ``hook/invoked`` / ``hook/result`` records to the session log (the vendors' own
    transcripts show these runs)."""
    record: str | None = None
    """For a point derived from ``session/event``: the kind of durable record it follows."""


_OBS = "none (observe)"
_EVENT = "session/event"

# waterfalls: the answer can be the host's verdict
PRE_EXECUTE = PointFacts("tools/pre-execute", "tools/pre-execute", "waterfall", "PreToolDecision", log_pair=True)
POST_EXECUTE = PointFacts("tools/post-execute", "tools/post-execute", "waterfall", "PostToolDecision", log_pair=True)
PRE_STEP = PointFacts("agent/pre-step", "agent/pre-step", "waterfall", "PreStepDecision", log_pair=True)
PRE_STEP_TRANSFORM = PointFacts("agent/pre-step/transform", "agent/pre-step", "waterfall", "PreStepDecision",
                                log_pair=True)
APPROVAL = PointFacts("approval/request", "approval/request", "waterfall", "ApprovalOutcome", log_pair=True)
#: A vendor's permission hooks on every call it asks permission for, whether or not anyone would be
#: asked (Copilot CLI runs permissionRequest for a shell call under --allow-all-tools): on the
#: pre-execute seam, after the pre-tool hooks left the call undecided.
PERMISSION = PointFacts("tools/permission", "tools/pre-execute", "waterfall", "PreToolDecision", log_pair=True)
QUESTIONS = PointFacts("user-questions/request", "user-questions/request", "waterfall", "AskUserQuestionAnswer",
                       log_pair=True)

# serial: the host waits, so context or another step can land
AGENT_CREATED = PointFacts("agent/created", "agent/created", "serial", "inject (context)")
TURN_STOPPING = PointFacts("agent/turn-stopping", "agent/turn-stopping", "serial", "steer (another step)",
                           log_pair=True)

# emit: observed (a child's context still reaches the child, which has not started yet)
SUBAGENT_START = PointFacts("subagent/start", "subagent/start", "emit", "inject into the child")
SUBAGENT_END = PointFacts("subagent/end", "subagent/end", "emit", _OBS)
DISPOSED = PointFacts("agent/disposed", "agent/disposed", "emit", _OBS)
AGENT_ERROR = PointFacts("agent/error", "agent/error", "emit", _OBS)
AGENT_STATUS = PointFacts("agent/status", "agent/status", "emit", _OBS)
INBOX = PointFacts("agent/inbox/inserted", "agent/inbox/inserted", "emit", _OBS)
SETTINGS = PointFacts("settings/document-updated", "settings/document-updated", "emit", _OBS)
SESSION_CREATED = PointFacts("session/created", "session/created", "emit", _OBS)
INSTRUCTIONS_LOADED = PointFacts("agent/instructions-loaded", "session/created", "emit", _OBS)

# emit, derived from the durable records of session/event
SESSION_EVENT = PointFacts("session/event", _EVENT, "emit", _OBS)
COMPACTION_START = PointFacts("compaction/start", _EVENT, "emit", _OBS, record="compaction/start")
COMPACTION_END = PointFacts("compaction/end", _EVENT, "emit", _OBS, record="compaction/end")
TODO = PointFacts("todo/write", _EVENT, "emit", _OBS, record="todo/write")
STEP_END = PointFacts("step/end", _EVENT, "emit", _OBS, record="step/end")
MODEL_SWITCH = PointFacts("request/header", _EVENT, "emit", _OBS, record="request/header")
COMMAND = PointFacts("command/run", _EVENT, "emit", _OBS, record="command/run")
WORKSPACE = PointFacts("workspace/changes", _EVENT, "emit", _OBS, record="workspace/changes")
APPROVAL_DECIDED = PointFacts("approval/decided", _EVENT, "emit", _OBS, record="approval/decided")
DISPLAY = PointFacts("message/display", _EVENT, "emit", _OBS, record="assistant/message")
LSP = PointFacts("lsp/query", _EVENT, "emit", _OBS, service="lsp", record="workspace/changes")

# host services call back
FS_WATCH = PointFacts("fs/watch", None, "service", _OBS, service="fs.watch")
WORKTREES = PointFacts("git/worktrees", None, "service", _OBS, service="worktrees")
SHELL_ENV = PointFacts("shell/env", None, "service", "DSH_* variables", service="shellEnv")

#: Every point's facts by name.
FACTS: Mapping[str, PointFacts] = MappingProxyType({f.name: f for f in (
    PRE_EXECUTE, POST_EXECUTE, PRE_STEP, PRE_STEP_TRANSFORM, APPROVAL, PERMISSION, QUESTIONS,
    AGENT_CREATED, TURN_STOPPING, SUBAGENT_START, SUBAGENT_END, DISPOSED, AGENT_ERROR,
    AGENT_STATUS, INBOX, SETTINGS, SESSION_CREATED, INSTRUCTIONS_LOADED, SESSION_EVENT,
    COMPACTION_START, COMPACTION_END, TODO, STEP_END, MODEL_SWITCH, COMMAND,
    WORKSPACE, APPROVAL_DECIDED, DISPLAY, LSP, FS_WATCH, WORKTREES,
    SHELL_ENV,
)})
