"""What the service side of the wire brings a runtime that lacks it, and the shell-variable relay.

A wire peer runs on this machine (its plugin spawned ``serve --stdio``, or reached a local socket),
so the services a hook point needs and the runtime does not compose run here, in the service's own
process, on the peer's working directory: the file watcher (watchfiles), the git worktree poller
(GitPython) and the language-server link (pygls to a real server). They are the very services the
embedded host runs (:mod:`compat_adapter.runtime`), held per user the same way
(:class:`~compat_adapter.runtime.services.Services`), so ``release(service, user)`` closes what one
adapter opened and the last user stops a shared one.

Shell variables are the runtime's own: DSH asks its ``shellEnv`` registry synchronously inside the
shell tool, so nothing can be awaited there. :meth:`ServiceSide.register_shell_env` therefore asks
the plugin to relay (``shell_env/register``); the plugin asks this side (``shell_env``) from its
``tools/execute`` listener, just before the shell tool runs, and hands DSH's registry the answer
for that call. The rules on names (``DSH_`` + ``[A-Z][A-Z0-9_]*``, not reserved) are the
registry's (:class:`~compat_adapter.runtime.shellenv.ShellEnv`); the built-in keys are the runtime's
own and are not sent.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anyio.abc import TaskGroup

from compat_adapter.host.protocol import LspResult, ShellEnvResolver, Surface, Worktree
from compat_adapter.host.wire.channel import Channel
from compat_adapter.host.wire.codec import decode_event
from compat_adapter.runtime.services import HOST_USER, Services
from compat_adapter.runtime.shellenv import RESERVED_ENV, ShellEnv

__all__ = ("BROUGHT", "ServiceSide")

#: The services this side brings any wire peer (a surface names them when its peer reads so).
BROUGHT = frozenset({"fs.watch", "worktrees", "lsp"})
#: How long a service that is asked to stop may take.
_GRACE_S = 5.0

Closer = Callable[[], Awaitable[None]]


class ServiceSide:
    """The service-side half of :class:`~compat_adapter.host.wire.host.WireHost` (a mixin: the
    host's channel, task group, working directory, surface and log)."""

    _channel: Channel
    _tg: TaskGroup
    _cwd: Path

    if TYPE_CHECKING:  # the host's own
        @property
        def surface(self) -> Surface: ...

        def log(self, level: str, message: str, /, **fields: Any) -> None: ...

        def agent_from(self, data: Mapping[str, Any]) -> Any: ...

        def session_from(self, data: Mapping[str, Any]) -> Any: ...

    def _attach_services(self) -> None:
        self._services = Services(_GRACE_S)
        self._shell_env = ShellEnv(self.log)
        self._relayed: dict[str, int] = {}
        self._channel.on_request("shell_env", self._collect_shell_env)

    def _offers(self, service: str) -> None:
        if service not in self.surface.services:
            raise NotImplementedError(f"host {self.surface.host} offers no {service} service")

    # ── brought: file watcher, worktrees, language server ──
    async def watch(self, path: Path, changed: Callable[[tuple[str, ...]], Awaitable[None]],
                    *, debounce_ms: int = 250, user: str | None = None) -> Closer:
        self._offers("fs.watch")
        return await self._services.watch(self._tg, path, changed, debounce_ms=debounce_ms,
                                          user=HOST_USER if user is None else user)

    async def lsp_query(self, operation: str, file_path: Path, line: int = 0,
                        character: int = 0, *, user: str | None = None) -> LspResult:
        self._offers("lsp")
        from compat_adapter.runtime.lsp import LspService

        root = self._cwd
        service = await self._services.shared(self._tg, "lsp", lambda: LspService(root),
                                              HOST_USER if user is None else user, once=True)
        result: LspResult = await service.query(operation, Path(file_path), line, character)
        return result

    async def list_worktrees(self, cwd: Path) -> tuple[Worktree, ...]:
        self._offers("worktrees")
        from compat_adapter.runtime.worktrees import list_worktrees

        return await list_worktrees(Path(cwd))

    async def watch_worktrees(self, cwd: Path,
                              changed: Callable[[tuple[Worktree, ...], tuple[Worktree, ...]], Awaitable[None]],
                              *, interval_s: float = 0.5, user: str | None = None) -> Closer:
        self._offers("worktrees")
        return await self._services.poll_worktrees(self._tg, cwd, changed, interval_s=interval_s,
                                                   user=HOST_USER if user is None else user)

    async def _release_brought(self, service: str, user: str) -> None:
        await self._services.release(service, user)

    def services_in_use(self) -> Mapping[str, tuple[str, ...]]:
        """Service → the users holding it now (``""``: the host itself, for unnamed callers)."""
        return self._services.in_use()

    async def close_services(self) -> None:
        """Stop what this side runs (each at most the grace period)."""
        await self._services.close()

    # ── relayed: the runtime's shell-environment registry ──
    def register_shell_env(self, name: str, resolve: ShellEnvResolver) -> Callable[[], None]:
        self._offers("shellEnv")
        unregister = self._shell_env.register(name, resolve)
        if not self._relayed:
            self._channel.notify("shell_env/relay", {"on": True})
        self._relayed[name] = self._relayed.get(name, 0) + 1
        done = False

        def unsubscribe() -> None:
            nonlocal done
            if done:
                return
            done = True
            unregister()
            self._relayed[name] -= 1
            if not self._relayed[name]:
                del self._relayed[name]
            if not self._relayed and not self._channel.closed.is_set():
                self._channel.notify("shell_env/relay", {"on": False})
        return unsubscribe

    async def _collect_shell_env(self, params: dict[str, Any]) -> dict[str, Any]:
        """The variables this side's contributors give one shell run (``params["execution"]`` as
        the plugin encodes a ``tools/execute`` event); the runtime's built-ins are its own."""
        execution = decode_event(self, "tools/execute", params.get("execution") or {})
        env = await self._shell_env.collect(execution)
        return {"env": {k: v for k, v in env.items() if k not in RESERVED_ENV}}
