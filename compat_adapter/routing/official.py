"""The official-bridge route: generate the host bridge's config and mount it, transactionally.

A host bridge reads one whole config file, so adding a hook means mounting the bridge again on a
new config. The order is chosen so that a failure never leaves the hooks that were already running
unmounted, and so that there is no moment with no bridge at all (a gap would silently let through
what a deny hook exists to stop):

1. write the new config under a fresh name (never reuse a path: the old bridge may still read it);
2. mount the bridge on it — if that fails, delete the new file; the old mount was never touched;
3. only then unmount the old bridge and delete its config.

Vendor tool names in matchers are translated to the host's tool names in the generated config, so a
Claude `Bash` matcher selects the host's `bash` tool. Names with no host counterpart are dropped
from a literal matcher; a hook left with none is not written (it could never fire) and its status
says so.
"""

from __future__ import annotations

import itertools
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio

from compat_adapter.errors import MountFailed
from compat_adapter.host.protocol import BridgeMount, Host
from compat_adapter.model import VendorSpec
from compat_adapter.routing.base import HookState
from compat_adapter.routing.bridgefiles import config_dir, prune_orphans, write_config
from compat_adapter.routing.dispatch import HookEntry

__all__ = ("BridgeRouter", "BridgeSet", "MountReport", "bridge_config", "config_dir", "prune_orphans",
           "translate_matcher")

_LITERAL = re.compile(r"^[A-Za-z0-9_|]+$")
_counter = itertools.count(1)


def _discard(path: Path) -> None:
    """Delete a generated config that is no longer read; a file already gone (or a state folder
    replaced under us) is not an error: nothing reads it any more either way."""
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass


def translate_matcher(spec: VendorSpec, dialect: str, matcher: str | None) -> tuple[str | None, bool]:
    """The matcher in host tool names (from the vendor's own tool table); returns (matcher, can_fire)."""
    to_host = {t.vendor: t.host for t in spec.tools}
    if not matcher or matcher == "*":
        return matcher, True
    if _LITERAL.match(matcher):
        names = [to_host.get(n) for n in matcher.split("|") if n]
        kept = list(dict.fromkeys(n for n in names if n))
        if not kept:
            return None, False
        joined = "|".join(kept)
        # Both real bridges (rc.8's Claude bridge too) test a matcher as an unanchored regex, but
        # the vendors match a plain name exactly: `write` alone would also select rc.8's
        # `todo_write` (and `read` its `read_image`). Anchoring keeps the vendor's meaning.
        return f"^(?:{joined})$", True

    def swap(m: re.Match[str]) -> str:
        return to_host.get(m.group(0)) or m.group(0)
    return re.sub(r"[A-Za-z_][A-Za-z0-9_]*", swap, matcher), True


def bridge_config(entries: Sequence[HookEntry], dialect: str) -> tuple[dict[str, object], frozenset[str]]:
    """The bridge config for these hooks and the ids that can never fire (left out)."""
    hooks: dict[str, list[dict[str, object]]] = {}
    silent = set()
    for entry in entries:
        if entry.row.matcher_subject == "tool_name":
            matcher, can_fire = translate_matcher(entry.spec, dialect, entry.matcher)
        else:  # a source, agent type … is not a tool name: nothing to translate
            matcher, can_fire = entry.matcher, True
        if not can_fire:
            silent.add(entry.id)
            continue
        handler: dict[str, object] = {"type": "command", "command": entry.handler.command,  # type: ignore[union-attr]
                                      "timeout": entry.timeout_s}
        group: dict[str, object] = {"hooks": [handler]}
        if matcher:
            group["matcher"] = matcher
        hooks.setdefault(entry.row.bridge_event or entry.row.event, []).append(group)
    return {"hooks": hooks}, frozenset(silent)


@dataclass(frozen=True, slots=True)
class MountReport:
    path: Path
    hooks: int
    silent: frozenset[str]


class BridgeSet:
    """The hooks one adapter runs through one bridge package, and the bridge currently mounted."""

    def __init__(self, host: Host, package: str, dialect: str, directory: Path, owner: str) -> None:
        self._host = host
        self.package = package
        self.dialect = dialect
        self._dir = directory
        self._owner = owner
        self._entries: list[HookEntry] = []
        self._staged: list[HookEntry] = []
        self._mount: BridgeMount | None = None
        self.path: Path | None = None
        self._silent: frozenset[str] = frozenset()
        #: Ids that the mounted bridge really runs.
        self._live: frozenset[str] = frozenset()
        #: One re-mount at a time: each reads the running set, so two interleaved ones would each
        #: mount a set without the other's hooks (every call said ADAPTED, one hook ran).
        self._lock = anyio.Lock()

    def stage(self, entry: HookEntry) -> None:
        """Add a hook to the next mount."""
        self._staged.append(entry)

    @property
    def staged(self) -> bool:
        return bool(self._staged)

    async def flush(self) -> MountReport | None:
        """Mount the running set plus the staged hooks; on failure drop the staged ones."""
        async with self._lock:
            if not self._staged:
                return None
            staged, self._staged = self._staged, []
            return await self._apply([*self._entries, *staged])

    def state(self, entry: HookEntry, closed: bool) -> HookState:
        held = entry in self._entries or entry in self._staged
        running = entry.id in self._live and not closed
        note = None
        if entry.id in self._silent:
            note = "its matcher names no host tool, so it can never fire"
        elif held and not running and not closed:
            note = "waiting for the batch to mount"
        return HookState(held=held, running=running, bridge=self.package, note=note)

    def _write(self, entries: Sequence[HookEntry]) -> tuple[Path, frozenset[str]]:
        config, silent = bridge_config(entries, self.dialect)
        slug = self.package.rsplit("/", 1)[-1]
        path = self._dir / f"{slug}-{self._owner}-{next(_counter)}-{uuid.uuid4().hex[:8]}.json"
        try:
            write_config(path, config, self._owner)
        except OSError as exc:
            raise MountFailed(f"could not write the {self.package} config: {exc}; the hooks already "
                              "running keep running", package=self.package) from exc
        return path, silent

    async def apply(self, entries: Sequence[HookEntry]) -> MountReport:
        """Mount ``entries`` as the new whole set, or raise MountFailed leaving the old set live."""
        async with self._lock:
            return await self._apply(entries)

    async def _apply(self, entries: Sequence[HookEntry]) -> MountReport:
        path, silent = self._write(entries)
        try:
            new = await self._host.mount_bridge(self.package, path, user=self._owner)
        except Exception as exc:
            _discard(path)
            still = "the earlier hooks were never unmounted and keep running" if self._mount \
                else "no earlier hooks were mounted through this bridge"
            raise MountFailed(f"mounting {self.package} failed: {exc}; {still}",
                              package=self.package) from exc
        if getattr(new, "loaded", True) is False:
            # A bridge that mounted but could not load its config runs nothing: that is a failure.
            await new.unmount()
            _discard(path)
            raise MountFailed(f"{self.package} could not load the generated config; the earlier "
                              "hooks were never unmounted and keep running", package=self.package)
        old, old_path = self._mount, self.path
        self._mount, self.path, self._entries = new, path, list(entries)
        self._silent = silent
        self._live = frozenset(e.id for e in entries) - silent
        if old is not None:
            await old.unmount()
        if old_path is not None:
            _discard(old_path)
        return MountReport(path, len(entries) - len(silent), silent)

    async def close(self) -> None:
        async with self._lock:
            await self._close()

    async def _close(self) -> None:
        mount, path = self._mount, self.path
        self._mount, self.path, self._entries, self._staged = None, None, [], []
        self._live = frozenset()
        try:
            if mount is not None:
                await mount.unmount()
        finally:
            if path is not None:
                _discard(path)


class BridgeRouter:
    """The official-bridge route: one :class:`BridgeSet` per bridge package, mounted on flush.

    ``mount`` only stages a hook: a bridge reads one whole config, so the set is mounted once per
    flush (once per registration, or once at the end of a batch).
    """

    def __init__(self, host: Host, directory: Path, owner: str) -> None:
        self._host = host
        self._dir = directory
        self._owner = owner
        self._sets: dict[str, BridgeSet] = {}
        self._closed = False

    def _set_for(self, entry: HookEntry) -> BridgeSet:
        # A row routed here has a bridge: the table's validator refuses bridged rows without one,
        # so there is no default package or dialect to fall back to.
        bridge = entry.spec.bridge
        assert bridge is not None, f"{entry.spec.id} {entry.row.event}: an official-bridge row with no bridge"
        found = self._sets.get(bridge.package)
        if found is None:
            found = self._sets[bridge.package] = BridgeSet(self._host, bridge.package, bridge.dialect,
                                                           self._dir, self._owner)
        return found

    async def mount(self, entry: HookEntry) -> None:
        self._set_for(entry).stage(entry)

    async def flush(self) -> None:
        """Mount every bridge with staged hooks; every set is tried, the first failure raised."""
        failure: MountFailed | None = None
        for bridge in self._sets.values():
            try:
                await bridge.flush()
            except MountFailed as exc:
                failure = failure or exc
        if failure is not None:
            raise failure

    def state(self, entry: HookEntry) -> HookState:
        bridge = self._sets.get(entry.spec.bridge_package or "")
        if bridge is None:
            return HookState(held=False, running=False)
        return bridge.state(entry, self._closed)

    def configs(self) -> dict[str, str | None]:
        """Bridge package → the config file its mounted bridge reads (None: not mounted)."""
        return {p: (str(b.path) if b.path else None) for p, b in self._sets.items()}

    async def close(self) -> None:
        self._closed = True
        for bridge in self._sets.values():
            await bridge.close()
