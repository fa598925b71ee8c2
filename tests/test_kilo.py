"""Kilo's unit: an OpenCode fork whose unit derives from OpenCode's, in Kilo's own places (kilo 7.7.9:
``kilo.json``, ``.kilo``/``.kilocode`` plugin folders, no ``.opencode``), its plugins graded under its id."""

from __future__ import annotations

import json
from pathlib import Path

from compat_adapter.capability import PluginRuntime, capability
from compat_adapter.catalog import resolve_vendor, unit_of
from compat_adapter.importers import import_files, plugin_source
from compat_adapter.permissions.model import RuleCall
from vendors.opencode.plugin_host.keys import grade_key
from vendors.opencode.table import OPENCODE
from vendors.surface import TABLE_SURFACE

GUARD = "export const Guard = async () => ({ 'tool.execute.before': async () => {} })\n"


def test_its_table_is_opencodes_rows_under_its_own_id() -> None:
    kilo = resolve_vendor("kilo")
    assert kilo.id == "kilo" and kilo.measured_on == "7.7.9"
    assert kilo.unserved == OPENCODE.unserved
    # Its event rows are OpenCode's, measured on OpenCode's CLI and not on Kilo's: they say so.
    assert [r.model_copy(update={"confidence": "measured"}) for r in kilo.events] == list(OPENCODE.events)
    assert {r.confidence for r in kilo.events} == {"derived"} and kilo.confidence == "measured"
    # Its plugins run in OpenCode's plugin host, a capability its unit declares for itself.
    runtime = capability(unit_of("kilo"), PluginRuntime)
    assert runtime is not None and runtime.vendor == "kilo" and runtime.home == "opencode"
    assert type(runtime) is type(capability(unit_of("opencode"), PluginRuntime))
    # Measured: kilo run makes no session-title request (opencode run does), so no extra transform call.
    assert OPENCODE.plugin_title_request and not kilo.plugin_title_request
    assert "kilo.json" in kilo.rules.default_sources[1] and ".kilo/" in kilo.plugin_runtime


def test_its_project_files_are_kilos_folders_not_opencodes(tmp_path: Path) -> None:
    for name in ("kilo.json", "opencode.jsonc", ".kilo/plugin/a.ts", ".kilocode/plugins/b.js",
                 ".opencode/plugins/c.ts", ".kilo/plugins/notes.txt", "CONTEXT.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(GUARD if name.endswith((".ts", ".js")) else "{}")
    found = [p.relative_to(tmp_path).as_posix() for p in unit_of("kilo").importer.project_files(tmp_path)]
    # The first rules file of AGENTS.md, CLAUDE.md, CONTEXT.md; the configs; the plugin files sorted.
    assert found == ["CONTEXT.md", "kilo.json", "opencode.jsonc", ".kilo/plugin/a.ts", ".kilocode/plugins/b.js"]
    (tmp_path / "AGENTS.md").write_text("rules")
    assert unit_of("kilo").importer.rules_files(tmp_path) == [tmp_path / "AGENTS.md"]


def test_a_plugin_file_belongs_to_the_project_and_grades_as_kilos(tmp_path: Path) -> None:
    plugin = tmp_path / ".kilo" / "plugins" / "guard.ts"
    plugin.parent.mkdir(parents=True)
    plugin.write_text(GUARD)
    (imported,) = import_files("kilo", [plugin], trust_all=True).plugins
    assert (imported.vendor, imported.root) == ("kilo", str(tmp_path))
    source = plugin_source(imported)
    assert source.vendor == "kilo" and source.id == ".kilo/plugins/guard.ts"
    graded = grade_key("kilo:guard:tool.execute.before", "tool.execute.before", TABLE_SURFACE, resolve_vendor("kilo"))
    assert graded.vendor == "kilo" and str(graded.capability) == "ADAPTED"


def test_its_config_and_permission_rules_are_read_as_opencodes(tmp_path: Path) -> None:
    config = tmp_path / "kilo.json"
    (tmp_path / "team.md").write_text("team rules")
    config.write_text(json.dumps({"instructions": ["team.md", "https://example.invalid/x.md"],
                                  "plugin": ["some-plugin"], "permission": {"bash": {"ls*": "deny"}}}))
    result = import_files("kilo", [config], trust_all=True)
    assert [r.sources for r in result.rules] == [("team.md",)]
    assert [(p.kind, p.name, p.vendor) for p in result.plugins] == [("npm", "some-plugin", "kilo")]
    assert [r.code for r in result.refused] == ["REMOTE_SOURCE"]
    assert [(r.vendor, r.behavior, r.tool) for r in result.permissions] == [("kilo", "deny", "bash")]
    # Kilo's deny names the one rule that denied, with its source (lane: kilo:perm_bash_pattern).
    ruling = unit_of("kilo").permissions.decide(result.permissions, RuleCall("bash", {"command": "ls"}, "bash",
                                                                             str(tmp_path), str(tmp_path)))
    assert ruling is not None and ruling.text.endswith(
        ' rules {"permission":"bash","pattern":"ls*","action":"deny","source":"project"}')


def test_port_writes_opencodes_plugin_into_kilos_folder() -> None:
    face = unit_of("kilo").host
    assert face is not None and face.vendor == "kilo" and face.file == ".kilo/plugin/compat-adapter-port.ts"
    assert face.events == unit_of("opencode").host.events


def test_every_kilo_rule_lists_its_agents_own_defaults_as_a_loss(tmp_path: Path) -> None:
    # Kilo's code agent allows `echo *` of its own (lane: action.source=agent); the rules here are
    # weighed after OpenCode's defaults instead, which every Kilo rule says, and OpenCode's do not.
    from compat_adapter.permissions.grade import grade_permission

    kilo, opencode = unit_of("kilo").permissions, unit_of("opencode").permissions
    block = {"bash": {"*": "allow", "rm *": "deny"}}
    for language, lists in ((kilo, True), (opencode, False)):
        rules = language.read(block, path=tmp_path / "kilo.json", shown="kilo.json", place="permission",
                              scope="project").rules
        for rule in rules:
            texts = [d.text for d in grade_permission(rule, language, TABLE_SURFACE).degradations]
            assert any("agents bring permission defaults of their own" in t for t in texts) is lists, texts
    # A call no project rule matches: the host runs it (OpenCode's `*` allow), where Kilo's agent decides.
    rules = kilo.read({"bash": {"rm *": "deny"}}, path=tmp_path / "kilo.json", shown="kilo.json",
                      place="permission", scope="project").rules
    assert kilo.decide(rules, RuleCall("bash", {"command": "echo hi"}, "bash", str(tmp_path), str(tmp_path))) is None


async def test_a_call_to_a_tool_denied_whole_reads_the_ai_sdk_error_without_invalid(tmp_path: Path) -> None:
    # Measured (lane, kilo:perm_bash_denied_whole, 7.7.9): `Model tried to call unavailable tool 'bash'.
    # Available tools: <its tools, sorted>.` — no `invalid` wrapper nor entry (Kilo's repair gives up).
    from compat_adapter import CompatAdapter, MemoryHost
    from compat_adapter.host.script import Reply, call
    from compat_adapter.importers import register_import

    config = tmp_path / "kilo.json"
    config.write_text(json.dumps({"permission": {"bash": "deny"}}))
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await register_import(adapter, import_files("kilo", [config], trust_all=True))
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="rm -rf build"),)), "done"])
        await agent.run_turn("go")
    assert [e.data["text"] for e in agent.session.of_type("tool/result")] == [
        "Model tried to call unavailable tool 'bash'. Available tools: edit, glob, grep, read, skill, task, todowrite, write."]
