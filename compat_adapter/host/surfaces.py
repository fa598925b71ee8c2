"""Published host surfaces, as plain data, so grading and the matrix never import a host.

The embedded host publishes :data:`DSH_0_2_SURFACE`: the seams, modes, services and bridge packages
of DeepSeek Harness 0.2.0-rc.2 that the reference plugin targeted.
"""

from __future__ import annotations

from compat_adapter.host.dsh_surface import DSH_RC8_SURFACE
from compat_adapter.host.protocol import SeamMode, Surface

__all__ = ("CLAUDE_BRIDGE", "CODEX_BRIDGE", "DSH_0_2_SURFACE", "EMBEDDED_SURFACE", "SURFACES")

CLAUDE_BRIDGE = "@deepseek-ai/dsh-hooks-claude-code"
CODEX_BRIDGE = "@deepseek-ai/dsh-hooks-codex"

_W, _S, _E = SeamMode.WATERFALL, SeamMode.SERIAL, SeamMode.EMIT

DSH_0_2_SURFACE = Surface(
    host="dsh",
    version="0.2.0-rc.2",
    seams={
        "tools/pre-execute": _W,
        "tools/post-execute": _W,
        "tools/result": _E,
        "agent/created": _S,
        "agent/pre-step": _W,
        "agent/turn-stopping": _S,
        "agent/disposed": _E,
        "agent/error": _E,
        "agent/status": _E,
        "agent/inbox/inserted": _E,
        "subagent/start": _E,
        "subagent/end": _E,
        "approval/request": _W,
        "user-questions/request": _W,
        "settings/document-updated": _E,
        "session/created": _E,
        "session/event": _E,
    },
    services=frozenset({
        "shell", "shellEnv", "fs.watch", "lsp", "worktrees", "agents", "approval",
        "userQuestions", "subagents", "settings",
    }),
    bridge_packages=frozenset({CLAUDE_BRIDGE, CODEX_BRIDGE}),
)

#: The embedded host publishes the DSH 0.2.0-rc.2 surface under its own name.
EMBEDDED_SURFACE = DSH_0_2_SURFACE.model_copy(update={"host": "embedded"})

#: Surfaces by the name the CLI accepts (`--host`): `dsh` is the published DSH 0.1.0-rc.8
#: composition the second host really runs (host/dsh_surface.py); `dsh-0.2` is the 0.2.0-rc.2
#: surface the embedded host models.
SURFACES = {"embedded": EMBEDDED_SURFACE, "dsh": DSH_RC8_SURFACE, "dsh-0.2": DSH_0_2_SURFACE}
