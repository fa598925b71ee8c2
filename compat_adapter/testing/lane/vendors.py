"""How each real vendor CLI is set up for one offline run: its files, env, argv, wire API, tool.

Everything here follows the vendor lane's measured configuration (reference/vendor-lane): scratch
``HOME``, the vendor's own project config file for hooks, the scripted model at
``http://127.0.0.1:<port>``, trust flags so that project hooks load in a non-interactive run.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ("CLIS", "VendorCli", "cli_for", "lane_dir")

#: Where ``scripts/vendor_lane.sh`` installs the CLIs (override: COMPAT_ADAPTER_VENDOR_DIR).
def lane_dir() -> Path:
    given = os.environ.get("COMPAT_ADAPTER_VENDOR_DIR")
    if given:
        return Path(given)
    return Path(__file__).resolve().parents[3] / ".cache" / "vendors"


@dataclass(frozen=True, slots=True)
class VendorCli:
    """One vendor's CLI: where its binary is, which wire API it speaks, how it names the shell tool."""

    vendor: str
    """compat-adapter's vendor id (``workbuddy`` for CodeBuddy)."""
    cli: str
    version: str
    binary: str
    """Relative to the lane folder."""
    api: str
    shell_tool: str
    hooks_file: str
    """The project file the hook config is written to (relative to the project)."""
    shell_arg: str = "command"
    extra_args: Mapping[str, Any] = field(default_factory=dict)
    read_tool: tuple[str, str] | None = None
    """The file-read tool and its path argument, for the vendors whose scenarios read a file."""

    def binary_path(self, lane: Path | None = None) -> Path:
        return (lane or lane_dir()) / self.binary

    def call(self, command: str) -> dict[str, Any]:
        """The tool call the scripted model makes to run ``command`` in this vendor's shell tool."""
        return {"name": self.shell_tool, "arguments": {self.shell_arg: command, **self.extra_args}}

    def read(self, path: str) -> dict[str, Any]:
        """The tool call the scripted model makes to read ``path`` with this vendor's read tool."""
        if self.read_tool is None:
            raise ValueError(f"no read tool is set up for {self.vendor}")
        name, argument = self.read_tool
        return {"name": name, "arguments": {argument: path}}


CLIS: Mapping[str, VendorCli] = {
    "claude": VendorCli("claude", "claude", "2.1.328", "claude/node_modules/@anthropic-ai/claude-code/bin/claude.exe",
                        "anthropic", "Bash", ".claude/settings.json", extra_args={"description": "lane step"}),
    "codex": VendorCli("codex", "codex", "0.169.0",
                       "codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
                       "responses", "exec_command", ".codex/hooks.json", shell_arg="cmd"),
    "copilot": VendorCli("copilot", "copilot", "1.0.102", "copilot/node_modules/@github/copilot-linux-x64/copilot",
                         "chat", "bash", ".github/hooks/lane.json", extra_args={"description": "lane step"}),
    "opencode": VendorCli("opencode", "opencode", "1.18.33", "opencode/node_modules/opencode-linux-x64/bin/opencode",
                          "chat", "bash", ".opencode/plugin/lane_plugin.ts", extra_args={"description": "lane step"},
                          read_tool=("read", "filePath")),
    "workbuddy": VendorCli("workbuddy", "codebuddy", "2.163.0",
                           "codebuddy/wheel/codebuddy_agent_sdk/bin/codebuddy-headless", "chat", "Bash",
                           ".codebuddy/settings.json", extra_args={"description": "lane step"}),
}


def cli_for(vendor: str) -> VendorCli:
    return CLIS[vendor]


def base_env(run: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(run / "home"), "TERM": "xterm",
            "LANG": "C.UTF-8", "SHELL": "/bin/bash", "NO_COLOR": "1", "CI": "1", "TMPDIR": str(run / "tmp")}


def prepare(cli: VendorCli, run: Path, port: int, prompt: str, *, lane: Path | None = None,
            options: Mapping[str, Any] | None = None) -> tuple[list[str], dict[str, str]]:
    """Write the vendor's home and project files under ``run``; the argv and env of the run."""
    lane = lane or lane_dir()
    opts = dict(options or {})
    home, proj = run / "home", run / "proj"
    env = base_env(run)
    binary = str(cli.binary_path(lane))
    base = f"http://127.0.0.1:{port}"
    if cli.cli == "claude":
        env.update(ANTHROPIC_BASE_URL=base, ANTHROPIC_API_KEY="sk-test", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                   DISABLE_AUTOUPDATER="1")
        argv = [binary, "-p", prompt, "--output-format", "json"]
        if not opts.get("no_allowed_tools"):
            argv += ["--allowedTools", "Bash"]
        return argv, env
    if cli.cli == "codex":
        codex_home = home / ".codex"
        codex_home.mkdir(parents=True, exist_ok=True)
        (codex_home / "config.toml").write_text(
            'model = "mock-model"\nmodel_provider = "mock"\napproval_policy = "never"\n'
            'sandbox_mode = "danger-full-access"\n[model_providers.mock]\nname = "mock"\n'
            f'base_url = "{base}/v1"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\n'
            f'[projects."{proj}"]\ntrust_level = "trusted"\n')
        env.update(CODEX_HOME=str(codex_home), MOCK_API_KEY="sk-test")
        return [binary, "exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", prompt], env
    if cli.cli == "copilot":
        # The first start unpacks the CLI's JS payload into the cache; the lane shares one.
        env.update(COPILOT_OFFLINE="true", COPILOT_PROVIDER_BASE_URL=f"{base}/v1", COPILOT_PROVIDER_API_KEY="sk-test",
                   COPILOT_MODEL="mock-model", COPILOT_AUTO_UPDATE="false",
                   XDG_CACHE_HOME=str(lane / "copilot" / "xdg-cache"))
        return [binary, "-p", prompt, "--allow-all-tools", "--trust-folder", "--output-format", "json"], env
    if cli.cli == "opencode":
        config = home / ".config"
        env.update(XDG_CONFIG_HOME=str(config), XDG_DATA_HOME=str(home / ".local/share"),
                   XDG_CACHE_HOME=str(home / ".cache"), XDG_STATE_HOME=str(home / ".local/state"),
                   OPENCODE_DISABLE_MODELS_FETCH="1", OPENCODE_DISABLE_AUTOUPDATE="1",
                   OPENCODE_DISABLE_LSP_DOWNLOAD="1", OPENCODE_DISABLE_SHARE="1")
        (proj / "opencode.json").write_text(json.dumps({
            "$schema": "https://opencode.ai/config.json", "model": "mock/mock-model",
            "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "Mock",
                                  "options": {"baseURL": f"{base}/v1", "apiKey": "sk-test"},
                                  "models": {"mock-model": {"name": "Mock", "tool_call": True}}}}}, indent=1))
        # OpenCode npm-installs its plugin package into every config folder at start unless the
        # folder already has node_modules and a lock naming it: link the lane's copy (offline trick).
        for folder in (proj / ".opencode", config / "opencode"):
            _link_plugin_package(lane / "opencode", folder)
        return [binary, "run", "--print-logs", prompt], env
    if cli.cli == "codebuddy":
        cb = home / ".codebuddy"
        cb.mkdir(parents=True, exist_ok=True)
        (cb / "models.json").write_text(json.dumps({
            "models": [{"id": "mock-model", "name": "Mock", "vendor": "OpenAI", "apiKey": "sk-test",
                        "url": f"{base}/v1/chat/completions", "supportsToolCall": True}],
            "availableModels": ["mock-model"]}))
        env.update(CODEBUDDY_API_KEY="sk-test")
        return [binary, "-p", prompt, "--model", "mock-model", "--output-format", "json", "--allowedTools", "Bash"], env
    raise ValueError(f"no CLI set-up for {cli.cli}")


def _link_plugin_package(installed: Path, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text(json.dumps({"dependencies": {"@opencode-ai/plugin": "1.18.33"}}))
    shutil.copyfile(installed / "package-lock.json", folder / "package-lock.json")
    link = folder / "node_modules"
    if not link.exists():
        link.symlink_to(installed / "node_modules")
