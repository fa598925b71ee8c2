"""The warm shim server serves every call inside its one process (issue 38): calls made at once run
at once, each with its own caller's environment and folder; a hook that hangs is killed at its
timeout with every descendant, also one that left its process group; a call whose caller went
away is ended with its hooks; a hook the compiled client starts for the server answers as one the
server starts, and the client owns what it starts as the launcher does. Each call goes through the compiled client with Python made unable
to start, so an answer proves the server gave it (the client's fallback would start Python)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from compat_adapter.port.shim import ShimSpec, encode_spec

#: Bounds of the waits below: they only stop a broken run from hanging the suite, never judge speed.
WAIT_S = 60.0


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rpartition(b") ")[2][:1] == b"Z"  # a zombie has ended, only not yet reaped
    except OSError:
        return True


def _wait_for(what: object, check: object) -> None:
    end = time.monotonic() + WAIT_S
    while not check():  # type: ignore[operator]
        assert time.monotonic() < end, f"gave up waiting for {what}"
        time.sleep(0.05)


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """A warm server in a private runtime folder of the test's; the environment that reaches it."""
    from compat_adapter.port.client import server_path

    runtime = tmp_path / "runtime"
    runtime.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.delenv("COMPAT_ADAPTER_SHIM_SERVER", raising=False)
    path = server_path()
    assert path is not None
    env = {**os.environ, "COMPAT_ADAPTER_SHIM_IDLE_S": "120"}
    proc = subprocess.Popen([sys.executable, "-m", "compat_adapter.port.server", path], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for("the server's pid file", lambda: os.path.exists(path + ".pid"))
        # A Python started by a call from now on fails: only the server can answer.
        yield {**env, "PYTHONHOME": str(tmp_path / "no-python-here")}
    finally:
        proc.kill()
        proc.wait()


@pytest.fixture
def client(tmp_path: Path) -> str:
    from compat_adapter.port.fastclient import build_client

    return str(build_client(tmp_path / "bin"))


def _call(client: str, command: str, env: dict[str, str], cwd: Path, *, timeout_s: int = 30) -> subprocess.Popen[str]:
    """A Claude PreToolUse hook running ``command``, ported to Gemini, called as Gemini calls it."""
    hook = {"matcher": "Bash", "handler": {"type": "command", "command": command, "timeout": timeout_s},
            "origin": "test"}
    hooks = encode_spec(ShimSpec("claude", "PreToolUse", "BeforeTool", (hook,)))
    payload = cwd / ".payload.json"
    payload.write_text(json.dumps({"session_id": "s1", "cwd": str(cwd), "hook_event_name": "BeforeTool",
                                   "tool_name": "run_shell_command", "tool_input": {"command": "ls"}}))
    with payload.open("rb") as stdin:
        proc = subprocess.Popen([client, "shim", "--to", "gemini", hooks], stdin=stdin, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, cwd=cwd, env=env)
    return proc


def test_calls_made_at_once_run_at_once_each_with_its_own_environment_and_folder(
        server: dict[str, str], client: str, tmp_path: Path) -> None:
    """Six calls whose hooks each wait until all six have started: served one after another, the
    first would wait for the others until its timeout. Each hook answers with its own call's
    variable and folder; a variable only the first call has is seen by no other."""
    marks = tmp_path / "marks"
    marks.mkdir()
    command = (f'touch {marks}/$$; until [ "$(ls {marks} | wc -l)" -ge 6 ]; do sleep 0.05; done; '
               'echo "ALL6 $MARK ${LEAK:-none} $(pwd)" >&2; exit 2')
    calls = []
    for i in range(6):
        folder = tmp_path / f"proj{i}"
        folder.mkdir()
        env = {**server, "MARK": f"m{i}", **({"LEAK": "only-first"} if i == 0 else {})}
        calls.append((folder, _call(client, command, env, folder)))
    try:
        answers = [proc.communicate(timeout=WAIT_S) for _, proc in calls]
    finally:
        for _, proc in calls:
            proc.kill()
            proc.communicate()
    for i, ((folder, proc), (out, err)) in enumerate(zip(calls, answers, strict=True)):
        assert proc.returncode == 0, err
        leak = "only-first" if i == 0 else "none"
        assert json.loads(out) == {"decision": "deny", "reason": f"ALL6 m{i} {leak} {folder}\n"}


def test_a_hanging_hook_is_killed_at_its_timeout_with_every_descendant(
        server: dict[str, str], client: str, tmp_path: Path) -> None:
    """The hook starts a child and a process that leaves its group and session (``setsid``), then
    hangs: at its one-second timeout all three are killed, and the call answers as a timeout."""
    command = ("sleep 300 & echo $! > child.pid; setsid sleep 300 & echo $! > escaped.pid; "
               "echo $$ > hook.pid; sleep 300")
    proc = _call(client, command, server, tmp_path, timeout_s=1)
    try:
        out, err = proc.communicate(timeout=WAIT_S)
    finally:
        proc.kill()
        proc.communicate()
    assert proc.returncode == 0, err
    pids = [int((tmp_path / f"{name}.pid").read_text()) for name in ("hook", "child", "escaped")]
    assert all(_gone(pid) for pid in pids), [p for p in pids if not _gone(p)]
    assert json.loads(out or "{}").get("decision") != "deny"  # a timed-out guard is no verdict (Claude's rule)


def test_a_call_whose_caller_is_gone_ends_with_its_hooks(server: dict[str, str], client: str,
                                                         tmp_path: Path) -> None:
    """The target CLI gave up on a call and killed its client: the server ends the call, and the
    hook and its child are killed long before their own ten-minute timeout."""
    command = "sleep 600 & echo $! > child.pid; echo $$ > hook.pid; sleep 600"
    proc = _call(client, command, server, tmp_path, timeout_s=600)
    try:
        _wait_for("the hook's start", lambda: (tmp_path / "child.pid").exists() and (tmp_path / "hook.pid").exists()
                  and (tmp_path / "hook.pid").read_text().strip() != "")
    finally:
        proc.kill()
        proc.communicate()
    pids = [int((tmp_path / f"{name}.pid").read_text()) for name in ("hook", "child")]
    _wait_for("the hook's end", lambda: all(_gone(pid) for pid in pids))


def _servers(path: str) -> list[int]:
    """The server processes started for ``path`` (by their command line)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                argv = Path(f"/proc/{name}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"compat_adapter.port.server" in argv and path.encode() in argv and not _gone(int(name)):
                found.append(int(name))
    return found


# The client starts a server and lets it run on its own (it leaves when idle): its Popen is never waited for.
@pytest.mark.filterwarnings("ignore:subprocess .* is still running:ResourceWarning")
def test_one_server_starts_at_a_time_and_a_start_that_never_listened_is_tried_again(tmp_path: Path) -> None:
    """Calls that find no server while one is starting (a target running its hooks at once) start
    none of their own; a start mark older than a start may take counts as a start that failed."""
    from compat_adapter.port import client

    folder = tmp_path / "runtime"
    folder.mkdir(mode=0o700)
    fresh, stale, none = (str(folder / f"{name}.sock") for name in ("fresh", "stale", "none"))
    Path(fresh + ".start").touch()  # a start under way
    Path(stale + ".start").touch()
    old = time.time() - client.START_S - 1
    os.utime(stale + ".start", (old, old))  # a start that never came to listen
    try:
        client._start_server(fresh)
        client._start_server(stale)
        # The first start marks itself; the call right after it (long before a server has imported
        # the runtime and listens) finds the mark.
        client._start_server(none)
        client._start_server(none)
        # A started server may take a moment to show its command line in /proc: wait for it.
        _wait_for("the two starts", lambda: len(_servers(stale)) == 1 and len(_servers(none)) == 1)
        assert (len(_servers(fresh)), len(_servers(stale)), len(_servers(none))) == (0, 1, 1)
    finally:
        for pid in _servers(fresh) + _servers(stale) + _servers(none):
            os.kill(pid, 9)


# ── hooks the compiled client runs for the server (port/callerruns.py) ──────────────────────────────

def _finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    """What a call answered: its exit status, stdout and stderr."""
    try:
        out, err = proc.communicate(timeout=WAIT_S)
    finally:
        proc.kill()
        proc.communicate()
    return proc.returncode, out, err


def _answer(client: str, command: str, env: dict[str, str], cwd: Path, *, timeout_s: int = 30) -> tuple[int, str, str]:
    return _finish(_call(client, command, env, cwd, timeout_s=timeout_s))


@pytest.mark.parametrize("command", [
    # The payload, a variable, the folder and the argument order, as a refusal's reason.
    'read -r line; echo "$MARK $(pwd) $line" >&2; exit 2',
    # A JSON answer on stdout, and text on stderr beside it.
    'echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", '
    '"permissionDecisionReason": "said in JSON"}}\'; echo also >&2',
    # A hook that exits non-zero without blocking, with a hundred thousand bytes on stderr.
    'head -c 100000 /dev/zero | tr "\\0" x >&2; exit 1',
    # A hook that never reads its stdin, and one that dies of a signal.
    'exit 0',
    'kill -TERM $$',
])
def test_a_hook_the_client_runs_answers_as_one_the_server_runs(
        server: dict[str, str], client: str, tmp_path: Path, command: str) -> None:
    """The same call, its hook started by the compiled client and by the server itself
    (``COMPAT_ADAPTER_CLIENT_RUNS=off``): the same answer to the target, byte for byte."""
    env = {**server, "MARK": "m1"}
    by_client = _answer(client, command, env, tmp_path)
    by_server = _answer(client, command, {**env, "COMPAT_ADAPTER_CLIENT_RUNS": "off"}, tmp_path)
    assert by_client == by_server
    assert by_client[0] == 0, by_client[2]


def test_the_client_starts_the_hook_itself(server: dict[str, str], client: str, tmp_path: Path) -> None:
    """The hook's parent is the client process the target started (with the switch off, it is not):
    the saving is real, not a silent fallback to the server's spawn."""
    command = "echo $PPID > parent.pid"
    for runs, mine in (("on", True), ("off", False)):
        proc = _call(client, command, {**server, "COMPAT_ADAPTER_CLIENT_RUNS": runs}, tmp_path)
        try:
            proc.communicate(timeout=WAIT_S)
        finally:
            proc.kill()
            proc.communicate()
        parent = int((tmp_path / "parent.pid").read_text())
        # /bin/sh -c forks the command's shell, so the hook's $PPID is the shell the client started.
        grand = int(Path(f"/proc/{parent}/stat").read_text().rpartition(") ")[2].split()[1]) if not _gone(parent) else None
        assert (parent == proc.pid or grand == proc.pid) is mine, (runs, parent, grand, proc.pid)


def test_what_a_finished_hook_left_running_is_killed(server: dict[str, str], client: str, tmp_path: Path) -> None:
    """A hook that exits at once, leaving a child in its group and one in a session of its own: the
    client ends both before it answers, as the hook launcher does."""
    command = "sleep 300 & echo $! > child.pid; setsid sleep 300 & echo $! > escaped.pid; sleep 0.2; exit 0"
    code, _, err = _answer(client, command, server, tmp_path)
    assert code == 0, err
    pids = [int((tmp_path / f"{name}.pid").read_text()) for name in ("child", "escaped")]
    _wait_for("the leftovers' end", lambda: all(_gone(pid) for pid in pids))


def test_a_client_the_target_terminates_ends_its_hook_first(server: dict[str, str], client: str,
                                                            tmp_path: Path) -> None:
    """The target gives up on a call with SIGTERM: the client kills the hook, its child and the
    process that left its session, then ends by that signal."""
    command = ("sleep 600 & echo $! > child.pid; setsid sleep 600 & echo $! > escaped.pid; "
               "echo $$ > hook.pid; sleep 600")
    proc = _call(client, command, server, tmp_path, timeout_s=600)
    try:
        _wait_for("the hook's start", lambda: all((tmp_path / f"{n}.pid").exists() and (tmp_path / f"{n}.pid").read_text()
                                                  for n in ("child", "escaped", "hook")))
        proc.terminate()
        proc.communicate(timeout=WAIT_S)
    finally:
        proc.kill()
        proc.communicate()
    assert proc.returncode == -15
    pids = [int((tmp_path / f"{name}.pid").read_text()) for name in ("hook", "child", "escaped")]
    _wait_for("the hook's end", lambda: all(_gone(pid) for pid in pids))


def test_builds_of_the_client_made_at_once_each_end_with_it(tmp_path: Path) -> None:
    """Ports run at once (a lane, a team's scripts) build the client at once into one folder: each
    build ends with the client, none takes another's half-written file (the port lane's guard
    failed so in a CI run, one build's rename finding its file gone)."""
    from concurrent.futures import ThreadPoolExecutor

    from compat_adapter.port.fastclient import build_client

    with ThreadPoolExecutor(4) as pool:
        built = list(pool.map(lambda _: build_client(tmp_path / "bin"), range(4)))
    assert len(set(built)) == 1 and os.access(built[0], os.X_OK)
    assert not list((tmp_path / "bin").glob("*.part"))


# ── the forecast of a silent run's answer (port/forecast.py) ─────────────────────────────────────

def _target_call(client: str, target: str, hooks: list[dict[str, object]], env: dict[str, str], cwd: Path,
                 source: str = "claude", event: str = "PreToolUse") -> subprocess.Popen[str]:
    """Hooks of ``source``'s ``event`` ported to ``target``'s pre-tool event, called with the stdin
    the target's own dialect writes for a shell call."""
    from compat_adapter.catalog import unit_of
    from compat_adapter.dialects.base import Moment

    unit = unit_of(target)
    assert unit.host is not None
    target_event = unit.host.events["tools/pre-execute"]
    encoded = encode_spec(ShimSpec(source, event, target_event, tuple(hooks)))
    stdin = unit.dialect.encode(unit.dialect.payload(Moment(event=target_event, session_id="s1", cwd=str(cwd), fields={
        "tool_name": "Bash", "tool_input": {"command": "ls"}})))
    payload = cwd / f".payload-{target}.json"
    payload.write_bytes(stdin if isinstance(stdin, bytes) else stdin.encode())
    with payload.open("rb") as given:
        return subprocess.Popen([client, "shim", "--to", target, encoded], stdin=given, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, cwd=cwd, env=env)


def _hook(command: str, matcher: str | None = "Bash") -> dict[str, object]:
    return {"matcher": matcher, "handler": {"type": "command", "command": command}, "origin": "test"}


@pytest.mark.parametrize("target", ["claude", "codex", "copilot", "gemini", "qwen", "workbuddy", "opencode", "kilo"])
def test_a_silent_hook_is_answered_as_the_server_answers_it_on_every_target(
        server: dict[str, str], client: str, tmp_path: Path, target: str) -> None:
    """A hook that exits 0 and prints nothing, answered from the forecast (the client's run) and by
    the server after the run (``COMPAT_ADAPTER_CLIENT_RUNS=off``): the same answer, byte for byte,
    in each target's dialect."""
    hooks = [_hook("exit 0")]
    forecast = _finish(_target_call(client, target, hooks, server, tmp_path))
    served = _finish(_target_call(client, target, hooks, {**server, "COMPAT_ADAPTER_CLIENT_RUNS": "off"}, tmp_path))
    assert forecast == served
    assert forecast[0] == 0, forecast[2]


def test_the_forecast_answers_while_the_server_is_stopped(server: dict[str, str], client: str, tmp_path: Path) -> None:
    """The hook stops the server (SIGSTOP), then exits 0 silently: the call is answered all the
    same, from the forecast that came with the run, while the server cannot run. A client that
    waited for the server's answer would wait until the server went on."""
    from compat_adapter.port.client import server_path

    path = server_path()
    assert path is not None
    pid = int(Path(path + ".pid").read_text())
    hooks = [_hook(f"kill -STOP {pid}; exit 0")]
    try:
        code, out, err = _finish(_target_call(client, "gemini", hooks, server, tmp_path))
        stopped = Path(f"/proc/{pid}/stat").read_text().rpartition(") ")[2][:1]
    finally:
        os.kill(pid, signal.SIGCONT)  # the server goes on
    assert stopped == "T", "the hook did not stop the server: the test proves nothing"
    assert code == 0, err
    assert (code, out, err) == _finish(_target_call(client, "gemini", [_hook("exit 0")], server, tmp_path))


@pytest.mark.parametrize("source,event,shape", [
    # Claude runs an event's hooks at once (one in the client, one in the server); Copilot one after another.
    ("claude", "PreToolUse", lambda c: {"type": "command", "command": c}),
    ("copilot", "preToolUse", lambda c: {"type": "command", "bash": c}),
])
def test_a_call_with_two_hooks_is_never_answered_from_a_forecast(
        server: dict[str, str], client: str, tmp_path: Path, source: str, event: str, shape: object) -> None:
    """A silent hook and, beside it, one that refuses a moment later: the refusal stands. A forecast
    made for the silent one alone would have let the call through."""
    hooks = [{"matcher": None, "handler": shape(c), "origin": f"test{i}"}  # type: ignore[operator]
             for i, c in enumerate(("exit 0", "sleep 0.5; echo second-says-no >&2; exit 2"))]
    code, out, err = _finish(_target_call(client, "gemini", hooks, server, tmp_path, source=source, event=event))
    assert code == 0, err
    # (Copilot words an exit-2 refusal "hook exited with code 2"; Claude gives the hook's stderr.)
    assert json.loads(out).get("decision") == "deny", out
