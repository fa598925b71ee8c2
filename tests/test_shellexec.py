"""A plain command started without its shell gets what the real dash and bash would have given it.

Each comparison runs the same command twice through `run_command`, once with the shell forced
(``COMPAT_ADAPTER_DIRECT_EXEC=off``) and once direct, and compares what the program saw: its raw
argv (``/proc/self/cmdline``) and its initial environment (``/proc/self/environ``).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from compat_adapter.runtime.callenv import serving
from compat_adapter.runtime.process import ProcessOutcome, run_command
from compat_adapter.runtime.shellexec import direct_exec

LONG = 60.0
DASH = shutil.which("dash") or "/usr/bin/dash"
BASH = shutil.which("bash") or "/usr/bin/bash"
SHELLS = pytest.mark.parametrize("shell", [DASH, BASH], ids=["dash", "bash"])
# An ELF interpreter for the scripts below (a #! line must name a binary to be started directly).
PYTHON = os.path.realpath(sys.executable)
SHOW = f"""#!{PYTHON} -I
import sys
raw = lambda name: [part for part in open(name, "rb").read().split(b"\\0") if part]
print(repr(raw("/proc/self/cmdline")))
print(repr(sorted(raw("/proc/self/environ"))))
"""


@pytest.fixture(autouse=True)
def _no_cores() -> Iterator[None]:
    # dash reports a core dump the runner cannot see: it is bypassed only where none can be written.
    soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (0, hard))
    yield
    resource.setrlimit(resource.RLIMIT_CORE, (soft, hard))


def _script(path: Path, text: str, mode: int = 0o755) -> None:
    path.write_text(text)
    path.chmod(mode)


@pytest.fixture
def place(tmp_path: Path) -> Path:
    (tmp_path / "bin").mkdir()
    _script(tmp_path / "show.py", SHOW)
    _script(tmp_path / "bin" / "show.py", SHOW)
    _script(tmp_path / "bin" / "onpath", SHOW)
    (tmp_path / "py").symlink_to(PYTHON)  # an ELF program started by a relative path
    (tmp_path / "link").symlink_to(tmp_path)
    _script(tmp_path / "plain.sh", "echo no shebang\n")
    _script(tmp_path / "noexec.py", SHOW, 0o644)
    _script(tmp_path / "lost.sh", "#!/nonexistent/interpreter\necho hi\n")
    (tmp_path / "folder.py").mkdir()
    return tmp_path


def _env(place: Path, **extra: str) -> dict[str, str]:
    return {"PATH": f"{place}/bin:/usr/bin:/bin", "HOME": str(place), "D": str(place), "S": "a b  c", "E": "",
            "U": "caf\u00e9", "CMD": "echo", **extra}


async def _both(monkeypatch: pytest.MonkeyPatch, shell: str, command: str, place: Path,
                env: Mapping[str, str], cwd: Path | None = None) -> tuple[ProcessOutcome, ProcessOutcome]:
    where = cwd or place
    runs = []
    for mode in ("off", "on"):
        monkeypatch.setenv("COMPAT_ADAPTER_DIRECT_EXEC", mode)
        outcome = await run_command(command, stdin=None, cwd=where, env=env, timeout_s=LONG, shell=shell)
        runs.append(replace(outcome, duration_ms=0.0))
    return runs[0], runs[1]


COMMANDS = [
    "{place}/show.py a b",
    "./show.py",
    "bin/show.py x,y:z@w%q+r=s --flag=1 -v",
    "onpath --opt=2",
    "show.py\tone   two",
    "./py -I show.py arg",
    "{place}/py -I {place}/bin/show.py",
    '"$D"/show.py "$S" "$E" x"${D}"y "lit sp" "a"',
    '"${D}/bin/show.py" plain',
]


@SHELLS
@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.anyio
async def test_the_program_sees_the_argv_and_environment_the_shell_gives_it(
        monkeypatch: pytest.MonkeyPatch, place: Path, shell: str, command: str) -> None:
    command = command.replace("{place}", str(place))
    # show.py is found on PATH (bin/) for the bare word, and in the folder for the rest.
    env = _env(place)
    assert direct_exec(shell, command, place, env) is not None
    shelled, direct = await _both(monkeypatch, shell, command, place, env)
    assert shelled.exit_code == 0, shelled
    assert direct == shelled


ENVIRONMENTS = [
    {},
    {"PWD": "{place}"},
    {"PWD": "/"},
    {"PWD": "."},
    {"PWD": "{place}/link"},
    {"PWD": "/nonexistent"},
    {"SHLVL": "0"},
    {"SHLVL": "3"},
    {"SHLVL": "998"},
    {"OLDPWD": "/nonexistent"},
    {"OLDPWD": "/"},
    {"OLDPWD": "bin"},
    {"_": "inherited"},
    {"A-B": "1", "1A": "x", "EMPTY": "", "LINES2": "a\nb"},
    {"ENV": "/dev/null", "CDPATH": "/", "LANG": "C.UTF-8", "TERM": "dumb"},
]


@SHELLS
@pytest.mark.parametrize("extra", ENVIRONMENTS, ids=lambda e: ",".join(e) or "plain")
@pytest.mark.anyio
async def test_the_environment_matches_the_shells_for_inherited_variables(
        monkeypatch: pytest.MonkeyPatch, place: Path, shell: str, extra: dict[str, str]) -> None:
    env = _env(place, **{name: value.format(place=place) for name, value in extra.items()})
    assert direct_exec(shell, "./show.py", place, env) is not None
    shelled, direct = await _both(monkeypatch, shell, "./show.py", place, env)
    assert shelled.exit_code == 0, shelled
    assert direct == shelled


@SHELLS
@pytest.mark.anyio
async def test_a_working_folder_reached_through_a_link_keeps_its_pwd(
        monkeypatch: pytest.MonkeyPatch, place: Path, shell: str) -> None:
    env = _env(place, PWD=f"{place}/link")
    shelled, direct = await _both(monkeypatch, shell, "./show.py", place, env, cwd=place / "link")
    assert f"PWD={place}/link".encode() in shelled.stdout.encode()
    assert direct == shelled


REFUSED = [
    "echo hi", "true", "test -x show.py", "exec ./show.py", "command ./show.py", ". ./show.py",
    "source ./show.py", "time ./show.py", "'./show.py'", "./sh*.py", "./show.py ?",
    "./show.py [a]", "$HOME/show.py", "~/show.py", "./show.py; true", "./show.py | cat", "./show.py > x",
    "./show.py &", "(./show.py)", "{ ./show.py; }", "A=1 ./show.py", "-x", "./show.py \\a", "./show.py #c",
    "./show.py\n./show.py", "./show.py `x`", "! ./show.py", "", "   ",
    '"$NOPE"/show.py', '"$PWD"/show.py', '"$SHLVL"', './show.py "$U"', '"$CMD" hi', '"$E"', '"$D/show.py',
    '"$D"/show.py "\\$x"', '"$(true)"/show.py', '"`true`"/show.py', '"$D"/show.py "${S:-x}"', '"$1"',
    "cat /a/long/path/to/the/output/of/a/conformance/case/out0; cat /a/long/path/err0 >&2; exit 1",
    "./plain.sh", "./noexec.py", "./lost.sh", "./folder.py", "./missing.py", "missing-on-path",
]


@SHELLS
@pytest.mark.parametrize("command", REFUSED)
def test_anything_more_than_finding_and_starting_a_program_is_left_to_the_shell(
        place: Path, shell: str, command: str) -> None:
    # The variables either shell sets itself are set here too: "$PWD" must be refused for that.
    assert direct_exec(shell, command, place, _env(place, PWD=str(place), SHLVL="1", OLDPWD="/")) is None


@pytest.mark.parametrize("extra", [
    {"BASH_ENV": "/dev/null"}, {"SHELLOPTS": "xtrace"}, {"BASH_FUNC_f%%": "() { :; }"},
    {"LC_ALL": "C.UTF-8"}, {"EXECIGNORE": "*"}, {"SHLVL": "999"}, {"SHLVL": "abc"}, {"PWD": "/./"},
])
def test_bash_variables_that_change_what_bash_does_are_left_to_bash(place: Path, extra: dict[str, str]) -> None:
    assert direct_exec(BASH, "./show.py", place, _env(place, **extra)) is None


@pytest.mark.parametrize("extra", [{"IFS": ":"}, {"OPTIND": "2"}, {"PPID": "1"}, {"PWD": f"{os.sep}tmp/"}])
def test_dash_variables_that_dash_resets_are_left_to_dash(place: Path, extra: dict[str, str]) -> None:
    assert direct_exec(DASH, "./show.py", place, _env(place, **extra)) is None


def test_other_shells_and_odd_places_are_left_to_the_shell(place: Path) -> None:
    copy = place / "mysh"
    shutil.copy(DASH, copy)  # dash's bytes under another name: not a shell we know by name
    (place / "sh").symlink_to(BASH)  # bash started as `sh` runs in POSIX mode
    env = _env(place)
    assert direct_exec(str(copy), "./show.py", place, env) is None
    assert direct_exec(sys.executable, "./show.py", place, env) is None
    assert direct_exec(str(place / "sh"), "./show.py", place, env) is None
    assert direct_exec(BASH, "onpath", place, {"HOME": "/"}) is None  # no PATH
    assert direct_exec(BASH, "onpath", place, {"PATH": "bin:/usr/bin"}) is None  # a relative entry
    assert direct_exec(BASH, "onpath", place, {"PATH": ":/usr/bin"}) is None  # an empty one
    assert direct_exec(DASH, "./show.py", Path("relative"), env) is None
    assert direct_exec(DASH, "./show.py", place / "gone", env) is None
    # A binary found on PATH gets the bare word as argv[0], which the launcher cannot give it.
    assert direct_exec(DASH, "env", place, env) is None
    assert direct_exec(BASH, "onpath", place, env) is not None


def test_dash_is_left_alone_where_a_core_could_be_written(place: Path) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    if hard == 0:
        pytest.fail("this machine forbids core files outright: the case cannot be set up")
    resource.setrlimit(resource.RLIMIT_CORE, (hard if hard != resource.RLIM_INFINITY else 1 << 20, hard))
    assert direct_exec(DASH, "./show.py", place, _env(place)) is None
    assert direct_exec(BASH, "./show.py", place, _env(place)) is not None


@SHELLS
@pytest.mark.parametrize("sig", ["TERM", "INT", "PIPE", "SEGV", "USR1"])
@pytest.mark.anyio
async def test_a_program_killed_by_a_signal_ends_as_its_shell_reports_it(
        monkeypatch: pytest.MonkeyPatch, place: Path, shell: str, sig: str) -> None:
    _script(place / "die.sh", f"#!/bin/sh\necho before >&2\nkill -{sig} $$\nsleep 5\n")
    assert direct_exec(shell, "./die.sh", place, _env(place)) is not None
    shelled, direct = await _both(monkeypatch, shell, "./die.sh", place, _env(place))
    number = signal.Signals[f"SIG{sig}"].value
    if shell == DASH:  # dash forked and waited: an exit status, not a signal death
        assert (shelled.exit_code, shelled.signal, shelled.cause) == (128 + number, None, None)
    else:
        assert (shelled.exit_code, shelled.signal, shelled.cause) == (None, number, "signal")
    assert direct == shelled


@pytest.mark.anyio
async def test_run_command_starts_the_program_without_the_shell(monkeypatch: pytest.MonkeyPatch, place: Path) -> None:
    # dash forks before the exec, so its program's parent shows which way it ran (bash execs: the
    # same process either way, which the equal environments above already cover).
    _script(place / "parent.sh", "#!/bin/sh\ncat /proc/$PPID/comm\n")
    shelled, direct = await _both(monkeypatch, DASH, "./parent.sh", place, _env(place))
    assert shelled.stdout == "dash\n"
    assert direct.exit_code == 0 and direct.stdout not in ("dash\n", "")


@pytest.mark.anyio
async def test_our_timeout_stays_a_timeout(monkeypatch: pytest.MonkeyPatch, place: Path) -> None:
    _script(place / "slow.sh", "#!/bin/sh\nexec sleep 30\n")
    monkeypatch.setenv("COMPAT_ADAPTER_DIRECT_EXEC", "on")
    outcome = await run_command("./slow.sh", stdin=None, cwd=place, env=_env(place), timeout_s=0.3,
                                grace_s=0.5, shell=DASH)
    assert (outcome.timed_out, outcome.cause, outcome.exit_code) == (True, "timeout", None)
    assert outcome.stderr == ""


class _ExecFormRunner:
    """A call's own runner (as the ported client is) starting the program it is given, for real."""

    async def run(self, program: Sequence[str], *, stdin: bytes | None, cwd: Path, env: Mapping[str, str],
                  timeout_s: float, grace_s: float, max_output_bytes: int) -> ProcessOutcome | None:
        # Exec form wants a path it can check from here (the client enters `cwd` first instead).
        argv = [os.path.join(cwd, program[0]), *program[1:]]
        with serving(os.environ):  # no runner inside: this run happens here
            return await run_command(argv[0], argv=argv, stdin=stdin, cwd=cwd, env=env,
                                     timeout_s=timeout_s, grace_s=grace_s, max_output_bytes=max_output_bytes)


@SHELLS
@pytest.mark.anyio
async def test_a_calls_own_runner_reports_a_signal_death_as_the_shell_would(
        monkeypatch: pytest.MonkeyPatch, place: Path, shell: str) -> None:
    _script(place / "die.sh", "#!/bin/sh\nkill -TERM $$\nsleep 5\n")
    monkeypatch.setenv("COMPAT_ADAPTER_DIRECT_EXEC", "off")
    shelled = await run_command("./die.sh", stdin=None, cwd=place, env=_env(place), timeout_s=LONG, shell=shell)
    monkeypatch.setenv("COMPAT_ADAPTER_DIRECT_EXEC", "on")
    with serving(os.environ, _ExecFormRunner()):
        direct = await run_command("./die.sh", stdin=None, cwd=place, env=_env(place), timeout_s=LONG, shell=shell)
    assert replace(direct, duration_ms=0.0) == replace(shelled, duration_ms=0.0)


# What the files alone decide is remembered by their identity, checked with a stat at every call;
# shellexec remembers nothing about a file changed in the last 2 seconds (a rewrite within one
# timestamp tick could keep every field of its identity), so the cases below wait that out once.
SETTLE_S = 2.2


def _decided(shell: str, command: str, cwd: Path, env: Mapping[str, str]) -> object:
    found = direct_exec(shell, command, cwd, env)
    return None if found is None else [list(found.argv), sorted(map(list, found.env.items())), found.forks]


def _fresh(shell: str, command: str, cwd: Path, env: Mapping[str, str]) -> object:
    """The same question asked of a new process, which has remembered nothing."""
    code = ("import json, sys\nfrom pathlib import Path\nfrom compat_adapter.runtime.shellexec import direct_exec\n"
            "shell, command, cwd, env = json.load(sys.stdin)\nfound = direct_exec(shell, command, Path(cwd), env)\n"
            "print(json.dumps(None if found is None else"
            " [list(found.argv), sorted(map(list, found.env.items())), found.forks]))\n")
    done = subprocess.run([sys.executable, "-c", code], input=json.dumps([shell, command, str(cwd), dict(env)]),
                          capture_output=True, text=True, check=True, timeout=LONG)
    return json.loads(done.stdout)


def _guard(folder: Path, interpreter: str = "interp") -> None:
    _script(folder / "guard.py", SHOW.replace(f"#!{PYTHON}", f"#!{folder}/{interpreter}", 1))


def _rewrite_to_a_missing_interpreter(folder: Path) -> None:
    # In place, the same size: only the file's mtime and ctime tell this from the file before.
    _guard(folder, "intrp0")


def _drop_the_x_bit(folder: Path) -> None:
    (folder / "guard.py").chmod(0o644)


def _replace_by_a_folder(folder: Path) -> None:
    (folder / "guard.py").unlink()
    (folder / "guard.py").mkdir()


def _delete(folder: Path) -> None:
    (folder / "guard.py").unlink()


def _replace_the_interpreter_by_a_script(folder: Path) -> None:
    # A new file renamed over the old name: what a package upgrade does. The kernel still runs the
    # guard (an interpreter may be a script), so the shell must be left to do it.
    _script(folder / "interp.new", f'#!/bin/sh\nexec {PYTHON} "$@"\n')
    (folder / "interp.new").rename(folder / "interp")


def _restore(folder: Path) -> None:
    if (folder / "guard.py").is_dir():
        (folder / "guard.py").rmdir()
    (folder / "interp").unlink()
    (folder / "interp").symlink_to(PYTHON)
    _guard(folder)


CHANGES = [_rewrite_to_a_missing_interpreter, _drop_the_x_bit, _replace_by_a_folder, _delete,
           _replace_the_interpreter_by_a_script]


@pytest.fixture(scope="module")
def settled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder per case below, each with a guard run by its own interpreter, left alone long enough
    to be remembered."""
    root = tmp_path_factory.mktemp("settled")
    for shell in ("dash", "bash"):
        for change in CHANGES:
            folder = root / shell / change.__name__
            folder.mkdir(parents=True)
            (folder / "interp").symlink_to(PYTHON)
            _guard(folder)
    links = root / "links"  # shells: `sh` -> dash, `via` -> `alt` (/etc/alternatives/sh, as it were) -> dash
    links.mkdir()
    (links / "interp").symlink_to(PYTHON)
    _guard(links)
    (links / "alt").symlink_to(DASH)
    (links / "sh").symlink_to(DASH)
    (links / "via").symlink_to(links / "alt")
    time.sleep(SETTLE_S)
    return root


@SHELLS
@pytest.mark.parametrize("change", CHANGES, ids=lambda change: change.__name__.strip("_"))
@pytest.mark.anyio
async def test_a_changed_program_is_decided_again_at_the_next_call(
        monkeypatch: pytest.MonkeyPatch, settled: Path, shell: str, change: Callable[[Path], None]) -> None:
    folder = settled / os.path.basename(shell) / change.__name__
    env = _env(folder)
    assert _decided(shell, "./guard.py", folder, env) is not None  # remembered, the files being settled
    change(folder)
    assert _decided(shell, "./guard.py", folder, env) is None
    assert _fresh(shell, "./guard.py", folder, env) is None
    shelled, direct = await _both(monkeypatch, shell, "./guard.py", folder, env)
    assert direct == shelled  # a remembered answer would start what the shell no longer would
    _restore(folder)  # and back: a file refused before is started again
    decided = _decided(shell, "./guard.py", folder, env)
    assert decided is not None and decided == _fresh(shell, "./guard.py", folder, env)
    shelled, direct = await _both(monkeypatch, shell, "./guard.py", folder, env)
    assert shelled.exit_code == 0, shelled
    assert direct == shelled


@SHELLS
def test_a_script_rewritten_right_after_its_first_call_is_read_again(place: Path, shell: str) -> None:
    # Written, decided and rewritten (same size) within a few milliseconds: on a filesystem whose
    # timestamps move by the tick, perhaps within one, so that nothing in a stat tells the two apart
    # (Linux 6.13+ gives ext4, xfs, btrfs and tmpfs a finer ctime once a stat has read it).
    (place / "interp").symlink_to(PYTHON)
    for _ in range(20):
        _guard(place)
        assert _decided(shell, "./guard.py", place, _env(place)) is not None
        _guard(place, "intrp0")
        assert _decided(shell, "./guard.py", place, _env(place)) is None


def test_a_re_pointed_shell_link_is_seen(settled: Path) -> None:
    folder = settled / "links"
    env = _env(folder)
    for shell in ("sh", "via"):
        assert _decided(str(folder / shell), "./guard.py", folder, env) is not None
    # The shell's own link re-pointed, as `ln -sf` does it (a new link renamed over the old one) ...
    (folder / "sh.new").symlink_to(BASH)
    (folder / "sh.new").rename(folder / "sh")
    # ... and a link further down its chain: bash started as `sh` or `via` is not started around.
    (folder / "alt.new").symlink_to(BASH)
    (folder / "alt.new").rename(folder / "alt")
    for shell in ("sh", "via"):
        assert _decided(str(folder / shell), "./guard.py", folder, env) is None
        assert _fresh(str(folder / shell), "./guard.py", folder, env) is None
