"""The embedded host's official bridges, end to end: real hook scripts, the real bridge, the real
embedded host and its real tools.

The parametrised tables reproduce the observed verdict tables of the published DSH bridges
(``reference/dsh-bridges-verdicts.md``), translated to host tool names (the bridges translate
nothing, so a matcher ``bash`` is what fires on the host's ``bash``). Where the intended
claude-code literal matcher differs from the published pairing's version-skew defect (✱ cells),
the intended behaviour is pinned.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest

from compat_adapter.errors import MountFailed
from compat_adapter.host.embedded.bridges import PACKAGES, mount
from compat_adapter.host.embedded.bridges.protocol import (
    HookOutput,
    matcher_diagnostic,
    merge_hook_outputs,
    parse_hook_output,
    summarize_stderr,
)
from compat_adapter.host.embedded.memory import MemoryHost
from compat_adapter.host.protocol import PostToolDecision, PreToolDecision, ToolPostEvent
from compat_adapter.host.script import Reply, Subagent, call
from compat_adapter.host.surfaces import CLAUDE_BRIDGE, CODEX_BRIDGE

CLAUDE, CODEX = CLAUDE_BRIDGE, CODEX_BRIDGE
LABEL = {CLAUDE: "hooks-claude-code", CODEX: "hooks-codex"}
BOTH = pytest.mark.parametrize("package", [CLAUDE, CODEX], ids=["claude", "codex"])

# ── the hook script ─────────────────────────────────────────────────────────────────────────────

_HSO = '{{"hookSpecificOutput":{{"hookEventName":"{event}",{body}}}}}'


def _hso(event: str, body: str) -> str:
    return _HSO.format(event=event, body=body)


_MODES: Mapping[str, str] = {
    "deny-json": "out '" + _hso("PreToolUse", '"permissionDecision":"deny","permissionDecisionReason":"json-deny"') + "'",
    "ask-json": "out '" + _hso("PreToolUse", '"permissionDecision":"ask","permissionDecisionReason":"json-ask"') + "'",
    "allow-json": "out '" + _hso("PreToolUse", '"permissionDecision":"allow","permissionDecisionReason":"json-allow"') + "'",
    "wrong-event": "out '" + _hso("PostToolUse", '"permissionDecision":"deny","permissionDecisionReason":"wrong-event"') + "'",
    "top-block": """out '{"decision":"block","reason":"top-level-block"}'""",
    "top-deny": """out '{"decision":"deny","reason":"top-deny"}'""",
    "exit2": "echo stderr-reason-exit2 >&2; exit 2",
    "exit1": "echo exit1-stderr >&2; exit 1",
    "garbage": """out '{"hookSpecificOutput": {"permissionDecision":'""",
    "plain": "out 'plain stdout context'",
    "ctx-json": "out '" + _hso("PostToolUse", '"additionalContext":"post-ctx"') + "'",
    "stop-block": """out '{"decision":"block","reason":"keep going"}'""",
    "updated": "out '" + _hso("PreToolUse", '"permissionDecision":"allow","updatedInput":'
                               '{"command":"touch rewritten.marker"}')[:-1] + ',"systemMessage":"look at me"}' + "'",
    "noop": "exit 0",
    "exit2-empty": "exit 2",
    "exit2-json": "out '" + _hso("PreToolUse", '"permissionDecision":"allow"') + "'; echo exit2-beats-stdout >&2; exit 2",
    "exit3": "exit 3",
    "approve": """out '{"decision":"approve","reason":"approved"}'""",
    "deny-noreason": "out '" + _hso("PreToolUse", '"permissionDecision":"deny"') + "'",
    "ask-noreason": "out '" + _hso("PreToolUse", '"permissionDecision":"ask"') + "'",
    "block-noreason": """out '{"decision":"block"}'""",
    "continue-false": """out '{"continue":false,"stopReason":"halt requested"}'""",
    "pre-ctx": "out '" + _hso("PreToolUse", '"additionalContext":"pre-ctx"') + "'",
    "post-deny": "out '" + _hso("PostToolUse", '"permissionDecision":"deny","permissionDecisionReason":"post-deny"') + "'",
    "ws-json": "printf '   \\n\\t' ; out '" + _hso("PreToolUse", '"permissionDecision":"deny","permissionDecisionReason":"ws-deny"') + "'",
    "json-array": """out '[{"decision":"block","reason":"array"}]'""",
    "hso-noevent": """out '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"hso"}}'""",
    "block-hso-ask": """out '{"decision":"block","reason":"top","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"hso-ask"}}'""",
    "deny-stderr": "echo some-noise >&2; out '" + _hso("PreToolUse", '"permissionDecision":"deny","permissionDecisionReason":"json-deny"') + "'",
    "unicode-deny": "out '" + _hso("PreToolUse", '"permissionDecision":"deny","permissionDecisionReason":"拒绝 ✓ é"') + "'",
    "big-json": """printf '{"pad":"%s",' "$(head -c 70000 /dev/zero | tr '\\000' x)"; """
                """out '"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"big"}}'""",
    "sleep": """sleep 2; out '{"decision":"block","reason":"late"}'""",
    "prompt-ctx": "out '" + _hso("UserPromptSubmit", '"additionalContext":"prompt-ctx"') + "'",
    "session-ctx": "out '" + _hso("SessionStart", '"additionalContext":"session-ctx"') + "'",
    "subagent-ctx": "out '" + _hso("SubagentStart", '"additionalContext":"subagent-ctx"') + "'",
    "stop-once": 'if [ ! -f "$d/stop.once" ]; then : > "$d/stop.once"; echo one-more-step >&2; exit 2; fi',
    "big-stderr": """printf '%0600d' 0 | tr 0 e >&2; exit 1""",
    "hang": 'sleep 30 & echo $! > "$d/child.pid"; echo $$ > "$d/shell.pid"; : > "$d/hang.ready"; wait',
}

_SCRIPT = """#!/bin/sh
d=$(dirname "$0")
mode=$1
out() { printf '%s\\n' "$1"; }
cat > "$d/stdin.$mode"
env > "$d/env.$mode"
pwd > "$d/pwd.$mode"
echo "$mode" >> "$d/runs.log"
case "$mode" in
""" + "".join(f"  {name}) {body} ;;\n" for name, body in _MODES.items()) + """  *) echo "unknown mode $mode" >&2; exit 1 ;;
esac
"""


@dataclass
class Workspace:
    """The session cwd, holding the hook script, its traces and the configs."""

    root: Path

    @property
    def script(self) -> Path:
        return self.root / "hook.sh"

    def hook(self, mode: str, **extra: Any) -> dict[str, Any]:
        if mode == "sleep" and not extra:
            extra = {"timeout": 0.5}
        return {"type": "command", "command": f"{shlex.quote(str(self.script))} {mode}", **extra}

    def group(self, *modes: str, matcher: str | None = None) -> dict[str, Any]:
        group: dict[str, Any] = {"hooks": [self.hook(m) for m in modes]}
        if matcher is not None:
            group["matcher"] = matcher
        return group

    def config(self, events: Mapping[str, Any], *, name: str = "settings.json",
               wrap: bool = True) -> Path:
        path = self.root / name
        path.write_text(json.dumps({"hooks": events} if wrap else events), encoding="utf-8")
        return path

    def runs(self) -> list[str]:
        log = self.root / "runs.log"
        return log.read_text().split() if log.exists() else []

    def stdin(self, mode: str) -> bytes:
        return (self.root / f"stdin.{mode}").read_bytes()

    def payload(self, mode: str) -> dict[str, Any]:
        return json.loads(self.stdin(mode))

    def env(self, mode: str) -> dict[str, str]:
        lines = (self.root / f"env.{mode}").read_text().splitlines()
        return dict(line.split("=", 1) for line in lines if "=" in line)

    def marker(self, name: str = "ran.marker") -> bool:
        return (self.root / name).exists()


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    # Hooks inherit our environment: a CLAUDE_PROJECT_DIR from outside must not leak into them.
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    space = Workspace(tmp_path)
    space.script.write_text(_SCRIPT, encoding="utf-8")
    space.script.chmod(space.script.stat().st_mode | stat.S_IXUSR)
    return space


# ── running a turn ──────────────────────────────────────────────────────────────────────────────

@dataclass
class Run:
    host: MemoryHost
    events: list[tuple[str, dict[str, Any]]]
    reason: str
    steps: int
    inbox_after_create: list[tuple[str, str, str]] = field(default_factory=list)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [data for type_, data in self.events if type_ == kind]

    def tool_results(self) -> list[dict[str, Any]]:
        return self.of("tool/result")

    def hook_messages(self, package: str, step: int | None = None) -> list[str]:
        return [m["text"] for m in self.of("user/message")
                if m["source"]["kind"] == LABEL[package] and (step is None or m["step"] == step)]

    def warnings(self) -> list[str]:
        return [r.message for r in self.host.records if r.level == "warning"]


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_thaw(v) for v in value]
    return value


async def run_turn(ws: Workspace, package: str, events: Mapping[str, Any] | Path, *,
                   script: Sequence[Any] = ("done",), prompt: str = "please run the tests",
                   max_steps: int = 64, approver: Callable[..., Any] | None = None,
                   setup: Callable[[MemoryHost], None] | None = None,
                   source: str = "startup", **mount_options: Any) -> Run:
    config = events if isinstance(events, Path) else ws.config(events)
    async with MemoryHost(ws.root, max_steps_per_turn=max_steps, approver=approver) as host:
        if mount_options:
            await mount(host, package, config, **mount_options)
        else:
            await host.mount_bridge(package, config)
        if setup is not None:
            setup(host)
        agent = await host.create_agent(script=list(script), source=source)  # type: ignore[arg-type]
        inbox = [(part, m.source.kind, m.text) for part, m in agent.inbox]
        result = await agent.run_turn(prompt)
        await host.settle()
        events_ = [(e.type, _thaw(e.data)) for e in agent.session.events]
    return Run(host, events_, result.reason, result.steps, inbox)


def context_text(*contexts: str) -> str:
    # As the published bridges send it: the contexts alone, no notice in front.
    return "\n\n".join(contexts)


# ── tools/pre-execute → PreToolUse ──────────────────────────────────────────────────────────────

UNAVAILABLE = 'tool "bash" requires approval, but no approval channel is available'
ALLOW: tuple[str, str | None] = ("allow", None)


def DENY(reason: str) -> tuple[str, str | None]:  # noqa: N802 - reads like the tables
    return ("deny", reason)


def ASK(reason: str | None = None) -> tuple[str, str | None]:  # noqa: N802
    return ("ask", reason)


async def pre_tool_verdict(ws: Workspace, package: str, groups: Sequence[dict[str, Any]],
                           **options: Any) -> tuple[tuple[str, str | None], Run]:
    """What the host did with one real bash call: allow (it ran), deny (it did not, and the model
    saw ``Error: <reason>``) or ask (approval was asked; with no approver it fails closed)."""
    run = await run_turn(ws, package, {"PreToolUse": list(groups)},
                         script=[call("bash", command="touch ran.marker"), "done"], **options)
    (result,) = run.tool_results()
    asked = run.of("approval/asked")
    if asked:
        if run.of("approval/decided")[0]["outcome"] == "unavailable":
            assert not ws.marker() and result["isError"]
            assert result["text"] == f"Error: {UNAVAILABLE}"
        return ASK(asked[0]["reason"]), run
    if ws.marker():
        assert not result["isError"]
        return ALLOW, run
    assert result["isError"] and result["text"].startswith("Error: ")
    return DENY(result["text"][len("Error: "):]), run


FALLBACK_PRE = "blocked by PreToolUse hook"

PRE_MODES = [
    ("deny-json", ["deny-json"], DENY("json-deny"), DENY("json-deny")),
    ("ask-json", ["ask-json"], ASK("json-ask"), ALLOW),
    ("allow-json", ["allow-json"], ALLOW, ALLOW),
    ("wrong-event", ["wrong-event"], ALLOW, ALLOW),
    ("top-block", ["top-block"], DENY("top-level-block"), DENY("top-level-block")),
    ("top-deny", ["top-deny"], ALLOW, ALLOW),
    ("exit2", ["exit2"], DENY("stderr-reason-exit2"), DENY("stderr-reason-exit2")),
    ("exit1", ["exit1"], ALLOW, ALLOW),
    ("garbage", ["garbage"], ALLOW, ALLOW),
    ("plain", ["plain"], ALLOW, ALLOW),
    ("ctx-json", ["ctx-json"], ALLOW, ALLOW),
    ("stop-block", ["stop-block"], DENY("keep going"), DENY("keep going")),
    ("updated", ["updated"], ALLOW, ALLOW),
    ("sleep", ["sleep"], ALLOW, ALLOW),
    ("noop", ["noop"], ALLOW, ALLOW),
    ("exit2-empty", ["exit2-empty"], DENY(FALLBACK_PRE), DENY(FALLBACK_PRE)),
    ("exit2-json", ["exit2-json"], DENY("exit2-beats-stdout"), DENY("exit2-beats-stdout")),
    ("exit3", ["exit3"], ALLOW, ALLOW),
    ("approve", ["approve"], ALLOW, ALLOW),
    ("deny-noreason", ["deny-noreason"], DENY(FALLBACK_PRE), DENY(FALLBACK_PRE)),
    ("ask-noreason", ["ask-noreason"], ASK(None), ALLOW),
    ("block-noreason", ["block-noreason"], DENY(FALLBACK_PRE), DENY(FALLBACK_PRE)),
    ("continue-false", ["continue-false"], ALLOW, ALLOW),
    ("pre-ctx", ["pre-ctx"], ALLOW, ALLOW),
    ("post-deny", ["post-deny"], ALLOW, ALLOW),
    ("ws-json", ["ws-json"], DENY("ws-deny"), DENY("ws-deny")),
    ("json-array", ["json-array"], ALLOW, ALLOW),
    ("hso-noevent", ["hso-noevent"], ALLOW, ALLOW),
    ("block-hso-ask", ["block-hso-ask"], ASK("hso-ask"), ALLOW),
    ("deny-stderr", ["deny-stderr"], DENY("json-deny"), DENY("json-deny")),
    ("unicode-deny", ["unicode-deny"], DENY("拒绝 ✓ é"), DENY("拒绝 ✓ é")),
    # Our runner keeps the head of oversized output, DSH's the tail: either way it is no JSON.
    ("big-json", ["big-json"], ALLOW, ALLOW),
]

PRE_MERGES = [
    ("deny+ask", ["deny-json", "ask-json"], DENY("json-deny"), DENY("json-deny")),
    ("ask+deny", ["ask-json", "deny-json"], DENY("json-deny"), DENY("json-deny")),
    ("ask+allow", ["ask-json", "allow-json"], ASK("json-ask"), ALLOW),
    ("allow+ask", ["allow-json", "ask-json"], ASK("json-ask"), ALLOW),
    ("allow+exit2", ["allow-json", "exit2"], DENY("stderr-reason-exit2"), DENY("stderr-reason-exit2")),
    ("ctx+deny", ["ctx-json", "deny-json"], DENY("json-deny"), DENY("json-deny")),
    ("prectx+deny", ["pre-ctx", "deny-json"], DENY("json-deny"), DENY("json-deny")),
    ("deny+exit2", ["deny-json", "exit2"], DENY("json-deny\n\nstderr-reason-exit2"),
     DENY("json-deny\n\nstderr-reason-exit2")),
    ("ask+ask-noreason+ask", ["ask-json", "ask-noreason", "ask-json"], ASK("json-ask\n\njson-ask"), ALLOW),
    ("allow+ask+deny+exit2", ["allow-json", "ask-json", "deny-json", "exit2"],
     DENY("json-deny\n\nstderr-reason-exit2"), DENY("json-deny\n\nstderr-reason-exit2")),
    ("deny+noop", ["deny-json", "noop"], DENY("json-deny"), DENY("json-deny")),
    ("deny-noreason+ask", ["deny-noreason", "ask-json"], DENY(FALLBACK_PRE), DENY(FALLBACK_PRE)),
    ("block-noreason+exit2", ["block-noreason", "exit2"], DENY("stderr-reason-exit2"),
     DENY("stderr-reason-exit2")),
    ("approve+ask", ["approve", "ask-json"], ASK("json-ask"), ALLOW),
    ("continue-false+deny", ["continue-false", "deny-json"], DENY("json-deny"), DENY("json-deny")),
    ("exit1+garbage+plain", ["exit1", "garbage", "plain"], ALLOW, ALLOW),
    ("sleep+deny", ["sleep", "deny-json"], DENY("json-deny"), DENY("json-deny")),
]


@pytest.mark.parametrize("case, modes, claude, codex", PRE_MODES + PRE_MERGES,
                         ids=[row[0] for row in PRE_MODES + PRE_MERGES])
@BOTH
async def test_pre_tool_verdict_table(ws: Workspace, package: str, case: str, modes: list[str],
                                      claude: tuple[str, str | None],
                                      codex: tuple[str, str | None]) -> None:
    verdict, _ = await pre_tool_verdict(ws, package, [ws.group(*modes, matcher="")])
    assert verdict == (claude if package == CLAUDE else codex)
    # Every matching hook ran, serially, in config order: no short-circuit after a deny.
    assert ws.runs() == modes


@BOTH
async def test_pre_tool_cross_group_runs_matching_groups_only(ws: Workspace, package: str) -> None:
    groups = [ws.group("deny-noreason", matcher="bash"), ws.group("ask-json", matcher="*"),
              ws.group("exit2", matcher="write")]
    verdict, _ = await pre_tool_verdict(ws, package, groups)
    assert verdict == DENY(FALLBACK_PRE)
    assert ws.runs() == ["deny-noreason", "ask-json"]


async def test_claude_deny_blocks_a_real_bash_call(ws: Workspace) -> None:
    verdict, run = await pre_tool_verdict(ws, CLAUDE, [ws.group("deny-json", matcher="bash")])
    assert verdict == DENY("json-deny")
    assert not ws.marker()  # the command's side effect did not happen
    (result,) = run.tool_results()
    assert result["text"] == "Error: json-deny" and result["isError"]
    # The model took its next step after seeing the error.
    assert run.reason == "completed" and run.steps == 2


async def test_claude_ask_goes_to_approval_and_runs_when_allowed(ws: Workspace) -> None:
    seen = []

    def approver(request: Any) -> str:
        seen.append((request.tool_name, request.reason))
        return "allowed-once"

    verdict, run = await pre_tool_verdict(ws, CLAUDE, [ws.group("ask-json")], approver=approver)
    assert verdict == ASK("json-ask") and ws.marker()
    assert seen == [("bash", "json-ask")]
    assert [d["outcome"] for d in run.of("approval/decided")] == ["allowed-once"]


async def test_claude_ask_fails_closed_without_an_approver(ws: Workspace) -> None:
    verdict, run = await pre_tool_verdict(ws, CLAUDE, [ws.group("ask-json")])
    assert verdict == ASK("json-ask") and not ws.marker()
    assert [d["outcome"] for d in run.of("approval/decided")] == ["unavailable"]
    assert run.tool_results()[0]["text"] == f"Error: {UNAVAILABLE}"


async def test_codex_ask_is_not_honoured(ws: Workspace) -> None:
    verdict, run = await pre_tool_verdict(ws, CODEX, [ws.group("ask-json")])
    assert verdict == ALLOW and ws.marker()
    assert run.of("approval/asked") == []


@BOTH
async def test_allow_does_not_pre_approve(ws: Workspace, package: str) -> None:
    """A hook's allow calls next(): a later policy listener still decides."""
    async def policy(execution: Any, next_: Any) -> PreToolDecision:
        return PreToolDecision("deny", "policy says no")

    verdict, _ = await pre_tool_verdict(ws, package, [ws.group("allow-json")],
                                        setup=lambda host: host.on("tools/pre-execute", policy))
    assert verdict == DENY("policy says no")
    assert ws.runs() == ["allow-json"]


@BOTH
async def test_exit_2_blocks_with_stderr(ws: Workspace, package: str) -> None:
    verdict, run = await pre_tool_verdict(ws, package, [ws.group("exit2", matcher="bash")])
    assert verdict == DENY("stderr-reason-exit2") and not ws.marker()
    (result,) = run.of("hook/result")
    assert result["decision"] == "block" and result["exitCode"] == 2
    assert result["stderrSummary"] == "stderr-reason-exit2"


@BOTH
async def test_permission_decision_without_hook_event_name_has_no_effect(ws: Workspace,
                                                                         package: str) -> None:
    verdict, run = await pre_tool_verdict(ws, package, [ws.group("hso-noevent")])
    assert verdict == ALLOW and ws.marker()
    assert run.of("hook/result")[0]["decision"] == "pass"


@BOTH
async def test_updated_input_is_not_applied(ws: Workspace, package: str) -> None:
    verdict, run = await pre_tool_verdict(ws, package, [ws.group("updated")])
    assert verdict == ALLOW
    assert ws.marker() and not ws.marker("rewritten.marker")
    warnings = run.warnings()
    assert any("systemMessage" in w for w in warnings)
    # Only the Claude bridge says a word about updatedInput (Codex ignores it silently).
    assert any("updatedInput" in w for w in warnings) == (package == CLAUDE)


@BOTH
async def test_a_hook_that_never_reads_stdin_is_fine(ws: Workspace, package: str) -> None:
    verdict, run = await pre_tool_verdict(ws, package, [{"hooks": [{"command": "true"}]}])
    assert verdict == ALLOW
    (result,) = run.of("hook/result")
    assert result["decision"] == "pass" and result["exitCode"] == 0


# ── matchers ────────────────────────────────────────────────────────────────────────────────────

MATCHER_TOOLS = ("Bash", "bash", "BashOutput", "Edit", "Write", "Read", "mcp__fs__read")

# D = the hook ran and denied, · = not run. Claude cells follow the intended literal matcher; the
# published pairing matched `Bash` on BashOutput etc. (its ✱ version-skew defect).
MATCHER_ROWS = [
    (None, "DDDDDDD", "DDDDDDD"),
    ("", "DDDDDDD", "DDDDDDD"),
    ("*", "DDDDDDD", "DDDDDDD"),
    ("Bash", "D······", "D·D····"),
    ("bash", "·D·····", "·D·····"),
    ("Write|Edit", "···DD··", "···DD··"),
    ("Bash.*", "D·D····", "D·D····"),
    ("^bash$", "·D·····", "·D·····"),
    ("mcp__.*", "······D", "······D"),
    ("Ba", "·······", "D·D····"),
    ("Bash|Read", "D····D·", "D·D··D·"),
    ("BASH", "·······", "·······"),
]


@pytest.mark.parametrize("matcher, claude, codex", MATCHER_ROWS,
                         ids=[repr(row[0]) for row in MATCHER_ROWS])
@BOTH
async def test_matcher_table(ws: Workspace, package: str, matcher: str | None, claude: str,
                             codex: str) -> None:
    calls = tuple(call(name, command="true") for name in MATCHER_TOOLS)
    run = await run_turn(ws, package, {"PreToolUse": [ws.group("deny-json", matcher=matcher)]},
                         script=[Reply(calls=calls), "done"])
    results = run.tool_results()
    assert [r["name"] for r in results] == list(MATCHER_TOOLS)
    cells = "".join("D" if r["text"] == "Error: json-deny" else "·" for r in results)
    assert cells == (claude if package == CLAUDE else codex)
    assert len(ws.runs()) == cells.count("D")
    # The hook receives the host's tool name untranslated.
    if "D" in cells:
        assert ws.payload("deny-json")["tool_name"] in MATCHER_TOOLS


@BOTH
async def test_vendor_tool_name_does_not_match_host_tool(ws: Workspace, package: str) -> None:
    verdict, _ = await pre_tool_verdict(ws, package, [ws.group("deny-json", matcher="Bash")])
    assert verdict == ALLOW and ws.marker() and ws.runs() == []
    ws.root.joinpath("ran.marker").unlink()
    verdict, _ = await pre_tool_verdict(ws, package, [ws.group("deny-json", matcher="bash")])
    assert verdict == DENY("json-deny") and not ws.marker()


# ── config handling ─────────────────────────────────────────────────────────────────────────────

def _load_warning(run: Run) -> list[str]:
    return [w for w in run.warnings() if "could not load hook config" in w]


@pytest.mark.parametrize("matcher", ["(", "*Bash"])
@BOTH
async def test_invalid_regex_rejects_the_whole_config(ws: Workspace, package: str,
                                                      matcher: str) -> None:
    events = {
        "PreToolUse": [ws.group("deny-json", matcher=matcher), ws.group("deny-json", matcher="bash")],
        "PostToolUse": [ws.group("post-deny", matcher="bash")],
        "Stop": [ws.group("stop-block")],
    }
    run = await run_turn(ws, package, events,
                         script=[call("bash", command="touch ran.marker"), "done"])
    assert ws.marker() and ws.runs() == []
    assert run.tool_results()[0]["isError"] is False  # post-execute accepted too
    assert run.reason == "completed" and run.steps == 2  # no Stop steering
    dialect = "claude-code" if package == CLAUDE else "codex"
    (warning,) = _load_warning(run)
    assert f"invalid {dialect} regex matcher {json.dumps(matcher)} on event \"PreToolUse\"" in warning
    assert warning.endswith("— no hooks registered")
    assert run.host.listener_count("tools/pre-execute") == 0
    assert run.of("hook/invoked") == []


CONFIG_ROWS = [
    # case, events builder, claude verdict, codex verdict
    ("invalid-regex.on-stop-group",
     lambda ws: {"Stop": [ws.group("noop", matcher="(")], "PreToolUse": [ws.group("deny-json")]},
     DENY("json-deny"), DENY("json-deny")),
    ("invalid-regex.on-Notification",
     lambda ws: {"Notification": [ws.group("noop", matcher="(")], "PreToolUse": [ws.group("deny-json")]},
     DENY("json-deny"), DENY("json-deny")),
    ("invalid-regex.on-SubagentStart",
     lambda ws: {"SubagentStart": [ws.group("noop", matcher="(")], "PreToolUse": [ws.group("deny-json")]},
     ALLOW, DENY("json-deny")),
    ("invalid-regex.empty-group",
     lambda ws: {"PreToolUse": [{"matcher": "(", "hooks": []}, ws.group("deny-json")]},
     DENY("json-deny"), DENY("json-deny")),
    ("type-missing",
     lambda ws: {"PreToolUse": [{"hooks": [{"command": ws.hook("deny-json")["command"]}]}]},
     DENY("json-deny"), DENY("json-deny")),
    ("type-prompt-skipped",
     lambda ws: {"PreToolUse": [{"hooks": [{"type": "prompt", "prompt": "deny it"},
                                           ws.hook("ask-json")]}]},
     ASK("json-ask"), ALLOW),
    ("async-hook",
     lambda ws: {"PreToolUse": [{"hooks": [ws.hook("deny-json", **{"async": True})]}]},
     DENY("json-deny"), ALLOW),
    ("missing-command",
     lambda ws: {"PreToolUse": [{"hooks": [{"type": "command", "command": str(ws.root / "nope.sh")}]}]},
     ALLOW, ALLOW),
    ("project-dir-placeholder",
     lambda ws: {"PreToolUse": [{"hooks": [{"type": "command",
                                            "command": "${CLAUDE_PROJECT_DIR}/hook.sh deny-json"}]}]},
     DENY("json-deny"), ALLOW),
]


@pytest.mark.parametrize("case, build, claude, codex", CONFIG_ROWS, ids=[r[0] for r in CONFIG_ROWS])
@BOTH
async def test_config_handling_table(ws: Workspace, package: str, case: str,
                                     build: Callable[[Workspace], dict[str, Any]],
                                     claude: tuple[str, str | None],
                                     codex: tuple[str, str | None]) -> None:
    run = await run_turn(ws, package, build(ws),
                         script=[call("bash", command="touch ran.marker"), "done"])
    (result,) = run.tool_results()
    asked = run.of("approval/asked")
    if asked:
        verdict = ASK(asked[0]["reason"])
    elif ws.marker():
        verdict = ALLOW
    else:
        verdict = DENY(result["text"][len("Error: "):])
    assert verdict == (claude if package == CLAUDE else codex)
    warnings = run.warnings()
    if case == "type-prompt-skipped":
        runs_only = "only command hooks run" if package == CLAUDE else "only sync command hooks run"
        assert f'skipping unsupported "prompt" hook on PreToolUse ({runs_only})' in " ".join(warnings)
    if case == "async-hook" and package == CODEX:
        assert any("skipping async hook on PreToolUse" in w for w in warnings)
    if case == "invalid-regex.on-Notification":
        assert any('ignoring unsupported event "Notification"' in w for w in warnings)


@BOTH
async def test_bare_event_map(ws: Workspace, package: str) -> None:
    path = ws.config({"PreToolUse": [ws.group("deny-json")]}, wrap=False)
    run = await run_turn(ws, package, path, script=[call("bash", command="touch ran.marker")])
    assert run.tool_results()[0]["text"] == "Error: json-deny" and not ws.marker()


@pytest.mark.parametrize("content", [None, "", "{not json", "[]", '{"hooks": []}',
                                     '{"hooks": {"PreToolUse": {"matcher": "x"}}}'])
@BOTH
async def test_unloadable_config_registers_nothing(ws: Workspace, package: str,
                                                   content: str | None) -> None:
    path = ws.root / "settings.json"
    if content is not None:
        path.write_text(content)
    async with MemoryHost(ws.root) as host:
        mounted = await host.mount_bridge(package, path)
        assert mounted.package == package and mounted.config_path == path
        assert not mounted.loaded  # type: ignore[attr-defined]
        assert all(host.listener_count(seam) == 0 for seam in host.surface.seams)
        (warning,) = [r for r in host.records if "could not load hook config" in r.message]
        assert warning.level == "warning"
        assert warning.message.startswith(f'{LABEL[package]}: could not load hook config "{path}"')


@BOTH
async def test_config_is_read_once_at_mount(ws: Workspace, package: str) -> None:
    path = ws.config({"PreToolUse": [ws.group("deny-json")]})

    def rewrite(host: MemoryHost) -> None:
        path.write_text(json.dumps({"hooks": {}}))

    run = await run_turn(ws, package, path, script=[call("bash", command="touch ran.marker")],
                         setup=rewrite)
    assert run.tool_results()[0]["text"] == "Error: json-deny"


@BOTH
async def test_unsupported_events_are_ignored_with_a_warning(ws: Workspace, package: str) -> None:
    events = {"Notification": [ws.group("noop")], "PreCompact": [ws.group("noop")],
              "PreToolUse": [ws.group("noop")]}
    run = await run_turn(ws, package, events, script=[call("bash", command="true")])
    ignored = [w for w in run.warnings() if "ignoring unsupported event" in w]
    assert len(ignored) == 2 and all(w.startswith(LABEL[package]) for w in ignored)
    assert ws.runs() == ["noop"]


async def test_unknown_package_raises_mount_failed(ws: Workspace) -> None:
    async with MemoryHost(ws.root) as host:
        with pytest.raises(MountFailed):
            await mount(host, "@deepseek-ai/dsh-hooks-gemini", ws.config({}))
    assert set(PACKAGES) == {CLAUDE, CODEX}


async def test_claude_project_dir_option_substitutes_and_exports(ws: Workspace) -> None:
    project = ws.root / "project"
    project.mkdir()
    # A forwarder: the real script keeps its traces next to itself.
    forwarder = project / "hook.sh"
    forwarder.write_text(f'#!/bin/sh\nexec {shlex.quote(str(ws.script))} "$@"\n')
    forwarder.chmod(0o755)
    events = {"PreToolUse": [{"hooks": [{"command": "${CLAUDE_PROJECT_DIR}/hook.sh deny-json"}]}]}
    await run_turn(ws, CLAUDE, events, script=[call("bash", command="touch ran.marker")],
                   project_dir=project)
    assert ws.runs() == ["deny-json"] and not ws.marker()
    assert ws.env("deny-json")["CLAUDE_PROJECT_DIR"] == str(project)


# ── timeouts ────────────────────────────────────────────────────────────────────────────────────

@BOTH
async def test_timeouts_fail_open(ws: Workspace, package: str) -> None:
    verdict, run = await pre_tool_verdict(ws, package, [ws.group("sleep")])
    assert verdict == ALLOW and ws.marker()
    (result,) = run.of("hook/result")
    assert result["decision"] == "pass" and "exitCode" not in result


@BOTH
async def test_default_timeout_option_applies_to_hooks_without_their_own(ws: Workspace,
                                                                         package: str) -> None:
    group = {"hooks": [{"command": ws.hook("sleep")["command"]}]}  # no timeout of its own
    verdict, _ = await pre_tool_verdict(ws, package, [group], default_timeout_s=0.5)
    assert verdict == ALLOW


@BOTH
async def test_timeout_sec_field_is_codex_only(ws: Workspace, package: str) -> None:
    group = {"hooks": [ws.hook("sleep", timeoutSec=0.5)]}
    verdict, _ = await pre_tool_verdict(ws, package, [group])
    # Claude reads only `timeout`, so the hook finishes and its late block counts.
    assert verdict == (DENY("late") if package == CLAUDE else ALLOW)


# ── tools/post-execute → PostToolUse ────────────────────────────────────────────────────────────

FALLBACK_POST = "blocked by PostToolUse hook"

POST_ROWS = [
    ("ctx-json", ["ctx-json"], None, ["post-ctx"]),
    ("exit2", ["exit2"], "stderr-reason-exit2", []),
    ("top-block", ["top-block"], "top-level-block", []),
    ("plain", ["plain"], None, []),
    ("deny-json", ["deny-json"], None, []),
    ("post-deny", ["post-deny"], "post-deny", []),
    ("exit1", ["exit1"], None, []),
    ("garbage", ["garbage"], None, []),
    ("noop", ["noop"], None, []),
    ("exit2-empty", ["exit2-empty"], FALLBACK_POST, []),
    ("block-noreason", ["block-noreason"], FALLBACK_POST, []),
    ("continue-false", ["continue-false"], None, []),
    ("pre-ctx", ["pre-ctx"], None, []),
    ("approve", ["approve"], None, []),
    ("stop-block", ["stop-block"], "keep going", []),
    ("ask-json", ["ask-json"], None, []),
    ("ctx+exit2", ["ctx-json", "exit2"], "stderr-reason-exit2", ["post-ctx"]),
    ("ctx+top-block", ["ctx-json", "top-block"], "top-level-block", ["post-ctx"]),
    ("ctx+ctx", ["ctx-json", "ctx-json"], None, ["post-ctx", "post-ctx"]),
    ("ctx+deny-json", ["ctx-json", "deny-json"], None, ["post-ctx"]),
    ("plain+ctx", ["plain", "ctx-json"], None, ["post-ctx"]),
    ("exit2+post-deny", ["exit2", "post-deny"], "stderr-reason-exit2\n\npost-deny", []),
    ("sleep", ["sleep"], None, []),
]


@pytest.mark.parametrize("case, modes, block, contexts", POST_ROWS, ids=[r[0] for r in POST_ROWS])
@BOTH
async def test_post_tool_verdict_table(ws: Workspace, package: str, case: str, modes: list[str],
                                       block: str | None, contexts: list[str]) -> None:
    run = await run_turn(ws, package, {"PostToolUse": [ws.group(*modes, matcher="bash")]},
                         script=[call("bash", command="echo tool said hi"), "done"])
    (result,) = run.tool_results()
    if block is None:
        assert result == {**result, "isError": False, "text": "tool said hi"}
    else:
        assert result == {**result, "isError": True, "text": block}
    # Several contexts make one message with one block per context, in the next step.
    expected = [context_text(*contexts)] if contexts else []
    assert run.hook_messages(package) == expected
    assert run.hook_messages(package, step=2) == expected
    assert ws.runs() == modes


@BOTH
async def test_post_tool_matcher_narrows(ws: Workspace, package: str) -> None:
    run = await run_turn(ws, package, {"PostToolUse": [ws.group("post-deny", matcher="write|edit")]},
                         script=[call("bash", command="echo tool said hi")])
    assert run.tool_results()[0]["text"] == "tool said hi" and ws.runs() == []


@BOTH
async def test_post_tool_context_goes_before_downstream_contexts(ws: Workspace,
                                                                 package: str) -> None:
    from compat_adapter.host.protocol import new_message

    async def downstream(event: ToolPostEvent, next_: Any) -> PostToolDecision:
        return PostToolDecision("accept", additional_contexts=(new_message("downstream-ctx", "test"),))

    run = await run_turn(ws, package, {"PostToolUse": [ws.group("ctx-json")]},
                         script=[call("bash", command="echo tool said hi"), "done"],
                         setup=lambda host: host.on("tools/post-execute", downstream))
    texts = [m["text"] for m in run.of("user/message") if m["step"] == 2]
    assert texts == [context_text("post-ctx"), "downstream-ctx"]


@BOTH
async def test_post_tool_context_is_kept_on_a_downstream_block(ws: Workspace, package: str) -> None:
    async def downstream(event: ToolPostEvent, next_: Any) -> PostToolDecision:
        return PostToolDecision("block", feedback="downstream-block")

    run = await run_turn(ws, package, {"PostToolUse": [ws.group("ctx-json")]},
                         script=[call("bash", command="echo tool said hi"), "done"],
                         setup=lambda host: host.on("tools/post-execute", downstream))
    assert run.tool_results()[0]["text"] == "downstream-block"
    assert run.hook_messages(package) == [context_text("post-ctx")]


async def test_post_tool_block_stops_the_chain(ws: Workspace) -> None:
    calls: list[str] = []

    async def downstream(event: ToolPostEvent, next_: Any) -> PostToolDecision:
        calls.append(event.execution.name)
        return await next_()

    run = await run_turn(ws, CLAUDE, {"PostToolUse": [ws.group("exit2")]},
                         script=[call("bash", command="echo tool said hi")],
                         setup=lambda host: host.on("tools/post-execute", downstream))
    assert run.tool_results()[0]["text"] == "stderr-reason-exit2" and calls == []


# ── agent/turn-stopping → Stop ──────────────────────────────────────────────────────────────────

STOP_FALLBACK = "continue: blocked by Stop hook"

STOP_ROWS = [
    ("stop-block", ["stop-block"], "keep going", None),
    ("exit2", ["exit2"], "stderr-reason-exit2", None),
    ("plain", ["plain"], None, None),
    ("noop", ["noop"], None, None),
    ("exit2-empty", ["exit2-empty"], STOP_FALLBACK, None),
    ("block-noreason", ["block-noreason"], STOP_FALLBACK, None),
    ("deny-json", ["deny-json"], None, None),
    ("continue-false", ["continue-false"], None, None),
    ("exit1", ["exit1"], None, None),
    ("top-deny", ["top-deny"], None, None),
    ("stop-block+exit2", ["stop-block", "exit2"], "keep going\n\nstderr-reason-exit2", None),
    ("matcher-ignored", ["stop-block"], "keep going", "write"),
]


@pytest.mark.parametrize("case, modes, steer, matcher", STOP_ROWS, ids=[r[0] for r in STOP_ROWS])
@BOTH
async def test_stop_verdict_table(ws: Workspace, package: str, case: str, modes: list[str],
                                  steer: str | None, matcher: str | None) -> None:
    run = await run_turn(ws, package, {"Stop": [ws.group(*modes, matcher=matcher)]},
                         script=["done"], max_steps=2)
    if steer is None:
        assert run.reason == "completed" and run.steps == 1
        assert run.hook_messages(package) == []
    else:
        # The steer forced another step in the same turn; the hook blocks again and only the
        # host's step cap ends the turn.
        assert run.reason == "max-steps" and run.steps == 2
        assert run.hook_messages(package, step=2) == [context_text(steer)]
    assert ws.runs()[:len(modes)] == modes


@BOTH
async def test_always_blocking_stop_hook_has_no_cap_but_the_hosts(ws: Workspace,
                                                                  package: str) -> None:
    run = await run_turn(ws, package, {"Stop": [ws.group("stop-block")]}, script=["done"],
                         max_steps=12)
    assert run.reason == "max-steps" and run.steps == 12
    # Claude Code would give up after 8 consecutive blocks; the bridge keeps steering.
    # Stop fired after every one of the 12 steps; the 12th steer is left for a step never taken.
    assert ws.runs().count("stop-block") == 12
    assert len(run.hook_messages(package)) == 11
    payload = ws.payload("stop-block")
    assert payload["stop_hook_active"] is False


@BOTH
async def test_stop_block_once_continues_then_completes(ws: Workspace, package: str) -> None:
    run = await run_turn(ws, package, {"Stop": [ws.group("stop-once")]},
                         script=["first answer", "second answer"])
    assert run.reason == "completed" and run.steps == 2
    assert run.hook_messages(package, step=2) == [context_text("one-more-step")]
    decisions = [r["decision"] for r in run.of("hook/result")]
    assert decisions == ["block", "pass"]


# ── agent/pre-step → UserPromptSubmit ───────────────────────────────────────────────────────────

PROMPT_ROWS = [
    ("plain", ["plain"], "enter", [], ["plain stdout context"]),
    ("prompt-ctx", ["prompt-ctx"], "enter", ["prompt-ctx"], ["prompt-ctx"]),
    ("exit2", ["exit2"], "reject", [], []),
    ("top-block", ["top-block"], "reject", [], []),
    ("deny-json", ["deny-json"], "enter", [], []),
    ("noop", ["noop"], "enter", [], []),
]


@pytest.mark.parametrize("case, modes, kind, claude_ctx, codex_ctx", PROMPT_ROWS,
                         ids=[r[0] for r in PROMPT_ROWS])
@BOTH
async def test_user_prompt_submit_table(ws: Workspace, package: str, case: str, modes: list[str],
                                        kind: str, claude_ctx: list[str],
                                        codex_ctx: list[str]) -> None:
    run = await run_turn(ws, package, {"UserPromptSubmit": [ws.group(*modes, matcher="ignored(")]},
                         script=[call("bash", command="true"), "done"])
    assert ws.runs() == modes  # once: the tool-continuation step has no messages
    assert ws.payload(modes[0])["prompt"] == "please run the tests"
    if kind == "reject":
        assert run.reason == "blocked" and run.steps == 0
        assert run.of("step/start") == [] and run.of("user/message") == []
        return
    contexts = claude_ctx if package == CLAUDE else codex_ctx
    texts = [m["text"] for m in run.of("user/message") if m["step"] == 1]
    assert texts == ["please run the tests", *([context_text(*contexts)] if contexts else [])]


# ── agent/created → SessionStart ────────────────────────────────────────────────────────────────

SESSION_ROWS = [
    ("plain", ["plain"], None, [], ["plain stdout context"]),
    ("session-ctx", ["session-ctx"], None, ["session-ctx"], ["session-ctx"]),
    ("exit2", ["exit2"], None, [], []),
    ("noop", ["noop"], None, [], []),
    ("matcher.resume", ["session-ctx"], "resume", [], []),
    ("matcher.startup", ["session-ctx"], "startup", ["session-ctx"], ["session-ctx"]),
]


@pytest.mark.parametrize("case, modes, matcher, claude_ctx, codex_ctx", SESSION_ROWS,
                         ids=[r[0] for r in SESSION_ROWS])
@BOTH
async def test_session_start_table(ws: Workspace, package: str, case: str, modes: list[str],
                                   matcher: str | None, claude_ctx: list[str],
                                   codex_ctx: list[str]) -> None:
    run = await run_turn(ws, package, {"SessionStart": [ws.group(*modes, matcher=matcher)]})
    contexts = claude_ctx if package == CLAUDE else codex_ctx
    # Awaited on agent/created: the context is in the inbox as soon as creation returns.
    expected = [("inject", LABEL[package], context_text(*contexts))] if contexts else []
    assert run.inbox_after_create == expected
    texts = [m["text"] for m in run.of("user/message") if m["step"] == 1]
    assert texts == [*([context_text(*contexts)] if contexts else []), "please run the tests"]
    assert ws.runs() == ([] if matcher == "resume" else modes)
    # Detached points write no hook/* records.
    assert run.of("hook/invoked") == [] and run.of("hook/result") == []


@BOTH
async def test_session_start_payload_and_source(ws: Workspace, package: str) -> None:
    run = await run_turn(ws, package, {"SessionStart": [ws.group("noop", matcher="resume")]},
                         source="resume")
    assert ws.runs() == ["noop"]
    payload = ws.payload("noop")
    assert payload["source"] == "resume" and payload["hook_event_name"] == "SessionStart"
    assert "turn_id" not in payload
    assert payload["session_id"] == run.host.sessions[0].id


# ── subagents (Claude only) ─────────────────────────────────────────────────────────────────────

async def test_subagent_start_context_reaches_the_child_and_stop_observes(ws: Workspace) -> None:
    events = {"SubagentStart": [ws.group("subagent-ctx", matcher="general-purpose")],
              "SubagentStop": [ws.group("exit2")]}
    config = ws.config(events)
    async with MemoryHost(ws.root) as host:
        await host.mount_bridge(CLAUDE, config)
        parent = await host.create_agent(script=[Subagent(script=["child done"], prompt="sub task"),
                                                 "parent done"])
        result = await parent.run_turn("delegate")
        await host.settle()
        child_sessions = [s for s in host.sessions if s is not parent.session]
    assert result.reason == "completed"
    (child,) = child_sessions
    texts = [e.data["text"] for e in child.events if e.type == "user/message"]
    assert texts == [context_text("subagent-ctx"), "sub task"]
    assert ws.runs() == ["subagent-ctx", "exit2"]
    start, stop = ws.payload("subagent-ctx"), ws.payload("exit2")
    assert start["agent_type"] == stop["agent_type"] == "general-purpose"
    assert start["session_id"] == child.id and start["agent_id"] == stop["agent_id"]
    assert stop["stop_hook_active"] is False and stop["hook_event_name"] == "SubagentStop"
    # SubagentStop is observe-only and both points are detached: no records, parent unaffected.
    assert all(e.type not in ("hook/invoked", "hook/result") for e in child.events)
    assert all(e.type not in ("hook/invoked", "hook/result") for e in parent.session.events)


async def test_codex_has_no_subagent_points(ws: Workspace) -> None:
    run = await run_turn(ws, CODEX, {"SubagentStart": [ws.group("subagent-ctx")]},
                         script=[Subagent(script=["child done"]), "done"])
    assert ws.runs() == []
    assert any('ignoring unsupported event "SubagentStart"' in w for w in run.warnings())


# ── payloads and environment ────────────────────────────────────────────────────────────────────

def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@BOTH
async def test_pre_tool_payload_bytes(ws: Workspace, package: str) -> None:
    arguments = {"command": 'echo "héllo ✓" && true', "timeout": 5, "nested": {"a": [1, 2]}}
    run = await run_turn(ws, package, {"PreToolUse": [ws.group("noop")]},
                         script=[call("bash", call_id="call_7", **arguments), "done"])
    session_id = run.host.sessions[0].id
    cwd = str(ws.root)
    if package == CLAUDE:
        expected = _compact({"session_id": session_id, "transcript_path": "", "cwd": cwd,
                             "hook_event_name": "PreToolUse", "tool_name": "bash",
                             "tool_input": arguments, "tool_use_id": "call_7"}) + "\n"
    else:
        expected = _compact({"session_id": session_id, "transcript_path": None, "cwd": cwd,
                             "hook_event_name": "PreToolUse", "model": "",
                             "permission_mode": "default", "turn_id": "1", "tool_name": "bash",
                             "tool_input": {"command": arguments["command"]},
                             "tool_use_id": "call_7"})
    assert ws.stdin("noop") == expected.encode("utf-8")


@BOTH
async def test_post_tool_and_stop_and_prompt_payloads(ws: Workspace, package: str) -> None:
    events = {"PostToolUse": [ws.group("noop")], "Stop": [ws.group("exit1")],
              "UserPromptSubmit": [ws.group("plain")]}
    await run_turn(ws, package, events, script=[call("bash", command="echo tool said hi"), "done"],
                   model="gpt-5-codex" if package == CODEX else "")
    post, stop, prompt = ws.payload("noop"), ws.payload("exit1"), ws.payload("plain")
    assert post["tool_response"] == "tool said hi"
    assert prompt["prompt"] == "please run the tests"
    assert stop["stop_hook_active"] is False
    if package == CODEX:
        assert post["model"] == stop["model"] == "gpt-5-codex"
        assert list(stop)[-2:] == ["stop_hook_active", "last_assistant_message"]
        assert stop["last_assistant_message"] is None and stop["turn_id"] == "1"
        assert list(post)[-1] == "tool_response"
    else:
        assert list(stop) == ["session_id", "transcript_path", "cwd", "hook_event_name",
                              "stop_hook_active"]


@BOTH
async def test_codex_flattens_non_string_commands(ws: Workspace, package: str) -> None:
    await run_turn(ws, package, {"PreToolUse": [ws.group("noop")]},
                   script=[call("write", path="x.txt", content="x"), "done"])
    tool_input = ws.payload("noop")["tool_input"]
    if package == CODEX:
        assert tool_input == {"command": ""}
    else:
        assert tool_input == {"path": "x.txt", "content": "x"}


@BOTH
async def test_hook_environment_and_cwd(ws: Workspace, package: str,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FOO_TOKEN", "secret")
    monkeypatch.setenv("MY_API_KEY", "secret")
    monkeypatch.setenv("DSH_PROBE", "host-setting")
    monkeypatch.setenv("PLAIN_PROBE", "kept")
    await run_turn(ws, package, {"PreToolUse": [ws.group("noop")]},
                   script=[call("bash", command="true"), "done"])
    env = ws.env("noop")
    assert env["PLAIN_PROBE"] == "kept"
    assert not {"FOO_TOKEN", "MY_API_KEY", "DSH_PROBE"} & set(env)
    assert env["NO_COLOR"] == "1" and env["TERM"] == "dumb" and env["PAGER"] == "cat"
    if package == CLAUDE:
        assert env["CLAUDE_PROJECT_DIR"] == str(ws.root)
    else:
        assert "CLAUDE_PROJECT_DIR" not in env
    assert (ws.root / "pwd.noop").read_text().strip() == str(ws.root)


# ── hook/* records ──────────────────────────────────────────────────────────────────────────────

@BOTH
async def test_hook_records_are_paired_inside_the_turn(ws: Workspace, package: str) -> None:
    events = {"SessionStart": [ws.group("session-ctx")],
              "UserPromptSubmit": [ws.group("noop")],
              "PreToolUse": [ws.group("allow-json", "big-stderr", matcher="bash")],
              "PostToolUse": [ws.group("ctx-json", matcher="bash")],
              "Stop": [ws.group("continue-false")]}
    run = await run_turn(ws, package, events,
                         script=[call("bash", command="echo tool said hi"), "done"])
    dialect = "claude-code" if package == CLAUDE else "codex"
    types = [t for t, _ in run.events]
    start, end = types.index("turn/start"), types.index("turn/end")
    hooks = [(i, t, d) for i, (t, d) in enumerate(run.events) if t.startswith("hook/")]
    assert hooks and all(start < i < end for i, _, _ in hooks)
    # Pairs: each invoked is immediately followed by its result.
    invoked = [(i, d) for i, t, d in hooks if t == "hook/invoked"]
    for i, data in invoked:
        kind, result = run.events[i + 1]
        assert kind == "hook/result" and result["handlerId"] == data["handlerId"]
        assert result["turn"] == data["turn"] == 1 and result["point"] == data["point"]
        assert data["dialect"] == dialect
        assert data["handlerId"].startswith(f"{dialect}:{data['point']}:")
        assert result["durationMs"] >= 0
    points = [d["point"] for _, d in invoked]
    # The post-tool context is a message of step 2's batch, so UserPromptSubmit fires again there
    # (the bridges skip only steps without messages).
    assert points == ["UserPromptSubmit", "PreToolUse", "PreToolUse", "PostToolUse",
                      "UserPromptSubmit", "Stop"]
    by_point = {d["point"]: d for _, d in invoked}
    assert by_point["PreToolUse"]["matcher"] == "bash"
    assert "matcher" not in by_point["Stop"] and "matcher" not in by_point["UserPromptSubmit"]
    results = [d for _, t, d in hooks if t == "hook/result"]
    assert [r["decision"] for r in results] == ["pass", "allow", "pass", "pass", "pass", "stop"]
    big = results[2]
    assert big["exitCode"] == 1 and big["stderrSummary"] == "e" * 500 + "…"
    # Placement: UserPromptSubmit before step/start, tool points between tool/call and
    # tool/result, Stop after the last step/end.
    first_step = types.index("step/start")
    assert invoked[0][0] < first_step
    assert types.index("tool/call") < invoked[1][0] < invoked[3][0] < types.index("tool/result")
    assert invoked[4][0] < types.index("step/start", invoked[3][0])
    last_step_end = len(types) - 1 - types[::-1].index("step/end")
    assert last_step_end < invoked[5][0]
    # SessionStart ran (its context is there) but wrote nothing.
    assert "SessionStart" not in points and run.hook_messages(package, step=1)


# ── unmount ─────────────────────────────────────────────────────────────────────────────────────

def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return True
    return state == "Z"


@BOTH
async def test_unmount_removes_listeners(ws: Workspace, package: str) -> None:
    events = {"PreToolUse": [ws.group("deny-json")], "PostToolUse": [ws.group("noop")],
              "Stop": [ws.group("noop")], "UserPromptSubmit": [ws.group("noop")],
              "SessionStart": [ws.group("noop")]}
    async with MemoryHost(ws.root) as host:
        mounted = await host.mount_bridge(package, ws.config(events))
        seams = ("tools/pre-execute", "tools/post-execute", "agent/turn-stopping",
                 "agent/pre-step", "agent/created")
        assert [host.listener_count(s) for s in seams] == [1] * 5
        await mounted.unmount()
        assert [host.listener_count(s) for s in seams] == [0] * 5
        agent = await host.create_agent(script=[call("bash", command="touch ran.marker"), "done"])
        await agent.run_turn("go")
    assert ws.marker() and ws.runs() == []


@BOTH
async def test_unmount_kills_an_in_flight_session_start_hook(ws: Workspace, package: str) -> None:
    config = ws.config({"SessionStart": [ws.group("hang")]})
    async with MemoryHost(ws.root) as host:
        mounted = await host.mount_bridge(package, config)
        created: list[Any] = []

        async def create() -> None:
            created.append(await host.create_agent(script=["done"]))

        async with anyio.create_task_group() as tg:
            tg.start_soon(create)
            with anyio.fail_after(20):
                while not (ws.root / "hang.ready").exists():
                    await anyio.sleep(0.02)
            pids = [int((ws.root / name).read_text()) for name in ("shell.pid", "child.pid")]
            await mounted.unmount()
        # Creation finished (the serial listener returned) and no hook process is left.
        assert len(created) == 1 and created[0].inbox == ()
        with anyio.move_on_after(10):
            while not all(_gone(pid) for pid in pids):
                await anyio.sleep(0.02)
        survivors = [pid for pid in pids if not _gone(pid)]
        for pid in survivors:
            os.kill(pid, signal.SIGKILL)
        assert survivors == []


# ── the protocol library, directly ──────────────────────────────────────────────────────────────

def test_codec_edges() -> None:
    exit2 = parse_hook_output(2, '{"decision":"approve"}', "  why  \n", "PreToolUse")
    assert (exit2.decision, exit2.reason) == ("block", "why")
    assert parse_hook_output(0, '{"decision":"allow"}', "", "PreToolUse").decision is None
    assert parse_hook_output(None, "", "boom", "PreToolUse") == HookOutput(None, "", "boom")
    wrong = parse_hook_output(0, json.dumps({"hookSpecificOutput": {
        "hookEventName": "PostToolUse", "additionalContext": "x",
        "updatedInput": {"a": 1}}}), "", "PreToolUse")
    assert wrong.hook_event_name == "PostToolUse" and wrong.additional_context is None
    assert wrong.updated_input is None


def test_merge_and_summary() -> None:
    merged = merge_hook_outputs([
        HookOutput(0, "", "", decision="ask", reason="a"),
        HookOutput(0, "", "", proceed=False, stop_reason="first"),
        HookOutput(0, "", "", proceed=False, stop_reason="second"),
        HookOutput(0, "", "", additional_context="c1"),
        HookOutput(0, "", "", decision="allow", reason="ignored", additional_context="c2"),
    ])
    assert (merged.decision, merged.reason) == ("ask", "a")
    assert (merged.stop, merged.stop_reason) == (True, "first")
    assert merged.additional_context == ("c1", "c2")
    assert merge_hook_outputs([]).decision == "none"
    assert summarize_stderr("  \n") is None
    assert summarize_stderr("x" * 501) == "x" * 500 + "…"


def test_matcher_diagnostics() -> None:
    assert matcher_diagnostic("Bash|Read", "claude-code") is None
    assert matcher_diagnostic("(", "claude-code") is not None
    assert matcher_diagnostic("(", "codex") is not None
    assert matcher_diagnostic("*", "codex") is None
    assert matcher_diagnostic("*Bash", "codex") is not None
