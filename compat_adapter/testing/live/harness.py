"""The live harness: a probe hook that records its payloads, and one session per row check
(a temporary git repository, a running embedded host and an adapter)."""

from __future__ import annotations

import json
import shlex
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from compat_adapter.catalog import resolve_event, resolve_vendor
from compat_adapter.host.embedded.memory import MemoryHost
from compat_adapter.host.script import Reply, call
from compat_adapter.model import Capability, EventRow, Route, VendorSpec
from compat_adapter.service import CompatAdapter
from compat_adapter.testing.live.repo import make_repo

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
    """Every (vendor, row) pair of the registered vendors' tables, in matrix order."""
    from compat_adapter.catalog import vendors

    return tuple((spec, row) for spec in vendors() for row in spec.events)


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


@dataclass(frozen=True, slots=True)
class Exited:
    """A hook answer given by its exit code and stderr alone, nothing on stdout (Windsurf's exit 2):
    what a speaker returns for a vendor that reads no JSON."""

    code: int
    err: str = ""


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

    def answer(self, out: Mapping[str, Any] | str | Exited | None, *, code: int = 0, err: str = "",
               run: int | None = None) -> None:
        """Set what the hook prints: a JSON object, raw text or nothing; for one run or all. An
        :class:`Exited` answer is an exit code and stderr alone."""
        if isinstance(out, Exited):
            return self.answer(None, code=out.code, err=out.err, run=run)
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
    host: Any
    """The embedded :class:`MemoryHost`, or a :class:`~compat_adapter.testing.live.dsh.LaneHost`."""
    adapter: CompatAdapter
    hook_id: str = ""
    failures: list[str] = field(default_factory=list)
    proved: list[str] = field(default_factory=list)
    parent_turn: int | None = None
    """Where a subagent runs beside its parent: the parent's turn its answer reached (the turn a
    subagent-end payload names there)."""

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

    async def audited(self, timeout_s: float = SERVICE_WAIT_S) -> None:
        """Wait for the hook's audit record: a service-driven run (file watch, worktree poll)
        is audited by the service's own task once the process ends, after its payload is on disk."""
        with anyio.move_on_after(timeout_s):
            while not self.audit():
                await anyio.sleep(0.05)


class open_session:  # noqa: N801 - used like a function: `async with open_session(...) as s`
    """A temporary repository, a probe, a running host and an adapter, torn down on exit."""

    def __init__(self, vendor: str, event: str, *, host: str = "embedded", prefer: str = "fidelity",
                 **host_options: Any) -> None:
        self._spec = resolve_vendor(vendor)
        row = resolve_event(self._spec, event)
        # The row as the adapter will route it: its official form when the bridge is preferred.
        self._row = row.official if prefer == "official" and row.official is not None else row
        self._prefer = prefer
        self._kind = host
        self._options = host_options
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._host: Any = None
        self._session: Session | None = None

    async def __aenter__(self) -> Session:
        self._tmp = tempfile.TemporaryDirectory(prefix="compat-verify-")
        base = Path(self._tmp.name).resolve()
        # The probe lives outside the repository, so its payload files never trip the file watch.
        probe = HookProbe(base / "hook")
        if self._kind == "dsh":
            from compat_adapter.host.dsh.lane import Runner, boot
            from compat_adapter.testing.live.dsh import LaneHost
            from compat_adapter.testing.live.pool import POOL

            unknown = set(self._options) - {"approver"}
            if unknown:
                raise ValueError(f"the DSH lane takes no host options {sorted(unknown)}")
            # A runtime of the pool (its workspace reset for this check), else one of its own.
            pool = POOL.get()
            self._host = pool.lease() if pool is not None else boot(await make_repo(base / "repo"))
            runtime = await self._host.__aenter__()
            root = runtime.cwd
            host: Any = LaneHost(Runner(runtime), self._options.get("approver"))
            adapter = CompatAdapter(host.dsh, target_host_version=host.dsh.surface.version,
                                    state_dir=str(base / "state"), prefer=self._prefer)
        else:
            root = await make_repo(base / "repo")
            self._host = MemoryHost(root, log_dir=base / "logs", **self._options)
            host = await self._host.__aenter__()
            adapter = CompatAdapter(host, state_dir=str(base / "state"), prefer=self._prefer)
        adapter.start()
        self._session = Session(self._spec, self._row, root, base, probe, host, adapter)
        return self._session

    async def __aexit__(self, *exc: Any) -> None:
        try:
            if self._session is not None:
                with anyio.CancelScope(shield=True):
                    await self._session.adapter.dispose()
                    close = getattr(self._session.host, "close", None)
                    if close is not None:  # the DSH lane's: its listeners go, the runtime stays
                        close()
            if self._host is not None:
                # A DSH check's own exception goes on to its runtime: a pooled runtime a check
                # broke is not handed to the next one.
                await self._host.__aexit__(*(exc if self._kind == "dsh" else (None, None, None)))
        finally:
            if self._tmp is not None:
                self._tmp.cleanup()


# ── log helpers ─────────────────────────────────────────────────────────────────────────────────

def log_records(session: Any, kind: str) -> list[Mapping[str, Any]]:
    return [e.data for e in session.events if e.type == kind]


def user_messages(session: Any) -> list[Mapping[str, Any]]:
    return log_records(session, "user/message")


def model_messages(session: Any) -> list[Mapping[str, Any]]:
    """Every message of the log the model reads: user messages, and the system or developer
    messages a vendor's hook context is given where the host has that role (the embedded host's
    ``developer/message`` records, whose ``role`` says which; DSH's rendered system prompt, a
    ``system/message`` record, where the bundle puts such context), in log order."""
    return [{"role": "system", "source": {"kind": "system-prompt"}, **e.data} if e.type == "system/message" else e.data
            for e in session.events if e.type in ("user/message", "developer/message", "system/message")]


def tool_results(session: Any) -> list[Mapping[str, Any]]:
    return log_records(session, "tool/result")


def bash_call(command: str) -> Any:
    # DSH's bash tool requires a description (its schema says so); the embedded one ignores it.
    return call("bash", command=command, description="run a command")


def bash_reply(command: str) -> Reply:
    return Reply(calls=(bash_call(command),))


def child_sessions(s: Session, parent: Any) -> list[Any]:
    return [x for x in s.host.sessions if x is not parent]


# ── answers in each vendor's dialect ────────────────────────────────────────────────────────────
