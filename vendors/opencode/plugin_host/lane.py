"""Where the plugin host's runtime lives: the folder ``scripts/plugin_lane.sh`` installs.

Bun and the real ``@opencode-ai/plugin`` package come from the npm registry at set-up and nothing is
fetched at run time: Bun runs with ``--no-install`` (its auto-install would fetch a missing import
from the registry), and the plugin package resolves through a generated tsconfig ``paths`` map
rather than a ``node_modules`` written into the user's project.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from compat_adapter.vendor import HostSurfaceMismatch

__all__ = ("PLUGIN_PACKAGE_VERSION", "PluginLane", "lane")

#: The `@opencode-ai/plugin` version the vendor lane measured OpenCode at.
PLUGIN_PACKAGE_VERSION = "1.18.33"
_ENV = "COMPAT_ADAPTER_PLUGIN_DIR"


@dataclass(frozen=True, slots=True)
class PluginLane:
    """The installed runtime: Bun, the lane's modules and the folder npm plugins go to."""

    root: Path

    @property
    def bun(self) -> Path:
        return self.root / "runtime/node_modules/@oven/bun-linux-x64/bin/bun"

    @property
    def modules(self) -> Path:
        return self.root / "runtime/node_modules"

    @property
    def npm_plugins(self) -> Path:
        """Where ``plugin_lane.sh --project`` installs the npm plugins a project lists."""
        return self.root / "npm/node_modules"

    @property
    def installed(self) -> bool:
        return (os.access(self.bun, os.X_OK)
                and (self.modules / "@opencode-ai/plugin/package.json").is_file())

    def check(self) -> None:
        """Raise with the set-up command when the runtime is not installed."""
        if not self.installed:
            raise HostSurfaceMismatch(f"the plugin host runtime is not installed in {self.root}; run "
                                      "`bash scripts/plugin_lane.sh` (set-up step, needs the npm registry once)")

    def tsconfig(self) -> Path:
        """A tsconfig whose ``paths`` send ``@opencode-ai/plugin`` imports to the lane's copy.

        Written once next to the runtime (the lane folder is ours); OpenCode itself installs the
        package into the project's ``.opencode/node_modules``, which this host never writes.
        """
        target = self.root / "tsconfig.plugin-host.json"
        package = self.modules / "@opencode-ai/plugin"
        want = {"compilerOptions": {"baseUrl": "/", "paths": {
            "@opencode-ai/plugin": [str(package / "dist/index.js")],
            "@opencode-ai/plugin/*": [str(package / "dist/*")],
        }}}
        text = json.dumps(want, indent=1)
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            tmp = target.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(target)
        return target


def sidecar_script() -> Path:
    """The JS side, shipped as package data."""
    return Path(str(resources.files("vendors.opencode.plugin_host") / "sidecar.js"))


def lane(root: Path | None = None) -> PluginLane:
    """The lane in ``root``, else ``$COMPAT_ADAPTER_PLUGIN_DIR``, else ``.cache/plugins`` of this checkout."""
    if root is None:
        env = os.environ.get(_ENV)
        root = Path(env) if env else Path(__file__).resolve().parents[3] / ".cache/plugins"
    return PluginLane(root)
