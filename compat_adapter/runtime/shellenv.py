"""A host's shell-environment registry (the embedded host's, and the wire host's service side):
who adds ``DSH_*`` variables to ``bash`` runs.

Contributors register under a name (``register_shell_env``); every model shell run asks all of
them, in name order, for variables and gets one snapshot: the host's own built-ins first, then
each contributor's keys that pass the rules DSH sets (``DSH_`` + ``[A-Z][A-Z0-9_]*``, not
reserved by the host, not already set, a string value).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from compat_adapter.host.protocol import ToolExecution

__all__ = ("DSH_ENV_KEY", "RESERVED_ENV", "ShellEnv")

#: Keys a shell-env contributor may set (DSH: ``DSH_`` + ``[A-Z][A-Z0-9_]*``).
DSH_ENV_KEY = re.compile(r"DSH_[A-Z][A-Z0-9_]*")
#: Keys the host sets itself; contributors may not.
RESERVED_ENV = frozenset({"DSH_HOME", "DSH_SHELL", "DSH_SESSION_ID", "DSH_SESSION_JSONL",
                          "DSH_PROFILE", "DSH_PROFILE_DIR"})


@dataclass(eq=False, slots=True)
class _Contributor:
    name: str
    resolve: Callable[[ToolExecution], Any]


class ShellEnv:
    """The contributors of one host.

    :param log: the host's operator log (``log(level, message, **fields)``); rejected keys and
        failing contributors are reported there.
    """

    def __init__(self, log: Callable[..., None]) -> None:
        self._log = log
        self._contributors: list[_Contributor] = []

    def register(self, name: str, resolve: Callable[[ToolExecution], Any]) -> Callable[[], None]:
        """Add a contributor; returns the function that removes it again."""
        contributor = _Contributor(name, resolve)
        self._contributors.append(contributor)

        def unsubscribe() -> None:
            if contributor in self._contributors:
                self._contributors.remove(contributor)

        return unsubscribe

    async def collect(self, execution: ToolExecution) -> dict[str, str]:
        """The ``DSH_*`` snapshot for one shell run: built-ins, then contributors in name order.

        A key that is malformed, reserved, already set or not a string is dropped and logged
        (DSH throws instead, failing the tool run; dropping keeps one bad contributor from
        breaking every shell call).
        """
        env: dict[str, str] = {"DSH_SHELL": "1"}
        if execution.agent is not None:
            env["DSH_SESSION_ID"] = execution.agent.session.id
            path = execution.agent.session.transcript_path
            if path is not None:
                env["DSH_SESSION_JSONL"] = str(path)
        for contributor in sorted(self._contributors, key=lambda c: c.name):
            try:
                values = contributor.resolve(execution)
                if inspect.isawaitable(values):
                    values = await values
                items = dict(values or {}).items()
            except Exception as exc:  # noqa: BLE001
                self._log("error", "shell env contributor failed", contributor=contributor.name,
                          error=repr(exc))
                continue
            for key, value in items:
                problem = None
                if not isinstance(key, str) or not DSH_ENV_KEY.fullmatch(key):
                    problem = "key does not match DSH_[A-Z][A-Z0-9_]*"
                elif key in RESERVED_ENV:
                    problem = "key is reserved by the host"
                elif key in env:
                    problem = "key already set by another contributor"
                elif not isinstance(value, str):
                    problem = "value is not a string"
                if problem is not None:
                    self._log("error", f"shell env variable rejected: {problem}",
                              contributor=contributor.name, key=repr(key))
                    continue
                env[key] = value
        return env
