"""The published DeepSeek Harness 0.1.0-rc.8 surface, as data, and how a live composition maps onto it.

A seam exists in a composition when the package that declares it is loaded there, which shows as
that package's service being provided (``dsh-tools`` provides ``tools`` and declares
``tools/pre-execute`` …). The thin Cordis plugin reports the services, package versions and
bridge packages of the composition it runs in; :func:`surface_from_composition` turns that report
into the :class:`~compat_adapter.model.Surface` grading reads. Nothing about a row is
decided here: a seam the composition lacks is simply absent, and grading names it.

The seam table was read from the ``@mode`` tags of the installed rc.8 ``.d.ts`` files (a test reads
them again and compares); the subagent seams are from ``dsh-seams.md`` §4 because the lane does not
install ``dsh-subagent``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from compat_adapter.errors import ProtocolError
from compat_adapter.model import SeamMode, Surface
from vendors.surface import CLAUDE_BRIDGE, CODEX_BRIDGE

__all__ = (
    "DSH_RC8_LANE_COMPOSITION",
    "DSH_RC8_SEAMS",
    "DSH_RC8_SURFACE",
    "DSH_RC8_VERSION",
    "NOT_OFFERED",
    "SERVICE_NAMES",
    "SeamInfo",
    "surface_from_composition",
)

DSH_RC8_VERSION = "0.1.0-rc.8"

_W, _S, _E = SeamMode.WATERFALL, SeamMode.SERIAL, SeamMode.EMIT


@dataclass(frozen=True, slots=True)
class SeamInfo:
    mode: SeamMode
    package: str
    """The package whose types declare the seam."""
    service: str
    """The Cordis service that package provides: the seam exists when this one does."""


def _seam(mode: SeamMode, package: str, service: str) -> SeamInfo:
    return SeamInfo(mode, f"@deepseek-ai/{package}", service)


#: The seams of 0.1.0-rc.8 that a Host listener can use (``session/flush`` is parallel and
#: ``llm/*``, ``system-prompt/*``, ``tools/execute`` are host internals the routes never name).
#: Differences from the 0.2.0-rc.2 surface the embedded host publishes: ``agent/created`` is emit
#: (not serial), ``agent/session-start`` exists, ``user-questions/request`` does not.
DSH_RC8_SEAMS: Mapping[str, SeamInfo] = MappingProxyType({
    "tools/pre-execute": _seam(_W, "dsh-tools", "tools"),
    "tools/post-execute": _seam(_W, "dsh-tools", "tools"),
    "tools/result": _seam(_E, "dsh-tools", "tools"),
    "agent/created": _seam(_E, "dsh-agent", "agents"),
    "agent/session-start": _seam(_E, "dsh-agent", "agents"),
    "agent/pre-step": _seam(_W, "dsh-agent", "agents"),
    "agent/turn-stopping": _seam(_S, "dsh-agent", "agents"),
    "agent/disposed": _seam(_E, "dsh-agent", "agents"),
    "agent/error": _seam(_E, "dsh-agent", "agents"),
    "agent/status": _seam(_E, "dsh-agent", "agents"),
    "agent/inbox/inserted": _seam(_E, "dsh-agent", "agents"),
    "approval/request": _seam(_W, "dsh-user-approval", "approval"),
    "settings/document-updated": _seam(_E, "dsh-settings", "settings"),
    "session/created": _seam(_E, "dsh-session", "sessions"),
    "session/event": _seam(_E, "dsh-session", "sessions"),
    "subagent/start": _seam(_E, "dsh-subagent", "subagents"),
    "subagent/end": _seam(_E, "dsh-subagent", "subagents"),
})

#: Cordis service name → the service name a Surface uses (:class:`compat_adapter.model.Service`).
SERVICE_NAMES: Mapping[str, str] = MappingProxyType({
    "shell": "shell",
    "agents": "agents",
    "approval": "approval",
    "userQuestions": "userQuestions",
    "subagents": "subagents",
    "settings": "settings",
    # The plugin answers the host contract's `complete` with the composition's own model.
    "llm": "model",
})

#: Services rc.8 has under a name the surface knows, but that this host cannot offer, and why.
NOT_OFFERED: Mapping[str, str] = MappingProxyType({
    "shellEnv": "rc.8 resolves shell-environment contributors synchronously inside the bash tool, "
                "so a contributor cannot wait for a hook process",
    "fs.watch": "rc.8 has no FileSystem.watch (added in 0.1.7)",
    "lsp": "rc.8 LSP providers answer definition/references/hover queries only; there is no "
           "diagnostics query and this host does not relay one",
    "worktrees": "DSH has no git worktree service",
})

#: The official bridge packages a composition may offer (the names the vendor tables use).
_BRIDGES = frozenset({CLAUDE_BRIDGE, CODEX_BRIDGE})


def _unserved(provided: set[str], tools: Any, composition: Mapping[str, Any]) -> dict[str, str]:
    """Points whose seam this composition has but whose evidence it never produces, with why.

    Each is read from the live report: a record is written only by a package that is composed
    (its service provided, its tool registered), and what rc.8 never writes is named as such.
    """
    out: dict[str, str] = {}
    if "agent/session-start" in {n for n, i in DSH_RC8_SEAMS.items() if i.service in provided}:
        out["SessionStart"] = (
            "rc.8's official bridges run SessionStart detached on agent/session-start, after the "
            "first request is built: its context reaches the model in turn 2, never turn 1")
    if not (isinstance(tools, Mapping) and "todo_write" in tools):
        out["todo/write"] = ("no todo_write tool in this composition (@deepseek-ai/dsh-tool-todo), "
                             "so no todo/write record is ever written")
    if "compaction" not in provided:
        out["compaction/start"] = out["compaction/end"] = (
            "no compaction provider in this composition (ctx.compaction: @deepseek-ai/dsh-compaction "
            "with dsh-compaction-basic and dsh-token-meter), so no compaction/* record is ever written")
    if "commands" not in provided:
        out["command/run"] = ("no command registry in this composition (ctx.commands: "
                              "@deepseek-ai/dsh-commands), so no command/run record is ever written")
    if not composition.get("settings_writable"):
        out["settings/document-updated"] = (
            "the composition's settings provider is read-only, so no settings document is ever "
            "updated and settings/document-updated never fires")
    out["request/header"] = ("no published rc.8 package switches a running agent's model, so "
                             "request/header never names a second model")
    out["workspace/changes"] = "rc.8 writes no workspace/changes record (it arrives in 0.1.7)"
    return out


def surface_from_composition(composition: Mapping[str, Any]) -> Surface:
    """The surface of a live DSH composition, from the plugin's report.

    ``composition``: ``{"services": [Cordis service names], "versions": {package: version},
    "bridges": [bridge packages the composition can load], "tools": {name: argument schema},
    "settings_writable": bool}``. Points the composition has a seam for but never produces are
    graded UNSUPPORTED with the reason (``Surface.unserved``).
    """
    services = composition.get("services")
    versions = composition.get("versions") or {}
    bridges = composition.get("bridges") or []
    if not isinstance(services, list) or not isinstance(versions, Mapping) \
            or not isinstance(bridges, list):
        raise ProtocolError("a DSH composition report has services (list), versions (object) and "
                            "bridges (list)")
    provided = {str(s) for s in services}
    seams = {name: info.mode for name, info in DSH_RC8_SEAMS.items() if info.service in provided}
    offered = frozenset(ours for theirs, ours in SERVICE_NAMES.items() if theirs in provided)
    version = str(versions.get("@deepseek-ai/dsh-agent") or versions.get("@deepseek-ai/dsh-tools")
                  or DSH_RC8_VERSION)
    return Surface(host="dsh", version=version, seams=seams, services=offered,
                   bridge_packages=frozenset(b for b in bridges if b in _BRIDGES),
                   unserved=_unserved(provided, composition.get("tools"), composition))


#: What the lane's composition (``scripts/dsh_lane.sh`` + ``plugin/runner.mjs``) reports: the
#: published rc.8 packages of a real agent loop, without ``dsh-subagent``. A test boots it and
#: checks the live report against this, so ``matrix --host dsh`` grades on what really runs.
DSH_RC8_LANE_COMPOSITION: Mapping[str, Any] = MappingProxyType({
    "services": ["settings", "llm", "sessions", "systemPrompt", "approval", "tools", "agents",
                 "subprocess", "shell", "shellEnv", "commands", "sessionProjections", "tokenMeter",
                 "toolResultPruner", "compaction", "agentLoop"],
    "versions": {"@deepseek-ai/dsh-agent": DSH_RC8_VERSION},
    "bridges": [CLAUDE_BRIDGE, CODEX_BRIDGE],
    # Tool names as registered (the live report also carries each argument schema).
    "tools": {"bash": None, "todo_write": None},
    "settings_writable": True,
})

#: The surface the lane's composition publishes (see :data:`DSH_RC8_LANE_COMPOSITION`).
DSH_RC8_SURFACE: Surface = surface_from_composition(DSH_RC8_LANE_COMPOSITION)
