"""The launch server that forks every hook's launcher: runs do not cross, a dead server is
replaced, and nothing of a hook survives the server or the host. Real processes, checked in /proc.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import anyio
import pytest
from conftest import running

from compat_adapter.runtime import spawner
from compat_adapter.runtime.cgroup import cgroup_parent
from compat_adapter.runtime.launcher import INLINE_MAX
from compat_adapter.runtime.process import hook_environment, run_command


async def _gone(pids: list[int], seconds: float = 10.0) -> list[int]:
    with anyio.move_on_after(seconds):
        while any(running(pid) for pid in pids):
            await anyio.sleep(0.02)
    left = [pid for pid in pids if running(pid)]
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return left


async def _wait_file(path: Path, seconds: float = 20.0) -> None:
    with anyio.fail_after(seconds):
        while not (path.is_file() and path.read_text().endswith("\n")):
            await anyio.sleep(0.01)


async def test_fifty_concurrent_runs_each_get_their_own_input_output_and_status(tmp_path: Path) -> None:
    env = hook_environment(os.environ)
    results: dict[int, tuple[int | None, str, str]] = {}

    async def one(i: int) -> None:
        outcome = await run_command(f"read x; echo out-$x; echo err-{i} >&2; exit {i % 7}",
                                    stdin=f"{i}\n".encode(), cwd=tmp_path, env=env, timeout_s=60)
        results[i] = (outcome.exit_code, outcome.stdout, outcome.stderr)

    async with anyio.create_task_group() as tg:
        for i in range(50):
            tg.start_soon(one, i)
    assert results == {i: (i % 7, f"out-{i}\n", f"err-{i}\n") for i in range(50)}


async def test_a_killed_server_ends_its_runs_with_their_descendants_and_is_replaced(tmp_path: Path) -> None:
    env = hook_environment(os.environ)
    await run_command("true", stdin=None, cwd=tmp_path, env=env, timeout_s=30)  # the server is up
    server = spawner.server_pid()
    assert server is not None
    hook = "setsid sh -c 'echo $$ > esc.pid; exec sleep 120' & echo $$ > shell.pid; sleep 120"
    async with anyio.create_task_group() as tg:
        outcomes = []

        async def run() -> None:
            outcomes.append(await run_command(hook, stdin=None, cwd=tmp_path, env=env, timeout_s=120))

        tg.start_soon(run)
        await _wait_file(tmp_path / "esc.pid")
        await _wait_file(tmp_path / "shell.pid")
        os.kill(server, signal.SIGKILL)
    (outcome,) = outcomes
    assert outcome.cause == "signal" and outcome.signal == signal.SIGKILL
    pids = [int((tmp_path / name).read_text()) for name in ("esc.pid", "shell.pid")]
    assert await _gone(pids) == []
    again = await run_command("echo again", stdin=None, cwd=tmp_path, env=env, timeout_s=30)
    assert (again.exit_code, again.stdout) == (0, "again\n")
    assert spawner.server_pid() not in (None, server)


HOST = textwrap.dedent("""
    import os, sys, anyio
    from pathlib import Path
    from compat_adapter.runtime.process import hook_environment, run_command

    async def main():
        hook = "setsid sh -c 'echo $$ > esc.pid; exec sleep 120' & echo $$ > shell.pid; sleep 120"
        await run_command(hook, stdin=None, cwd=Path(sys.argv[1]), env=hook_environment(os.environ),
                          timeout_s=120)

    anyio.run(main)
""")


async def test_a_host_killed_outright_leaves_no_hook_process(tmp_path: Path) -> None:
    # SIGKILL: the host runs no clean-up at all; its server sees the control socket close.
    host = subprocess.Popen([sys.executable, "-c", HOST, str(tmp_path)], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        await _wait_file(tmp_path / "esc.pid", 60)
        await _wait_file(tmp_path / "shell.pid", 60)
    finally:
        host.kill()
        host.wait()
    pids = [int((tmp_path / name).read_text()) for name in ("esc.pid", "shell.pid")]
    assert await _gone(pids) == []
    # Nor a cgroup: the run's, which the host could not remove, the server removes as it stops.
    parent = cgroup_parent()
    if parent is not None:
        with anyio.move_on_after(10):
            while list(parent.glob(f"compat-adapter-{host.pid}-*")):
                await anyio.sleep(0.02)
        assert not list(parent.glob(f"compat-adapter-{host.pid}-*"))


async def test_a_working_directory_removed_before_the_fork_is_a_spawn_failure(tmp_path: Path) -> None:
    # The launcher reports it cannot enter the directory (the check before the spawn passed).
    gone = tmp_path / "gone"
    gone.mkdir()
    run = await spawner.launch(["/bin/sh", "-c", "true"], python=sys.executable, env={}, cwd=tmp_path,
                               cgroup=None, with_stdin=False)
    assert await run.wait() == 0
    await run.aclose()
    gone.rmdir()
    try:
        await spawner.launch(["/bin/sh", "-c", "true"], python=sys.executable, env={}, cwd=gone,
                             cgroup=None, with_stdin=False)
    except spawner.LaunchRefused as exc:
        assert "working directory" in str(exc) and str(gone) in str(exc)
    else:
        raise AssertionError("a missing working directory was not refused")


def signal_sets(status: str) -> dict[str, set[int]]:
    """``SigBlk`` and ``SigIgn`` of a ``/proc/<pid>/status``, as sets of signal numbers."""
    out = {}
    for line in status.splitlines():
        name, _, mask = line.partition(":")
        if name in ("SigBlk", "SigIgn"):
            bits = int(mask.strip(), 16)
            out[name] = {n + 1 for n in range(64) if bits >> n & 1}
    return out


#: glibc's own two signals (SIGCANCEL, SIGSETXID), which its posix_spawn leaves ignored: a limit
#: pinned in tests/test_process_tree.py.
GLIBC_INTERNAL = {32, 33}


async def test_a_hook_starts_with_no_signal_ignored_or_blocked(tmp_path: Path) -> None:
    # What a freshly started process has: the server ignores SIGINT and Python ignores SIGPIPE and
    # SIGXFSZ, and an ignored signal survives exec, so the launcher restores each before the shell.
    # Three at once: the spare's shell starts by posix_spawn, the others' launchers are forked.
    found: list[dict[str, set[int]]] = []

    async def one() -> None:
        outcome = await run_command("grep -E '^Sig(Ign|Blk)' /proc/self/status", stdin=None, cwd=tmp_path,
                                    env=hook_environment(os.environ), timeout_s=30)
        found.append(signal_sets(outcome.stdout))

    async with anyio.create_task_group() as tg:
        for _ in range(3):
            tg.start_soon(one)
    assert [sets["SigBlk"] for sets in found] == [set()] * 3
    assert [sets["SigIgn"] - GLIBC_INTERNAL for sets in found] == [set()] * 3


BATCH = textwrap.dedent("""
    import json, os, socket, sys, time
    from compat_adapter.runtime.launcher import Server

    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    server = Server(theirs.fileno())
    host, their_sock = socket.socketpair()
    (out_r, out_w), (err_r, err_w) = os.pipe(), os.pipe()
    fds = [their_sock.detach(), out_w, err_w]
    ours.sendmsg([b"N"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                           b"".join(fd.to_bytes(4, sys.byteorder) for fd in fds))])
    assert server.accept()
    for fd in fds:
        os.close(fd)
    (key,) = [k for k in server.selector.get_map().values() if k.data is not None]
    request = json.dumps({"argv": ["/bin/sh", "-c", "true"], "env": {}, "cwd": "/", "cgroup": None}).encode()
    host.sendall(len(request).to_bytes(8, "big") + request)
    assert server.handle(key) and key.data.pid  # the launcher is forked
    stat = f"/proc/{key.data.pid}/stat"
    while open(stat).read().rpartition(") ")[2][0] != "Z":
        time.sleep(0.01)
    host.close()  # the launcher has ended and the host hangs up: both ready in one batch
    ready = {k.fileobj for k, _ in server.selector.select(10)}
    assert ready == {server.wake, key.fileobj}, ready
    server.reap()  # the batch's wake-up first: the run is told its status and dropped
    assert key.data.ended and not server.launched
    print(server.handle(key))  # then the same batch's event for the dropped run's socket
""")


def test_a_run_reaped_and_hung_up_in_one_batch_is_handled_once() -> None:
    # CI once saw this batch crash the server (KeyError on the dropped run's socket), which
    # ended every run in flight and leaked the host's end of the old server.
    done = subprocess.run([sys.executable, "-c", BATCH], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "True\n", "")


@pytest.mark.parametrize("size", [100, INLINE_MAX + 1000])
async def test_a_request_rides_with_its_descriptors_and_a_large_one_follows_apart(tmp_path: Path, size: int) -> None:
    # The request goes in the message that hands the server the run's descriptors; one too large
    # for a message (a big environment) follows on the run's socket. Both run alike.
    env = {**hook_environment(os.environ), "BIG": "x" * size}
    outcome = await run_command('printf %s "${#BIG}"; cat', stdin=b"in", cwd=tmp_path, env=env, timeout_s=30)
    assert (outcome.exit_code, outcome.stdout) == (0, f"{size}in")


async def test_a_hook_dying_of_a_signal_is_reported_so_by_its_launcher(tmp_path: Path) -> None:
    # The launcher itself tells the host how the shell ended (its X comes before the server's).
    outcome = await run_command("kill -TERM $$", stdin=None, cwd=tmp_path, env=hook_environment(os.environ),
                                timeout_s=30)
    assert (outcome.exit_code, outcome.cause, outcome.signal) == (None, "signal", signal.SIGTERM)


async def test_a_run_not_waited_for_still_reports_its_refusal(tmp_path: Path) -> None:
    # run_command hands a run over without waiting for the launcher's start (it feeds stdin
    # meanwhile); a launcher that cannot enter the directory still says so, through wait().
    gone = tmp_path / "gone"
    gone.mkdir()
    gone.rmdir()
    run = await spawner.launch(["/bin/sh", "-c", "true"], python=sys.executable, env={}, cwd=gone,
                               cgroup=None, with_stdin=True, wait_started=False)
    try:
        assert await run.wait() == 127
        assert run.refused is not None and "working directory" in run.refused and str(gone) in run.refused
        assert run.pid == 0
    finally:
        await run.aclose()


async def test_when_a_run_is_over_its_launcher_is_no_longer_running(tmp_path: Path) -> None:
    # The launcher reports the end itself, just before it exits; the host waits for that exit
    # too, so no process of a finished run is left running, the launcher included.
    for _ in range(50):
        run = await spawner.launch(["/bin/sh", "-c", "true"], python=sys.executable, env={},
                                   cwd=tmp_path, cgroup=None, with_stdin=False)
        try:
            assert await run.wait() == 0
            assert not running(run.pid), f"launcher {run.pid} still running after its run"
        finally:
            await run.aclose()


# The launcher's start time (clock ticks since boot) and the hook's own time (seconds since boot).
AGE = "stat=$(cat /proc/$PPID/stat); set -- ${stat##*) }; echo ${20} $(cut -d' ' -f1 /proc/uptime)"


async def _launcher_age_s(tmp_path: Path) -> float:
    outcome = await run_command(AGE, stdin=None, cwd=tmp_path, env=hook_environment(os.environ), timeout_s=30)
    assert outcome.exit_code == 0, outcome
    started, now = outcome.stdout.split()
    return float(now) - int(started) / os.sysconf("SC_CLK_TCK")


def _server_children() -> list[int]:
    server = spawner.server_pid()
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError):
                stat = Path(f"/proc/{name}/stat").read_text()
                if int(stat.rpartition(")")[2].split()[1]) == server and running(int(name)):
                    found.append(int(name))
    return found


async def test_a_run_starts_in_a_launcher_forked_before_it(tmp_path: Path) -> None:
    # The spare: forked once the previous run has ended, it waits for the next one, so no fork
    # lies between the host's message and the hook.
    await run_command("true", stdin=None, cwd=tmp_path, env=hook_environment(os.environ), timeout_s=30)
    await anyio.sleep(0.5)
    assert await _launcher_age_s(tmp_path) >= 0.3


async def test_a_spare_that_died_waiting_loses_no_run(tmp_path: Path) -> None:
    await run_command("true", stdin=None, cwd=tmp_path, env=hook_environment(os.environ), timeout_s=30)
    with anyio.fail_after(10):
        while len(_server_children()) != 1:  # the run's launcher is gone, the spare is there
            await anyio.sleep(0.01)
    (spare,) = _server_children()
    os.kill(spare, signal.SIGKILL)
    assert await _gone([spare]) == []
    # The next run is forked for, as a run that finds no spare; the one after has a spare again.
    assert await _launcher_age_s(tmp_path) < 0.3
    await anyio.sleep(0.5)
    assert await _launcher_age_s(tmp_path) >= 0.3


async def test_the_standing_processes_are_the_server_and_a_spare_never_a_running_launcher(tmp_path: Path) -> None:
    env = hook_environment(os.environ)
    await run_command("true", stdin=None, cwd=tmp_path, env=env, timeout_s=30)
    server = spawner.server_pid()
    assert server is not None
    # The spare is forked (or kept) once the run has ended; a spare an earlier test left, let go
    # after its idle time, is standing until it has exited.
    with anyio.fail_after(10):
        while len(spawner.standing_pids()) != 2:
            await anyio.sleep(0.01)
    (spare,) = spawner.standing_pids() - {server}
    assert _server_children() == [spare]
    async def run() -> None:
        await run_command("echo $PPID > launcher.pid; sleep 1", stdin=None, cwd=tmp_path, env=env, timeout_s=30)

    async with anyio.create_task_group() as tg:
        tg.start_soon(run)
        await _wait_file(tmp_path / "launcher.pid")
        # The spare took this run: it is a launcher now, and no longer standing.
        assert int((tmp_path / "launcher.pid").read_text()) == spare
        assert spawner.standing_pids() == {server}


EXIT_IN_FLIGHT = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    import anyio
    from compat_adapter.runtime.process import hook_environment, run_command

    # Ended, timed out, killed by a signal, leaving orphans, killing its own launcher, still running.
    SCRIPTS = ["exit 0", "sleep 0.01 & sleep 0.02 & wait; exit 3", "(sleep 30 &); exit 0", "sleep 30",
               "kill -TERM $$", "for i in 1 2 3 4 5; do true & done; wait", "setsid sleep 30 & exit 0",
               "kill -9 $PPID"]

    async def one(script, timeout):
        await run_command(script, stdin=b"x", cwd=Path(sys.argv[1]), env=hook_environment(os.environ),
                          timeout_s=timeout)

    async def main():
        async with anyio.create_task_group() as tg:
            for script in SCRIPTS:
                for timeout in (0.05, 30):
                    tg.start_soon(one, script, timeout)
            await anyio.sleep(0.5)
            tg.cancel_scope.cancel()  # the host leaves with runs in flight

    anyio.run(main)
""")


def test_a_host_leaving_with_runs_in_flight_says_nothing_on_stderr(tmp_path: Path) -> None:
    # The launch server, its spare and each launcher until it takes its hook's pipes write to the
    # host's stderr; CI once showed a stray CPython line there at exit ("Signal 17 ignored due to
    # race condition": a SIGCHLD tripped where no Python handler was left). The pipe is read to its
    # end, so whatever any of them says as the host, its server and its launchers leave is here.
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", EXIT_IN_FLIGHT, str(tmp_path)], capture_output=True,
                              text=True, timeout=120)
        assert (done.returncode, done.stderr) == (0, "")
