"""``command`` hooks through the one process runner, in the form and shell the handler asks for.

* exec form (``args``): ``command`` is looked up on the hook's ``PATH`` (or taken relative to the
  working directory when it names a path) and started with the arguments directly, no shell;
  ``${VAR}`` placeholders of the vendor's own variables (``CLAUDE_PROJECT_DIR``,
  ``CLAUDE_PLUGIN_ROOT`` …) are filled per argument as plain strings, and nothing else is expanded;
* ``shell: "powershell"`` runs ``pwsh -c`` where pwsh is installed; ``shell: "bash"`` is
  Claude's default (``$SHELL``); without ``shell`` the vendor's own shell runs it.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path

from compat_adapter.model import CommandHandler
from compat_adapter.runtime.callenv import environ
from compat_adapter.runtime.process import ProcessOutcome, run_command

__all__ = ("PLACEHOLDER_VARS", "exec_argv", "pwsh", "run_command_handler")

#: Variables Claude fills into exec-form arguments.
PLACEHOLDER_VARS = ("CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA")
_PLACEHOLDER = re.compile(r"\$\{(" + "|".join(PLACEHOLDER_VARS) + r")\}")


def pwsh() -> str | None:
    """PowerShell 7 on this machine, or None."""
    return shutil.which("pwsh")


def exec_argv(handler: CommandHandler, cwd: Path, env: Mapping[str, str]) -> list[str] | str:
    """The argv of an exec-form handler, or why it cannot start."""
    def fill(text: str) -> str:
        return _PLACEHOLDER.sub(lambda m: env.get(m.group(1), m.group(0)), text)
    program = fill(handler.command)
    if "/" in program:
        found: str | None = str(cwd / program) if not os.path.isabs(program) else program
    else:
        found = shutil.which(program, path=env.get("PATH", os.defpath))
    if found is None:
        return f"cannot run hook: {program!r} is not on the hook's PATH"
    return [found, *(fill(a) for a in handler.args or ())]


async def run_command_handler(handler: CommandHandler, *, stdin: bytes, cwd: Path, env: Mapping[str, str],
                              timeout_s: float, limit: int, vendor_shell: str,
                              shell_name: str | None = None) -> ProcessOutcome:
    """Run a command handler: exec form, the handler's own shell, or the vendor's shell (known to
    itself as ``shell_name`` where the vendor starts it by name)."""
    argv: list[str] | None = None
    shell, name = vendor_shell, shell_name
    if handler.args is not None:
        found = exec_argv(handler, cwd, env)
        if isinstance(found, str):
            return ProcessOutcome(exit_code=None, stdout="", stderr=found, timed_out=False, truncated=False,
                                  cause="spawn-failed", duration_ms=0.0)
        argv = found
    elif handler.shell == "powershell":
        # Graded UNSUPPORTED without pwsh; the runner reports it if it vanished.
        shell, name = pwsh() or "pwsh", None
    elif handler.shell == "bash":
        shell, name = env.get("SHELL") or environ().get("SHELL") or shutil.which("bash") or vendor_shell, None
    return await run_command(handler.command, stdin=stdin, cwd=cwd, env=env, timeout_s=timeout_s,
                             max_output_bytes=limit, shell=shell, argv=argv, shell_name=name)
