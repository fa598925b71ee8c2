"""The compiled shim client by a name a committed file can carry (issue 38): port places it as
``compat-adapter-shim`` in the install's scripts folder and the entries name it by bare name, so
two machines write the same bytes; where that name on PATH is not this install's client, the
entries name its path and port says why; a clone whose machine lacks the client is told so.

Each "machine" is a real virtual environment of its own (its own ``bin/``, the scripts folder pip
would use, and its own interpreter, which the client is built for) with its own state folder; the
C compiler is the machine's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import pytest


GUARD = "#!/bin/sh\ncase \"$(cat)\" in *\"rm -rf\"*) echo \"GUARD: no rm -rf here\" >&2; exit 2;; esac\nexit 0\n"
CLAUDE = json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                                                                             "command": "./guard.sh"}]}]}})


@pytest.fixture(autouse=True)
def no_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPAT_ADAPTER_SHIM_SERVER", "off")


@dataclass(frozen=True)
class Machine:
    """One install: a venv whose interpreter imports this checkout, its own state folder and PATH."""

    bin: Path
    state: Path

    def env(self, path_first: tuple[Path, ...] = (), with_scripts: bool = True) -> dict[str, str]:
        folders = [*map(str, path_first), *([str(self.bin)] if with_scripts else []), "/usr/bin", "/bin"]
        return {**os.environ, "PATH": os.pathsep.join(folders), "COMPAT_ADAPTER_STATE_HOME": str(self.state)}

    def run(self, *args: str, cwd: Path | None = None, **env_kw: object) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(self.bin / "python"), "-m", "compat_adapter", *args], capture_output=True,
                              text=True, cwd=cwd, env=self.env(**env_kw), timeout=180)  # type: ignore[arg-type]


def _machine(root: Path) -> Machine:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True, timeout=120)
    site = subprocess.run([str(root / "venv/bin/python"), "-c",
                           "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # This checkout's install (its editable finder and dependencies), read as a site folder.
    (Path(site) / "checkout.pth").write_text(f"import site; site.addsitedir({sysconfig.get_path('purelib')!r})\n")
    (root / "state").mkdir()
    return Machine(root / "venv" / "bin", root / "state")


@pytest.fixture(scope="module")
def machines(tmp_path_factory: pytest.TempPathFactory) -> tuple[Machine, Machine]:
    return _machine(tmp_path_factory.mktemp("laptop")), _machine(tmp_path_factory.mktemp("desktop"))


def _project(root: Path, machine: Machine) -> Path:
    root.mkdir(parents=True)
    (root / "guard.sh").write_text(GUARD)
    (root / "guard.sh").chmod(0o755)
    (root / ".claude").mkdir()
    (root / ".claude/settings.json").write_text(CLAUDE)
    done = machine.run("trust", "--yes", str(root / ".claude/settings.json"))
    assert done.returncode == 0, done.stderr
    return root


def _entry(root: Path) -> str:
    groups = json.loads((root / ".codex/hooks.json").read_text())["hooks"]["PreToolUse"]
    return next(h["command"] for g in groups for h in g["hooks"] if " shim " in h["command"])


def _call(root: Path, machine: Machine, shell: str) -> subprocess.CompletedProcess[str]:
    stdin = json.dumps({"session_id": "s1", "cwd": str(root), "hook_event_name": "PreToolUse", "tool_name": "Bash",
                        "tool_input": {"command": shell}})
    return subprocess.run(["/bin/sh", "-c", _entry(root)], input=stdin, capture_output=True, text=True, cwd=root,
                          env=machine.env(), timeout=120)


def test_two_machines_write_the_same_file_naming_the_client_on_path(machines: tuple[Machine, Machine],
                                                                   tmp_path: Path) -> None:
    """Each machine builds its own client (its interpreter, its state folder) and places it as
    compat-adapter-shim beside compat-adapter; the entries name it bare, so the two files are the
    same bytes, the one committed from the laptop is up to date on the desktop, and its entry
    runs the guard there."""
    laptop, desktop = machines
    written = []
    for name, machine in (("a", laptop), ("b", desktop)):
        root = _project(tmp_path / name / "project", machine)
        done = machine.run("port", "--to", "codex", str(root), "--json")
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert report["client"] == "compat-adapter-shim" and report["client_note"] == ""
        entry = _entry(root)
        assert " compat-adapter-shim shim --to codex " in entry and str(tmp_path) not in entry
        assert (machine.bin / "compat-adapter-shim").is_file()
        # What a machine without the client gets, said where the file is written: Codex would let
        # the call through on exit 127, so the entry refuses instead.
        effect = report["client_missing_effect"]
        assert "where codex would read exit 127 as a non-blocking error" in effect
        assert "the entry exits 2 with the reason, and the call is refused" in effect
        written.append((root, (root / ".codex/hooks.json").read_bytes()))
    assert written[0][1] == written[1][1]
    assert (laptop.bin / "compat-adapter-shim").read_bytes() != (desktop.bin / "compat-adapter-shim").read_bytes()
    # The laptop's file, committed and cloned on the desktop: --check agrees, and the entry guards.
    clone = _project(tmp_path / "clone", desktop)
    (clone / ".codex").mkdir()
    (clone / ".codex/hooks.json").write_bytes(written[0][1])
    check = desktop.run("port", "--to", "codex", "--check", str(clone))
    assert check.returncode == 0, check.stdout + check.stderr
    denied = json.loads(_call(clone, desktop, "rm -rf build").stdout)["hookSpecificOutput"]
    assert denied["permissionDecision"] == "deny" and "GUARD: no rm -rf here" in denied["permissionDecisionReason"]
    assert "permissionDecision" not in _call(clone, desktop, "ls").stdout


def test_a_clone_without_the_client_is_told_and_one_step_places_it(machines: tuple[Machine, Machine],
                                                                   tmp_path: Path) -> None:
    """The committed entries name compat-adapter-shim and this machine never placed it. Codex reads
    the shell's exit 127 as a non-blocking error (the guard would fail open), so the entry exits 2
    with the reason instead, which Codex's dialect (pinned to the real CLI by the lane) reads as a
    deny of every call; port --check, doctor and grade say client-missing with the step that fixes
    it, and --install-client takes that step."""
    from compat_adapter.dialects import dialect_for
    from compat_adapter.port.clientname import ABSENT_TEXT
    from compat_adapter.runtime.outcome import ProcessOutcome

    laptop, _ = machines
    root = _project(tmp_path / "project", laptop)
    assert laptop.run("port", "--to", "codex", str(root)).returncode == 0
    (laptop.bin / "compat-adapter-shim").unlink()
    # A dry run places nothing either: it says what is missing.
    dry = laptop.run("port", "--to", "codex", str(root), "--dry-run", "--json")
    assert json.loads(dry.stdout)["client_note"].startswith("client-missing: ")
    assert not (laptop.bin / "compat-adapter-shim").exists()
    for shell in ("rm -rf build", "ls"):
        missing = _call(root, laptop, shell)
        assert missing.returncode == 2 and missing.stdout == "" and missing.stderr == ABSENT_TEXT + "\n"
        read = dialect_for("codex").decode("PreToolUse", ProcessOutcome(
            exit_code=missing.returncode, stdout=missing.stdout, stderr=missing.stderr, timed_out=False,
            truncated=False, cause=None, duration_ms=0.0))
        assert read.decision == "deny" and "--install-client" in (read.reason or "")
    check = laptop.run("port", "--to", "codex", "--check", str(root), "--json")
    assert check.returncode == 1
    report = json.loads(check.stdout)
    assert report["up_to_date"] is True and report["client_missing"].startswith("client-missing: ")
    assert "--install-client" in report["client_missing"] and not (laptop.bin / "compat-adapter-shim").exists()
    assert laptop.run("trust", "--yes", str(root / ".codex/hooks.json")).returncode == 0
    doctor = json.loads(laptop.run("doctor", str(root), "--json").stdout)
    codex = next(h for h in doctor["hooks"] if h["vendor"] == "codex")
    assert codex["runs"] is False and codex["failed"] == "starts"
    assert codex["why"].startswith("client-missing: ") and "--install-client" in codex["why"]
    grade = laptop.run("grade", str(root), "--json")
    assert '"client-missing"' in grade.stdout
    explained = laptop.run("explain", "--code", "client-missing")
    assert explained.returncode == 0 and "--install-client" in explained.stdout
    placed = laptop.run("port", "--install-client")
    assert placed.returncode == 0, placed.stdout + placed.stderr
    assert laptop.run("port", "--to", "codex", "--check", str(root)).returncode == 0
    assert json.loads(_call(root, laptop, "rm -rf build").stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_where_the_name_on_path_is_not_this_installs_client_the_entries_name_its_path_and_say_why(
        machines: tuple[Machine, Machine], tmp_path: Path) -> None:
    """Three machines where the bare name would start something else or nothing: the scripts folder
    not on PATH, another compat-adapter-shim first on PATH, a scripts folder port cannot write. The
    entries then start this machine's build by its path, and the note says so and why."""
    laptop, _ = machines
    root = _project(tmp_path / "project", laptop)

    def port(**env_kw: object) -> dict:
        done = laptop.run("port", "--to", "codex", str(root), "--json", **env_kw)
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert report["client"].startswith(str(laptop.state / "bin" / "compat-adapter-shim-"))
        assert _entry(root).startswith(report["client"] + " shim --to codex ")
        assert "this machine's compiled shim client by its path" in report["client_note"]
        assert report["client_missing_effect"] == ""
        return report

    assert "is not on PATH" in port(with_scripts=False)["client_note"]
    refused = laptop.run("port", "--install-client", with_scripts=False)
    assert refused.returncode == 1 and "compat-adapter-shim not placed" in refused.stdout
    other = tmp_path / "other-install"
    other.mkdir()
    (other / "compat-adapter-shim").write_text("#!/bin/sh\nexit 0\n")
    (other / "compat-adapter-shim").chmod(0o755)
    assert f"another compat-adapter-shim comes first on PATH ({other}/compat-adapter-shim)" in \
        port(path_first=(other,))["client_note"]
    (laptop.bin / "compat-adapter-shim").unlink(missing_ok=True)
    # A folder nobody may write; root writes past mode bits, so it is made immutable there.
    lock, unlock = ((["chattr", "+i"], ["chattr", "-i"]) if os.geteuid() == 0 else
                    (["chmod", "0555"], ["chmod", "0755"]))
    subprocess.run([*lock, str(laptop.bin)], check=True)
    try:
        note = port()["client_note"]
    finally:
        subprocess.run([*unlock, str(laptop.bin)], check=True)
    assert f"the install's scripts folder {laptop.bin} is not writable" in note
    assert not (laptop.bin / "compat-adapter-shim").exists()
    # The denied entry still runs this machine's build.
    assert json.loads(_call(root, laptop, "rm -rf build").stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_each_target_reads_a_missing_client_by_its_own_dialect_and_port_says_which_guard_fails_open(
        tmp_path: Path) -> None:
    """Per target and event: Gemini reads the shell's exit 127 as a refusal already (the entry is
    left as it is); Claude reads it as a non-blocking error on PreToolUse and UserPromptSubmit, so
    those entries refuse with exit 2 (run here in a real shell without the client); Claude's
    PermissionRequest reads neither as a refusal, and port says that guard fails open there."""
    from compat_adapter.hostproto import EntrySpec
    from compat_adapter.port.clientname import ABSENT_TEXT, guard_absent_client

    command = "compat-adapter-shim shim --to x SPEC"
    gemini, said = guard_absent_client("gemini", [EntrySpec("BeforeTool", command, 60.0)])
    assert [e.command for e in gemini] == [command] and "gemini reads the shell's exit 127 on BeforeTool" in said
    events = ["PreToolUse", "UserPromptSubmit", "PermissionRequest", "PostToolUse"]
    claude, said = guard_absent_client("claude", [EntrySpec(e, command, 60.0) for e in events])
    wrapped = {e.event for e in claude if e.command != command}
    assert wrapped == {"PreToolUse", "UserPromptSubmit"}
    assert "on PreToolUse, UserPromptSubmit, where claude would read exit 127 as a non-blocking error" in said
    assert "claude lets every call through on PermissionRequest (fails open" in said
    entry = next(e.command for e in claude if e.event == "PreToolUse")
    ran = subprocess.run(["/bin/sh", "-c", entry], capture_output=True, text=True, cwd=tmp_path, timeout=60,
                         env={"PATH": str(tmp_path)})
    assert ran.returncode == 2 and ran.stderr == ABSENT_TEXT + "\n"


def test_a_guard_entry_whose_client_is_there_runs_it_in_the_shells_own_process(tmp_path: Path) -> None:
    """Where the client is on PATH the wrapped entry's shell becomes the client (``exec``): the
    process the target started and signals is the client itself, not a shell waiting on it."""
    from compat_adapter.hostproto import EntrySpec
    from compat_adapter.port.clientname import CLIENT_NAME, guard_absent_client

    client = tmp_path / CLIENT_NAME
    client.write_text("#!/bin/sh\necho \"$$ $*\"\n")
    client.chmod(0o755)
    (entry,), _ = guard_absent_client("claude", [EntrySpec("PreToolUse", f"{CLIENT_NAME} shim --to claude SPEC", 60.0)])
    assert entry.command.startswith("command -v ")
    for shell in ("/bin/sh", "/bin/bash"):
        started = subprocess.Popen([shell, "-c", entry.command], stdout=subprocess.PIPE, text=True, cwd=tmp_path,
                                   env={"PATH": f"{tmp_path}:/usr/bin:/bin"})
        said, _ = started.communicate(timeout=60)
        assert started.returncode == 0 and said == f"{started.pid} shim --to claude SPEC\n", (shell, said)


def test_an_install_linked_onto_path_gets_the_client_beside_the_link(machines: tuple[Machine, Machine],
                                                                     tmp_path: Path) -> None:
    """pipx and ``uv tool`` keep the install's scripts folder off PATH and link its entry point into
    a folder on it (``~/.local/bin``): the client goes beside that link, and the entries name it."""
    _, desktop = machines
    entry_point = desktop.bin / "compat-adapter"  # what pip writes for the console script
    entry_point.write_text(f"#!{desktop.bin / 'python'}\nimport sys\nfrom compat_adapter.cli import main\n"
                           "sys.exit(main())\n")
    entry_point.chmod(0o755)
    links = tmp_path / "local-bin"
    links.mkdir()
    (links / "compat-adapter").symlink_to(entry_point)
    root = _project(tmp_path / "project", desktop)
    done = desktop.run("port", "--to", "codex", str(root), "--json", path_first=(links,), with_scripts=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["client"] == "compat-adapter-shim"
    placed = links / "compat-adapter-shim"
    assert placed.is_file() and not placed.is_symlink()
    # A target's shell with that PATH runs the guard through it.
    stdin = json.dumps({"session_id": "s1", "cwd": str(root), "hook_event_name": "PreToolUse", "tool_name": "Bash",
                        "tool_input": {"command": "rm -rf build"}})
    ran = subprocess.run(["/bin/sh", "-c", _entry(root)], input=stdin, capture_output=True, text=True, cwd=root,
                         env=desktop.env(path_first=(links,), with_scripts=False), timeout=120)
    assert json.loads(ran.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
