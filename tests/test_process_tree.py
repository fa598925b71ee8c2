"""Every process a hook starts is gone after its run, whatever it did to hide; and what the hook
can read of its parents' environment. Real processes, checked through /proc.

Each containment test runs twice: with the cgroup this machine may offer, and with the cgroup
turned off (``COMPAT_ADAPTER_HOOK_CGROUP=off``), where the launcher's subreaper does the work alone.
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

from compat_adapter.runtime.cgroup import cgroup_parent
from compat_adapter.runtime.process import ProcessOutcome, hook_environment, run_command
from compat_adapter.runtime.spawner import standing_pids

LONG = 60.0
#: This host's own cgroup, where the machine offers one (whatever a test sets in the environment).
PARENT = cgroup_parent()


@pytest.fixture(params=["cgroup", "subreaper"])
def containment(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "subreaper":
        monkeypatch.setenv("COMPAT_ADAPTER_HOOK_CGROUP", "off")
    else:
        monkeypatch.delenv("COMPAT_ADAPTER_HOOK_CGROUP", raising=False)
    return str(request.param)


def _gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] == "Z"


async def _gone_within(pids: list[int], seconds: float = 10.0) -> list[int]:
    """The pids still running after a bounded wait (reaping by init is asynchronous)."""
    with anyio.move_on_after(seconds):
        while not all(_gone(pid) for pid in pids):
            await anyio.sleep(0.02)
    survivors = [pid for pid in pids if not _gone(pid)]
    for pid in survivors:  # never leave them behind for the next test
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return survivors


def _pids(path: Path) -> list[int]:
    return [int(x) for x in path.read_text().split()]


async def _run(command: str, cwd: Path, **kwargs: object) -> ProcessOutcome:
    options: dict[str, object] = {"stdin": None, "env": {"PATH": os.environ["PATH"]},
                                  "timeout_s": LONG, "grace_s": 0.3}
    options.update(kwargs)
    return await run_command(command, cwd=cwd, **options)  # type: ignore[arg-type]


# A grandchild that leaves the session, ignores SIGTERM, records its pid and sleeps; the escape is
# complete (pid file renamed into place) before the hook goes on.
ESCAPE = ("setsid sh -c 'trap \"\" TERM; echo $$ > esc.tmp; mv esc.tmp esc.pid; exec sleep 120' & "
          "while [ ! -f esc.pid ]; do sleep 0.01; done; ")


async def test_setsid_grandchild_is_gone_after_the_timeout(tmp_path: Path, containment: str) -> None:
    outcome = await _run(ESCAPE + "echo $$ > shell.pid; sleep 60", tmp_path, timeout_s=1.0)
    assert outcome.timed_out is True
    assert outcome.cause == "timeout"
    assert await _gone_within(_pids(tmp_path / "esc.pid") + _pids(tmp_path / "shell.pid")) == []


async def test_double_forked_orphan_is_gone_after_the_timeout(tmp_path: Path, containment: str) -> None:
    # The middle process exits at once: the sleeper is an orphan in a session of its own.
    command = ("sh -c 'setsid sh -c \"trap \\\"\\\" TERM; echo \\$\\$ > orphan.pid; exec sleep 120\" &' ; "
               "while [ ! -s orphan.pid ]; do sleep 0.01; done; trap '' TERM; sleep 60")
    outcome = await _run(command, tmp_path, timeout_s=1.0)
    assert outcome.timed_out is True
    assert outcome.signal == signal.SIGKILL  # the shell ignored TERM too
    assert await _gone_within(_pids(tmp_path / "orphan.pid")) == []


async def test_many_escaped_descendants_are_all_gone(tmp_path: Path, containment: str) -> None:
    command = ("for i in $(seq 30); do setsid sh -c 'echo $$ >> many.pid; exec sleep 120' & done; "
               "while [ $(wc -l < many.pid 2>/dev/null || echo 0) -lt 30 ]; do sleep 0.01; done; "
               "sleep 60")
    outcome = await _run(command, tmp_path, timeout_s=1.5)
    assert outcome.timed_out is True
    pids = _pids(tmp_path / "many.pid")
    assert len(pids) == 30
    assert await _gone_within(pids) == []


async def test_escaped_grandchild_is_gone_when_the_hook_exits_normally(tmp_path: Path,
                                                                       containment: str) -> None:
    outcome = await _run(ESCAPE + "echo done", tmp_path, timeout_s=LONG)
    assert (outcome.exit_code, outcome.stdout, outcome.timed_out) == (0, "done\n", False)
    assert await _gone_within(_pids(tmp_path / "esc.pid")) == []


async def test_caller_cancellation_ends_escaped_grandchild(tmp_path: Path, containment: str) -> None:
    with anyio.move_on_after(30) as outer:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_run, ESCAPE + "sleep 60", tmp_path)
            with anyio.fail_after(10):
                while not (tmp_path / "esc.pid").is_file():
                    await anyio.sleep(0.01)
            outer.cancel()
    assert outer.cancelled_caught
    assert await _gone_within(_pids(tmp_path / "esc.pid")) == []


async def test_the_hook_runs_in_a_cgroup_of_its_own_where_the_machine_allows(tmp_path: Path,
                                                                          containment: str) -> None:
    outcome = await _run("cat /proc/self/cgroup", tmp_path)
    own = next(line for line in outcome.stdout.splitlines() if line.startswith("0::"))
    if containment == "cgroup" and cgroup_parent() is not None:
        assert f"/compat-adapter-{os.getpid()}-" in own
    else:
        assert "compat-adapter-" not in own
    # Nothing of the run is left in the cgroup tree afterwards: at most the spare launcher's
    # directory, made for the next run, with the spare alone in it.
    assert await _ours_left() == []


async def test_a_spare_launcher_is_in_its_runs_cgroup_before_the_shell_starts(tmp_path: Path) -> None:
    # The spare joins the cgroup while it waits, so its shell is born there by posix_spawn (no
    # copy of the launcher's memory): the shell's parent, its launcher, is in the same cgroup.
    if PARENT is None:
        pytest.fail("no writable cgroup v2 on this machine: the CI runs as root, where there is one")
    await anyio.sleep(0.2)  # the spare is forked and has joined: this run is its
    outcome = await _run("cat /proc/self/cgroup /proc/$PPID/cgroup", tmp_path, shell="/bin/bash")
    own, launcher = (line for line in outcome.stdout.splitlines() if line.startswith("0::"))
    assert f"/compat-adapter-{os.getpid()}-" in own
    assert launcher == own
    assert await _ours_left() == []


async def test_cgroups_turned_off_after_the_spare_joined_one(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    await _run("true", tmp_path)  # the server runs, and its spare has a cgroup where it may
    await anyio.sleep(0.2)
    monkeypatch.setenv("COMPAT_ADAPTER_HOOK_CGROUP", "off")
    outcome = await _run("cat /proc/self/cgroup", tmp_path)
    assert "compat-adapter-" not in next(line for line in outcome.stdout.splitlines() if line.startswith("0::"))
    assert await _ours_left() == []


LEAVING_HOST = textwrap.dedent("""
    import anyio, os
    from pathlib import Path
    from compat_adapter.runtime.process import run_command

    async def main():
        outcome = await run_command("true", stdin=None, cwd=Path("/"), env={}, timeout_s=30)
        print(os.getpid(), outcome.exit_code)
        await anyio.sleep(0.2)  # the next spare is forked and in its cgroup

    anyio.run(main)
""")


def test_a_host_that_exits_leaves_no_cgroup_behind() -> None:
    # The spare's cgroup is the server's to remove when the host goes: after the spare is reaped.
    done = subprocess.run([sys.executable, "-c", LEAVING_HOST], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    pid, code = done.stdout.split()
    assert code == "0"
    if PARENT is not None:
        assert not list(PARENT.glob(f"compat-adapter-{pid}-*"))


async def _ours_left() -> list[tuple[str, list[int]]]:
    """This host's cgroup directories with their members, but for the standing spare's. The
    server makes the next spare's directory once a run is over and the spare joins it by itself,
    so a directory that is empty or not yet the spare's is looked at again for a little while."""
    if PARENT is None:
        return []
    left: list[tuple[str, list[int]]] = []
    with anyio.move_on_after(5.0):
        while True:
            found = [(path.name, _pids(path / "cgroup.procs"))
                     for path in PARENT.glob(f"compat-adapter-{os.getpid()}-*")]
            standing = standing_pids()  # after the listing: a spare listed is standing by now
            spares = [entry for entry in found if entry[1] and set(entry[1]) <= standing]
            left = [entry for entry in found if entry not in spares]
            if not left and len(spares) <= 1:
                return []
            await anyio.sleep(0.02)
    return left + spares[1:]


async def test_limit_without_cgroup_a_hook_that_kills_its_launcher_orphans_its_escape(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Pinned limit: the subreaper is the launcher; SIGKILL to it (from the hook itself) hands the
    # escaped grandchild to init, out of reach. With a cgroup the same hook loses it (next test).
    monkeypatch.setenv("COMPAT_ADAPTER_HOOK_CGROUP", "off")
    outcome = await _run(ESCAPE + "kill -9 $PPID; sleep 5", tmp_path, timeout_s=LONG)
    assert outcome.cause == "signal" and outcome.signal == signal.SIGKILL
    survivors = await _gone_within(_pids(tmp_path / "esc.pid"), seconds=0.5)
    assert survivors == _pids(tmp_path / "esc.pid")  # it outlived the run (and is killed now)


async def test_limit_a_spawned_shell_has_glibcs_two_own_signals_ignored(tmp_path: Path,
                                                                       containment: str) -> None:
    # Pinned limit: the spare's shell starts by posix_spawn (with or without a cgroup), whose child
    # in glibc sets glibc's internal SIGCANCEL (32) and SIGSETXID (33) to SIG_IGN, and that
    # survives exec. Nothing else is ignored or blocked (tests/test_process_server.py).
    if not os.confstr("CS_GNU_LIBC_VERSION"):
        pytest.fail("this machine's C library is not glibc: what does its posix_spawn leave?")
    await anyio.sleep(0.2)  # the spare is forked and waiting: this run is its
    outcome = await _run("grep -E '^Sig(Ign|Blk)' /proc/self/status", tmp_path)
    masks = dict(line.split(":\t") for line in outcome.stdout.splitlines())
    assert int(masks["SigBlk"], 16) == 0
    assert int(masks["SigIgn"], 16) == 1 << 31 | 1 << 32, masks  # bit n - 1 is signal n


async def test_limit_without_the_launcher_a_setsid_escape_survives_and_ppid_is_the_host(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Pinned limit of COMPAT_ADAPTER_HOOK_LAUNCHER=off (and of an embedding without an interpreter).
    monkeypatch.setenv("COMPAT_ADAPTER_HOOK_LAUNCHER", "off")
    outcome = await _run(ESCAPE + "echo $PPID; sleep 60", tmp_path, timeout_s=1.0)
    assert outcome.timed_out is True
    assert outcome.stdout.strip() == str(os.getpid())  # the hook's parent is this process
    escaped = _pids(tmp_path / "esc.pid")
    assert await _gone_within(escaped, seconds=0.5) == escaped  # survived (killed now)


async def test_with_a_cgroup_killing_the_launcher_does_not_save_the_escape(tmp_path: Path) -> None:
    outcome = await _run(ESCAPE + "kill -9 $PPID; sleep 5", tmp_path, timeout_s=LONG)
    assert outcome.signal == signal.SIGKILL
    escaped = _pids(tmp_path / "esc.pid")
    if cgroup_parent() is not None:
        assert await _gone_within(escaped) == []
    else:  # no writable cgroup v2 here: the limit pinned above applies
        assert await _gone_within(escaped, seconds=0.5) == escaped


# -- what a hook can read of its parents' environment --------------------------------------------

SECRET = "sk-proc-environ-probe-0123456789abcdef"

HOST = textwrap.dedent("""
    import os, sys, anyio
    from pathlib import Path
    from compat_adapter.runtime.process import hook_environment, run_command

    async def main():
        hook = ("cat /proc/$PPID/environ > parent.env; "
                "server=$(cut -d' ' -f4 /proc/$PPID/stat); "
                "cat /proc/$server/environ > grandparent.env; "
                "host=$(cut -d' ' -f4 /proc/$server/stat); "
                "cat /proc/$host/environ > host.env; echo $host > host.pid; "
                "cat /proc/$PPID/cmdline > parent.cmdline")
        out = await run_command(hook, stdin=None, cwd=Path(sys.argv[1]),
                                env=hook_environment(os.environ), timeout_s=30)
        print(out.exit_code, out.stderr)

    anyio.run(main)
""")


def test_a_hook_reads_no_scrubbed_secret_from_its_parent_environ(tmp_path: Path) -> None:
    env = {"PATH": os.environ["PATH"], "OPENAI_API_KEY": SECRET, "DATABASE_URL":
           "postgres://app:hunter2@db.internal/app", "HOME": str(tmp_path)}
    # Python as the host, with the secrets in its real (initial) environment, the one /proc shows.
    host = subprocess.Popen([sys.executable, "-c", HOST, str(tmp_path)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    out, err = host.communicate(timeout=120)
    assert host.returncode == 0, err
    assert out.startswith("0 "), out
    assert b"launcher.py" in (tmp_path / "parent.cmdline").read_bytes()  # $PPID is the launcher
    # The launcher and the server that forked it show the server's initial environment: none.
    assert (tmp_path / "parent.env").read_bytes() == b""
    assert (tmp_path / "grandparent.env").read_bytes() == b""
    # Pinned limit: one hop further up is the host itself, same user, readable.
    assert (tmp_path / "host.pid").read_text().strip() == str(host.pid)
    assert SECRET.encode() in (tmp_path / "host.env").read_bytes()


async def test_launcher_environment_holds_nothing_and_the_hook_gets_its_own(tmp_path: Path) -> None:
    env = hook_environment({"PATH": os.environ["PATH"], "GITHUB_TOKEN": "ghp_" + "x" * 36,
                            "LANG": "C.UTF-8"})
    outcome = await _run("wc -c < /proc/$PPID/environ; env | sort", tmp_path, env=env)
    size, *own = outcome.stdout.splitlines()
    assert size.strip() == "0"
    assert [line for line in own if not line.startswith(("PWD=", "SHLVL=", "_="))] == \
        sorted(f"{k}={v}" for k, v in env.items())


def _sleepers(marker: str) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
            except OSError:
                continue
            if cmdline == f"sleep\0{marker}\0".encode() and not _gone(int(name)):
                found.append(int(name))
    return found


async def test_a_fork_storm_of_setsid_orphans_leaves_nothing(tmp_path: Path, containment: str) -> None:
    # Orphans appear faster than any single pass could list them; each one is re-parented to the
    # launcher (or sits in the cgroup) and is found by the next pass.
    marker = f"100.{os.getpid()}{len(containment)}"
    outcome = await _run(f"while :; do (setsid sleep {marker} &); done", tmp_path, timeout_s=1.0)
    assert outcome.timed_out is True
    with anyio.move_on_after(10):
        while _sleepers(marker):
            await anyio.sleep(0.05)
    left = _sleepers(marker)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert left == []


JOIN_BY_WRITE = textwrap.dedent("""
    import os
    from compat_adapter.runtime import cgroupfs, launcher
    from compat_adapter.runtime.cgroup import cgroup_parent

    # No such system call: ENOSYS, what a seccomp filter that forbids clone3 answers.
    cgroupfs.SYS_CLONE3 = 1 << 20
    parent = cgroup_parent()
    cgroup = cgroupfs.make(str(parent), f"compat-adapter-{os.getpid()}-join") if parent else None
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.dup2(w, 1)
        status = launcher.Launcher(cgroup).run(["/bin/cat", "/proc/self/cgroup"], {})
        os._exit(os.waitstatus_to_exitcode(status))
    os.close(w)
    _, status = os.waitpid(pid, 0)
    lines = os.read(r, 65536).decode().splitlines()
    print(os.waitstatus_to_exitcode(status), os.path.basename(cgroup) if cgroup else None,
          next(line for line in lines if line.startswith("0::")))
    if cgroup is not None:
        cgroupfs.remove(cgroup)
""")


def test_where_clone3_is_refused_the_shell_joins_its_cgroup_by_a_write() -> None:
    # The launcher forks the shell straight into its cgroup (clone3); where the kernel or a
    # seccomp filter refuses that, the shell writes itself into cgroup.procs before exec.
    done = subprocess.run([sys.executable, "-c", JOIN_BY_WRITE], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    code, name, own = done.stdout.split()
    assert code == "0"
    if cgroup_parent() is not None:
        assert own.endswith(f"/{name}"), (name, own)
    else:
        assert name == "None" and "compat-adapter-" not in own
