"""The DSH host: the wire host with DeepSeek Harness's composition mapping and record reader.

A real DSH 0.2.1 runtime reaches the service through the bundle's Cordis plugin
(``bundle/plugin.mjs``): it says hello with its composition report, which
:func:`~compat_adapter.host.dsh.surface.surface_from_composition` turns into the surface, and its
v4 session records are read in the contract's vocabulary by
:class:`~compat_adapter.host.dsh.records.RecordReader`. Everything else is the generic
:class:`~compat_adapter.host.wire.host.WireHost`; ``compat-adapter serve --stdio`` runs that one
and finds this kind from the hello's ``host``, so the two read a DSH peer the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anyio.abc import TaskGroup

from compat_adapter.host.dsh.surface import HOST
from compat_adapter.host.wire.channel import Channel
from compat_adapter.host.wire.host import WireAgent, WireHost, WireSession

__all__ = ("DshAgent", "DshHost", "DshSession")

DshAgent = WireAgent
DshSession = WireSession


class DshHost(WireHost):
    """The wire host for a DSH peer (the kind is fixed: its hello is a composition report)."""

    def __init__(self, channel: Channel, *, cwd: Path, tg: TaskGroup, **options: Any) -> None:
        super().__init__(channel, cwd=cwd, tg=tg, kind=HOST, **options)
