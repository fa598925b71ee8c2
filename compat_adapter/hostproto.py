"""The contract of a vendor's host face (see :mod:`compat_adapter.hostface` for what a face does and
the pieces most faces share). Its own module, importing nothing of the catalog, so that the registry
can check a unit's ``host`` part without loading any vendor's machinery."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from compat_adapter.dialects.base import HookAnswer, Moment
    from compat_adapter.model import Degradation

__all__ = ("EntrySpec", "HostFace", "Reply")


@dataclass(frozen=True, slots=True)
class Reply:
    """What a hook process says to its host: stdout, stderr, exit status."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0


@dataclass(frozen=True, slots=True)
class EntrySpec:
    """One entry ``port`` writes into the target's files: the target's event, the command that runs
    the shim, and the seconds the target should wait for it."""

    event: str
    command: str
    timeout_s: float


@runtime_checkable
class HostFace(Protocol):
    """One vendor as a host of other vendors' hooks."""

    vendor: str
    #: The project file port writes (relative to the project), and whether port owns it whole (a
    #: file of its own) or shares it with the team (its other keys and entries are kept).
    file: str
    owns_file: bool
    #: What the user must approve in this vendor before a written entry runs (port never does).
    trust: str
    #: Host point → this vendor's event that port writes for a source hook of that point; a point
    #: missing here is one this vendor cannot host (a listed UNSUPPORTED).
    events: Mapping[str, str]
    #: Host point → what a hook hosted there loses beyond what its answers' read-back shows.
    point_losses: Mapping[str, tuple[Degradation, ...]]

    def read(self, event: str, stdin: bytes, cwd: str) -> Moment:
        """This vendor's stdin for ``event`` as the host-neutral moment (host tool names)."""
        ...

    def reply(self, event: str, answer: HookAnswer) -> Reply:
        """A host's answer to this vendor's ``event``, as this vendor reads a hook's output."""
        ...

    def render(self, existing: str | None, entries: Sequence[EntrySpec]) -> str:
        """The target file with ``entries`` in it (the team's own entries and keys kept)."""
        ...

    def strip(self, existing: str) -> str | None:
        """The file with this project's entries taken out; None when nothing of the team's is left."""
        ...
