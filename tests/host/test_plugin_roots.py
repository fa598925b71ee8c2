"""A Claude Code plugin's hooks get ``${CLAUDE_PLUGIN_ROOT}`` and ``${CLAUDE_PLUGIN_DATA}`` as Claude
gives them (measured on Claude Code 2.1.328 with ``--plugin-dir``: the plugin's folder, and a data
folder of its own), on the embedded host and on the real DSH lane (``bash scripts/dsh_lane.sh``).

The layout is the one real plugins ship in: a marketplace repository (``.claude-plugin/
marketplace.json``) whose plugins live in sub-folders, each with ``.claude-plugin/plugin.json`` and
``hooks/hooks.json``, its guard script beside them and named through ``${CLAUDE_PLUGIN_ROOT}``. With
the variable empty the command is ``/hooks/safety-check.sh``: exit 127, a non-blocking error in
Claude, and the destructive call runs (the failure issue 26 measured on 43 real plugin hooks).
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import trust, write_script
from test_contract import Lane, bash, dsh_lane, lane

from compat_adapter.hookvars import plugin_data_dir
from compat_adapter.importers import import_files, register_import
from compat_adapter.importers.discover import discover
from compat_adapter.host.script import Reply

__all__ = ("dsh_lane", "lane")

#: Refuses `rm -rf /…` (Claude's exit-2 deny, the reason on stderr) and records what it was given.
GUARD = """input=$(cat)
printf '%s\\n' "$CLAUDE_PLUGIN_ROOT" "$CLAUDE_PLUGIN_DATA" "$CLAUDE_PROJECT_DIR" > "$CLAUDE_PLUGIN_DATA/seen.txt"
case "$input" in
  *'rm -rf /'*) echo "safety-check: refusing rm -rf on an absolute path" >&2; exit 2 ;;
esac
exit 0
"""


def marketplace(root: Path) -> Path:
    """A marketplace repository with one plugin, ``safety``; returns the plugin's hooks file."""
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "marketplace.json").write_text(json.dumps({
        "name": "team-tools", "owner": {"name": "team"},
        "plugins": [{"name": "safety", "source": "./plugins/safety", "description": "guards"}]}))
    plugin = root / "plugins" / "safety"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "safety", "version": "1.0.0"}))
    (plugin / "hooks").mkdir()
    write_script(plugin / "hooks" / "safety-check.sh", GUARD)
    hooks = plugin / "hooks" / "hooks.json"
    hooks.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/safety-check.sh", "timeout": 10}]}]}}))
    return hooks


def test_a_marketplace_plugin_is_found_and_its_hooks_know_their_plugin(tmp_path: Path) -> None:
    hooks = marketplace(tmp_path / "market")
    assert discover(tmp_path / "market")["claude"] == [hooks]
    trust("claude", hooks)
    [hook] = import_files("claude", [hooks]).hooks
    place = hook.declared.place
    assert place is not None and place.plugin_root == str(hooks.parent.parent) and place.plugin_name == "safety"
    assert place.root is None  # a plugin's hooks run in the session's folder


async def test_a_plugin_root_guard_denies_a_destructive_command(lane: Lane, tmp_path: Path) -> None:
    hooks = marketplace(tmp_path / "market")
    trust("claude", hooks)
    ws = lane.host.cwd
    async with lane.adapter(tmp_path) as adapter:
        [result] = await register_import(adapter, import_files("claude", [hooks]))
        assert str(result.capability) == "ADAPTED", result.reason
        agent = await lane.agent([Reply("cleaning", (bash(f"rm -rf /nonexistent-compat-victim; touch {ws}/ran"),)),
                                  "gave up"])
        await lane.run(agent, "clean up")
        log = await lane.log(agent)
    assert not (ws / "ran").exists(), "the plugin's guard must deny the destructive call"
    [(is_error, text)] = lane.tool_results(log)
    assert is_error and "safety-check: refusing rm -rf" in text
    plugin = hooks.parent.parent
    # The variables as Claude gives them: the plugin folder, a data folder of its own (made for it),
    # and the session's project folder.
    root, data, project = (plugin_data_dir("claude", "safety") / "seen.txt").read_text().splitlines()
    assert root == str(plugin)
    assert Path(data).is_dir() and Path(data).name.endswith("safety")
    assert Path(project).resolve() == Path(ws).resolve()
