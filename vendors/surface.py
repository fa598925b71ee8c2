"""The host surface the vendor tables were written against: DeepSeek Harness 0.2.0-rc.2.

Data only, like the tables beside it. Grading compares a real host's surface with this one (a seam
the tables expect as a waterfall but the host only emits cannot carry an answer), so the grader
reads it from here and never names a host.
"""

from compat_adapter.vendor import SeamMode, Surface

CLAUDE_BRIDGE = "@deepseek-ai/dsh-hooks-claude-code"
CODEX_BRIDGE = "@deepseek-ai/dsh-hooks-codex"

_W, _S, _E = SeamMode.WATERFALL, SeamMode.SERIAL, SeamMode.EMIT

# Built without validation: the first validated model of a process makes pydantic look up its
# plugins (importlib.metadata), which would cost every `import compat_adapter` some 15 ms. The
# values are already the model's types, and tests/test_vendors.py validates this constant.
TABLE_SURFACE = Surface.model_construct(
    host="dsh",
    version="0.2.0-rc.2",
    seams={
        "tools/pre-execute": _W,
        "tools/execute": _W,
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
        "userQuestions", "subagents", "settings", "tools",
    }),
    bridge_packages=frozenset({CLAUDE_BRIDGE, CODEX_BRIDGE}),
)
