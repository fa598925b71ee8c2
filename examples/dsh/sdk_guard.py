"""A DeepSeek Harness session (the official Python SDK) on a workspace whose Claude Code guard
denies a real bash call: the command never runs, and the model reads Claude's words.

Set up once (README, "DeepSeek Harness"):

    pip install compat-adapter 'deepseek-harness-sdk==0.2.1rc2' --pre && npm i -g pnpm@12.4.2
    DSH_HOME=~/.dsh dsh plugin --profile sdk add "file:$(python -m compat_adapter.host.dsh.bundle)"

then ``python sdk_guard.py <workspace> <dsh home>``. The workspace's ``.claude/settings.json``
names the guard; the bundle imports it at session start under your trust store, so trust it first
(``compat-adapter trust <workspace>/.claude/settings.json``).
"""

from __future__ import annotations

import sys

from deepseek_harness import DeepSeekHarness


def run(workspace: str, home: str, prompt: str, **options: object) -> object:
    """One prompt in a new SDK session on ``workspace``; returns the SDK's RunResult."""
    with DeepSeekHarness(cwd=workspace, dsh_home=home, **options) as harness:  # type: ignore[arg-type]
        return harness.run(prompt)


if __name__ == "__main__":
    result = run(sys.argv[1], sys.argv[2], "remove the build folder")
    print(result.final_response)  # type: ignore[attr-defined]
