"""Whether a command handler can be started at all, checked at registration.

``execve`` takes NUL-terminated strings: a NUL byte in the command, an environment name or value,
or the working directory makes every start fail (Python raises ``ValueError``), so such a hook
would register and then fail closed on every call. Refusing it at registration with
``INVALID_HANDLER`` says so once, where the handler is written. An environment name with ``=`` or
an empty one cannot be represented either.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ("spawn_problem",)


def spawn_problem(command: str, env: Iterable[tuple[str, str]] = (), cwd: str | None = None
                  ) -> str | None:
    """Why a process for this handler can never start, or None."""
    if "\0" in command:
        return "the command contains a NUL byte; no process can be started with it"
    if cwd is not None and "\0" in cwd:
        return "cwd contains a NUL byte"
    for name, value in env:
        if not name or "=" in name or "\0" in name:
            return f"env name {name!r} cannot be passed to a process"
        if "\0" in value:
            return f"env value of {name} contains a NUL byte"
    return None
