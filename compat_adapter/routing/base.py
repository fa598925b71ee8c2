"""The one interface every route implements, and what a route reports about one hook.

The service picks a router by the graded result's route from a ``dict[Route, Router]`` and speaks
only this interface: it never asks which route it holds. A route that writes configs for a host
bridge stages hooks in ``mount`` and mounts them in ``flush`` (so a batch mounts each bridge
once); a route that listens on host seams mounts at once and has nothing to flush.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from compat_adapter.routing.dispatch import HookEntry

__all__ = ("HookState", "Router")


@dataclass(frozen=True, slots=True)
class HookState:
    """What one route says about one hook it was given."""

    held: bool
    """The route still holds the hook (mounted, or staged for the next flush)."""
    running: bool
    """A listener or a mounted bridge really runs this hook now."""
    bridge: str | None = None
    """The bridge package that runs it, for bridged hooks."""
    note: str | None = None


class Router(Protocol):
    """A route: takes graded hooks, runs them on the host, says truthfully what runs."""

    async def mount(self, entry: HookEntry) -> None:
        """Take one hook; raises MOUNT_FAILED when the host refuses (earlier hooks keep running)."""

    async def flush(self) -> None:
        """Mount what ``mount`` staged; on MOUNT_FAILED the route keeps its earlier set live and
        drops the staged hooks (their state is no longer held)."""

    def state(self, entry: HookEntry) -> HookState:
        """Whether this hook runs now, and why not when it does not."""

    async def close(self) -> None:
        """Unmount everything; the route runs nothing more."""
