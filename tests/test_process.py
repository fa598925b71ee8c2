"""The command runner with real processes: capture, stdin, group kill, caps, spawn failure, env."""

from __future__ import annotations

import os
import signal
import tracemalloc
from collections.abc import Mapping
from pathlib import Path

import anyio
import pytest

from compat_adapter.runtime.environment import secret_name
from compat_adapter.runtime.process import (
    ProcessOutcome,
    hook_environment,
    run_command,
)

# Generous: these hooks finish in milliseconds; the bound only keeps a broken runner from hanging.
LONG = 60.0


def _env(**extra: str) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], **extra}


async def _run(command: str, cwd: Path, **kwargs: object) -> ProcessOutcome:
    options: dict[str, object] = {"stdin": None, "env": _env(), "timeout_s": LONG}
    options.update(kwargs)
    return await run_command(command, cwd=cwd, **options)  # type: ignore[arg-type]


def _gone(pid: int) -> bool:
    """True once `pid` no longer runs (absent, or a zombie waiting for a reaper we do not own)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    # The state letter follows the parenthesised command name.
    return stat.rpartition(")")[2].split()[0] == "Z"


async def _assert_all_gone(pids: list[int]) -> None:
    # Reaping by init (or a subreaper) is asynchronous: allow a short, bounded wait.
    with anyio.move_on_after(10):
        while not all(_gone(pid) for pid in pids):
            await anyio.sleep(0.02)
    survivors = [pid for pid in pids if not _gone(pid)]
    for pid in survivors:  # do not leave them behind for the next test
        os.kill(pid, signal.SIGKILL)
    assert survivors == []


def _read_pids(tmp_path: Path, *names: str) -> list[int]:
    return [int((tmp_path / name).read_text().split()[0]) for name in names]


async def _wait_for_files(tmp_path: Path, *names: str) -> None:
    with anyio.fail_after(10):
        while not all((tmp_path / name).is_file() and (tmp_path / name).read_text().strip()
                      for name in names):
            await anyio.sleep(0.01)


# -- exit codes and capture ---------------------------------------------------------------------


@pytest.mark.parametrize("code", [0, 1, 2, 3, 127, 255])
async def test_exit_code_and_both_streams_are_captured(tmp_path: Path, code: int) -> None:
    outcome = await _run(f"echo out-{code}; echo err-{code} >&2; exit {code}", tmp_path)
    assert outcome.exit_code == code
    assert outcome.stdout == f"out-{code}\n"
    assert outcome.stderr == f"err-{code}\n"
    assert outcome.timed_out is False
    assert outcome.truncated is False
    assert outcome.cause is None
    assert outcome.signal is None
    assert outcome.duration_ms >= 0.0


async def test_runs_in_cwd_through_sh(tmp_path: Path) -> None:
    outcome = await _run('pwd; echo "$0"', tmp_path)
    assert outcome.exit_code == 0
    assert outcome.stdout.splitlines() == [str(tmp_path.resolve()), "/bin/sh"]


async def test_invalid_utf8_is_replaced_not_raised(tmp_path: Path) -> None:
    outcome = await _run(r"printf '\377ok'; printf '\376' >&2", tmp_path)
    assert outcome.exit_code == 0
    assert outcome.stdout == "\ufffdok"
    assert outcome.stderr == "\ufffd"


async def test_outcome_is_frozen(tmp_path: Path) -> None:
    outcome = await _run("true", tmp_path)
    with pytest.raises(AttributeError):
        outcome.exit_code = 1  # type: ignore[misc]


# -- stdin ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "payload",
    [
        b'{"hook_event_name": "PreToolUse"}\n',
        b'{"hook_event_name": "PreToolUse"}',
        b"",
        b"\xff\x00binary\r\n\n",
    ],
    ids=["trailing-newline", "no-newline", "empty", "binary"],
)
async def test_stdin_payload_reaches_the_hook_byte_for_byte(tmp_path: Path, payload: bytes) -> None:
    outcome = await _run("cat > received.bin", tmp_path, stdin=payload)
    assert outcome.exit_code == 0
    assert (tmp_path / "received.bin").read_bytes() == payload


async def test_no_payload_means_immediate_eof(tmp_path: Path) -> None:
    # With an inherited or open stdin `cat` would wait until the timeout.
    outcome = await _run("cat; echo end", tmp_path, stdin=None, timeout_s=LONG)
    assert outcome.timed_out is False
    assert outcome.exit_code == 0
    assert outcome.stdout == "end\n"


@pytest.mark.parametrize("command", ["true", "exec 0<&-; echo closed", "sleep 0.1; exit 4"])
async def test_hook_that_never_reads_a_large_payload(tmp_path: Path, command: str) -> None:
    payload = b"x" * (8 * 1024 * 1024)
    outcome = await _run(command, tmp_path, stdin=payload)
    assert outcome.timed_out is False
    assert outcome.cause is None
    assert outcome.exit_code == (4 if "exit 4" in command else 0)


# -- timeouts and the process group --------------------------------------------------------------


async def test_term_ignoring_hook_and_grandchild_are_killed_at_timeout(tmp_path: Path) -> None:
    # Both the shell and its background child ignore SIGTERM (an ignored disposition is
    # inherited), so only the SIGKILL to the whole group ends them.
    command = "trap '' TERM; sleep 60 & echo $! > child.pid; echo $$ > leader.pid; wait; wait"
    outcome = await _run(command, tmp_path, timeout_s=1.5, grace_s=0.3)
    assert outcome.timed_out is True
    assert outcome.cause == "timeout"
    assert outcome.exit_code is None
    assert outcome.signal == signal.SIGKILL
    await _assert_all_gone(_read_pids(tmp_path, "leader.pid", "child.pid"))

    after = await _run("echo ok", tmp_path)
    assert (after.exit_code, after.stdout, after.timed_out) == (0, "ok\n", False)


async def test_timeout_keeps_output_written_before_it(tmp_path: Path) -> None:
    outcome = await _run("echo partial; echo oops >&2; exec sleep 60", tmp_path, timeout_s=1.0,
                         grace_s=0.5)
    assert outcome.timed_out is True
    assert outcome.exit_code is None
    assert outcome.stdout == "partial\n"
    assert outcome.stderr == "oops\n"
    assert outcome.signal == signal.SIGTERM  # `sleep` did not ignore it


async def test_output_of_a_sigterm_handler_is_read_during_the_grace_period(tmp_path: Path) -> None:
    # The handler writes more than a pipe holds: unread, it would block and never exit.
    (tmp_path / "hook.sh").write_text(
        "on_term() {\n"
        "  head -c 300000 /dev/zero | tr '\\0' c\n"
        "  echo\n"
        "  echo cleaned >&2\n"
        "  exit 0\n"
        "}\n"
        "trap on_term TERM\n"
        "while :; do sleep 0.05; done\n"
    )
    outcome = await _run("exec sh hook.sh", tmp_path, timeout_s=1.0, grace_s=30)
    assert outcome.timed_out is True
    assert outcome.exit_code is None
    assert outcome.signal is None  # the shell exited by itself within the grace period
    assert outcome.stderr.endswith("cleaned\n")  # after sh's note about the killed `sleep`
    assert outcome.stdout == "c" * 300_000 + "\n"


async def test_background_grandchild_does_not_hold_the_run_open(tmp_path: Path) -> None:
    outcome = await _run("sleep 30 & echo $! > bg.pid; echo started", tmp_path, timeout_s=20)
    assert outcome.timed_out is False
    assert outcome.exit_code == 0
    assert outcome.cause is None
    assert outcome.stdout == "started\n"
    await _assert_all_gone(_read_pids(tmp_path, "bg.pid"))


async def test_process_that_left_the_group_is_killed_when_the_shell_exits(tmp_path: Path) -> None:
    # `setsid` puts the child out of the shell's process group; it still holds stdout. The
    # launcher adopted it (subreaper, and the cgroup where there is one), so it is killed as soon
    # as the shell exits and the run does not wait for it. The shell waits for the escape to
    # finish so that the escape really happened before the kill.
    command = (
        "setsid sh -c 'echo $$ > escaped.tmp; mv escaped.tmp escaped.pid; exec sleep 120' & "
        "while [ ! -f escaped.pid ]; do sleep 0.01; done; echo done"
    )
    outcome = await _run(command, tmp_path, timeout_s=300, grace_s=0.3)
    assert outcome.timed_out is False
    assert outcome.exit_code == 0
    assert outcome.stdout == "done\n"
    await _assert_all_gone(_read_pids(tmp_path, "escaped.pid"))


async def test_outer_cancellation_kills_the_group_and_propagates(tmp_path: Path) -> None:
    command = "trap '' TERM; sleep 60 & echo $! > child.pid; echo $$ > leader.pid; wait; wait"
    returned: list[ProcessOutcome] = []

    async def runner() -> None:
        returned.append(await _run(command, tmp_path, timeout_s=LONG))

    with anyio.move_on_after(30) as outer:
        async with anyio.create_task_group() as tg:
            tg.start_soon(runner)
            await _wait_for_files(tmp_path, "leader.pid", "child.pid")
            outer.cancel()
    assert outer.cancelled_caught
    assert returned == []  # cancellation propagated instead of an outcome
    await _assert_all_gone(_read_pids(tmp_path, "leader.pid", "child.pid"))


async def test_outer_deadline_kills_the_group(tmp_path: Path) -> None:
    command = "sleep 60 & echo $! > child.pid; echo $$ > leader.pid; wait"
    with anyio.move_on_after(1.5) as outer:
        await _run(command, tmp_path, timeout_s=LONG)
    assert outer.cancelled_caught
    await _assert_all_gone(_read_pids(tmp_path, "leader.pid", "child.pid"))


# -- output caps ---------------------------------------------------------------------------------


async def test_hundred_megabytes_of_output_is_capped_and_drained(tmp_path: Path) -> None:
    outcome = await _run("head -c 100000000 /dev/zero", tmp_path, max_output_bytes=65_536,
                         timeout_s=300)
    assert outcome.timed_out is False
    assert outcome.exit_code == 0  # drained to the end: `head` was never blocked or broken
    assert outcome.truncated is True
    assert len(outcome.stdout) == 65_536
    assert outcome.stderr == ""


async def test_memory_stays_bounded_while_draining(tmp_path: Path) -> None:
    tracemalloc.start()
    try:
        outcome = await _run("head -c 30000000 /dev/zero", tmp_path, max_output_bytes=4096,
                             timeout_s=300)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (outcome.exit_code, outcome.truncated, len(outcome.stdout)) == (0, True, 4096)
    assert peak < 8 * 1024 * 1024  # far below the 30 MB that went through


async def test_stderr_is_capped_on_its_own(tmp_path: Path) -> None:
    outcome = await _run("echo small; head -c 50000 /dev/zero | tr '\\0' e >&2", tmp_path,
                         max_output_bytes=1000)
    assert outcome.exit_code == 0
    assert outcome.truncated is True
    assert outcome.stdout == "small\n"
    assert outcome.stderr == "e" * 1000


async def test_output_exactly_at_the_cap_is_not_truncated(tmp_path: Path) -> None:
    outcome = await _run("head -c 1000 /dev/zero | tr '\\0' a", tmp_path, max_output_bytes=1000)
    assert outcome.exit_code == 0
    assert outcome.truncated is False
    assert outcome.stdout == "a" * 1000


# -- failures that are outcomes ------------------------------------------------------------------


async def test_missing_cwd_is_a_spawn_failure(tmp_path: Path) -> None:
    missing = tmp_path / "does-not-exist"
    outcome = await _run("true", missing)
    assert outcome.cause == "spawn-failed"
    assert outcome.exit_code is None
    assert outcome.timed_out is False
    assert str(missing) in outcome.stderr
    assert "does not exist" in outcome.stderr


async def test_cwd_that_is_a_file_is_a_spawn_failure(tmp_path: Path) -> None:
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    outcome = await _run("true", a_file)
    assert outcome.cause == "spawn-failed"
    assert outcome.exit_code is None
    assert "not a directory" in outcome.stderr


async def test_nul_byte_in_command_is_a_spawn_failure(tmp_path: Path) -> None:
    outcome = await _run("echo a\0b", tmp_path)
    assert outcome.cause == "spawn-failed"
    assert outcome.exit_code is None
    assert outcome.stderr


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
async def test_signal_death(tmp_path: Path, sig: signal.Signals) -> None:
    outcome = await _run(f"echo before; kill -{sig.name.removeprefix('SIG')} $$", tmp_path)
    assert outcome.exit_code is None
    assert outcome.cause == "signal"
    assert outcome.signal == sig
    assert outcome.timed_out is False
    assert outcome.stdout == "before\n"


# -- environment ---------------------------------------------------------------------------------


def _parse_env(text: str) -> Mapping[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


async def test_scrubbed_environment_reaches_the_hook(tmp_path: Path) -> None:
    base = {
        "PATH": os.environ["PATH"],
        "MY_API_KEY": "sk-1",
        "DSH_HOME": "/host",
        "github_token": "t",
        "DB_PASSWORD": "p",
        "AWS_SECRET_ACCESS_KEY": "s",
        "GOOGLE_APPLICATION_CREDENTIALS": "/c.json",
        "LANG": "C.UTF-8",
    }
    env = hook_environment(base, add={"CLAUDE_PROJECT_DIR": str(tmp_path)})
    outcome = await _run("env", tmp_path, env=env)
    assert outcome.exit_code == 0
    seen = _parse_env(outcome.stdout)
    assert seen["PATH"] == os.environ["PATH"]
    assert seen["LANG"] == "C.UTF-8"
    assert seen["CLAUDE_PROJECT_DIR"] == str(tmp_path)
    for name in ("MY_API_KEY", "DSH_HOME", "github_token", "DB_PASSWORD",
                 "AWS_SECRET_ACCESS_KEY", "GOOGLE_APPLICATION_CREDENTIALS"):
        assert name not in seen


async def test_env_replaces_rather_than_extends_ours(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                    ) -> None:
    monkeypatch.setenv("COMPAT_TEST_ONLY_IN_PARENT", "1")
    outcome = await _run("env", tmp_path, env=_env())
    assert "COMPAT_TEST_ONLY_IN_PARENT" not in _parse_env(outcome.stdout)


def test_hook_environment_policy() -> None:
    base = {"PATH": "/bin", "dsh_lower": "x", "DSH_": "x", "KEYCHAIN": "x", "HOME": "/h",
            "HOST": "h"}
    env = hook_environment(base, add={"HOME": "/other", "VENDOR_API_KEY": "chosen"})
    # `add` is layered last and not filtered: the caller chose those variables on purpose. The
    # scrub reads the name's segments: KEYCHAIN is a word of its own, not a KEY.
    assert env == {"PATH": "/bin", "HOME": "/other", "HOST": "h", "KEYCHAIN": "x", "VENDOR_API_KEY": "chosen"}
    assert base["HOME"] == "/h"  # the input is not modified
    assert hook_environment({}) == {}


@pytest.mark.parametrize("name", ["API_KEY", "apikey", "Password", "x_secret_y", "TOKEN",
                                  "my_credentials"])
def test_scrub_rule_matches_any_case_anywhere(name: str) -> None:
    assert secret_name(name)
    assert hook_environment({name: "v"}) == {}
