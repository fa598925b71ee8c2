"""OpenCode in the vendor lane (test support): its CLI offline, its scenarios, its recording plugin.

Loaded only by ``compat_adapter.testing.lane`` (the unit names it as ``lane``), never by the product.
"""

from __future__ import annotations

import re
import json
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compat_adapter.testing.lane.scenarios import ENV_FILE, LANE_PLUGIN, REWRITTEN_COMMAND, Case, Scenario
from compat_adapter.testing.lane.vendors import VendorCli, link_plugin_package
from compat_adapter.testing.live.harness import CONTEXT, REASON
from compat_adapter.testing.live.speakers import Speaker

if TYPE_CHECKING:
    from compat_adapter.testing.live.harness import Session

__all__ = ("CLI", "LIVE", "OpenCodeCli", "OpenCodeSpeaker", "write_lane_config", "xdg_env")

#: A team opencode.json's keys that pick providers and models (cloudflare/workers-sdk enables only its
#: AI gateway): the lane's run has one provider, the scripted model, so these go.
_PROVIDER_KEYS = ("provider", "model", "small_model", "enabled_providers", "disabled_providers")


#: The lane plugin's callbacks, each with the rules it acts on (lane_plugin.ts).
_RULE_KEYS = {"chat.message": ("message_throw", "message_append"),
              "experimental.chat.system.transform": ("system_append",),
              "tool.execute.before": ("throw", "set_args"), "tool.execute.after": ("after_throw", "append_output")}


@dataclass(frozen=True, slots=True)
class OpenCodeCli(VendorCli):
    """``opencode run`` with the scripted model as an OpenAI-compatible provider; its hooks are
    the lane's recording plugin (or a corpus plugin, as written)."""

    def release_events(self, folder: Path) -> tuple[tuple[str, ...], str]:
        # A plugin's callbacks are the keys of the plugin package's `Hooks` interface; the bus events an
        # `event` callback receives are the members of the SDK's `Event` union (each names its `type`).
        plugin = "node_modules/@opencode-ai/plugin/dist/index.d.ts"
        sdk = "node_modules/@opencode-ai/sdk/dist/gen/types.gen.d.ts"
        text = (folder / plugin).read_text()
        body = text[text.index("interface Hooks"):]
        body = body[:body.index("\n}")]
        hooks = re.findall(r'^    "?([A-Za-z][\w.]*)"?\??:', body, re.M)
        types = (folder / sdk).read_text()
        union = re.search(r"export type Event = ([^;]*);", types)
        bus: list[str] = []
        for member in (union.group(1).split("|") if union else ()):
            m = re.search(r"export type " + re.escape(member.strip()) + r' = \{\s*(?:id: [^;]*;\s*)?type: "([^"]+)"',
                          types)
            if m:
                bus.append(m.group(1))
        return tuple(dict.fromkeys([*hooks, *bus])), f"{plugin} (interface Hooks) + {sdk} (type Event)"

    def setup(self, run: Path, base: str, prompt: str, env: dict[str, str], *, binary: str, lane: Path,
              options: Mapping[str, Any]) -> list[str]:
        home, proj = run / "home", run / "proj"
        config = home / ".config"
        env.update(xdg_env(home), OPENCODE_DISABLE_MODELS_FETCH="1", OPENCODE_DISABLE_AUTOUPDATE="1",
                   OPENCODE_DISABLE_LSP_DOWNLOAD="1", OPENCODE_DISABLE_SHARE="1")
        write_lane_config(proj / "opencode.json", base, "https://opencode.ai/config.json")
        # OpenCode npm-installs its plugin package into every config folder at start unless the
        # folder already has node_modules and a lock naming it: link the lane's copy (offline trick).
        for folder in (proj / ".opencode", config / "opencode"):
            link_plugin_package(lane / "opencode", folder)
        return [binary, "run", "--print-logs", prompt]

    def write_hooks(self, case: Case, run: Path, target: Path) -> None:
        """The lane's recording plugin, doing what the case's rules say at each hook; a case with
        corpus plugins runs them alone (they are copied by the run)."""
        if case.plugins:
            return
        shutil.copyfile(LANE_PLUGIN, target)
        rules = {**(case.plugin_rules or {}), "log": str(run / "state" / "hooks.jsonl")}
        (run / "proj" / ".opencode" / "lane_rules.json").write_text(json.dumps(rules))

    def port_source(self, case: Case) -> Case:
        """The lane plugin with the callbacks its rules act in only: every other source's scenario
        is one hook at the scenario's event, and the lane plugin records at all four callbacks in
        every case (the vendor lane's view of what OpenCode calls; kind ``observe`` keeps it so)."""
        rules = case.plugin_rules or {}
        keys = [key for key, acts in _RULE_KEYS.items() if any(rule in rules for rule in acts)]
        if case.plugins or not keys:
            return case
        return replace(case, plugin_rules={**rules, "keys": keys})

    def scenarios(self) -> Mapping[str, Scenario]:
        why_exit = "OpenCode hooks are plugin callbacks: there is no exit code or JSON answer, a throw is the only deny"
        return {
            "observe": ((), {"plugin_rules": {}}),
            "deny_exit2": why_exit,
            "deny_json": ((), {"plugin_rules": {"throw": "LANE-DENY-JSON reason"}}),
            "allow": "OpenCode plugins have no allow answer: its permission.ask hook is never called (1.18.33's "
                     "binary triggers no such hook; measured: it does not fire in `opencode run`)",
            "ask": "OpenCode's permission.ask plugin hook is never called (1.18.33's binary triggers no such "
                   "hook); an ask by permission rule is case perm_bash_ask",
            "rewrite": ((), {"plugin_rules": {"set_args": {"command": REWRITTEN_COMMAND}}}),
            "pre_context": "OpenCode's tool.execute.before cannot add model context",
            "post_context": ((), {"plugin_rules": {"append_output": "\nLANE-CTX-POST"}}),
            # No block answer on either: a throw is the only way a plugin says no (measured here).
            "post_block": ((), {"plugin_rules": {"after_throw": "LANE-BLOCK post"}}),
            "prompt_block": ((), {"plugin_rules": {"message_throw": "LANE-BLOCK prompt"}}),
            "prompt_context": ((), {"plugin_rules": {"message_append": "LANE-CTX-PROMPT"}}),
            "stop_block_json": "OpenCode has no Stop equivalent: a plugin re-prompting on session.idle gets no turn "
                               "under `opencode run`",
            "stop_block_exit2": "OpenCode has no Stop equivalent (and no exit codes)",
            "session_context": ((), {"plugin_rules": {"system_append": "LANE-CTX-SESSION"}}),
            "permission_request": "OpenCode's permission.ask plugin hook is never called (1.18.33's binary "
                                  "triggers no such hook)",
            # A real project's plugins, as written (the corpus): the same file under both sides.
            "plugin_env_protection": ((), {"plugins": ("env-protection.js",),
                                           "files": {".env": ENV_FILE}, "steps": (("read", ".env"), ("text", "done"))}),
            "plugin_guard_deny": ((), {"plugins": ("guard.ts",), "files": {".env": ENV_FILE},
                                       "steps": (("shell", "echo ran > tool-ran.txt; cat ./.env"), ("text", "done"))}),
            # Permission rules (opencode.json `permission`, measured under `opencode run`): the last
            # matching rule wins; a deny reads the rules; an ask is rejected and the run ends; a tool
            # denied whole is not offered; an edit pattern is the path from the worktree.
            "perm_bash_pattern": _permission({"bash": {"*": "allow", "echo hello*": "deny"}}),
            "perm_last_wins": _permission({"bash": {"echo hello*": "deny", "*": "allow"}}),
            "perm_bash_ask": _permission({"bash": "ask"}),
            "perm_bash_denied_whole": _permission({"bash": "deny"}),
            "perm_edit_pattern": _permission({"edit": {"*.txt": "deny"}}, (("write", "notes.txt"), ("text", "done"))),
        }


def xdg_env(home: Path) -> dict[str, str]:
    """The XDG folders of a run's scratch home (where OpenCode and its forks keep config, data, state)."""
    return {"XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local/share"),
            "XDG_CACHE_HOME": str(home / ".cache"), "XDG_STATE_HOME": str(home / ".local/state")}


def write_lane_config(settings: Path, base: str, schema: str, **extra: Any) -> None:
    """A case's own config (its permission rules …) keeps its keys beside the lane's model; its own
    choice of providers and models goes: the scripted model is the run's only one. ``extra``: the
    driver's own keys."""
    own = json.loads(settings.read_text()) if settings.is_file() else {}
    for key in _PROVIDER_KEYS:
        own.pop(key, None)
    settings.write_text(json.dumps({
        **own, **extra, "$schema": schema, "model": "mock/mock-model",
        "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "Mock",
                              "options": {"baseURL": f"{base}/v1", "apiKey": "sk-test"},
                              "models": {"mock-model": {"name": "Mock", "tool_call": True}}}}}, indent=1))


def _permission(rules: dict[str, Any], steps: tuple[tuple[str, str], ...] | None = None) -> Scenario:
    """A case whose project opencode.json holds ``permission`` rules, beside the lane's plugin."""
    extra: dict[str, Any] = {"plugin_rules": {}, "files": {"opencode.json": json.dumps({"permission": rules})},
                             "imports": ("opencode.json", ".opencode/plugin/lane_plugin.ts")}
    return ((), {**extra, "steps": steps} if steps else extra)


CLI = OpenCodeCli("opencode", "opencode", "1.18.33", "opencode/node_modules/opencode-linux-x64/bin/opencode",
                  "chat", "bash", ".opencode/plugin/lane_plugin.ts", extra_args={"description": "lane step"},
                  read_tool=("read", "filePath"), env_prefixes=("OPENCODE",),
                  write_tool=("write", "filePath", "content"))


@dataclass(frozen=True, slots=True)
class OpenCodeSpeaker(Speaker):
    """The live checks in the re-authored OpenCode command's words (``decision``/``status``), and
    its payloads: ``{hook, input, output}`` for an interceptor, the bus ``event`` otherwise."""

    def deny(self, event: str) -> dict[str, Any]:
        return {"decision": "deny", "reason": REASON}

    def ask(self, event: str) -> dict[str, Any]:
        return {"decision": "ask", "reason": REASON}

    def context(self, event: str) -> dict[str, Any]:
        return {"additionalContext": CONTEXT}

    def allow_permission(self, event: str) -> dict[str, Any]:
        return {"status": "allow"}

    def deny_permission(self, event: str) -> dict[str, Any]:
        return {"status": "deny", "reason": REASON}

    def observe(self, event: str) -> dict[str, Any]:
        return {"decision": "deny", "reason": REASON, "additionalContext": CONTEXT}

    def check_payload(self, s: Session, payload: Mapping[str, Any], tool: str | None) -> None:
        from vendors.opencode.dialect import INTERCEPTORS

        e = s.event
        if e in INTERCEPTORS:
            s.expect(payload.get("hook") == e and isinstance(payload.get("input"), dict)
                     and "output" in payload,
                     f"payload is not {{hook: {e!r}, input, output}}: {sorted(payload)}",
                     f"payload hook={e}")
            if e in ("tool.execute.before", "tool.execute.after") and tool is not None:
                s.expect(payload["input"].get("tool") == tool,
                         f"input.tool {payload['input'].get('tool')!r}, expected {tool!r}")
            return
        kind = (payload.get("input") or {}).get("event", {}).get("type") \
            if isinstance(payload.get("input"), dict) else None
        # The generic `event` hook sees every session record under the record's own type.
        want_ok = kind == e if e != "event" else isinstance(kind, str)
        s.expect(payload.get("hook") == "event" and want_ok,
                 f"bus payload is not {{hook: 'event', input.event.type: {e!r}}}: {payload}",
                 f"bus event type={kind}")

    def approval_tool(self) -> str | None:
        return None  # its permission payloads name no tool

    def check_denial(self, s: Session, payload: Mapping[str, Any]) -> None:
        """permission.replied carries no reason."""


LIVE = OpenCodeSpeaker("opencode", ask_honoured=True)
