"""CompatAdapter end to end on the embedded host: five vendors' denies block, rules carry with
their hashes, status() tells the truth, adapters stay apart, disposed means disposed."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from conftest import trust_project, write_script

from compat_adapter import CompatAdapter, MemoryHost
from compat_adapter.errors import AdapterDisposed, HostSurfaceMismatch, InvalidDeclaration
from compat_adapter.host.script import Reply, call
from compat_adapter.importers import import_project, register_import
from compat_adapter.model import Capability, Route
from compat_adapter.presets import apply_preset

FIXTURES = Path(__file__).parent / "fixtures" / "importers"


def deny_script(tmp: Path, name: str, body: str) -> str:
    """A hook that swallows its payload and prints one vendor answer."""
    return str(write_script(tmp / f"{name}.sh", f"cat > '{tmp}/{name}.payload'\necho '{body}'\n"))


def claude_deny(reason: str, event: str = "PreToolUse") -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": event, "permissionDecision": "deny",
                                              "permissionDecisionReason": reason}})


class FiveVendorPreset:
    """A preset as a team would write it: one deny per vendor, rules for all five."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp

    async def apply(self, adapter: CompatAdapter) -> None:
        t = self.tmp
        await adapter.register_hook("claude", "PreToolUse", "Bash",
                                    deny_script(t, "claude", claude_deny("claude says no")))
        await adapter.register_hook("codex", "PreToolUse", "Write",
                                    deny_script(t, "codex", claude_deny("codex says no")))
        await adapter.register_hook("workbuddy", "PreToolUse", "Edit",
                                    deny_script(t, "workbuddy", claude_deny("workbuddy says no")))
        # OpenCode has no matchers: the re-authored command filters by itself, as the callback did.
        answer = json.dumps({"decision": "deny", "reason": "opencode says no"})
        await adapter.register_hook("opencode", "tool.execute.before", None, str(write_script(
            t / "opencode.sh", f"p=$(cat); printf '%s' \"$p\" > '{t}/opencode.payload'\n"
            f"case \"$p\" in *'\"tool\":\"read\"'*) echo '{answer}';; esac\n")))
        await adapter.register_hook("copilot", "preToolUse", "view",
                                    deny_script(t, "copilot", json.dumps({"permissionDecision": "deny",
                                                                          "permissionDecisionReason": "copilot says no"})))
        await adapter.register_rules("claude", "CLAUDE.md", base_dir=t)
        await adapter.register_rules("codex", ["AGENTS.md", "rules/*.rules"], base_dir=t)
        await adapter.register_rules("workbuddy", str(t / "CODEBUDDY.md"))
        await adapter.register_rules("opencode", (t / "AGENTS.md").as_uri())
        await adapter.register_rules("copilot", ".github/*.md", base_dir=t)


def rules_tree(tmp: Path) -> None:
    (tmp / "CLAUDE.md").write_text("Claude rule: be brief.\n")
    (tmp / "AGENTS.md").write_text("Agents rule: small diffs.\n")
    (tmp / "CODEBUDDY.md").write_text("CodeBuddy rule: tabs.\n")
    (tmp / "rules").mkdir()
    (tmp / "rules" / "x.rules").write_text('prefix_rule(pattern=["rm"], decision="forbidden")\n')
    (tmp / ".github").mkdir()
    (tmp / ".github" / "copilot-instructions.md").write_text("Copilot rule: cite files.\n")
    (tmp / "seed.txt").write_text("old text\n")


async def test_a_five_vendor_preset_blocks_and_carries(tmp_path: Path) -> None:
    rules_tree(tmp_path)
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await apply_preset(adapter, FiveVendorPreset(tmp_path))
        agent = await host.create_agent(script=[
            Reply(calls=(call("bash", command="touch by-bash"),)),
            Reply(calls=(call("write", path="by-write.txt", content="x"),)),
            Reply(calls=(call("edit", path="seed.txt", old="old", new="new"),)),
            Reply(calls=(call("read", path="seed.txt"),)),
            "done",
        ])
        result = await agent.run_turn("go")
        assert result.reason == "completed"
        texts = [e.data["text"] for e in agent.session.events if e.type == "tool/result"]
        # Each vendor's own deny text, exactly. Codex's Write matcher also selects its
        # apply_patch alias, so Codex denies the edit before CodeBuddy's hook runs.
        assert texts[0] == "PreToolUse:Bash hook error: claude says no"
        assert texts[1].startswith("Command blocked by PreToolUse hook: codex says no. Command: *** Begin Patch")
        assert "*** Add File: by-write.txt" in texts[1]
        assert texts[2].startswith("Command blocked by PreToolUse hook: codex says no. Command: ")
        assert "*** Update File: seed.txt" in texts[2]
        assert texts[3] == "opencode says no"
        assert not (tmp_path / "by-bash").exists() and not (tmp_path / "by-write.txt").exists()
        assert (tmp_path / "seed.txt").read_text() == "old text\n"
        # Copilot's `view` matcher never fired: the read was denied first by OpenCode's hook.
        assert not (tmp_path / "copilot.payload").exists()
        for vendor in ("claude", "codex", "opencode"):
            assert (tmp_path / f"{vendor}.payload").read_text().strip()
        assert not (tmp_path / "workbuddy.payload").exists()

        status = adapter.status()
        assert [h.running for h in status.hooks] == [True] * 5
        assert {h.route for h in status.hooks} == {Route.NATIVE_TRANSLATE, Route.BUILTIN_BRIDGE}
        assert len(status.rules) == 5
        injected = [e.data for e in agent.session.events
                    if e.type == "user/message" and e.data["source"]["kind"] == "compat-adapter-rules"]
        assert [m["source"]["name"] for m in injected] == [r.id for r in status.rules]
        for rules, message in zip(status.rules, injected, strict=True):
            for f in rules.files:
                raw = Path(f.path).read_bytes()
                assert f.sha256 == hashlib.sha256(raw).hexdigest() and f.bytes == len(raw)
                assert raw.decode() in message["text"]
                assert f.sha256 in message["text"]


async def test_a_copilot_deny_blocks_when_nothing_else_does(tmp_path: Path) -> None:
    (tmp_path / "seed.txt").write_text("x")
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("copilot", "preToolUse", "view",
                                    deny_script(tmp_path, "cp", json.dumps({"permissionDecision": "deny",
                                                                            "permissionDecisionReason": "no views"})))
        agent = await host.create_agent(script=[Reply(calls=(call("read", path="seed.txt"),)), "ok"])
        await agent.run_turn("read it")
        payload = json.loads((tmp_path / "cp.payload").read_text())
        assert payload["toolName"] == "view" and payload["toolArgs"] == {"path": "seed.txt"}
        assert [e.data["text"] for e in agent.session.events if e.type == "tool/result"] == [
            "Denied by preToolUse hook: no views"]


async def test_ids_are_stable_and_unique(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        a = await adapter.register_hook("copilot", "agentStop", None, "true")
        b = await adapter.register_hook("github-copilot", "agentStop", None, "true")
        c = await adapter.register_hook("copilot", "agentStop", None, "true", id="mine")
        assert (a.id, b.id, c.id) == ("copilot:agentStop:1", "copilot:agentStop:2", "mine")
        with pytest.raises(InvalidDeclaration):
            await adapter.register_hook("copilot", "agentStop", None, "true", id="mine")
        r = await adapter.register_rules("codex", str(write_script(tmp_path / "r.md", "x")))
        assert r.id == "codex:rules:1"


async def test_unsupported_is_never_mounted(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path, shell=False) as host, CompatAdapter(host) as adapter:
        r = await adapter.register_hook("copilot", "preToolUse", "bash", "true")
        assert r.capability is Capability.UNSUPPORTED and "no shell executor" in (r.reason or "")
        assert host.listener_count("tools/pre-execute") == 0
        [hook] = adapter.status().hooks
        assert not hook.running and hook.note == r.reason
        (tmp_path / "R.md").write_text("still carried")
        assert (await adapter.register_rules("copilot", str(tmp_path / "R.md"))).capability is Capability.CARRY


async def test_dispose_unmounts_and_refuses(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        adapter = CompatAdapter(host)
        await adapter.register_hook("claude", "PreToolUse", "Bash",
                                    deny_script(tmp_path, "d", claude_deny("denied")))
        await adapter.register_hook("copilot", "preToolUse", "bash",
                                    deny_script(tmp_path, "e", json.dumps({"permissionDecision": "deny"})))
        await adapter.dispose()
        with pytest.raises(AdapterDisposed) as err:
            await adapter.register_hook("copilot", "preToolUse", None, "true")
        assert err.value.code == "ADAPTER_DISPOSED"
        assert host.listener_count("tools/pre-execute") == 0
        assert not any(h.running for h in adapter.status().hooks) and adapter.status().disposed
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="touch ran"),)), "ok"])
        await agent.run_turn("go")
        assert (tmp_path / "ran").exists()


async def test_two_adapters_never_see_each_other(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        a, b = CompatAdapter(host, prefer="official"), CompatAdapter(host, prefer="official")
        await a.register_hook("claude", "PreToolUse", "Bash", deny_script(tmp_path, "a", claude_deny("A")))
        await b.register_hook("claude", "PreToolUse", "Write", deny_script(tmp_path, "b", claude_deny("B")))
        pa = a.status().bridges["@deepseek-ai/dsh-hooks-claude-code"]
        pb = b.status().bridges["@deepseek-ai/dsh-hooks-claude-code"]
        assert pa and pb and pa != pb
        assert "a.sh" in Path(pa).read_text() and "b.sh" not in Path(pa).read_text()
        assert [h.id for h in a.status().hooks] == [h.id for h in b.status().hooks] == ["claude:PreToolUse:1"]
        await a.dispose()
        assert not Path(pa).exists()
        agent = await host.create_agent(script=[
            Reply(calls=(call("bash", command="touch by-bash"), call("write", path="w.txt", content="x"))),
            "ok"])
        await agent.run_turn("go")
        assert (tmp_path / "by-bash").exists()  # A is gone
        assert not (tmp_path / "w.txt").exists()  # B still denies
        await b.dispose()


async def test_host_version_is_checked_fail_closed(tmp_path: Path) -> None:
    async with MemoryHost(tmp_path) as host:
        with pytest.raises(HostSurfaceMismatch):
            CompatAdapter(host, target_host_version="9.9.9").start()
        relaxed = CompatAdapter(host, target_host_version="9.9.9", fail_closed=False)
        relaxed.start()
        assert any("9.9.9" in r.message for r in host.records if r.level == "warning")


PLUGIN_ROWS = {
    "opencode/app": [("plugin-load", Capability.UNSUPPORTED, Route.UNSUPPORTED),
                     ("plugin-load", Capability.UNSUPPORTED, Route.UNSUPPORTED),
                     ("tool.execute.before", Capability.ADAPTED, Route.PLUGIN_HOST)],
    "opencode/svc": [("plugin-load", Capability.UNSUPPORTED, Route.UNSUPPORTED),
                     ("event", Capability.ADAPTED, Route.PLUGIN_HOST)],
}


@pytest.mark.parametrize("vendor,folder", [
    ("claude", "claude/webapp"), ("claude", "claude/pyservice"), ("codex", "codex/tooling"),
    ("codex", "codex/ci"), ("workbuddy", "codebuddy/shop"), ("workbuddy", "codebuddy/infra"),
    ("copilot", "copilot/api"), ("copilot", "copilot/frontend"), ("opencode", "opencode/app"),
    ("opencode", "opencode/svc"),
])
async def test_imported_real_world_configs_run_as_graded(vendor: str, folder: str, tmp_path: Path) -> None:
    trust_project(vendor, FIXTURES / folder)  # the user reviewed and trusted these files
    imported = import_project(vendor, FIXTURES / folder)
    assert imported.hooks or imported.rules
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        results = await register_import(adapter, imported)
        # Hooks, then rules entries, then permission rules and their settings (one row each).
        own = (len(imported.hooks) + len(imported.rules) + len(imported.permissions)
               + len(imported.permission_settings))
        # OpenCode plugins follow, graded in the plugin host: one row per hook key of a plugin that
        # loaded, one UNSUPPORTED row for an npm plugin that set-up did not install.
        plugin_rows = [(r.event, r.capability, r.route) for r in results[own:]]
        assert plugin_rows == PLUGIN_ROWS.get(folder, [])
        status = {h.id: h for h in adapter.status().hooks}
        for result in results[: len(imported.hooks)]:
            assert status[result.id].running is (result.capability is Capability.ADAPTED)
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="echo hi"),)), "done"])
        outcome = await agent.run_turn("go")
        assert outcome.reason == "completed"
        carried = [e for e in agent.session.events if e.type == "user/message"
                   and e.data["source"]["kind"] == "compat-adapter-rules"]
        assert len(carried) == len(imported.rules)
        tool_hooks = [h for h in imported.hooks if h.event in ("PreToolUse", "preToolUse", "tool.execute.before")
                      and (h.matcher in (None, "", "*") or "Bash" in h.matcher or "bash" in h.matcher)]
        ran = [e for e in agent.session.events if e.type == "hook/invoked"]
        assert len(ran) >= len(tool_hooks)


async def test_copilot_hooks_run_with_bash_as_copilot_does(tmp_path: Path) -> None:
    """Copilot's handler field is `bash`: bash-only syntax must work there."""
    script = "cat >/dev/null; arr=(deny); echo \"{\\\"permissionDecision\\\": \\\"${arr[0]}\\\"}\""
    async with MemoryHost(tmp_path) as host, CompatAdapter(host) as adapter:
        await adapter.register_hook("copilot", "preToolUse", "bash", {"bash": script})
        agent = await host.create_agent(script=[Reply(calls=(call("bash", command="touch x"),)), "ok"])
        await agent.run_turn("go")
        assert not (tmp_path / "x").exists()
        assert adapter.audit[0].decision == "deny" and adapter.audit[0].exit_code == 0
