"""DeepSeek Harness 0.2.1: how a live composition maps onto a Surface, and the published one.

A seam exists in a composition when the package that declares it is loaded there, which shows as
that package's service being provided (``dsh-tools`` provides ``tools`` and declares
``tools/pre-execute`` …), and when the bundle's plugin can forward it (it reports the seams it
has an encoder for). The plugin reports the live composition in ``hello``: its Cordis services,
the runtime's own version (read from the ``@deepseek-ai/dsh`` package the runtime resolves, which
in the single-file executable lives in its snapshot, not in any ``node_modules`` on disk), the
bridge packages it can load, its tools, the seams it forwards and the runtime services it relays
to (``shellEnv``). :func:`surface_from_composition`
turns that report into the :class:`~compat_adapter.model.Surface` grading reads. Nothing about a
row is decided here: a seam the composition lacks is simply absent, and grading names it.

The seam table is 0.2.1-rc.2's, read from the types embedded in the runtime
(``reference/turn3/dsh-0.2.1.md`` §1d) and checked on the live runtime by the tests: no
``agent/session-start``; ``agent/created`` serial with its ``source``; ``agent/pre-step`` resolving
to a ``PreStepDecision``. 0.2.1 bundles no official hook bridge, so a composition offers one only
when the package really resolves there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from compat_adapter.errors import ProtocolError
from compat_adapter.host.dsh.records import RecordReader
from compat_adapter.host.surfaces import HostKind
from compat_adapter.host.wire.services import BROUGHT
from compat_adapter.model import SeamMode, Surface
from vendors.surface import CLAUDE_BRIDGE, CODEX_BRIDGE

__all__ = (
    "DSH_SDK_COMPOSITION",
    "DSH_SEAMS",
    "DSH_SURFACE",
    "DSH_VERSION",
    "BROUGHT_SERVICES",
    "HOST",
    "SERVICE_NAMES",
    "SeamInfo",
    "surface_from_composition",
)

#: The release the lane installs (``deepseek-harness-sdk==0.2.1rc2`` from PyPI).
DSH_VERSION = "0.2.1-rc.2"

_W, _S, _E = SeamMode.WATERFALL, SeamMode.SERIAL, SeamMode.EMIT


@dataclass(frozen=True, slots=True)
class SeamInfo:
    mode: SeamMode
    service: str
    """The Cordis service whose package declares the seam: the seam exists when this one does."""


#: The seams of 0.2.1-rc.2 that a Host listener can use (``system-prompt/assemble`` is a
#: waterfall over the prompt assembly, ``agent/request`` one over the call config: host internals
#: the routes never name; ``tools/execute`` carries an input rewrite as a nested call).
DSH_SEAMS: Mapping[str, SeamInfo] = MappingProxyType({
    "tools/pre-execute": SeamInfo(_W, "tools"),
    "tools/execute": SeamInfo(_W, "tools"),
    "tools/post-execute": SeamInfo(_W, "tools"),
    "tools/result": SeamInfo(_E, "tools"),
    "agent/created": SeamInfo(_S, "agents"),
    "agent/pre-step": SeamInfo(_W, "agents"),
    "agent/turn-stopping": SeamInfo(_S, "agents"),
    "agent/disposed": SeamInfo(_E, "agents"),
    "agent/error": SeamInfo(_E, "agents"),
    "agent/status": SeamInfo(_E, "agents"),
    "agent/inbox/inserted": SeamInfo(_E, "agents"),
    "approval/request": SeamInfo(_W, "approval"),
    "user-questions/request": SeamInfo(_W, "userQuestions"),
    "settings/document-updated": SeamInfo(_E, "settings"),
    "session/created": SeamInfo(_E, "sessions"),
    "session/event": SeamInfo(_E, "sessions"),
    "subagent/start": SeamInfo(_E, "subagents"),
    "subagent/end": SeamInfo(_E, "subagents"),
})

#: Cordis service name → the service name a Surface uses (:class:`compat_adapter.model.Service`).
SERVICE_NAMES: Mapping[str, str] = MappingProxyType({
    "shell": "shell",
    "agents": "agents",
    "approval": "approval",
    "userQuestions": "userQuestions",
    "subagents": "subagents",
    "settings": "settings",
    "tools": "tools",
    # The plugin answers the host contract's `complete` with the composition's own model.
    "llm": "model",
})

#: What the bundle brings a composition, whatever it composes: compat-adapter's service side runs a
#: file watcher, a git worktree poller and a language-server link itself (``host/wire/services.py``);
#: no profile of 0.2.1 composes ``lsp`` or ``worktrees``, and its ``fs`` watch is one directory deep.
BROUGHT_SERVICES = BROUGHT

#: The official bridge packages a composition may offer (the names the vendor tables use).
_BRIDGES = frozenset({CLAUDE_BRIDGE, CODEX_BRIDGE})


def _unserved(provided: set[str], tools: Any, composition: Mapping[str, Any]) -> dict[str, str]:
    """Points whose seam this composition has but whose evidence it never produces, with why.

    Each is read from the live report: a record is written only by a package that is composed
    (its service provided, its tool registered).
    """
    out: dict[str, str] = {}
    if not (isinstance(tools, Mapping) and ({"todo_write", "todo"} & set(tools))):
        out["todo/write"] = "no todo tool in this composition, so no todo/write record is ever written"
    if "compaction" not in provided:
        out["compaction/start"] = out["compaction/end"] = (
            "no compaction provider in this composition, so no compaction/* record is ever written")
    if not (isinstance(tools, Mapping) and "ask_user_question" in tools):
        out["user-questions/request"] = (
            "no tool in this composition asks the person a question (DSH's ask_user_question is not "
            "composed) and nothing else here asks one, so user-questions/request never fires")
    if "commands" not in provided:
        out["command/run"] = "no command registry in this composition, so no command/run record is ever written"
    if not composition.get("settings_writable"):
        out["settings/document-updated"] = (
            "the composition's settings provider is read-only, so no settings document is ever "
            "updated and settings/document-updated never fires")
    elif composition.get("profile") == "sdk":
        out["settings/document-updated"] = (
            "in the sdk profile a settings document is a plugin's configuration entry, changed only "
            "from a settings form that this profile does not compose (the SDK has no settings call), "
            "so settings/document-updated never fires in an SDK session")
    if "workspaceChanges" not in provided:
        out["workspace/changes"] = (
            "no workspace-changes recorder in this composition, so no workspace/changes record is ever written")
        out["lsp/query"] = (
            "no workspace-changes recorder in this composition, so no turn's changed files are known and "
            "no language-server query follows them")
    if composition.get("profile") == "sdk":
        out["request/header"] = (
            "the sdk profile switches no model within a session (the SDK fixes one provider and model "
            "per runtime, and no model-selection command is composed), so no request/header records a change")
    return out


#: Points DSH reaches at another moment than the vendors do. 0.2.1's ``subagent`` tool returns at
#: once (the child runs beside its parent, which goes on); every vendor's parent waits for its child.
_TIMING: Mapping[str, str] = MappingProxyType({
    "subagent/end": (
        "a subagent runs beside its parent: the subagent tool returns at once and the parent goes on, "
        "so the child ends, and its answer reaches the parent as a message, in whatever turn the parent "
        "is in by then (usually a later one, which the child's answer starts); a turn the payload names "
        "is that turn, not the one that started the child."),
})


#: Where the bundle puts context a vendor gives a system or developer message, and what each
#: change costs (measured: tests/host/test_dsh_voice.py, two prompts in one session per route).
_PLACEMENT = (
    "hook context is text of the system prompt, which DeepSeek's wire reads as the system role the "
    "vendor gives it, in the request of the moment it was given, but at the head of the conversation "
    "(the vendor's message follows the prompt or tool result it belongs to), and kept there for the "
    "session; each new context costs what a message does not: on a model route without in-history "
    "prompt updates (the SDK's default, deepseek-v4-flash) the head system message is rewritten and "
    "a new request series starts, so the provider's prompt cache of the conversation is lost once "
    "per change; on an in-history route (deepseek-flash, the sdk profile's default) a whole copy of "
    "the rendered system prompt is appended to the history per change.")


def surface_from_composition(composition: Mapping[str, Any]) -> Surface:
    """The surface of a live DSH composition, from the plugin's report.

    ``composition``: ``{"services": [Cordis service names], "version": the runtime's version,
    "bridges": [bridge packages the composition can load], "forwards": [seams the plugin can
    forward], "tools": {name: argument schema}, "settings_writable": bool, "relays": [runtime
    services the plugin relays to]}``. The services the bundle brings (:data:`BROUGHT_SERVICES`)
    are offered whatever the composition. Points the composition has a seam for but never
    produces are graded UNSUPPORTED with the reason.
    """
    services = composition.get("services")
    bridges = composition.get("bridges") or []
    forwards = composition.get("forwards")
    version = composition.get("version")
    if not isinstance(services, list) or not isinstance(bridges, list) or not isinstance(forwards, list):
        raise ProtocolError("a DSH composition report has services, bridges and forwards (lists)")
    if not isinstance(version, str) or not version:
        raise ProtocolError("a DSH composition report names the runtime's version")
    provided = {str(s) for s in services}
    forwarded = {str(s) for s in forwards}
    seams = {name: info.mode for name, info in DSH_SEAMS.items()
             if info.service in provided and name in forwarded}
    offered = frozenset(ours for theirs, ours in SERVICE_NAMES.items() if theirs in provided) | BROUGHT
    # DSH's own shell-environment registry, which the plugin relays to (from tools/execute, just
    # before a shell tool runs: the registry itself is asked synchronously).
    relays = {str(r) for r in composition.get("relays") or ()}
    if "shellEnv" in relays and "shellEnv" in provided and "tools/execute" in seams:
        offered |= {"shellEnv"}
    # The roles the bundle gives context here: system-prompt text (bundle/voice.mjs).
    roles = frozenset(str(r) for r in composition.get("context_roles") or ())
    placement = {role: _PLACEMENT for role in roles}
    return Surface(host="dsh", version=version, seams=seams, services=offered,
                   bridge_packages=frozenset(b for b in bridges if b in _BRIDGES),
                   unserved=_unserved(provided, composition.get("tools"), composition),
                   context_roles=roles, context_placement=placement, timing=_TIMING if "subagents" in provided else {})


#: What the bundle reports in a real 0.2.1-rc.2 ``sdk`` profile (the tests boot one and compare
#: the live report with this), so ``matrix --host dsh`` grades on what really runs.
DSH_SDK_COMPOSITION: Mapping[str, Any] = MappingProxyType({
    "services": ["sessions", "agents", "approval", "systemPrompt", "llm", "shellEnv", "commands",
                 "tools", "settings", "subprocess", "sandbox", "userQuestions", "tokenMeter",
                 "agentLoop", "shell", "fs", "compaction", "subagents", "workspaceChanges"],
    "version": DSH_VERSION,
    "bridges": [],
    "forwards": ["tools/pre-execute", "tools/execute", "tools/post-execute", "agent/created",
                 "agent/pre-step", "agent/turn-stopping", "agent/status", "agent/error",
                 "agent/disposed", "agent/inbox/inserted", "approval/request", "user-questions/request",
                 "session/created",
                 "settings/document-updated", "subagent/start", "subagent/end", "session/event"],
    # Tool names as registered (the live report also carries each argument schema).
    "tools": {"bash": None, "todo_write": None},
    "settings_writable": True,
    "profile": "sdk",
    "relays": ["shellEnv"],
    "context_roles": ["system", "developer"],
})

#: The surface a 0.2.1-rc.2 ``sdk`` profile with the bundle publishes.
DSH_SURFACE: Surface = surface_from_composition(DSH_SDK_COMPOSITION)


def _read_hello(hello: Mapping[str, Any]) -> Surface:
    composition = hello.get("composition")
    if not isinstance(composition, Mapping):
        raise ProtocolError("a DSH hello carries its composition report")
    return surface_from_composition(composition)


#: The ``dsh`` host kind (entry point ``compat_adapter.hosts``): its published surface, and how
#: the wire host reads a live bundle's hello and its v4 session records.
HOST = HostKind("dsh", DSH_SURFACE, read_hello=_read_hello, records=RecordReader)
