"""A project a team really has, built from the real corpus (``tests/fixtures/real-configs/``) the way
the newcomer report did (``newcomer.md``): a git repository with Claude, Codex, Copilot and
CodeBuddy files side by side, the hook scripts the configs name written as small real scripts, and
one script deliberately missing (``deploy-autoarm-gate.sh``, as in the report)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

REAL = Path(__file__).resolve().parent / "fixtures" / "real-configs"
GIT_ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t.invalid"}

#: project path → corpus file, copied verbatim.
COPIED = {
    ".claude/settings.json": "claude/settings.cdk-real-drift.json",
    "CLAUDE.md": "claude/CLAUDE.md",
    ".claude/rules/api.md": "claude/rules/api.md",
    ".codex/hooks.json": "codex/hooks.agent-runtime-security.json",
    "AGENTS.md": "codex/AGENTS.md",
    ".github/hooks/tool-guardian.json": "copilot/tool-guardian.json",
    ".github/copilot-instructions.md": "copilot/copilot-instructions.md",
    ".codebuddy/settings.json": "codebuddy/settings.tgfx.json",
}

#: project path → script body (the configs name them; the corpus has only the configs).
SCRIPTS = {
    ".claude/hooks/bughunt-clean-gate.sh": "exit 0\n",
    ".claude/hooks/stale-base-gate.sh": ("echo 'stale-base-gate: this branch would revert files changed on main' >&2\n"
                                         "exit 2\n"),
    ".claude/hooks/worktree-guard.sh": "exit 0\n",
    "hooks/tool-guardian/guard-tool.sh": "cat >/dev/null\necho '{\"permissionDecision\":\"allow\"}'\n",
    ".codebuddy/hooks/check-uncommitted.sh": "exit 0\n",
}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=GIT_ENV)


def write_script(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def build(dest: Path) -> Path:
    """The project under ``dest`` (created), committed in a real git repository."""
    dest.mkdir(parents=True, exist_ok=True)
    for name, source in COPIED.items():
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REAL / source, dest / name)
    for name, body in SCRIPTS.items():
        write_script(dest / name, body)
    git(dest, "init", "-q", "-b", "main")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "a team's agent files")
    return dest
