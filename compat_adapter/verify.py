"""Live verification: every vendor row, end to end, on the embedded host with a real hook.

For one row, :func:`verify_row` makes a fresh temporary git repository (one commit, identity set in
the repository's own config), boots a :class:`~compat_adapter.host.embedded.memory.MemoryHost` on it, creates
a :class:`~compat_adapter.service.CompatAdapter` and registers ONE command hook: a small shell
script that records every stdin payload it gets to a file and prints an answer written in the
row's vendor dialect. It then drives the session until the row's seam fires and checks two things:

* the hook really ran, and its payload speaks the vendor's dialect (Claude ``hook_event_name``,
  Copilot camelCase ``toolName`` with ``toolArgs`` as a JSON string, OpenCode ``{hook, input,
  output}`` …, with the vendor's stdin framing);
* the answer had the effect the row promises: a deny blocks (no side effect, the reason is in the
  tool result the model reads), an ask reaches the host's approval and fails closed without an
  approver, a permission allow turns an approval into allowed-once, context reaches the session
  log as a user message (the child's log for subagent starts), a stop block forces another step of
  the same turn, an observe-only row runs the hook while a blocking answer is audited as not
  honoured and blocks nothing, and the service rows fire for real (a file written from outside, a
  ``git worktree add``, a turn that writes a ``.py`` file, a ``DSH_*`` variable in the shell).

Each check returns a frozen :class:`RowCheck`. :func:`verify_all` runs every row, two at a time.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import tempfile
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from compat_adapter.catalog import resolve_event, resolve_vendor
from compat_adapter.host.embedded.memory import MemoryHost
from compat_adapter.host.protocol import (
    ApprovalOutcome,
    ApprovalRequest,
    AskUserQuestionAnswer,
    PreToolDecision,
    QuestionAnswer,
    ToolExecution,
    UserQuestionsRequest,
)
from compat_adapter.host.script import Error, Reply, Subagent, SwitchModel, call
from compat_adapter.model import Capability, EventRow, Route, VendorSpec
from compat_adapter.runtime.process import ProcessOutcome
from compat_adapter.service import CompatAdapter

__all__ = (
    "CONCURRENCY",
    "CONTEXT",
    "CONTINUE",
    "REASON",
    "HookProbe",
    "RowCheck",
    "Session",
    "all_rows",
    "ask_policy",
    "bash_reply",
    "check_payload",
    "log_records",
    "make_repo",
    "open_session",
    "specific",
    "tool_results",
    "user_messages",
    "verify_all",
    "verify_row",
)

#: Rows verified at the same time by :func:`verify_all` (the machine has two cores).
CONCURRENCY = 2
#: Longest one row may take, start to finish, before it counts as failed.
ROW_TIMEOUT_S = 180.0
#: How long a check waits for a hook fired by a service (file watch, worktree poll, LSP).
SERVICE_WAIT_S = 30.0

#: The reason, context and prompt texts the hooks answer with; checks look for them verbatim.
REASON = "verify: blocked by policy"
CONTEXT = "verify: context from the hook"
CONTINUE = "verify: keep working on the tests"
REPLACED = "verify: the transformed prompt"
ENV_NAME, ENV_VALUE = "DSH_VERIFY_TOKEN", "env-from-hook-42"

_BLOCKING = frozenset({"deny", "block", "ask"})
#: Payload framing per vendor: whether stdin ends with a newline.
_NEWLINE = {"claude": True, "workbuddy": True, "opencode": True, "codex": False, "copilot": False}
_BRIDGE_NEWLINE = {"claude-code": True, "codex": False}
#: Vendors whose ask answer on a pre-tool seam goes to the host's approval.
_ASK_HONOURED = frozenset({"claude", "workbuddy", "opencode", "copilot"})


@dataclass(frozen=True, slots=True)
class RowCheck:
    """The verdict on one vendor row."""

    vendor: str
    event: str
    route: str
    passed: bool
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return {"vendor": self.vendor, "event": self.event, "route": self.route,
                "passed": self.passed, "detail": self.detail}


def all_rows() -> tuple[tuple[VendorSpec, EventRow], ...]:
    """Every (vendor, row) pair of the vendor tables, in matrix order."""
    from vendors import VENDORS

    return tuple((spec, row) for spec in VENDORS for row in spec.events)


# ── the probe hook ──────────────────────────────────────────────────────────────────────────────

_PROBE = """\
#!/bin/sh
# Records its stdin, then answers with the prepared answer for this run (or the default one).
d={dir}
i=0
while ! mkdir "$d/run-$i" 2>/dev/null; do i=$((i+1)); done
cat > "$d/payload-$i.json"
a="$d/answer"
if [ -e "$d/answer-$i.code" ]; then a="$d/answer-$i"; fi
if [ -e "$a.err" ]; then cat "$a.err" >&2; fi
if [ -e "$a.out" ]; then cat "$a.out"; fi
exit "$(cat "$a.code")"
"""


class HookProbe:
    """A real command hook that records each stdin payload and prints a prepared answer.

    Answers are files beside the script: ``answer.{out,err,code}`` by default and
    ``answer-<n>.{out,err,code}`` for the n-th run (counted from 0), so one hook can block once and
    then let go.
    """

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.script = directory / "hook.sh"
        self.script.write_text(_PROBE.format(dir=shlex.quote(str(directory))), encoding="utf-8")
        self.script.chmod(self.script.stat().st_mode | stat.S_IXUSR)
        self.answer(None)

    @property
    def command(self) -> str:
        return shlex.quote(str(self.script))

    def answer(self, out: Mapping[str, Any] | str | None, *, code: int = 0, err: str = "",
               run: int | None = None) -> None:
        """Set what the hook prints: a JSON object, raw text or nothing; for one run or all."""
        stem = self.dir / ("answer" if run is None else f"answer-{run}")
        text = json.dumps(out) if isinstance(out, Mapping) else (out or "")
        Path(f"{stem}.out").write_text(text, encoding="utf-8")
        Path(f"{stem}.err").write_text(err, encoding="utf-8")
        Path(f"{stem}.code").write_text(str(code), encoding="utf-8")

    def raw(self) -> list[bytes]:
        """The stdin of every finished run, in run order."""
        found = []
        i = 0
        while (self.dir / f"run-{i}").exists():
            path = self.dir / f"payload-{i}.json"
            found.append(path.read_bytes() if path.exists() else b"")
            i += 1
        return found

    def payloads(self) -> list[Any]:
        out = []
        for data in self.raw():
            try:
                out.append(json.loads(data))
            except ValueError:
                out.append(None)
        return out

    async def wait(self, count: int = 1, timeout_s: float = SERVICE_WAIT_S) -> bool:
        """Wait until at least ``count`` runs have written their payload."""
        with anyio.move_on_after(timeout_s):
            while True:
                raw = self.raw()
                if len(raw) >= count and all(raw[:count]):
                    # A run that has claimed its slot may still be writing; give it a moment.
                    await anyio.sleep(0.05)
                    return True
                await anyio.sleep(0.05)
        return False


# ── one session under test ──────────────────────────────────────────────────────────────────────

@dataclass(slots=True)
class Session:
    """Everything one row check works with, and the failures it has found so far."""

    spec: VendorSpec
    row: EventRow
    root: Path
    base: Path
    probe: HookProbe
    host: MemoryHost
    adapter: CompatAdapter
    hook_id: str = ""
    failures: list[str] = field(default_factory=list)
    proved: list[str] = field(default_factory=list)

    @property
    def vendor(self) -> str:
        return self.spec.id

    @property
    def event(self) -> str:
        return self.row.event

    @property
    def official(self) -> bool:
        return self.row.route is Route.OFFICIAL_BRIDGE

    def expect(self, condition: object, failure: str, proof: str | None = None) -> bool:
        if condition:
            if proof:
                self.proved.append(proof)
            return True
        self.failures.append(failure)
        return False

    async def register(self, matcher: str | None = None, handler: Any = None) -> None:
        result = await self.adapter.register_hook(self.vendor, self.event, matcher,
                                                  handler or self.probe.command)
        self.hook_id = result.id
        self.expect(result.capability is Capability.ADAPTED and result.route is self.row.route,
                    f"graded {result.capability} on route {result.route} ({result.reason})")
        status = {h.id: h for h in self.adapter.status().hooks}.get(result.id)
        self.expect(status is not None and status.running,
                    f"status does not say the hook runs: {status}")

    def audit(self) -> list[Any]:
        return [r for r in self.adapter.audit if r.hook_id == self.hook_id]


async def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"}
    result = await anyio.run_process(["git", *args], cwd=cwd, env=env, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {result.stderr.decode(errors='replace')}")
    return result.stdout.decode(errors="replace")


async def make_repo(root: Path) -> Path:
    """A real git repository with one commit; the identity lives in its own config."""
    root.mkdir(parents=True)
    await _git(root, "init", "-q", "-b", "main")
    await _git(root, "config", "user.name", "compat-adapter verify")
    await _git(root, "config", "user.email", "verify@compat-adapter.invalid")
    (root / "README.md").write_text("verify\n", encoding="utf-8")
    await _git(root, "add", "README.md")
    await _git(root, "commit", "-q", "-m", "init")
    return root


class open_session:  # noqa: N801 - used like a function: `async with open_session(...) as s`
    """A temporary repository, a probe, a running host and an adapter, torn down on exit."""

    def __init__(self, vendor: str, event: str, **host_options: Any) -> None:
        self._spec = resolve_vendor(vendor)
        self._row = resolve_event(self._spec, event)
        self._options = host_options
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._host: MemoryHost | None = None
        self._session: Session | None = None

    async def __aenter__(self) -> Session:
        self._tmp = tempfile.TemporaryDirectory(prefix="compat-verify-")
        base = Path(self._tmp.name).resolve()
        root = await make_repo(base / "repo")
        # The probe lives outside the repository, so its payload files never trip the file watch.
        probe = HookProbe(base / "hook")
        self._host = MemoryHost(root, log_dir=base / "logs", **self._options)
        host = await self._host.__aenter__()
        adapter = CompatAdapter(host, state_dir=str(base / "state"))
        adapter.start()
        self._session = Session(self._spec, self._row, root, base, probe, host, adapter)
        return self._session

    async def __aexit__(self, *exc: object) -> None:
        try:
            if self._session is not None:
                with anyio.CancelScope(shield=True):
                    await self._session.adapter.dispose()
            if self._host is not None:
                await self._host.__aexit__(None, None, None)
        finally:
            if self._tmp is not None:
                self._tmp.cleanup()


# ── log helpers ─────────────────────────────────────────────────────────────────────────────────

def log_records(session: Any, kind: str) -> list[Mapping[str, Any]]:
    return [e.data for e in session.events if e.type == kind]


def user_messages(session: Any) -> list[Mapping[str, Any]]:
    return log_records(session, "user/message")


def tool_results(session: Any) -> list[Mapping[str, Any]]:
    return log_records(session, "tool/result")


def bash_reply(command: str) -> Reply:
    return Reply(calls=(call("bash", command=command),))


def _child_sessions(s: Session, parent: Any) -> list[Any]:
    return [x for x in s.host.sessions if x is not parent]


# ── answers in each vendor's dialect ────────────────────────────────────────────────────────────

def specific(event: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, **fields}}


def deny_answer(vendor: str, event: str) -> dict[str, Any]:
    """A pre-tool deny with :data:`REASON`."""
    if vendor == "copilot":
        return {"permissionDecision": "deny", "permissionDecisionReason": REASON}
    if vendor == "opencode":
        return {"decision": "deny", "reason": REASON}
    return specific(event, permissionDecision="deny", permissionDecisionReason=REASON)


def ask_answer(vendor: str, event: str) -> dict[str, Any]:
    if vendor == "copilot":
        return {"permissionDecision": "ask", "permissionDecisionReason": REASON}
    if vendor == "opencode":
        return {"decision": "ask", "reason": REASON}
    return specific(event, permissionDecision="ask", permissionDecisionReason=REASON)


def context_answer(vendor: str, event: str) -> dict[str, Any]:
    if vendor in ("copilot", "opencode"):
        return {"additionalContext": CONTEXT}
    return specific(event, additionalContext=CONTEXT)


def block_answer(vendor: str, event: str, reason: str = REASON) -> dict[str, Any]:
    """A top-level block (UserPromptSubmit, PostToolUse, Stop, agentStop …)."""
    return {"decision": "block", "reason": reason}


def allow_permission_answer(vendor: str, event: str) -> dict[str, Any]:
    if vendor == "copilot":
        return {"behavior": "allow"}
    if vendor == "opencode":
        return {"status": "allow"}
    return specific(event, decision={"behavior": "allow"})


def observe_answer(vendor: str, event: str) -> dict[str, Any]:
    """The most blocking answer the vendor can give on an event, with context: an observe-only
    row must neither block on it nor put the context in front of the model."""
    if vendor == "opencode":
        return {"decision": "deny", "reason": REASON, "additionalContext": CONTEXT}
    if vendor == "copilot":
        return {"decision": "block", "reason": REASON, "permissionDecision": "deny",
                "additionalContext": CONTEXT}
    return {"decision": "block", "reason": REASON, "continue": False, "stopReason": REASON,
            **specific(event, additionalContext=CONTEXT)}


def decodes_blocking(s: Session, out: Mapping[str, Any], code: int = 0, err: str = "") -> bool:
    """Whether the vendor's own reading of this answer would block something."""
    from compat_adapter.dialects import dialect_for

    outcome = ProcessOutcome(exit_code=code, stdout=json.dumps(out), stderr=err, timed_out=False,
                             truncated=False, cause=None, duration_ms=0.0)
    answer = dialect_for(s.vendor).decode(s.event, outcome)
    return answer.decision in _BLOCKING or answer.stop


# ── payload checks ──────────────────────────────────────────────────────────────────────────────

_TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest",
                          "PermissionDenied", "preToolUse", "postToolUse", "postToolUseFailure",
                          "permissionRequest"})


def check_payload(s: Session, *, tool: str | None = "bash", at_least: int = 1) -> Any:
    """Check that the hook ran and that its stdin is in the vendor's dialect; returns the first."""
    raw = s.probe.raw()
    if not s.expect(len(raw) >= at_least, f"the hook ran {len(raw)} time(s), expected ≥{at_least}"):
        return None
    data = raw[0]
    payloads = s.probe.payloads()
    payload = payloads[0]
    if not s.expect(isinstance(payload, dict), f"the payload is not a JSON object: {data[:200]!r}"):
        return None
    if s.official:
        newline = _BRIDGE_NEWLINE[s.spec.bridge_dialect or "claude-code"]
    else:
        newline = _NEWLINE[s.vendor]
    ends = data.endswith(b"\n")
    s.expect(ends == newline, f"stdin framing: trailing newline {ends}, expected {newline}")
    v, e = s.vendor, s.event
    if v in ("claude", "workbuddy", "codex"):
        s.expect(payload.get("hook_event_name") == e and "session_id" in payload
                 and "cwd" in payload,
                 f"payload lacks hook_event_name={e!r}/session_id/cwd: {sorted(payload)}",
                 f"payload hook_event_name={e}")
        if v == "codex" and e not in ("SessionStart", "SessionEnd"):
            s.expect(isinstance(payload.get("turn_id"), str), f"codex payload lacks turn_id: {payload}")
        if v == "codex" and e in ("SubagentStart", "SubagentStop"):
            # The child runs inside the parent's first turn.
            s.expect(payload.get("turn_id") == "1", f"turn_id is not the parent's turn: {payload}",
                     "turn_id of the parent's turn")
        if v == "workbuddy" and not s.official and e in _TOOL_EVENTS:
            s.expect("tool_use_id" not in payload, "a CodeBuddy payload carries tool_use_id")
        if e in _TOOL_EVENTS and tool is not None:
            want = tool if s.official else {"bash": "Bash"}.get(tool, tool)
            s.expect(payload.get("tool_name") == want and isinstance(payload.get("tool_input"), dict),
                     f"tool_name {payload.get('tool_name')!r}, expected {want!r} and an input object",
                     f"tool_name={want}")
    elif v == "copilot":
        s.expect(isinstance(payload.get("sessionId"), str) and isinstance(payload.get("timestamp"), int)
                 and "cwd" in payload and "session_id" not in payload,
                 f"payload is not camelCase (sessionId, timestamp ms, cwd): {sorted(payload)}",
                 "camelCase payload")
        if e in _TOOL_EVENTS and tool is not None:
            s.expect(payload.get("toolName") == tool,
                     f"toolName {payload.get('toolName')!r}, expected {tool!r}")
            if e == "permissionRequest":
                s.expect(isinstance(payload.get("toolInput"), dict),
                         f"toolInput is not an object: {payload.get('toolInput')!r}")
            else:
                args = payload.get("toolArgs")
                decoded = _loads(args) if isinstance(args, str) else None
                ok = isinstance(decoded, dict) and (tool != "bash" or "command" in decoded)
                s.expect(ok, f"toolArgs is not a JSON string of an object: {args!r}",
                         "toolArgs as a JSON string")
    elif v == "opencode":
        from compat_adapter.dialects.opencode import INTERCEPTORS

        if e in INTERCEPTORS:
            s.expect(payload.get("hook") == e and isinstance(payload.get("input"), dict)
                     and "output" in payload,
                     f"payload is not {{hook: {e!r}, input, output}}: {sorted(payload)}",
                     f"payload hook={e}")
            if e in ("tool.execute.before", "tool.execute.after") and tool is not None:
                s.expect(payload["input"].get("tool") == tool,
                         f"input.tool {payload['input'].get('tool')!r}, expected {tool!r}")
        else:
            kind = (payload.get("input") or {}).get("event", {}).get("type") \
                if isinstance(payload.get("input"), dict) else None
            # The generic `event` hook sees every session record under the record's own type.
            want_ok = kind == e if e != "event" else isinstance(kind, str)
            s.expect(payload.get("hook") == "event" and want_ok,
                     f"bus payload is not {{hook: 'event', input.event.type: {e!r}}}: {payload}",
                     f"bus event type={kind}")
    return payload


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def check_observed(s: Session, answer: Mapping[str, Any], code: int = 0, err: str = "") -> None:
    """An observe-only run: audited, a blocking answer marked as not honoured, no context shown."""
    shown = [m for session in s.host.sessions for m in user_messages(session) if CONTEXT in m["text"]]
    s.expect(not shown, f"an observe-only hook put its context in front of the model: {shown[:1]}",
             "context not injected")
    if s.official:
        # The host's bridge owns these runs; the adapter's audit never sees them.
        s.proved.append("run owned by the host's bridge (not in the adapter audit)")
        return
    records = s.audit()
    if not s.expect(records, "no audit record for the hook"):
        return
    blocking = decodes_blocking(s, answer, code, err)
    wrong = [r for r in records if r.honoured == blocking]
    first = wrong[0] if wrong else None
    if blocking:
        s.expect(not wrong, f"a blocking answer was audited as honoured: {first}",
                 "blocking answer audited honoured=False")
    else:
        s.expect(not wrong, f"a non-blocking answer was audited as not honoured: {first}",
                 "answer audited (the vendor cannot block here)")


# ── drivers ─────────────────────────────────────────────────────────────────────────────────────

Driver = Callable[[Session], Awaitable[None]]


async def _pre_tool(s: Session) -> None:
    """Deny blocks the call; then (fresh session) ask reaches approval and fails closed."""
    s.probe.answer(deny_answer(s.vendor, s.event))
    await s.register()
    agent = await s.host.create_agent(script=[bash_reply("touch denied.txt"), "done"])
    result = await agent.run_turn("create the file")
    await s.host.settle()
    check_payload(s)
    s.expect(not (s.root / "denied.txt").exists(), "deny did not block: the command ran",
             "deny blocked the side effect")
    results = tool_results(agent.session)
    s.expect(results and results[0]["isError"] and REASON in results[0]["text"],
             f"the model does not see the deny reason: {results}", "reason in the tool result")
    s.expect(result.reason == "completed", f"turn ended {result.reason}")


async def _pre_tool_ask(s: Session) -> None:
    s.probe.answer(ask_answer(s.vendor, s.event))
    await s.register()
    asked: list[ApprovalRequest] = []

    async def watch(request: ApprovalRequest, next_: Callable[[], Awaitable[Any]]) -> Any:
        asked.append(request)
        return await next_()

    s.host.on("approval/request", watch)
    agent = await s.host.create_agent(script=[bash_reply("touch asked.txt"), "done"])
    await agent.run_turn("create the file")
    await s.host.settle()
    check_payload(s)
    decided = log_records(agent.session, "approval/decided")
    s.expect(asked and decided and decided[0]["outcome"] == "unavailable",
             f"ask did not reach the host's approval: asked={asked} decided={decided}",
             "ask reached approval/request")
    s.expect(not (s.root / "asked.txt").exists(), "ask without an approver did not fail closed",
             "no approver: failed closed")


async def _post_tool(s: Session) -> None:
    if s.row.blocking == "verdict":
        s.probe.answer(block_answer(s.vendor, s.event))
    else:
        s.probe.answer(context_answer(s.vendor, s.event))
    await s.register()
    calls = (call("bash", command="touch ran.txt && echo ok"),
             call("bash", command="echo failing >&2; exit 3"))
    agent = await s.host.create_agent(script=[Reply(calls=calls), "done"])
    result = await agent.run_turn("run the commands")
    await s.host.settle()
    payload = check_payload(s)
    # The host has one post-execute seam: failure rows must skip the success and vice versa.
    runs = len(s.probe.raw())
    only_one = s.event in ("PostToolUseFailure", "postToolUseFailure", "postToolUse")
    if only_one:
        s.expect(runs == 1, f"the hook ran {runs} times for one success and one failure",
                 "fires only for its outcome")
    if payload is not None and s.vendor == "copilot" and s.event == "postToolUse":
        s.expect(payload.get("toolResult", {}).get("resultType") == "success",
                 f"toolResult is not {{resultType, textResultForLlm}}: {payload.get('toolResult')}")
    s.expect((s.root / "ran.txt").exists(), "the tool did not run before its post hook")
    results = tool_results(agent.session)
    if s.row.blocking == "verdict":
        s.expect(results and results[0]["isError"] and REASON in results[0]["text"],
                 f"a post-tool block did not replace the result: {results[:1]}",
                 "block replaced the tool result with the reason")
    else:
        seen = [m for m in user_messages(agent.session) if CONTEXT in m["text"]]
        s.expect(seen and seen[0]["turn"] == 1 and seen[0]["step"] == 2,
                 f"context did not reach the next step: {user_messages(agent.session)}",
                 f"context logged as user/message ({seen[0]['source']['kind'] if seen else ''})")
    s.expect(result.reason == "completed" and result.steps == 2,
             f"turn ended {result.reason} after {result.steps} steps")


async def _pre_step(s: Session) -> None:
    point = s.row.point
    if point == "agent/pre-step/transform":
        s.probe.answer({"modifiedTransformedPrompt": REPLACED})
    elif s.row.blocking == "verdict":
        s.probe.answer(block_answer(s.vendor, s.event))
    else:
        s.probe.answer(observe_answer(s.vendor, s.event))
    await s.register()
    agent = await s.host.create_agent(script=[bash_reply("touch stepped.txt"), "done"])
    result = await agent.run_turn("please touch the file")
    await s.host.settle()
    payload = check_payload(s, tool=None)
    if payload is not None and s.vendor in ("claude", "codex", "workbuddy"):
        s.expect(payload.get("prompt") == "please touch the file", f"prompt not in payload: {payload}")
    if point == "agent/pre-step/transform":
        first = [m for m in user_messages(agent.session) if m["step"] == 1]
        s.expect(first and first[0]["text"] == REPLACED,
                 f"the model did not receive the replacement prompt: {first}",
                 "the step entered the replacement prompt")
    elif s.row.blocking == "verdict":
        s.expect(result.reason == "blocked" and result.steps == 0
                 and not (s.root / "stepped.txt").exists(),
                 f"a prompt block did not reject the step: {result}", "block rejected the turn")
    else:
        s.expect(result.reason == "completed" and (s.root / "stepped.txt").exists(),
                 f"an observe-only answer changed the turn: {result}", "turn ran unchanged")
        check_observed(s, observe_answer(s.vendor, s.event))


async def _stop(s: Session) -> None:
    s.probe.answer({})
    s.probe.answer(block_answer(s.vendor, s.event, CONTINUE), run=0)
    await s.register()
    agent = await s.host.create_agent(script=["first answer", "second answer"])
    result = await agent.run_turn("fix the tests")
    await s.host.settle()
    check_payload(s, tool=None, at_least=2)
    steered = [m for m in user_messages(agent.session) if CONTINUE in m["text"]]
    s.expect(result.steps == 2 and result.reason == "completed",
             f"a stop block did not force exactly one more step: {result}",
             "block forced one more step")
    s.expect(steered and steered[0]["turn"] == 1 and steered[0]["step"] == 2,
             f"no continuation message in step 2 of turn 1: {user_messages(agent.session)}",
             "continuation message in the same turn")
    s.expect(len(log_records(agent.session, "turn/start")) == 1, "the continuation started a new turn")
    payloads = s.probe.payloads()
    if not s.official and len(payloads) >= 2:
        # Our routes tell the second run that it runs because of a block.
        s.expect(payloads[0].get("stop_hook_active") is False
                 and payloads[1].get("stop_hook_active") is True,
                 f"stop_hook_active is not false then true: {payloads[:2]}",
                 "stop_hook_active false then true")


async def _agent_created(s: Session) -> None:
    s.probe.answer(context_answer(s.vendor, s.event))
    await s.register()
    agent = await s.host.create_agent(script=["hello back"])
    await agent.run_turn("hello")
    await s.host.settle()
    payload = check_payload(s, tool=None)
    if payload is not None and s.vendor != "opencode":
        s.expect(payload.get("source") == "startup", f"source is not startup: {payload}")
    seen = [m for m in user_messages(agent.session) if CONTEXT in m["text"]]
    s.expect(seen and seen[0]["turn"] == 1 and seen[0]["step"] == 1,
             f"session-start context not in the first step: {user_messages(agent.session)}",
             f"context logged as user/message ({seen[0]['source']['kind'] if seen else ''})")


async def _subagent_start(s: Session) -> None:
    s.probe.answer(context_answer(s.vendor, s.event))
    await s.register()
    script = [Subagent(script=("child answer",), prompt="look at the code"), "done"]
    agent = await s.host.create_agent(script=script)
    result = await agent.run_turn("delegate")
    await s.host.settle()
    check_payload(s, tool=None)
    children = _child_sessions(s, agent.session)
    seen = [m for c in children for m in user_messages(c) if CONTEXT in m["text"]]
    s.expect(seen, f"the child's log has no context message: {[user_messages(c) for c in children]}",
             "context in the child's log")
    s.expect(not [m for m in user_messages(agent.session) if CONTEXT in m["text"]],
             "subagent context leaked into the parent's log")
    s.expect(result.reason == "completed", f"turn ended {result.reason}")


async def _subagent_end(s: Session) -> None:
    answer = observe_answer(s.vendor, s.event)
    s.probe.answer(answer)
    await s.register()
    script = [Subagent(script=("child answer",), prompt="look at the code"), "done"]
    agent = await s.host.create_agent(script=script)
    result = await agent.run_turn("delegate")
    await s.host.settle()
    check_payload(s, tool=None)
    results = tool_results(agent.session)
    s.expect(result.reason == "completed" and result.steps == 2 and results
             and not results[0]["isError"] and results[0]["text"] == "child answer",
             f"a subagent-stop answer changed the run: {result} {results}",
             "the child's answer reached the parent unchanged")
    check_observed(s, answer)


async def _observe_turn(s: Session, script: Sequence[Any], then: Callable[[Any], Awaitable[None]]
                        | None = None, *, tool: str | None = None, at_least: int = 1,
                        wants: str = "completed") -> tuple[Any, Any]:
    """Register with the blocking answer, run one turn (and ``then``), check nothing changed."""
    answer = observe_answer(s.vendor, s.event)
    s.probe.answer(answer)
    await s.register()
    agent = await s.host.create_agent(script=list(script))
    result = await agent.run_turn("do the work")
    if then is not None:
        await then(agent)
    await s.host.settle()
    payload = check_payload(s, tool=tool, at_least=at_least)
    s.expect(result.reason == wants, f"turn ended {result.reason}, expected {wants}",
             f"turn ended {wants} as without the hook")
    check_observed(s, answer)
    return agent, payload


async def _compaction(s: Session) -> None:
    async def compact(agent: Any) -> None:
        await agent.compact("verify summary")

    agent, payload = await _observe_turn(s, ["hi"], compact)
    ends = log_records(agent.session, "compaction/end")
    s.expect(ends and log_records(agent.session, "compaction/summary"),
             "compaction did not finish", "compaction finished")
    if payload is not None and s.event == "PostCompact" and s.vendor == "claude":
        s.expect(payload.get("compact_summary") == "verify summary",
                 f"compact_summary missing: {payload}")


async def _disposed(s: Session) -> None:
    async def dispose(agent: Any) -> None:
        await agent.dispose()

    agent, _ = await _observe_turn(s, ["hi"], dispose)
    s.expect(agent.disposed, "the agent was not disposed")


async def _error(s: Session) -> None:
    _, payload = await _observe_turn(s, [Error("model overloaded")], wants="error")
    if payload is not None:
        s.expect("model overloaded" in json.dumps(payload),
                 f"the error text is not in the payload: {payload}", "error text in payload")


async def _status(s: Session) -> None:
    await _observe_turn(s, [bash_reply("touch status.txt"), "done"])
    s.expect((s.root / "status.txt").exists(), "the turn's command did not run")


async def _inbox(s: Session) -> None:
    _, payload = await _observe_turn(s, ["ok"])
    if payload is not None:
        s.expect("do the work" in json.dumps(payload),
                 f"the inserted message is not in the payload: {payload}", "inbox message in payload")


async def _session_created(s: Session) -> None:
    (s.root / "CLAUDE.md").write_text("# rules\n", encoding="utf-8")
    _, payload = await _observe_turn(s, ["ok"])
    s.expect(len(s.host.sessions) == 1, "more than one session")
    s.expect(len(s.probe.raw()) == 1, f"the hook ran {len(s.probe.raw())} times for one session")
    if payload is None or s.vendor not in ("claude", "workbuddy"):
        return
    want = {"InstructionsLoaded": ("file_path", str(s.root / "CLAUDE.md")),
            "CwdChanged": ("new_cwd", str(s.root)), "DirectoryAdded": ("path", str(s.root)),
            "Setup": ("trigger", "init")}.get(s.event)
    if want is not None:
        key, value = want
        s.expect(payload.get(key) == value, f"{key} is {payload.get(key)!r}, expected {value!r}",
                 f"{key} in payload")


async def _session_event(s: Session) -> None:
    await _observe_turn(s, [bash_reply("echo hi"), "done"], at_least=3)


async def _step_end(s: Session) -> None:
    _, payload = await _observe_turn(s, [bash_reply("echo batch"), "done"])
    # Only the step that made tool calls is a batch; the closing text step is not.
    s.expect(len(s.probe.raw()) == 1, f"the batch hook ran {len(s.probe.raw())} times for one batch")
    if payload is not None:
        calls = payload.get("tool_calls") or []
        s.expect(len(calls) == 1 and calls[0].get("tool_name") == "Bash"
                 and calls[0].get("tool_input") == {"command": "echo batch"},
                 f"tool_calls does not name the step's call: {calls}", "tool_calls in payload")


async def _todo(s: Session) -> None:
    pending = call("todo", todos=[{"content": "write the tests", "status": "pending"}])
    done = call("todo", todos=[{"content": "write the tests", "status": "completed"}])
    _, payload = await _observe_turn(s, [Reply(calls=(pending,)), Reply(calls=(done,)), "done"])
    if payload is not None:
        s.expect(payload.get("task_subject") == "write the tests",
                 f"task_subject missing: {payload}", "task_subject in payload")
    s.expect(len(s.probe.raw()) == 1, f"the task hook ran {len(s.probe.raw())} times, expected once")


async def _model_switch(s: Session) -> None:
    script = [bash_reply("echo one"), SwitchModel("other/model-b"), "done"]
    _, payload = await _observe_turn(s, script)
    s.expect(len(s.probe.raw()) == 1, f"the model-switch hook ran {len(s.probe.raw())} times")
    if payload is not None:
        s.expect("model-b" in json.dumps(payload),
                 f"the new model is not in the payload: {payload}", "new model in payload")


async def _command(s: Session) -> None:
    async def run(agent: Any) -> None:
        await agent.run_command("review", "now")

    agent, payload = await _observe_turn(s, ["ok"], run)
    s.expect(log_records(agent.session, "command/done"), "the command did not finish")
    if payload is not None:
        s.expect("review" in json.dumps(payload),
                 f"the command name is not in the payload: {payload}", "command name in payload")


async def _workspace(s: Session) -> None:
    write = call("write", path="notes.txt", content="one\ntwo\n")
    _, payload = await _observe_turn(s, [Reply(calls=(write,)), "done"])
    if payload is not None:
        s.expect("notes.txt" in json.dumps(payload),
                 f"the changed file is not in the payload: {payload}", "changed file in payload")


async def _message_display(s: Session) -> None:
    _, payload = await _observe_turn(s, ["shown text"])
    runs = len(s.probe.raw())
    s.expect(runs == 1, f"the display hook ran {runs} times for one assistant message")
    if payload is not None:
        s.expect(payload.get("delta") == "shown text" and payload.get("final") is True,
                 f"the displayed text is not the message: {payload}",
                 "message text as the final delta")


async def _settings(s: Session) -> None:
    answer = observe_answer(s.vendor, s.event)
    s.probe.answer(answer)
    await s.register()
    revision = s.host.update_settings("editor", {"theme": "dark"})
    await s.host.settle()
    check_payload(s, tool=None)
    s.expect(s.host.settings_document("editor") == (revision, {"theme": "dark"}),
             "the settings update did not stick", "settings updated regardless")
    check_observed(s, answer)


async def ask_policy(execution: ToolExecution, next_: Callable[[], Awaitable[Any]]
                     ) -> PreToolDecision:
    """A plain host listener standing for the host's own permission policy: always ask."""
    return PreToolDecision("ask", "the host's policy asks for every tool call")


async def _approval(s: Session) -> None:
    s.probe.answer(allow_permission_answer(s.vendor, s.event))
    await s.register()
    s.host.on("tools/pre-execute", ask_policy)
    agent = await s.host.create_agent(script=[bash_reply("touch approved.txt"), "done"])
    await agent.run_turn("create the file")
    await s.host.settle()
    check_payload(s)
    decided = log_records(agent.session, "approval/decided")
    s.expect(decided and decided[0]["outcome"] == "allowed-once",
             f"the approval was not allowed once: {decided}", "approval → allowed-once")
    s.expect((s.root / "approved.txt").exists(), "the approved command did not run",
             "approved command ran")


async def _approval_deny(s: Session) -> None:
    if s.vendor == "copilot":
        answer: dict[str, Any] = {"behavior": "deny", "message": REASON}
    elif s.vendor == "opencode":
        answer = {"status": "deny", "reason": REASON}
    else:
        answer = specific(s.event, decision={"behavior": "deny", "message": REASON})
    s.probe.answer(answer)
    await s.register()
    s.host.on("tools/pre-execute", ask_policy)
    agent = await s.host.create_agent(script=[bash_reply("touch refused.txt"), "done"])
    await agent.run_turn("create the file")
    await s.host.settle()
    decided = log_records(agent.session, "approval/decided")
    refused = decided and decided[0]["outcome"] == "rejected"
    s.expect(refused and not (s.root / "refused.txt").exists(),
             f"a permission deny did not reject the approval: {decided}", "deny → rejected")


async def _approval_decided(s: Session) -> None:
    answer = observe_answer(s.vendor, s.event)
    s.probe.answer(answer)
    await s.register()
    s.host.on("tools/pre-execute", ask_policy)
    agent = await s.host.create_agent(script=[bash_reply("touch rejected.txt"), "done"])
    await agent.run_turn("create the file")
    await s.host.settle()
    check_payload(s, tool="bash" if s.vendor != "opencode" else None)
    decided = log_records(agent.session, "approval/decided")
    rejected = decided and decided[0]["outcome"] == "rejected"
    s.expect(rejected and not (s.root / "rejected.txt").exists(),
             f"the host's rejection did not stand: {decided}", "rejection stood")
    payload = (s.probe.payloads() or [None])[0]
    if payload is not None and s.vendor != "opencode":
        s.expect(payload.get("reason"), f"the denial has no reason: {payload}",
                 "denial reason in payload")
    check_observed(s, answer)


async def _questions(s: Session) -> None:
    questions = [{"id": "q1", "question": "Which database?", "options": ["postgres", "sqlite"]}]
    ask = Reply(calls=(call("ask_user_question", questions=questions),))
    if s.row.blocking == "verdict":
        s.probe.answer(specific(s.event, action="accept", content={"q1": "sqlite"}))
        await s.register()
        agent = await s.host.create_agent(script=[ask, "done"])
        await agent.run_turn("ask me")
        await s.host.settle()
        check_payload(s, tool=None)
        results = tool_results(agent.session)
        value = _loads(results[0]["text"]) if results else None
        s.expect(results and not results[0]["isError"] and value == {"answers": [
            {"id": "q1", "selected": ["sqlite"], "custom": None}]},
            f"the hook's accept did not answer the question: {results}",
            "accept answered the question")
        return
    answer = observe_answer(s.vendor, s.event)
    s.probe.answer(answer)
    await s.register()

    async def user(request: UserQuestionsRequest, next_: Callable[[], Awaitable[Any]]) -> Any:
        # The user, answering after the hook's listener: the hook only watches.
        return AskUserQuestionAnswer(tuple(QuestionAnswer(q.id, ("postgres",))
                                           for q in request.questions))

    s.host.on("user-questions/request", user)
    agent = await s.host.create_agent(script=[ask, "done"])
    await agent.run_turn("ask me")
    await s.host.settle()
    payload = check_payload(s, tool=None)
    results = tool_results(agent.session)
    s.expect(results and not results[0]["isError"] and "postgres" in results[0]["text"],
             f"the user's answer did not stand: {results}", "the user's answer stood")
    if payload is not None:
        content = json.dumps(payload.get("content"))
        s.expect(payload.get("action") == "accept" and "postgres" in content,
                 f"ElicitationResult payload lacks action/content: {payload}",
                 "action/content in payload")
    check_observed(s, answer)


async def _fs_watch(s: Session) -> None:
    answer = observe_answer(s.vendor, s.event)
    s.probe.answer(answer)
    await s.register()
    (s.root / "watched.txt").write_text("changed from outside\n", encoding="utf-8")
    fired = await s.probe.wait()
    await s.host.settle()
    s.expect(fired, "no hook run after a file was written")
    payload = check_payload(s, tool=None)
    if payload is not None:
        s.expect("watched.txt" in json.dumps(payload), f"the file is not in the payload: {payload}",
                 "written file in payload")
    check_observed(s, answer)


async def _worktrees(s: Session) -> None:
    answer = observe_answer(s.vendor, s.event)
    s.probe.answer(answer)
    tree = s.base / "wt-verify"
    remove = s.event.endswith("Remove")
    if remove:
        await _git(s.root, "worktree", "add", "-q", str(tree), "-b", "verify-wt")
    await s.register()
    if remove:
        await _git(s.root, "worktree", "remove", str(tree))
    else:
        await _git(s.root, "worktree", "add", "-q", str(tree), "-b", "verify-wt")
    fired = await s.probe.wait()
    await s.host.settle()
    s.expect(fired, f"no hook run after git worktree {'remove' if remove else 'add'}")
    payload = check_payload(s, tool=None)
    if payload is not None:
        text = json.dumps(payload)
        s.expect("wt-verify" in text or "verify-wt" in text,
                 f"the worktree is not in the payload: {payload}", "worktree in payload")
    s.expect(len(s.probe.raw()) == 1, f"the hook ran {len(s.probe.raw())} times for one change")
    check_observed(s, answer)


async def _shell_env(s: Session) -> None:
    s.probe.answer({"env": {ENV_NAME: ENV_VALUE, "NOT_DSH": "dropped"}})
    await s.register()
    command = f'echo "token=${ENV_NAME} other=${{NOT_DSH:-unset}}"'
    agent = await s.host.create_agent(script=[bash_reply(command), "done"])
    await agent.run_turn("print the variable")
    await s.host.settle()
    check_payload(s, tool=None)
    results = tool_results(agent.session)
    text = results[0]["text"] if results else ""
    s.expect(f"token={ENV_VALUE}" in text, f"the DSH_* variable did not reach the shell: {text!r}",
             f"{ENV_NAME} reached the bash tool")
    s.expect("other=unset" in text, f"a non-DSH variable reached the shell: {text!r}",
             "non-DSH_* name dropped")


async def _lsp(s: Session) -> None:
    source = "import os\n\n\ndef f(x):\n    return os.path.join(x, 'y'\n"  # an unclosed call
    write = call("write", path="mod.py", content=source)
    answer = observe_answer(s.vendor, s.event)
    s.probe.answer(answer)
    await s.register()
    agent = await s.host.create_agent(script=[Reply(calls=(write,)), "done"])
    await agent.run_turn("write a module")
    fired = await s.probe.wait()
    await s.host.settle()
    s.expect(fired, "no hook run after a turn wrote a .py file")
    payload = check_payload(s, tool=None)
    if payload is not None:
        props = payload.get("input", {}).get("event", {}).get("properties", {})
        found = json.dumps(props.get("diagnostics"))
        s.expect(props.get("path") == "mod.py" and "SyntaxError" in found,
                 f"the language server's diagnostics are not in the payload: {props}",
                 "real diagnostics of mod.py in payload")
    check_observed(s, answer)


#: Driver per native point (official-bridge rows use their bridge event).
_DRIVERS: Mapping[str, Driver] = {
    "tools/pre-execute": _pre_tool,
    "PreToolUse": _pre_tool,
    "tools/post-execute": _post_tool,
    "PostToolUse": _post_tool,
    "agent/pre-step": _pre_step,
    "agent/pre-step/transform": _pre_step,
    "UserPromptSubmit": _pre_step,
    "agent/turn-stopping": _stop,
    "Stop": _stop,
    "agent/created": _agent_created,
    "SessionStart": _agent_created,
    "subagent/start": _subagent_start,
    "SubagentStart": _subagent_start,
    "subagent/end": _subagent_end,
    "SubagentStop": _subagent_end,
    "compaction/start": _compaction,
    "compaction/end": _compaction,
    "agent/disposed": _disposed,
    "agent/error": _error,
    "agent/status": _status,
    "agent/inbox/inserted": _inbox,
    "session/created": _session_created,
    "agent/instructions-loaded": _session_created,
    "session/event": _session_event,
    "message/display": _message_display,
    "step/end": _step_end,
    "todo/write": _todo,
    "request/header": _model_switch,
    "command/run": _command,
    "workspace/changes": _workspace,
    "settings/document-updated": _settings,
    "approval/request": _approval,
    "approval/decided": _approval_decided,
    "user-questions/request": _questions,
    "fs/watch": _fs_watch,
    "git/worktrees": _worktrees,
    "shell/env": _shell_env,
    "lsp/query": _lsp,
}


def _scenarios(spec: VendorSpec, row: EventRow) -> list[tuple[str, Driver, dict[str, Any]]]:
    """The sessions one row is checked in: (label, driver, host options)."""
    driver = _DRIVERS.get(row.point)
    if driver is None:
        raise LookupError(f"no verification driver for point {row.point!r}")
    out: list[tuple[str, Driver, dict[str, Any]]] = [(row.point, driver, {})]
    if driver is _pre_tool and spec.id in _ASK_HONOURED:
        out.append(("ask", _pre_tool_ask, {}))
    if driver is _approval:
        out.append(("deny", _approval_deny, {}))
    if driver is _approval_decided:
        out[0] = (row.point, driver, {"approver": lambda request: ApprovalOutcome.REJECTED})
    return out


async def verify_row(vendor: str, event: str) -> RowCheck:
    """Verify one vendor row end to end; never raises for a failing row."""
    spec = resolve_vendor(vendor)
    row = resolve_event(spec, event)
    failures: list[str] = []
    proved: list[str] = []
    current: Session | None = None

    def collect(label: str) -> None:
        if current is not None:
            failures.extend(f"[{label}] {f}" if label != row.point else f for f in current.failures)
            proved.extend(current.proved)

    label = row.point
    try:
        with anyio.fail_after(ROW_TIMEOUT_S):
            for label, driver, options in _scenarios(spec, row):
                async with open_session(spec.id, row.event, **options) as current:
                    await driver(current)
                collect(label)
                current = None
    except TimeoutError:
        collect(label)
        failures.append(f"[{label}] timed out after {ROW_TIMEOUT_S:g} s")
    except Exception as exc:  # noqa: BLE001 - a crash is a failed row, reported with its cause
        collect(label)
        failures.append(f"[{label}] raised {type(exc).__name__}: {exc}")
    if failures:
        detail = "; ".join(failures)
    else:
        detail = "; ".join(dict.fromkeys(proved)) or "ok"
    return RowCheck(spec.id, row.event, str(row.route), not failures, detail)


async def verify_all(progress: Callable[[RowCheck], None] | None = None, *,
                     vendor: str | None = None) -> tuple[RowCheck, ...]:
    """Verify every row (or one vendor's), :data:`CONCURRENCY` at a time, in matrix order."""
    rows = [(s, r) for s, r in all_rows() if vendor is None or s.id == resolve_vendor(vendor).id]
    results: list[RowCheck | None] = [None] * len(rows)
    limiter = anyio.CapacityLimiter(CONCURRENCY)

    async def one(index: int, spec: VendorSpec, row: EventRow) -> None:
        async with limiter:
            check = await verify_row(spec.id, row.event)
        results[index] = check
        if progress is not None:
            progress(check)

    async with anyio.create_task_group() as tg:
        for i, (spec, row) in enumerate(rows):
            tg.start_soon(one, i, spec, row)
    return tuple(r for r in results if r is not None)
