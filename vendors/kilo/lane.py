"""Kilo in the vendor lane (test support): ``kilo run`` offline, OpenCode's scenarios in Kilo's files.

``kilo run`` 7.7.9 runs with no login against a provider of its config (``@ai-sdk/openai-compatible``,
the scripted model), as ``opencode run`` does: Kilo is an OpenCode fork, so the driver is OpenCode's
with Kilo's places: ``kilo.json``, the lane's recording plugin in ``.kilo/plugin/``, ``KILO_*``
switches, and ``@kilocode/plugin`` linked into its config folders (else Kilo tries the npm registry
at every start; offline that fails after a stall).

Loaded only by ``compat_adapter.testing.lane`` (the unit names it as ``lane``), never by the product.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compat_adapter.testing.lane.scenarios import LANE_PLUGIN, Case, Scenario
from vendors.opencode.lane import LIVE as OPENCODE_LIVE
from vendors.opencode.lane import OpenCodeCli, write_lane_config, xdg_env

__all__ = ("CLI", "LIVE", "KiloCli")

PLUGIN_PACKAGE = "@kilocode/plugin"
#: Kilo's own switches for what a lane run must not do: reach its cloud, index, watch, update.
_QUIET = {"KILO_DISABLE_MODELS_FETCH": "1", "KILO_DISABLE_AUTOUPDATE": "1", "KILO_DISABLE_LSP_DOWNLOAD": "1",
          "KILO_DISABLE_SHARE": "1", "KILO_DISABLE_SESSION_INGEST": "1", "KILO_DISABLE_CODEBASE_INDEXING": "1",
          "KILO_TELEMETRY_LEVEL": "off"}
#: OpenCode's scenarios that Kilo's run cannot take as they are: the corpus plugin cases place their
#: files in `.opencode/plugins`, which Kilo does not load (the lane's runner puts them there).
_OPENCODE_ONLY = ("plugin_env_protection", "plugin_guard_deny")


@dataclass(frozen=True, slots=True)
class KiloCli(OpenCodeCli):
    """``kilo run`` with the scripted model as an OpenAI-compatible provider; its hooks are the
    lane's recording plugin in ``.kilo/plugin/``."""

    def release_events(self, folder: Path) -> tuple[tuple[str, ...], str]:
        # The keys of the plugin package's `Hooks` interface (the package a Kilo plugin imports).
        plugin = f"node_modules/{PLUGIN_PACKAGE}/dist/index.d.ts"
        text = (folder / plugin).read_text()
        body = text[text.index("interface Hooks"):]
        body = body[:body.index("\n}")]
        return tuple(dict.fromkeys(re.findall(r'^    "?([A-Za-z][\w.]*)"?\??:', body, re.M))), \
            f"{plugin} (interface Hooks)"

    def setup(self, run: Path, base: str, prompt: str, env: dict[str, str], *, binary: str, lane: Path,
              options: Mapping[str, Any]) -> list[str]:
        home, proj = run / "home", run / "proj"
        env.update(xdg_env(home), **_QUIET)
        # No snapshots: under load Kilo stops the run to ask whether to disable a slow one (a blocking
        # question `kilo run` never answers; measured). They are its undo, not its hooks.
        write_lane_config(proj / "kilo.json", base, "https://app.kilo.ai/config.json", snapshot=False)
        config = home / ".config"
        for folder in (proj / ".kilo", config / "kilo"):
            _link_plugin_package(lane / "kilo", folder)
        return [binary, "run", "--print-logs", prompt]

    def write_hooks(self, case: Case, run: Path, target: Path) -> None:
        """The lane's recording plugin (OpenCode's: Kilo's plugin API is OpenCode's), its rules beside
        it in ``.kilo/lane_rules.json``, where the plugin looks (one folder up from itself)."""
        shutil.copyfile(LANE_PLUGIN, target)
        rules = {**(case.plugin_rules or {}), "log": str(run / "state" / "hooks.jsonl")}
        (target.parent.parent / "lane_rules.json").write_text(json.dumps(rules))

    def ends_nonzero(self, case: Case) -> bool:
        # `kilo run` ends a run whose ask it auto-rejected with exit 1 (measured, 7.7.9: "run ended
        # with an auto-rejected permission").
        return OpenCodeCli.ends_nonzero(self, case) or case.kind.endswith("_ask")

    def scenarios(self) -> Mapping[str, Scenario]:
        out = {kind: scenario for kind, scenario in OpenCodeCli.scenarios(self).items() if kind not in _OPENCODE_ONLY}
        for kind, scenario in out.items():
            if kind.startswith("perm_") and not isinstance(scenario, str):
                out[kind] = _in_kilo_json(scenario)
        return out


def _in_kilo_json(scenario: tuple[Any, dict[str, Any]]) -> Scenario:
    """An OpenCode permission case with its rules in kilo.json and the lane plugin in Kilo's folder."""
    hooks, extra = scenario
    files = {("kilo.json" if name == "opencode.json" else name): text for name, text in extra["files"].items()}
    return hooks, {**extra, "files": files, "imports": ("kilo.json", CLI.hooks_file)}


def _link_plugin_package(installed: Path, folder: Path) -> None:
    """Give a Kilo config folder the lane's plugin package: Kilo installs nothing into a folder whose
    node_modules exists and whose lock names every dependency of its package.json."""
    folder.mkdir(parents=True, exist_ok=True)
    version = json.loads((installed / f"node_modules/{PLUGIN_PACKAGE}/package.json").read_text())["version"]
    (folder / "package.json").write_text(json.dumps({"dependencies": {PLUGIN_PACKAGE: version}}))
    shutil.copyfile(installed / "package-lock.json", folder / "package-lock.json")
    link = folder / "node_modules"
    if not link.exists():
        link.symlink_to(installed / "node_modules")


CLI = KiloCli("kilo", "kilo", "7.7.9", "kilo/node_modules/@kilocode/cli-linux-x64/bin/kilo",
              "chat", "bash", ".kilo/plugin/lane_plugin.ts", extra_args={"description": "lane step"},
              read_tool=("read", "filePath"), env_prefixes=("KILO",),
              write_tool=("write", "filePath", "content"))

#: The live checks speak OpenCode's command contract, which is Kilo's (its dialect is OpenCode's).
LIVE = dataclasses.replace(OPENCODE_LIVE, vendor="kilo")
