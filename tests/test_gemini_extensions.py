"""Gemini CLI extensions (Gemini's plugins): ``gemini-extension.json`` in the extension's folder,
its hooks in ``hooks/hooks.json`` with ``${extensionPath}``, ``${/}`` and ``${workspacePath}``
filled in when Gemini loads them (0.61.0's loadExtensionHooks). Graded from the extension's folder,
run on the embedded host, and compared with the real CLI with the extension installed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio
import pytest
from conftest import trust

from compat_adapter.importers import import_files, import_project
from compat_adapter.importers.discover import discover
from compat_adapter.testing.lane.compare import compare
from compat_adapter.testing.lane.drivers import embedded_outcome, vendor_outcome
from compat_adapter.testing.lane.scenarios import Case
from vendors.gemini.importer import hydrated

ROOT = Path(__file__).resolve().parents[1]
GUARD = ('#!/bin/sh\nif grep -q "rm -rf"; then\n'
         '  echo \'{"decision": "deny", "reason": "EXT-GUARD no recursive deletes"}\'\nfi\n')
HOOKS = {"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [
    {"type": "command", "name": "guard", "command": "${extensionPath}${/}hooks${/}guard.sh"}]}]},
    "hooksConfig": {"enabled": False}}  # an extension's hooksConfig is not read: its hooks still load


def extension_files(name: str = "safety") -> dict[str, str]:
    return {f"{name}/gemini-extension.json": json.dumps({"name": name, "version": "1.0.0"}),
            f"{name}/hooks/hooks.json": json.dumps(HOOKS), f"{name}/hooks/guard.sh": GUARD}


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
        if text.startswith("#!"):
            (root / rel).chmod(0o755)


def test_the_extension_folder_is_found_and_its_variables_filled(tmp_path: Path) -> None:
    write(tmp_path, extension_files())
    folder = tmp_path / "safety"
    hooks_file = folder / "hooks" / "hooks.json"
    assert discover(folder) == {"gemini": [hooks_file]}
    trust("gemini", hooks_file)
    [hook] = import_files("gemini", [hooks_file]).hooks
    assert hook.declared.handler.command == f"{folder}/hooks/guard.sh"
    assert hook.declared.place.plugin_root == str(folder) and hook.declared.place.root is None


def test_hydration_is_gemini_s() -> None:
    """Unknown names stay as written; the workspace is the session's folder, expanded by the shell."""
    value = {"command": "${extensionPath}${pathSeparator}x ${workspacePath}/y ${HOME} ${nope}",
             "__proto__": "dropped", "list": ["${/}"]}
    assert hydrated(value, Path("/ext")) == {"command": "/ext/x ${GEMINI_PROJECT_DIR}/y ${HOME} ${nope}",
                                             "list": ["/"]}


def test_a_project_without_an_extension_reads_none(tmp_path: Path) -> None:
    (tmp_path / "hooks").mkdir()
    (tmp_path / "hooks" / "hooks.json").write_text(json.dumps(HOOKS))  # no manifest: not an extension
    assert import_project("gemini", tmp_path).hooks == ()


@pytest.fixture(scope="module")
def vendor_cli_lane() -> None:
    done = subprocess.run(["bash", str(ROOT / "scripts" / "vendor_lane.sh")], capture_output=True, text=True)
    assert done.returncode == 0, f"scripts/vendor_lane.sh failed:\n{done.stdout}\n{done.stderr}"


@pytest.mark.parametrize("command", ["rm -rf ./scratch && echo removed", "echo harmless"])
async def test_the_real_cli_runs_the_installed_extension_s_guard_as_we_do(
        command: str, tmp_path: Path, vendor_cli_lane: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPAT_ADAPTER_STATE_HOME", str(tmp_path / "state-home"))
    case = Case("gemini", "extension-guard", installed=True, files=extension_files(),
                steps=(("shell", f"touch tool-ran.txt; {command}"), ("text", "done")),
                options={"extensions": ("safety",)}, imports=("safety/hooks/hooks.json",))
    vendor = await anyio.to_thread.run_sync(lambda: vendor_outcome(case, tmp_path / "vendor"))
    ours = await embedded_outcome(case, tmp_path / "ours")
    assert vendor.error is None and ours.error is None, (vendor.error, ours.error)
    denied = "rm -rf" in command
    assert vendor.tool_ran is not denied, vendor  # the real CLI loaded the extension's guard
    verdict = compare(case, vendor, ours)
    assert verdict.status == "agree", verdict.as_json()
