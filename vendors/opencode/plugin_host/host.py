"""One adapter's plugin host: its sidecar, the plugins it loaded, and what they reported.

:func:`grade_plugins` is the standalone form (a sidecar started for the grading and closed after):
grading a plugin file needs it loaded, and it is loaded there, never in this process.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from compat_adapter.vendor import ProtocolError, Surface, plugin_untrusted
from vendors.opencode.plugin_host.grade import GradedHook, LoadReport, grade_report, report_of, runtime_missing
from vendors.opencode.plugin_host.lane import PluginLane, lane
from vendors.opencode.plugin_host.sidecar import CallResult, Sidecar
from vendors.opencode.plugin_host.sources import PluginSource, file_source, project_sources

__all__ = ("LOAD_TIMEOUT_S", "PluginHost", "grade_plugins")

#: How long loading (importing and calling) the plugins may take, per load.
LOAD_TIMEOUT_S = 60.0


class PluginHost:
    """A sidecar that is started on first load and killed (with its process group) on close."""

    def __init__(self, cwd: Path, *, plugin_lane: PluginLane | None = None) -> None:
        self.cwd = cwd
        self.lane = plugin_lane or lane()
        self.sidecar: Sidecar | None = None
        #: Client parts plugins called that this host cannot serve (the plugins got a throw).
        self.missing: list[str] = []
        #: What plugins logged through client.app.log / tui.showToast, and the host's own notes.
        self.logs: list[Mapping[str, Any]] = []

    def _notice(self, method: str, params: Mapping[str, Any]) -> None:
        if method == "missing":
            self.missing.append(str(params.get("part")))
        elif method == "log":
            self.logs.append(dict(params))

    @property
    def startup_s(self) -> float | None:
        return self.sidecar.startup_s if self.sidecar is not None else None

    async def load(self, root: Path, sources: Sequence[PluginSource] | None = None, *,
                   timeout_s: float = LOAD_TIMEOUT_S, checked: bool = False) -> tuple[LoadReport, ...]:
        """Load ``sources`` (default: the project's own plugins) with ``root`` as their directory.
        ``checked``: the caller vouches for the sources itself (port's shim loads a plugin file only
        when its digest is the one the trusted file had when it was ported).

        Never raises for a plugin's failure: a module that fails to import, a plugin function that
        throws and a missing npm package are reports with an error.
        """
        root = root.resolve()
        chosen = tuple(project_sources(root) if sources is None else sources)
        if not chosen:
            return ()
        # Loading runs a plugin's code: a project's plugins load only once trusted (compat_adapter.trust).
        held = {} if checked else {s.id: why for s in chosen
                                   if (why := plugin_untrusted(root, s.kind, s.path, s.origin))}
        if held:
            rest = tuple(s for s in chosen if s.id not in held)
            got = {r.source.id: r for r in (await self.load(root, rest, timeout_s=timeout_s) if rest else ())}
            return tuple(got.get(s.id) or LoadReport(s, error=held[s.id]) for s in chosen)
        if not self.lane.installed:
            why = (f"the plugin host runtime is not installed in {self.lane.root} (set-up step: "
                   "bash scripts/plugin_lane.sh)")
            return tuple(LoadReport(s, error=why) for s in chosen)
        if self.sidecar is None:
            self.sidecar = Sidecar(self.lane, self.cwd, on_notice=self._notice)
            await self.sidecar.start()
        params = {
            "directory": str(root),
            "worktree": str(_worktree(root)),
            "project": {"id": _project_id(root), "worktree": str(_worktree(root)), "vcs": "git"
                        if (_worktree(root) / ".git").exists() else None},
            "sources": [s.wire() for s in chosen],
            # OpenCode installs npm plugins with Bun into a cache; here set-up installs them into
            # the lane, and a project's own node_modules are honoured first.
            "searchDirs": [str(root / ".opencode/node_modules"), str(root / "node_modules"),
                           str(self.lane.npm_plugins)],
            "timeoutMs": int(timeout_s * 1000),
        }
        try:
            reply = await self.sidecar.load(params, timeout_s=timeout_s + 5)
        except ProtocolError as exc:
            return tuple(LoadReport(s, error=exc.message) for s in chosen)
        return report_of(chosen, reply)

    async def call(self, plugins: Sequence[str], key: str, input: Any, output: Any, *,
                   timeout_s: float) -> CallResult:
        if self.sidecar is None:
            return CallResult(output, "the plugin host is not running")
        return await self.sidecar.call(plugins, key, input, output, timeout_s=timeout_s)

    async def close(self) -> None:
        if self.sidecar is not None:
            await self.sidecar.close()


def _worktree(root: Path) -> Path:
    """The git top level above ``root`` (OpenCode's worktree), else ``root`` itself."""
    for folder in (root, *root.parents):
        if (folder / ".git").exists():
            return folder
    return root


def _project_id(root: Path) -> str:
    # OpenCode names a git project by its first commit; "global" outside git. The commit is not
    # looked up here (that needs git); a digest of the worktree path stands in, stably.
    worktree = _worktree(root)
    if not (worktree / ".git").exists():
        return "global"
    return hashlib.sha1(str(worktree).encode(), usedforsecurity=False).hexdigest()


async def grade_plugins(root: Path, surface: Surface, *, files: Sequence[Path] | None = None,
                        sources: Sequence[PluginSource] | None = None,
                        plugin_lane: PluginLane | None = None) -> tuple[GradedHook, ...]:
    """Load a project's plugins (or only ``files``, or ``sources``) in a sidecar of their own, then
    grade every key they return; the sidecar's process group is killed before this returns."""
    root = root.resolve()
    if sources is None:
        sources = project_sources(root) if files is None else tuple(file_source(root, Path(f)) for f in files)
    chosen = plugin_lane or lane()
    if not chosen.installed:
        return runtime_missing(sources, f"the plugin host runtime is not installed in {chosen.root} "
                                        "(set-up step: bash scripts/plugin_lane.sh)")
    host = PluginHost(root, plugin_lane=chosen)
    try:
        reports = await host.load(root, sources)
    finally:
        await host.close()
    return grade_report(reports, surface)
